// The errors Apple code sees when an asset cannot load: missing, unreadable, foreign, empty.
import AVFoundation
import Foundation
import Testing

@Suite("AVError")
struct AVErrorTests {
    private func loadError(_ url: URL) async -> NSError? {
        do {
            _ = try await AVURLAsset(url: url).load(.tracks)
            return nil
        } catch {
            return error as NSError
        }
    }

    @Test("a missing file fails like Apple's URL loading: NSURLErrorDomain -1100 over ENOENT")
    func missing() async throws {
        let url = try AssetFixtures.tempDirectory().appendingPathComponent("missing.mp4")
        let error = try #require(await loadError(url))
        #expect(error.domain == NSURLErrorDomain && error.code == NSURLErrorFileDoesNotExist)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == NSPOSIXErrorDomain && underlying.code == Int(ENOENT))
        // The classic API reports it through statusOfValue.
        let asset = AVURLAsset(url: url)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: ["tracks", "duration"]) { done.resume() }
        }
        var status: NSError?
        #expect(asset.statusOfValue(forKey: "tracks", error: &status) == .failed)
        #expect(status?.code == NSURLErrorFileDoesNotExist)
        #expect(asset.tracks.isEmpty && !asset.duration.isValid && !asset.isPlayable)
    }

    @Test("an unreadable file gives NSURLErrorNoPermissionsToReadFile over EACCES")
    func unreadable() async throws {
        guard getuid() != 0 else { print("skipped: running as root, permissions do not apply"); return }
        let url = try AssetFixtures.tempDirectory().appendingPathComponent("locked.mp4")
        try Data(repeating: 1, count: 100).write(to: url)
        chmod(url.path, 0)
        let error = try #require(await loadError(url))
        #expect(error.domain == NSURLErrorDomain && error.code == NSURLErrorNoPermissionsToReadFile)
        #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(EACCES))
    }

    @Test("a text file and an empty file are not recognised: AVError.fileFormatNotRecognized")
    func foreign() async throws {
        let dir = try AssetFixtures.tempDirectory()
        let text = dir.appendingPathComponent("notes.mov")
        try String(repeating: "not a movie\n", count: 500).write(to: text, atomically: true, encoding: .utf8)
        let empty = dir.appendingPathComponent("empty.mp4")
        try Data().write(to: empty)
        for url in [text, empty] {
            let error = try #require(await loadError(url))
            #expect(error.domain == AVFoundationErrorDomain && error.code == -11828, "\(url.lastPathComponent)")
            #expect(error.localizedDescription == "Cannot Open")
            #expect(error.userInfo[NSUnderlyingErrorKey] is NSError)
            do {
                _ = try await AVURLAsset(url: url).load(.duration)
                Issue.record("loaded")
            } catch AVError.fileFormatNotRecognized {
                // Apple's catch pattern works.
            } catch {
                Issue.record("unexpected \(error)")
            }
            do {
                _ = try await AVURLAsset(url: url).load(.duration)
            } catch let error as AVError {
                #expect(error.code == .fileFormatNotRecognized)
            }
        }
    }

    @Test("a truncated MP4 whose movie box is gone is damaged: AVError.fileFailedToParse")
    func truncated() async throws {
        guard let source = AssetFixtures.fixture("bikes.mp4") else { return }
        let url = try AssetFixtures.tempDirectory().appendingPathComponent("cut.mp4")
        try Data(try Data(contentsOf: source).prefix(100_000)).write(to: url)
        let error = try #require(await loadError(url))
        #expect(error.domain == AVFoundationErrorDomain && error.code == AVError.Code.fileFailedToParse.rawValue)
    }

    @Test("AVError bridges to NSError with Apple's domain, code and userInfo")
    func bridging() {
        let error = AVError(.decoderNotFound, userInfo: [AVErrorPersistentTrackIDKey: NSNumber(value: 3)])
        let ns = error as NSError
        #expect(ns.domain == "AVFoundationErrorDomain" && ns.code == -11833)
        #expect(error.persistentTrackID == 3)
        #expect(ns.localizedDescription == "Cannot Decode")
        #expect(AVError.Code(rawValue: -11800) == .unknown && AVError.Code(rawValue: -11849) == .failedToLoadMediaData)
        #expect(AVError.Code.contentIsUnavailable.rawValue == -11863 && AVError.Code.operationCancelled.rawValue == -11878)
    }

    @Test("print, String(describing:) and interpolation show Apple's NSError form; localizedDescription its title")
    func printsLikeApple() {
        let error = AVError(.operationNotSupportedForAsset)
        let expected = "Error Domain=AVFoundationErrorDomain Code=-11838 \"Operation Stopped\" UserInfo={NSLocalizedDescription=Operation Stopped, "
            + "NSLocalizedFailureReason=The operation is not supported for this media.}"
        #expect("\(error)" == expected)
        #expect(String(describing: error) == expected)
        #expect(String(reflecting: error) == expected)
        let existential: any Error = error
        #expect(String(describing: existential) == expected)
        var printed = ""
        print(existential, to: &printed)
        #expect(printed == expected + "\n")
        #expect(error.localizedDescription == "Operation Stopped")
        #expect(existential.localizedDescription == "Operation Stopped")
        let ns = error as NSError
        #expect(ns.localizedDescription == "Operation Stopped")
        #expect(ns.localizedFailureReason == "The operation is not supported for this media.")
        // Apple's titles for the codes apps meet most.
        #expect(AVError(.fileFormatNotRecognized).localizedDescription == "Cannot Open")
        #expect(AVError(.decodeFailed).localizedDescription == "Cannot Decode")
        #expect(AVError(.fileAlreadyExists).localizedDescription == "Cannot Save")
        #expect(AVError(.diskFull).localizedDescription == "Operation Stopped")
        let export = AVError(.exportFailed) as NSError
        #expect(export.localizedDescription == "Cannot Complete Export")
        #expect(export.localizedRecoverySuggestion == "Try exporting again.")
    }

    @Test("a nested error prints after its address, in the same form")
    func nestedErrorsPrintLikeApple() {
        let error = AVError(.decodeFailed, userInfo: [NSUnderlyingErrorKey: NSError(domain: NSOSStatusErrorDomain, code: -12909),
                                                     AVErrorPersistentTrackIDKey: NSNumber(value: 2)])
        let text = "\(error)"
        #expect(text.hasPrefix("Error Domain=AVFoundationErrorDomain Code=-11821 \"Cannot Decode\" UserInfo={AVErrorPersistentTrackIDKey=2, "))
        #expect(text.contains("NSLocalizedFailureReason=The media data could not be decoded. It may be damaged."))
        #expect(text.range(of: #"NSUnderlyingError=0x[0-9a-f]+ \{Error Domain=NSOSStatusErrorDomain Code=-12909 "\(null\)"\}"#,
                           options: .regularExpression) != nil, "\(text)")
        #expect(!text.contains("AVError("))
    }

    @Test("errors from real failures print in Apple's form, with their failure reason")
    func realFailuresPrintLikeApple() async throws {
        let url = try AssetFixtures.tempDirectory().appendingPathComponent("notes.mov")
        try String(repeating: "not a movie\n", count: 100).write(to: url, atomically: true, encoding: .utf8)
        do {
            _ = try await AVURLAsset(url: url).load(.tracks)
            Issue.record("loaded")
        } catch {
            let text = "\(error)"
            #expect(text.hasPrefix("Error Domain=AVFoundationErrorDomain Code=-11828 \"Cannot Open\" UserInfo={"), "\(text)")
            #expect(text.contains("NSLocalizedFailureReason=This media format is not supported."), "\(text)")
            #expect(error.localizedDescription == "Cannot Open")
        }
        // An export onto an existing file.
        guard let source = ExportFixtures.audioOnly else { Issue.record("no fixture"); return }
        let out = try ExportFixtures.output("taken.m4a")
        try Data([1]).write(to: out)
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetAppleM4A, to: out, type: .m4a)
        let error = try #require(session.error)
        #expect("\(error)".hasPrefix("Error Domain=AVFoundationErrorDomain Code=-11823 \"Cannot Save\" UserInfo={"), "\(error)")
        #expect(error.localizedDescription == "Cannot Save")
    }
}

