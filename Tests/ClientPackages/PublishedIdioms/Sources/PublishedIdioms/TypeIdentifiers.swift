// File-type plumbing as media apps write it: the legacy UTType C functions, the UTType struct,
// AVFileType from a type identifier, and URLs built from a content type.
import AVFoundation
import UniformTypeIdentifiers

func fileExtension(forUTI uti: String) -> String? {
    guard let ext = UTTypeCopyPreferredTagWithClass(uti as CFString, kUTTagClassFilenameExtension)?.takeRetainedValue() else {
        return nil
    }
    return ext as String
}

func mimeType(forPathExtension pathExtension: String) -> String {
    if let uti = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, pathExtension as NSString, nil)?.takeRetainedValue(),
       let mimetype = UTTypeCopyPreferredTagWithClass(uti, kUTTagClassMIMEType)?.takeRetainedValue() {
        return mimetype as String
    }
    return "application/octet-stream"
}

func avFileType(for url: URL) -> AVFileType? {
    guard let type = UTType(filenameExtension: url.pathExtension) else { return nil }
    if type.conforms(to: .quickTimeMovie) { return .mov }
    if type.conforms(to: .mpeg4Movie) || type.conforms(to: .mpeg4Audio) { return AVFileType(type.identifier) }
    return AVFileType(rawValue: type.identifier)
}

enum TypeIdentifiers {
    static func run() {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory())
        let movie = dir.appendingPathComponent("clip", conformingTo: .quickTimeMovie)
        let kept = dir.appendingPathComponent("song.m4a", conformingTo: .audio)
        let isAudio = UTTypeConformsTo(kUTTypeMP3, kUTTypeAudio)
        let m4a = UTType(filenameExtension: "m4a")
        print("uti mp4ext=\(fileExtension(forUTI: "public.mpeg-4") ?? "-")"
              + " movmime=\(mimeType(forPathExtension: "mov"))"
              + " unknown=\(mimeType(forPathExtension: ""))"
              + " filetype=\(AVFileType(UTType.mpeg4Movie.identifier) == .mp4)"
              + " m4atype=\(avFileType(for: URL(fileURLWithPath: "/x/a.m4a"))?.rawValue ?? "-")"
              + " movtype=\(avFileType(for: URL(fileURLWithPath: "/x/a.MOV")) == .mov)"
              + " url=\(movie.lastPathComponent) kept=\(kept.lastPathComponent)"
              + " m4a=\(m4a?.identifier ?? "-") audio=\(m4a?.conforms(to: .audio) ?? false)"
              + " mp3=\(UTType.mp3.preferredMIMEType ?? "-") wav=\(UTType.wav.preferredFilenameExtension ?? "-")"
              + " aiff=\(UTType.aiff.preferredFilenameExtension ?? "-") legacy=\(isAudio)")
    }
}
