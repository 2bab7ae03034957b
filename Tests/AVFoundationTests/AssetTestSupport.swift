// Fixtures and judges for the asset tests: the downloaded real media, files generated with the
// ffmpeg CLI, and ffprobe's view of them.
import AVFoundation
import Foundation
import Testing
import TestSupport

enum AssetFixtures {
    static let root = TestTools.root

    /// A downloaded fixture, or nil (with a message) when scripts/setup.sh has not been run.
    static func fixture(_ name: String) -> URL? {
        let url = TestTools.fixturePath(name)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        // scripts/test.sh downloads every fixture first: a missing one fails the test that
        // needs it rather than letting it pass having checked nothing.
        Issue.record("fixture \(name) is missing; run scripts/setup.sh")
        return nil
    }

    static var hasFFmpeg: Bool { TestTools.hasFFmpeg }

    @discardableResult
    static func run(_ tool: String, _ args: [String]) throws -> (status: Int32, output: String) {
        try TestTools.runText(tool, args)
    }

    static func probe(_ url: URL, _ entry: String, stream: Int? = nil) throws -> String {
        try TestTools.probe(url, entry, stream: stream).value
    }

    static func tempDirectory() throws -> URL { try TestTools.temporaryDirectory("asset-tests") }

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
