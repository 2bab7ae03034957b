// Fixtures and judges for the asset tests: the downloaded real media, files generated with the
// ffmpeg CLI, and ffprobe's view of them.
import AVFoundation
import Foundation
import Testing

enum AssetFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A downloaded fixture, or nil (with a message) when scripts/setup.sh has not been run.
    static func fixture(_ name: String) -> URL? {
        let url = root.appendingPathComponent(".cache/fixtures/\(name)")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        // scripts/test.sh downloads every fixture first: a missing one fails the test that
        // needs it rather than letting it pass having checked nothing.
        Issue.record("fixture \(name) is missing; run scripts/setup.sh")
        return nil
    }

    static var hasFFmpeg: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") }

    @discardableResult
    static func run(_ tool: String, _ args: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool.hasPrefix("/") ? tool : "/usr/bin/\(tool)")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func probe(_ url: URL, _ entry: String, stream: Int? = nil) throws -> String {
        var args = ["-v", "error"]
        if let stream { args += ["-select_streams", "\(stream)"] }
        args += ["-show_entries", entry, "-of", "default=nw=1:nk=1", url.path]
        return try run("ffprobe", args).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func tempDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("asset-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Generates a file with the ffmpeg CLI into a fresh temporary directory.
    static func generate(_ name: String, _ args: [String]) throws -> URL {
        let url = try tempDirectory().appendingPathComponent(name)
        let result = try run("ffmpeg", ["-v", "error", "-y"] + args + [url.path])
        guard result.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return url
    }
}

/// Expects an exit test's child process to have written `reason` (Apple's exception text) to
/// standard error.
func expectExit(_ result: ExitTest.Result?, says reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains(reason), "\(message)", sourceLocation: sourceLocation)
}
