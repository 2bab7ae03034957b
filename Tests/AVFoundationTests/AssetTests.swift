// AVAsset / AVURLAsset / AVAssetTrack as Apple code uses them, on real and generated media,
// judged against ffprobe.
import AVFoundation
import Foundation
import Testing

@Suite("AVAsset")
struct AssetTests {
    @Test("bigbuckbunny.mp4: duration, tracks, sizes, rates, formats (modern API)")
    func bigBuckBunny() async throws {
        guard let url = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let asset = AVURLAsset(url: url)
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        let probed = Double(try AssetFixtures.probe(url, "format=duration"))!
        #expect(abs(duration.seconds - probed) < 0.001)
        #expect(tracks.count == 2)
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let audio = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        #expect(video.trackID == 1 && audio.trackID == 2)
        let (size, rate, formats) = try await video.load(.naturalSize, .nominalFrameRate, .formatDescriptions)
        #expect(size == CGSize(width: Int(try AssetFixtures.probe(url, "stream=width", stream: 0))!,
                               height: Int(try AssetFixtures.probe(url, "stream=height", stream: 0))!))
        #expect(rate == 25)
        #expect(formats.count == 1 && formats[0].mediaSubType == .h264)
        #expect(try await video.load(.isPlayable))
        #expect(try await video.load(.mediaCharacteristics).contains(.visual))
        let afd = try #require(try await audio.load(.formatDescriptions).first)
        let asbd = try #require(afd.audioStreamBasicDescription)
        #expect(asbd.mSampleRate == Double(try AssetFixtures.probe(url, "stream=sample_rate", stream: 1))!)
        #expect(Int(asbd.mChannelsPerFrame) == Int(try AssetFixtures.probe(url, "stream=channels", stream: 1))!)
        #expect(try await audio.load(.naturalTimeScale) == 48000)
        #expect(try await asset.load(.isPlayable))
        #expect(try await asset.loadTrack(withTrackID: 2) === audio)
        #expect(try await asset.loadTrack(withTrackID: 9) == nil)
        #expect(try await asset.loadTracks(withMediaCharacteristic: .audible) == [audio])
        let videoRange = try await video.load(.timeRange)
        #expect(abs(videoRange.duration.seconds - Double(try AssetFixtures.probe(url, "stream=duration", stream: 0))!) < 1e-6)
        // Sample-level facts from the packet index agree with ffprobe's packet sizes.
        let sizes = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                                                      "-of", "csv=p=0", url.path]).output
        let total = sizes.split(separator: "\n").compactMap { Int64($0) }.reduce(0, +)
        #expect(try await video.load(.totalSampleDataLength) == total)
        #expect(try await video.load(.minFrameDuration) == CMTime(value: 1, timescale: 25))
    }

    @Test("estimatedDataRate of an MPEG-1 stream with the variable-rate code is measured from its samples")
    func mpegVariableRate() async throws {
        guard let url = AssetFixtures.fixture("blue.mpg") else { return }
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
        let (rate, size, range) = try await track.load(.estimatedDataRate, .totalSampleDataLength, .timeRange)
        #expect(size > 0)
        // The sequence header's 0x3FFFF code (≈104.9 Mb/s) is not a rate: the rate is the data over the time.
        let measured = Double(size) * 8 / range.duration.seconds
        #expect(rate < 10_000_000)
        #expect(abs(Double(rate) - measured) / measured < 0.25)
    }

    @Test("every downloaded fixture: duration and first-track facts match ffprobe")
    func allFixtures() async throws {
        for name in ["bikes.mp4", "carphone_pristine.mp4", "house_lo.wav", "house_lo.ogg", "house_lo.mp3", "blue.mpg"] {
            guard let url = AssetFixtures.fixture(name) else { continue }
            let asset = AVURLAsset(url: url, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
            let tracks = try await asset.load(.tracks)
            #expect(tracks.count == 1, "\(name)")
            let duration = try await asset.load(.duration)
            let probed = Double(try AssetFixtures.probe(url, "format=duration"))
            if let probed {
                #expect(abs(duration.seconds - probed) < 0.06, "\(name): \(duration.seconds) vs \(probed)")
            } else {
                #expect(duration.seconds > 0, "\(name)")  // blue.mpg: ffprobe reports N/A; we scan packets
            }
            let track = tracks[0]
            if track.mediaType == .video {
                // The tkhd width: coded width × pixel aspect ratio (carphone is 176 × 128/117 ≈ 192.547).
                let sar = try AssetFixtures.probe(url, "stream=sample_aspect_ratio", stream: 0).split(separator: ":").compactMap { Double($0) }
                let width = Double(try AssetFixtures.probe(url, "stream=width", stream: 0))! * (sar.count == 2 && sar[0] > 0 ? sar[0] / sar[1] : 1)
                #expect(abs(track.naturalSize.width - width) < 1e-9, "\(name)")
                let fps = try AssetFixtures.probe(url, "stream=avg_frame_rate", stream: 0).split(separator: "/").compactMap { Double($0) }
                #expect(abs(Double(try await track.load(.nominalFrameRate)) - fps[0] / fps[1]) < 0.01, "\(name)")
            } else {
                let fd = try #require(try await track.load(.formatDescriptions).first)
                #expect(fd.audioStreamBasicDescription?.mSampleRate == Double(try AssetFixtures.probe(url, "stream=sample_rate", stream: 0)))
                #expect(try await track.load(.mediaCharacteristics) == [.audible])
            }
        }
    }

    @Test("house_lo.wav is 8-bit unsigned linear PCM")
    func wavFormat() async throws {
        guard let url = AssetFixtures.fixture("house_lo.wav") else { return }
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .audio).first)
        let asbd = try #require(try await track.load(.formatDescriptions).first?.audioStreamBasicDescription)
        #expect(asbd.mFormatID == kAudioFormatLinearPCM && asbd.mBitsPerChannel == 8 && asbd.mBytesPerFrame == 1)
        #expect(asbd.mFormatFlags & kAudioFormatFlagIsSignedInteger == 0 && asbd.mFormatFlags & kAudioFormatFlagIsPacked != 0)
    }

    @Test("H.264 with B-frames requires frame reordering; samplePresentationTime snaps to the sample start")
    func bFrames() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("b.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2",
                                                       "-c:v", "libx264", "-bf", "2", "-pix_fmt", "yuv420p"])
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
        #expect(try await track.load(.requiresFrameReordering))
        let segments = try await track.load(.segments)
        #expect(segments.count == 1 && !segments[0].isEmpty)
        // The sample's time in the media timeline: frame 26, after the edit's composition offset.
        let t = try await track.loadSamplePresentationTime(forTrackTime: CMTime(value: 1050, timescale: 1000))
        #expect(t == CMTime(value: 26, timescale: 25) + segments[0].timeMapping.source.start)
        #expect(segments[0].timeMapping.target == (try await track.load(.timeRange)))
        // An intra-only file does not.
        let intra = try AssetFixtures.generate("i.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1",
                                                         "-c:v", "libx264", "-bf", "0"])
        let intraTrack = try #require(try await AVURLAsset(url: intra).loadTracks(withMediaType: .video).first)
        #expect(try await intraTrack.load(.requiresFrameReordering) == false)
    }

    @Test("rotated MOV: preferredTransform is the tkhd matrix")
    func rotated() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let plain = try AssetFixtures.generate("p.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-c:v", "libx264"])
        let url = plain.deletingLastPathComponent().appendingPathComponent("r.mov")
        _ = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", plain.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", url.path])
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
        let t = try await track.load(.preferredTransform)
        #expect(t.a == 0 && t.d == 0 && abs(t.b) == 1 && abs(t.c) == 1)
        #expect(try await track.load(.naturalSize) == CGSize(width: 160, height: 120))
        let display = CGRect(origin: .zero, size: CGSize(width: 160, height: 120)).applying(t)
        #expect(abs(display.width) == 120 && abs(display.height) == 160)
    }

    @Test("M4A (AAC), FLAC and MKV with two audio languages and subtitles")
    func generatedAudioAndMatroska() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let m4a = try AssetFixtures.generate("a.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=44100",
                                                       "-c:a", "aac", "-b:a", "96k"])
        let aac = try #require(try await AVURLAsset(url: m4a).loadTracks(withMediaType: .audio).first)
        let fd = try #require(try await aac.load(.formatDescriptions).first)
        #expect(fd.mediaSubType == .mpeg4AAC && fd.audioStreamBasicDescription?.mFramesPerPacket == 1024)
        #expect(try await aac.load(.nominalFrameRate) == Float(44100) / 1024)
        let flac = try AssetFixtures.generate("a.flac", ["-f", "lavfi", "-i", "sine=duration=1:sample_rate=48000", "-c:a", "flac"])
        let flacTrack = try #require(try await AVURLAsset(url: flac).loadTracks(withMediaType: .audio).first)
        #expect(try await flacTrack.load(.formatDescriptions).first?.mediaSubType == .flac)

        let srtDir = try AssetFixtures.tempDirectory()
        let srt = srtDir.appendingPathComponent("s.srt")
        try "1\n00:00:00,000 --> 00:00:01,000\nHello\n".write(to: srt, atomically: true, encoding: .utf8)
        let mkv = try AssetFixtures.generate("m.mkv", [
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
            "-f", "lavfi", "-i", "sine=frequency=880:duration=2", "-i", srt.path,
            "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-c:v", "libx264", "-c:a", "aac", "-c:s", "srt",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=ger", "-metadata:s:s:0", "language=fre",
        ])
        let asset = AVURLAsset(url: mkv)
        let audios = try await asset.loadTracks(withMediaType: .audio)
        #expect(try await audios.asyncMap { try await $0.load(.languageCode) } == ["eng", "deu"])
        let legible = try await asset.loadTracks(withMediaCharacteristic: .legible)
        #expect(legible.count == 1 && legible[0].mediaType == .subtitle && legible[0].languageCode == "fra")
        #expect(Set(try await asset.load(.tracks).map(\.trackID)).count == 4)
    }

    @Test("classic API: handler once on a background thread; statuses; synchronous properties")
    func classicLoading() async throws {
        guard let url = AssetFixtures.fixture("bikes.mp4") else { return }
        let asset = AVURLAsset(url: url)
        var error: NSError?
        #expect(asset.statusOfValue(forKey: "duration", error: &error) == .unknown)
        let calls = Counter()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: ["duration", "tracks"]) {
                calls.record(isMainThread: Thread.isMainThread)
                done.resume()
            }
        }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(calls.count == 1 && calls.sawMainThread == false)
        #expect(asset.statusOfValue(forKey: "duration", error: &error) == .loaded)
        #expect(asset.statusOfValue(forKey: "tracks", error: &error) == .loaded)
        #expect(asset.statusOfValue(forKey: "playable", error: &error) == .unknown)
        if case .loaded(let d) = asset.status(of: .duration) { #expect(d.seconds == 10) } else { Issue.record("not loaded") }
        if case .notYetLoaded = asset.status(of: .isPlayable) {} else { Issue.record("playable should not be loaded") }
        // Deprecated synchronous properties load on demand.
        #expect(asset.tracks.count == 1 && asset.tracks(withMediaType: .video).count == 1)
        #expect(asset.track(withTrackID: 1)?.naturalSize == CGSize(width: 640, height: 272))
        #expect(asset.naturalSize == CGSize(width: 640, height: 272))
        #expect(asset.isPlayable && asset.isReadable && asset.providesPreciseDurationAndTiming)
        #expect(asset.statusOfValue(forKey: "playable", error: &error) == .loaded)
        // Unknown keys fail with an error.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: ["noSuchKey"]) { done.resume() }
        }
        #expect(asset.statusOfValue(forKey: "noSuchKey", error: &error) == .failed && error != nil)
        // The same asset through AVAsset(url:).
        #expect(AVAsset(url: url).duration == CMTime(value: 10, timescale: 1) || abs(AVAsset(url: url).duration.seconds - 10) < 1e-9)
    }

    @Test("cancelLoading makes pending keys .cancelled and still calls the handler once")
    func cancel() async throws {
        guard let url = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        // A precise MP3-style load scans packets; cancel right away.
        let asset = AVURLAsset(url: url)
        let calls = Counter()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: ["duration", "tracks"]) {
                calls.record(isMainThread: Thread.isMainThread)
                done.resume()
            }
            asset.cancelLoading()
        }
        var error: NSError?
        let status = asset.statusOfValue(forKey: "duration", error: &error)
        #expect(status == .cancelled || status == .loaded)  // the load may finish before the cancel lands
        if status == .cancelled { #expect(error?.code == AVError.Code.operationCancelled.rawValue) }
        #expect(calls.count == 1)
        // Loading again after a cancel works.
        #expect(try await asset.load(.duration).seconds > 5)
    }

    @Test("NSValue boxes CMTime, CMTimeRange and CMTimeMapping")
    func nsValue() {
        let t = CMTime(value: 1001, timescale: 30000)
        #expect(NSValue(time: t).timeValue == t)
        let r = CMTimeRange(start: t, duration: CMTime(value: 2, timescale: 1))
        #expect(NSValue(timeRange: r).timeRangeValue == r)
        let m = CMTimeMapping(source: r, target: r)
        #expect(NSValue(timeMapping: m).timeMappingValue.target == r)
        #expect(NSValue(timeRange: r).timeValue == .invalid)
    }

    @Test("AVMediaType, AVFileType and AVError raw values are Apple's")
    func rawValues() {
        #expect(AVMediaType.video.rawValue == "vide" && AVMediaType.audio.rawValue == "soun" && AVMediaType.subtitle.rawValue == "sbtl")
        #expect(AVFileType.mov.rawValue == "com.apple.quicktime-movie" && AVFileType.mp4.rawValue == "public.mpeg-4")
        #expect(AVFileType.m4a.rawValue == "com.apple.m4a-audio" && AVFileType.wav.rawValue == "com.microsoft.waveform-audio")
        #expect(AVError.Code.fileFormatNotRecognized.rawValue == -11828 && AVError.Code.fileFailedToParse.rawValue == -11829)
        #expect(AVError.Code.decoderNotFound.rawValue == -11833 && AVError.Code.unknown.rawValue == -11800)
        #expect(AVKeyValueStatus.cancelled.rawValue == 4)
    }
}

/// Counts handler calls across threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0
    private var main = false
    func record(isMainThread: Bool) { lock.lock(); calls += 1; main = main || isMainThread; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return calls }
    var sawMainThread: Bool { lock.lock(); defer { lock.unlock() }; return main }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out.append(try await transform(e)) }
        return out
    }
}

/// Not a test: `AVF_MEASURE=1 swift test --skip-build --filter AssetMeasurement` prints the median
/// time to open bigbuckbunny.mp4 and load its duration and tracks with a fresh asset.
@Suite("Asset measurement", .enabled(if: ProcessInfo.processInfo.environment["AVF_MEASURE"] != nil))
struct AssetMeasurement {
    @Test func openAndLoad() async throws {
        guard let url = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        var times: [Double] = []
        for _ in 0..<20 {
            let start = DispatchTime.now().uptimeNanoseconds
            let (d, t) = try await AVURLAsset(url: url).load(.duration, .tracks)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            #expect(d.isNumeric && t.count == 2)
        }
        times.sort()
        print(String(format: "open+load(.duration, .tracks) bigbuckbunny.mp4: median %.2f ms, min %.2f ms, max %.2f ms (n=20)",
                     (times[9] + times[10]) / 2, times[0], times[19]))
    }
}
