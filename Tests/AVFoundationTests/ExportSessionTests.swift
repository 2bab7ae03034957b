// AVAssetExportSession written as Apple-API programs: frame-accurate passthrough trims, presets,
// metadata, faults, progress and states — judged with ffprobe/ffmpeg and our own reader.
import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

enum ExportFixtures {
    /// 4 s of 320×240 H.264 (B-frames, a keyframe every 25 frames at 25 fps) with 48 kHz AAC.
    static let trimSource: URL? = try? AssetFixtures.generate("gop.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
        "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0",
        "-c:a", "aac", "-b:a", "64k", "-shortest",
    ])

    /// 1 s of 1280×720 H.264 at 10 fps with AAC.
    static let hd: URL? = try? AssetFixtures.generate("hd.mov", [
        "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=10:duration=1",
        "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=44100:duration=1",
        "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest",
    ])

    /// 1 s of AAC only.
    static let audioOnly: URL? = try? AssetFixtures.generate("tone.m4a", [
        "-f", "lavfi", "-i", "sine=frequency=500:sample_rate=44100:duration=1", "-c:a", "aac",
    ])

    static func output(_ name: String) throws -> URL {
        try AssetFixtures.tempDirectory().appendingPathComponent(name)
    }

    /// Exports and waits; returns the session.
    static func export(_ source: URL, preset: String, to url: URL, type: AVFileType,
                       configure: (AVAssetExportSession) -> Void = { _ in }) async throws -> AVAssetExportSession {
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: preset))
        session.outputURL = url
        session.outputFileType = type
        configure(session)
        await session.export()
        return session
    }

    /// ffmpeg's framemd5 hash of one decoded video frame (`index` of the file, or the first).
    static func frameHash(_ url: URL, index: Int = 0) throws -> String? {
        var args = ["-v", "error", "-i", url.path, "-map", "0:v:0"]
        if index > 0 { args += ["-vf", "select=eq(n\\,\(index))"] }
        args += ["-frames:v", "1", "-f", "framemd5", "-"]
        let out = try AssetFixtures.run("ffmpeg", args).output
        return out.split(separator: "\n").last { !$0.hasPrefix("#") }?.split(separator: ",").last
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The first decoded picture of `url` at or after `start` through AVAssetReader: its time and
    /// luma bytes (row by row, without padding).
    static func firstPicture(_ url: URL, from start: CMTime) async throws -> (time: CMTime, luma: [UInt8]) {
        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try AVAssetReader(asset: asset)
        reader.timeRange = CMTimeRange(start: start, duration: .positiveInfinity)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange])
        reader.add(output)
        #expect(reader.startReading())
        var sample = output.copyNextSampleBuffer()
        while let s = sample, CMSampleBufferGetPresentationTimeStamp(s) < start { sample = output.copyNextSampleBuffer() }
        let found = try #require(sample)
        let buffer = try #require(CMSampleBufferGetImageBuffer(found))
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let width = CVPixelBufferGetWidthOfPlane(buffer, 0), height = CVPixelBufferGetHeightOfPlane(buffer, 0)
        let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
        let base = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 0)).assumingMemoryBound(to: UInt8.self)
        var luma: [UInt8] = []
        for y in 0..<height { luma += UnsafeBufferPointer(start: base + y * stride, count: width) }
        reader.cancelReading()
        return (CMSampleBufferGetPresentationTimeStamp(found), luma)
    }
}

@Suite(.serialized) struct ExportSessionTests {
    // MARK: Passthrough trims

    @Test(arguments: [AVFileType.mp4, .mov, .m4v])
    func passthroughTrimBetweenKeyframesStartsOnTheRequestedFrame(_ type: AVFileType) async throws {
        let source = try #require(ExportFixtures.trimSource)
        let ext = type == .mov ? "mov" : type == .m4v ? "m4v" : "mp4"
        let out = try ExportFixtures.output("trim.\(ext)")
        // Frame 37 (1.48 s) lies between the keyframes at frames 25 and 50; 25 frames (1 s).
        let start = CMTime(value: 37, timescale: 25)
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: out, type: type) {
            $0.timeRange = CMTimeRange(start: start, duration: CMTime(value: 1, timescale: 1))
        }
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(session.progress == 1)

