// One executable, one subcommand per published idiom.
import AVFoundation

let arguments = CommandLine.arguments
let command = arguments.count > 1 ? arguments[1] : "idioms"

do {
    switch command {
    case "keyframes":
        try KeyframeScanner.run(URL(fileURLWithPath: arguments[2]))
    case "thumbnail":
        try Thumbnailer.run(URL(fileURLWithPath: arguments[2]), output: URL(fileURLWithPath: arguments[3]))
    case "metadata":
        try await MetadataReader.run(URL(fileURLWithPath: arguments[2]))
    case "extract-audio":
        try AudioExtractor.run(URL(fileURLWithPath: arguments[2]), output: URL(fileURLWithPath: arguments[3]))
    case "edit":
        try CrossDissolveEditor.run(arguments[2..<(arguments.count - 1)].map { URL(fileURLWithPath: $0) },
                                    output: URL(fileURLWithPath: arguments[arguments.count - 1]))
    case "camera":
        try CameraController.run(directory: URL(fileURLWithPath: arguments[2]))
    case "overlay":
        try TitleOverlay.run(URL(fileURLWithPath: arguments[2]), output: URL(fileURLWithPath: arguments[3]))
    case "subtitles":
        try await SubtitleWatcher.run(URL(fileURLWithPath: arguments[2]), language: arguments[3])
    case "names":
        NameIdioms.run()
    case "images-to-movie":
        try MovieMaker.run(output: URL(fileURLWithPath: arguments[2]))
    default:
        TimeHelpers.run()
        TypeIdentifiers.run()
        CoreFoundationIdioms.run()
        KeyframeScanner.roundTrip()
        MediaDownloader.run()
        StatusObservation.run()
    }
} catch {
    print("error: \(error)")
    exit(1)
}
