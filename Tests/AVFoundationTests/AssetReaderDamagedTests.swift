// The reader as a fuzzing target: truncated, bit-flipped and zero-filled copies of a real file
// read through AVAssetReader (decoded and as stored) end completed or failed with an AVError — in
// bounded time, never a crash or a hang — and the inputs are left untouched. Misuse that Apple
// answers with an exception stops the process with Apple's message.
import AVFoundation
import Foundation
import Testing
import TestSupport

@Suite("AVAssetReader damaged input and misuse")
struct AssetReaderDamagedTests {
    /// Damaged copies of bigbuckbunny.mp4 made "fast start" (movie box first), so that the
    /// tracks load and the damage is met while reading.
    static func corpus() throws -> [(name: String, url: URL)]? {
        guard let source = AssetFixtures.fixture("bigbuckbunny.mp4"), AssetFixtures.hasFFmpeg else { return nil }
        let dir = try AssetFixtures.tempDirectory()
        let faststart = dir.appendingPathComponent("faststart.mp4")
        _ = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", source.path, "-c", "copy", "-movflags", "+faststart",
                                             faststart.path])
        let bytes = [UInt8](try Data(contentsOf: faststart))
        var files: [(String, [UInt8])] = []
        for fraction in [0.05, 0.3, 0.77, 0.999] {
            files.append(("truncated-\(fraction)", Array(bytes.prefix(Int(Double(bytes.count) * fraction)))))
        }
        for (name, step) in [("bitflipped-sparse", 9973), ("bitflipped-dense", 101)] {
            var flipped = bytes
            for i in stride(from: 6000, to: flipped.count, by: step) { flipped[i] ^= 0x5A }
            files.append((name, flipped))
        }
        var zeroed = bytes
        for i in (bytes.count / 3)..<(bytes.count / 2) { zeroed[i] = 0 }
        files.append(("zero-filled-middle", zeroed))
        var garbage = bytes
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in (bytes.count / 2)..<(bytes.count * 3 / 5) {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            garbage[i] = UInt8(truncatingIfNeeded: seed >> 33)
        }
        files.append(("random-middle", garbage))
        return try files.map { name, data in
            let url = dir.appendingPathComponent("\(name).mp4")
            try Data(data).write(to: url)
            return (name, url)
        }
    }

    @Test("damaged files: completed or failed with an AVError, in bounded time, inputs untouched")
    func damagedCorpus() async throws {
        guard let corpus = try Self.corpus() else { return }
        for (name, url) in corpus {
            let before = try Data(contentsOf: url)
            let asset = AVURLAsset(url: url)
            guard let tracks = try? await asset.load(.tracks) else { continue }   // refused at loading: the asset tests cover it
            for track in tracks {
                for settings in [nil, ReaderFixtures.bgra] where settings == nil || track.mediaType == .video {
                    let started = Date()
                    let reader = try AVAssetReader(asset: asset)
                    let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
                    reader.add(output)
                    if reader.startReading() {
                        var count = 0
                        while output.copyNextSampleBuffer() != nil { count += 1 }
                        #expect(count <= 300, "\(name)")
                    }
                    #expect(reader.status == .completed || reader.status == .failed, "\(name)")
                    if reader.status == .failed {
                        let error = try #require(reader.error as NSError?)
                        #expect(error.domain == AVFoundationErrorDomain, "\(name): \(error)")
                        #expect(!error.localizedDescription.isEmpty)
                    }
                    #expect(Date().timeIntervalSince(started) < 20, "\(name)")
                }
            }
            #expect(try Data(contentsOf: url) == before, "\(name) was modified")
        }
    }

    @Test("truncated files fail: the samples before the damage, then fileFailedToParse or decodeFailed")
    func truncationFails() async throws {
        guard let corpus = try Self.corpus() else { return }
        for (name, url) in corpus where name.hasPrefix("truncated-0.3") || name.hasPrefix("truncated-0.77") {
            let (asset, track) = try await ReaderFixtures.track(url)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            reader.add(output)
            #expect(reader.startReading())
            let count = ReaderFixtures.readAll(output).count
            #expect(count > 0 && count < 132, "\(name)")
            #expect(reader.status == .failed, "\(name)")
            #expect((reader.error as NSError?)?.code == AVError.Code.fileFailedToParse.rawValue)
        }
    }

    @Test("avtool decode: counts an intact file's frames; a damaged one exits 1 with the AVError, never crashes")
    func throughTool() throws {
        let tool = AssetFixtures.root.appendingPathComponent(".build/debug/avtool")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            Issue.record("avtool is not built (swift build --build-tests builds it)"); return
        }
        guard let corpus = try Self.corpus() else { return }
        func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
            let run = try TestTools.run(tool, ["decode"] + arguments, deadline: 60)
            if !run.finished { Issue.record("avtool decode \(arguments) did not finish") }
            #expect(run.exited, "\(arguments): crashed")
            return (run.status, run.output, run.errors)
        }
        let intact = try run([ReaderFixtures.numbered.path, "--format", "bgra"])
        #expect(intact.status == 0)
        #expect(intact.output.contains("frames:     60"))
        for (name, url) in corpus {
            for format in ["bgra", "stored"] {
                let result = try run([url.path, "--format", format])
                #expect([0, 1].contains(result.status), "\(name): status \(result.status)")
                if result.status == 1 { #expect(result.error.contains("AVFoundationErrorDomain"), "\(name): \(result.error)") }
            }
        }
        let missing = try run(["/nonexistent/file.mp4"])
        #expect(missing.status == 1)
        #expect(missing.error.contains("error: "))
    }

    // MARK: Misuse (Apple raises exceptions; here the process stops with Apple's message)

    @Test("adding an output after reading started stops the process with Apple's message")
    func addAfterStart() async {
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let reader = try AVAssetReader(asset: asset)
            reader.add(AVAssetReaderTrackOutput(track: track, outputSettings: nil))
            _ = reader.startReading()
            reader.add(AVAssetReaderTrackOutput(track: track, outputSettings: nil))
        }, says: "*** -[AVAssetReader addOutput:] cannot add an output after reading has started")
    }

    @Test("adding an output twice, or one another reader has, stops the process with Apple's message")
    func addTwice() async {
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            reader.add(output)
            reader.add(output)
        }, says: "*** -[AVAssetReader addOutput:] cannot add the same output twice")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            try AVAssetReader(asset: asset).add(output)
            try AVAssetReader(asset: asset).add(output)
        }, says: "*** -[AVAssetReader addOutput:] cannot add an output that has already been added to another AVAssetReader")
    }

    @Test("startReading twice, copying before startReading, bad settings, resets out of turn stop the process")
    func otherMisuse() async {
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, _) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let reader = try AVAssetReader(asset: asset)
            _ = reader.startReading()
            _ = reader.startReading()
        }, says: "*** -[AVAssetReader startReading] cannot be called again after reading has already started")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            _ = AVAssetReaderTrackOutput(track: track, outputSettings: nil).copyNextSampleBuffer()
        }, says: "NSInternalInconsistencyException', reason: '*** -[AVAssetReaderTrackOutput copyNextSampleBuffer] "
                 + "cannot copy next sample buffer before adding this output")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            _ = AVAssetReaderTrackOutput(track: track, outputSettings: ["NoSuchKey": 1])
        }, says: "NSInvalidArgumentException', reason: '*** -[AVAssetReaderTrackOutput initWithTrack:outputSettings:] "
                 + "Output settings dictionary contains one or more invalid keys: NoSuchKey")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            _ = AVAssetReaderTrackOutput(track: track, outputSettings: ["AVVideoCodecKey": "avc1"])
        }, says: "AVAssetReaderTrackOutput does not currently support compressed output")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            _ = AVAssetReaderTrackOutput(track: track, outputSettings: ["CleanAperture": [String: Any]()])
        }, says: "does not support the output settings keys CleanAperture")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            AVAssetReaderTrackOutput(track: track, outputSettings: nil).audioTimePitchAlgorithm = AVAudioTimePitchAlgorithm(rawValue: "Fast")
        }, says: "setAudioTimePitchAlgorithm:] invalid time pitch algorithm Fast")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            reader.add(output)
            _ = reader.startReading()
            output.alwaysCopiesSampleData = false
        }, says: "setAlwaysCopiesSampleData:] cannot be called after reading has started")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, _) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let reader = try AVAssetReader(asset: asset)
            _ = reader.startReading()
            reader.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 1))
        }, says: "*** -[AVAssetReader setTimeRange:] cannot be called after reading has started")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            reader.add(output)
            _ = reader.startReading()
            output.reset(forReadingTimeRanges: [NSValue(timeRange: CMTimeRange(start: .zero, duration: .positiveInfinity))])
        }, says: "resetForReadingTimeRanges:] cannot reset an output whose supportsRandomAccess is NO")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            output.supportsRandomAccess = true
            reader.add(output)
            _ = reader.startReading()
            output.reset(forReadingTimeRanges: [NSValue(timeRange: CMTimeRange(start: .zero, duration: .positiveInfinity))])
        }, says: "cannot be called before copyNextSampleBuffer has returned NULL")
        expectExit(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            output.supportsRandomAccess = true
            reader.add(output)
            _ = reader.startReading()
            while output.copyNextSampleBuffer() != nil {}
            let range = NSValue(timeRange: CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 10)))
            output.reset(forReadingTimeRanges: [range, range])
        }, says: "the start times of the time ranges must be strictly increasing")
    }
}