        // ffmpeg shows the requested frame first, and exactly 25 frames.
        let wanted = try #require(try ExportFixtures.frameHash(source, index: 37))
        #expect(try ExportFixtures.frameHash(out) == wanted)
        #expect(try ExportFixtures.frameHash(source, index: 36) != wanted)
        let frames = try AssetFixtures.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                       "stream=nb_read_frames", "-of", "default=nw=1:nk=1", out.path]).output
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "25")
        // ffprobe's duration is the requested one.
        let duration = try #require(Double(try AssetFixtures.probe(out, "format=duration")))
        #expect(abs(duration - 1.0) < 0.03, "duration \(duration)")
        // Packets were copied, not re-encoded: the first written packet is the keyframe at frame 25.
        let codec = try AssetFixtures.probe(out, "stream=codec_name", stream: 0)
        #expect(codec == "h264")

        // Our reader: the first picture is at time 0 and is the source's frame at 1.48 s.
        let (time, luma) = try await ExportFixtures.firstPicture(out, from: .zero)
        #expect(time == .zero)
        let (sourceTime, sourceLuma) = try await ExportFixtures.firstPicture(source, from: start)
        #expect(sourceTime == start)
        #expect(luma == sourceLuma)
        let asset = AVURLAsset(url: out)
        let assetDuration = try await asset.load(.duration)
        #expect(abs(assetDuration.seconds - 1.0) < 0.03)
        // Audio stays: AAC copied, lasting the trimmed duration.
        let audio = try await asset.loadTracks(withMediaType: .audio)
        #expect(audio.count == 1)
        if let track = audio.first {
            let range = try await track.load(.timeRange)
            #expect(abs(range.duration.seconds - 1.0) < 0.03, "audio \(range.duration.seconds)")
        }
    }

    @Test func passthroughOfTheWholeFileCopiesEveryPacket() async throws {
        let source = try #require(ExportFixtures.trimSource)
        let out = try ExportFixtures.output("copy.mp4")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: out, type: .mp4)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let hashes = { (url: URL) throws -> [String] in
            try AssetFixtures.run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"]).output
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
        }
        #expect(try hashes(out) == hashes(source))
        #expect(try hashes(out).count == 100)
    }

    // MARK: Presets

    @Test func preset640x480FitsA1280x720SourceInto640x360H264() async throws {
        let source = try #require(ExportFixtures.hd)
        let out = try ExportFixtures.output("small.mp4")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPreset640x480, to: out, type: .mp4)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(try AssetFixtures.probe(out, "stream=codec_name", stream: 0) == "h264")
        #expect(try AssetFixtures.probe(out, "stream=width,height", stream: 0) == "640\n360")
        #expect(try AssetFixtures.probe(out, "stream=codec_name", stream: 1) == "aac")
        let asset = AVURLAsset(url: out)
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        #expect(try await video.load(.naturalSize) == CGSize(width: 640, height: 360))
        let duration = try await asset.load(.duration)
        #expect(abs(duration.seconds - 1) < 0.05)
    }

    @Test func appleM4AWritesAudioOnly() async throws {
        let source = try #require(ExportFixtures.hd)
        let out = try ExportFixtures.output("sound.m4a")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetAppleM4A, to: out, type: .m4a)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(try AssetFixtures.probe(out, "stream=codec_type") == "audio")
        #expect(try AssetFixtures.probe(out, "stream=codec_name") == "aac")
        let asset = AVURLAsset(url: out)
        #expect(try await asset.loadTracks(withMediaType: .video).isEmpty)
        #expect(try await asset.loadTracks(withMediaType: .audio).count == 1)
    }

    @Test func proResPresetWritesProResAndLinearPCM() async throws {
        let source = try #require(ExportFixtures.hd)
        let out = try ExportFixtures.output("master.mov")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetAppleProRes422LPCM, to: out, type: .mov)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(try AssetFixtures.probe(out, "stream=codec_name", stream: 0) == "prores")
        #expect(try AssetFixtures.probe(out, "stream=codec_name", stream: 1) == "pcm_s16le")
        #expect(try AssetFixtures.probe(out, "stream=width,height", stream: 0) == "1280\n720")
    }

    // MARK: Metadata

    @Test func sessionMetadataReadsBackThroughAVAsset() async throws {
        let source = try #require(ExportFixtures.trimSource)
        let out = try ExportFixtures.output("tagged.mov")
        let title = AVMutableMetadataItem()
        title.identifier = .commonIdentifierTitle
        title.value = "Exported clip" as NSString
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: out, type: .mov) {
            $0.metadata = [title]
        }
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let items = try await AVURLAsset(url: out).load(.commonMetadata)
        let titles = AVMetadataItem.metadataItems(from: items, filteredByIdentifier: .commonIdentifierTitle)
        let value = try await titles.first?.load(.stringValue)
        #expect(value == "Exported clip")
    }

    // MARK: Faults

    @Test func exportingOntoAnExistingFileFailsAndLeavesItUntouched() async throws {
        let source = try #require(ExportFixtures.trimSource)
        let out = try ExportFixtures.output("existing.mp4")
        let original = Data("keep me".utf8)
        try original.write(to: out)
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: out, type: .mp4)
        #expect(session.status == .failed)
        let error = try #require(session.error as NSError?)
        #expect(error.domain == AVFoundationErrorDomain)
        #expect(error.code == AVError.Code.fileAlreadyExists.rawValue)
        #expect(try Data(contentsOf: out) == original)
    }

    @Test func missingOutputURLOrFileTypeFailsWithAClearError() async throws {
        let source = try #require(ExportFixtures.trimSource)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        session.outputFileType = .mp4
        await session.export()
        #expect(session.status == .failed)
        #expect((session.error as NSError?)?.domain == AVFoundationErrorDomain)
        let typeless = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        typeless.outputURL = try ExportFixtures.output("typeless.mp4")
        await typeless.export()
        #expect(typeless.status == .failed)
        #expect(!FileManager.default.fileExists(atPath: typeless.outputURL!.path))
    }

    @Test func anUnwritableFolderFailsWithAnAVErrorAndNoOutput() async throws {
        let source = try #require(ExportFixtures.trimSource)
        let file = try ExportFixtures.output("plain-file")
        try Data("x".utf8).write(to: file)
        let out = file.appendingPathComponent("out.mp4")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: out, type: .mp4)
        #expect(session.status == .failed)
        #expect((session.error as NSError?)?.domain == AVFoundationErrorDomain)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func aFullDiskFailsTheExportAndLeavesNoOutput() throws {
        guard let avtool = AssetWriterFaultTests.avtool, let source = ExportFixtures.hd else {
            Issue.record("avtool is not built or ffmpeg is missing")
            return
        }
        let out = try ExportFixtures.output("full.mov")
        // 32 KiB may be written; a ProRes export needs far more.
        let result = try AssetFixtures.run("/bin/bash", ["-c", "ulimit -f 32; exec \"$0\" convert -s \"$1\" -o \"$2\" -p PresetAppleProRes422LPCM --quiet 2>&1",
                                                         avtool.path, source.path, out.path])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(AVFoundationErrorDomain), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func cancellingEndsCancelledCallsTheHandlerOnceAndLeavesNoOutput() async throws {
        let source = try #require(ExportFixtures.hd)
        let out = try ExportFixtures.output("cancelled.mov")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetAppleProRes422LPCM))
        session.outputURL = out
        session.outputFileType = .mov
        let calls = CallCounter()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.exportAsynchronously {
                calls.increment()
                continuation.resume()
            }
            session.cancelExport()
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(calls.count == 1)
        #expect(session.status == .cancelled)
        let error = try #require(session.error as NSError?)
        #expect(error.domain == AVFoundationErrorDomain)
        #expect(error.code == AVError.Code.operationCancelled.rawValue)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func exportToAsThrowsWhenTheTaskIsCancelled() async throws {
        let source = try #require(ExportFixtures.hd)
        let out = try ExportFixtures.output("task.mov")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetAppleProRes422LPCM))
        let task = Task { try await session.export(to: out, as: .mov) }
        task.cancel()
        await #expect(throws: (any Error).self) { try await task.value }
        #expect(session.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    // MARK: Progress and states

    @Test func progressOnlyRisesAndReachesOne() async throws {
        let source = try #require(ExportFixtures.hd)
        let out = try ExportFixtures.output("progress.mp4")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPreset640x480))
        session.outputURL = out
        session.outputFileType = .mp4
        let seen = ValueLog()
        let watcher = Task.detached {
            while !Task.isCancelled {
                seen.append(session.progress)
                try? await Task.sleep(nanoseconds: 2_000_000)
            }
        }
        await session.export()
        watcher.cancel()
        _ = await watcher.value
        seen.append(session.progress)
        let values = seen.values
        #expect(values == values.sorted())
        #expect(values.last == 1)
        #expect(session.status == .completed)
    }

    /// The collected states of a sequence, as names, with the fractions of the exporting ones.
    static func collect(_ states: some AsyncSequence<AVAssetExportSession.State, Never> & Sendable) -> Task<([String], [Double]), Never> {
        Task {
            var names: [String] = []
            var fractions: [Double] = []
            for await state in states {
                switch state {
                case .pending: names.append("pending")
                case .waiting: names.append("waiting")
                case .exporting(let progress):
                    names.append("exporting")
                    fractions.append(progress.fractionCompleted)
                }
            }
            return (names, fractions)
        }
    }

    @Test func statesStartPendingAndEndWithTheExport() async throws {
        let source = try #require(ExportFixtures.hd)
        let out = try ExportFixtures.output("states.mov")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetAppleProRes422LPCM))
        // Subscribed before the export starts: the current state (.pending) is the first element,
        // whenever the collecting task first runs, and each change follows; the sequences end
        // when the session does (no waiting on the scheduler).
        let changes = Self.collect(session.states())
        let ticks = Self.collect(session.states(updateInterval: 0.01))
        try await session.export(to: out, as: .mov)
        let (names, _) = await changes.value
        #expect(names == ["pending", "waiting", "exporting"])
        let (tickNames, fractions) = await ticks.value
        // At most the newest 16 states are buffered for a task that runs late.
        #expect(["pending", "waiting", "exporting"].contains(tickNames.first ?? "none"), "\(tickNames)")
        #expect(fractions == fractions.sorted())
        #expect(session.status == .completed)
    }

    @Test func statesOfASessionSeenLateStartWithItsCurrentState() async throws {
        let source = try #require(ExportFixtures.hd)
        let out = try ExportFixtures.output("states-late.mov")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetAppleProRes422LPCM))
        // Subscribed from the status observer the moment the export runs: the first element is
        // .exporting, not a state the session has left.
        final class Subscription: Sendable {
            let collector = Mutex<Task<([String], [Double]), Never>?>(nil)
        }
        let late = Subscription()
        let observation = session.observe(\.status) { session, _ in
            guard session.status == .exporting else { return }
            let task = ExportSessionTests.collect(session.states())
            late.collector.withLock { $0 = task }
        }
        try await session.export(to: out, as: .mov)
        observation.invalidate()
        let (names, _) = await (try #require(late.collector.withLock { $0 })).value
        #expect(names == ["exporting"])
        // Subscribed after the export ended: a State has no terminal case, so the sequence ends
        // at once, empty; status tells how it ended.
        let (after, _) = await Self.collect(session.states(updateInterval: 0.01)).value
        #expect(after.isEmpty)
        #expect(session.status == .completed)
    }

    // MARK: Presets and compatibility

    @Test func presetsAndCompatibility() async throws {
        let all = AVAssetExportSession.allExportPresets()
        for name in [AVAssetExportPresetLowQuality, AVAssetExportPresetMediumQuality, AVAssetExportPresetHighestQuality,
                     AVAssetExportPreset640x480, AVAssetExportPreset960x540, AVAssetExportPreset1280x720, AVAssetExportPreset1920x1080,
                     AVAssetExportPreset3840x2160, AVAssetExportPresetHEVC1920x1080, AVAssetExportPresetHEVC3840x2160,
                     AVAssetExportPresetHEVCHighestQuality, AVAssetExportPresetAppleM4A, AVAssetExportPresetPassthrough] {
            #expect(all.contains(name), "\(name)")
        }
        let audioURL = try #require(ExportFixtures.audioOnly)
        let videoURL = try #require(ExportFixtures.hd)
        let audio = AVURLAsset(url: audioURL)
        let video = AVURLAsset(url: videoURL)
        let forAudio = AVAssetExportSession.exportPresets(compatibleWith: audio)
        #expect(forAudio.contains(AVAssetExportPresetAppleM4A))
        #expect(forAudio.contains(AVAssetExportPresetPassthrough))
        // The quality and size presets take an audio-only asset too (they write an audio-only file), as Apple's do.
        for name in [AVAssetExportPresetLowQuality, AVAssetExportPresetMediumQuality, AVAssetExportPresetHighestQuality, AVAssetExportPreset1280x720] {
            #expect(forAudio.contains(name), "\(name)")
        }
        #expect(!forAudio.contains(AVAssetExportPresetAppleProRes422LPCM))
        #expect(AVAssetExportSession.exportPresets(compatibleWith: video).contains(AVAssetExportPreset1280x720))
        #expect(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPreset1280x720, with: video, outputFileType: .mp4))
        #expect(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPreset1280x720, with: audio, outputFileType: .mp4))
        #expect(!(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPresetAppleM4A, with: video, outputFileType: .mov)))
        let answer = await withCheckedContinuation { continuation in
            AVAssetExportSession.determineCompatibility(ofExportPreset: AVAssetExportPresetAppleM4A, with: audio, outputFileType: .m4a) {
                continuation.resume(returning: $0)
            }
        }
        #expect(answer)
        #expect(AVAssetExportSession(asset: video, presetName: "NoSuchPreset") == nil)
        let m4a = try #require(AVAssetExportSession(asset: video, presetName: AVAssetExportPresetAppleM4A))
        #expect(m4a.supportedFileTypes == [.m4a])
        let passthrough = try #require(AVAssetExportSession(asset: video, presetName: AVAssetExportPresetPassthrough))
        #expect(passthrough.supportedFileTypes.contains(.mov))
        #expect(passthrough.supportedFileTypes.contains(.mp4))
        #expect(passthrough.timeRange == CMTimeRange(start: .zero, duration: .positiveInfinity))
        #expect(passthrough.canPerformMultiplePassesOverSourceMediaData == false)
        #expect(passthrough.customVideoCompositor == nil)
        #expect(passthrough.status == .unknown)
    }

    /// A quality preset on an audio-only asset writes an audio-only movie (Apple's behaviour; it
    /// used to fail with −11871).
    @Test(arguments: [AVAssetExportPresetLowQuality, AVAssetExportPresetMediumQuality, AVAssetExportPresetHighestQuality])
    func qualityPresetsExportAudioOnlyAssets(preset: String) async throws {
        let audio = AVURLAsset(url: try #require(ExportFixtures.audioOnly))
        let session = try #require(AVAssetExportSession(asset: audio, presetName: preset))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("audio-only-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: out) }
        try await session.export(to: out, as: .mp4)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let probe = try TestTools.runText("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name:format=duration",
                                                      "-of", "csv=p=0", out.path]).output
        let lines = probe.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains("audio") }.count == 1 && !lines.contains { $0.contains("video") }, "\(probe)")
        #expect(lines.contains { $0.hasPrefix("aac") }, "\(probe)")
        let sourceDuration = try await audio.load(.duration).seconds
        let written = lines.compactMap(Double.init).first ?? 0
        #expect(abs(written - sourceDuration) < 0.05, "\(written) s written for \(sourceDuration) s")
    }

    @Test func estimatedOutputFileLengthIsPlausible() async throws {
        let sourceURL = try #require(ExportFixtures.trimSource)
        let asset = AVURLAsset(url: sourceURL)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: sourceURL.path)[.size] as? Int64)
        let passthrough = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough))
        let whole = passthrough.estimatedOutputFileLength
        #expect(Double(whole) > Double(size) * 0.8 && Double(whole) < Double(size) * 1.2, "\(whole) vs \(size)")
        passthrough.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 1))
        let quarter = try await passthrough.estimatedOutputFileLengthInBytes
        #expect(Double(quarter) > Double(whole) * 0.15 && Double(quarter) < Double(whole) * 0.35)
        let hdURL = try #require(ExportFixtures.hd)
        let hd = try #require(AVAssetExportSession(asset: AVURLAsset(url: hdURL), presetName: AVAssetExportPreset1280x720))
        // 5 Mb/s + 128 kb/s for 1 s ≈ 641 kB.
        #expect(abs(Double(hd.estimatedOutputFileLength) - 641_000) < 30_000, "\(hd.estimatedOutputFileLength)")
        #expect(passthrough.maxDuration == (try await asset.load(.duration)))
        passthrough.fileLengthLimit = whole / 2
        #expect(abs(passthrough.maxDuration.seconds - 2) < 0.1)
        #expect(abs((try await passthrough.estimatedMaximumDuration).seconds - 2) < 0.1)
        // Estimating leaves the session's settings as they were.
        #expect(passthrough.timeRange.duration == CMTime(value: 1, timescale: 1))
        #expect(passthrough.fileLengthLimit == whole / 2)
        #expect(await passthrough.compatibleFileTypes == passthrough.supportedFileTypes)
    }
}

final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var storedCount = 0
    var count: Int { lock.withLock { storedCount } }
    func increment() { lock.withLock { storedCount += 1 } }
}

final class ValueLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Float] = []
    var values: [Float] { lock.withLock { stored } }
    func append(_ v: Float) { lock.withLock { stored.append(v) } }
}
