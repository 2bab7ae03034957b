// DemuxerProbeCache: a second demuxer over the same unchanged QuickTime-family file gets what
// probing found without probing again, and reads the same packets; a changed file is probed anew.
import CFFmpeg
import CoreMedia
import Foundation
@testable import MediaEngine
import Testing

@Suite(.serialized) struct DemuxerProbeCacheTests {
    static func generate(_ name: String, _ args: [String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("probe-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try DemuxerFixtures.run("ffmpeg", ["-v", "error", "-y"] + args + [url.path])
        return url
    }

    nonisolated(unsafe) static var extensionsOfFirstOpen: [Int: [AnyHashable: Any]] = [:]

    /// What a demuxer tells of a file: stream facts that probing fills in, and every packet.
    static func facts(_ url: URL) throws -> [String] {
        let demuxer = try Demuxer(url: url)
        var lines = ["\(demuxer.duration.value)/\(demuxer.duration.timescale) \(demuxer.startTime.value) \(demuxer.bitRate)"]
        for s in demuxer.streams {
            let subtype = s.formatDescription.map { CMFormatDescriptionGetMediaSubType($0) } ?? 0
            lines.append("\(s.index) \(s.codecName) \(s.profileName ?? "-") \(s.width)x\(s.height) \(s.averageFrameRate) \(s.realFrameRate) "
                         + "\(s.sampleRate) \(s.channelCount) \(s.samplesPerPacket) \(s.colorPrimaries) \(s.colorSpace) \(s.colorRange) "
                         + "\(s.extradata.count) \(s.startTime.value) \(s.duration.value) \(s.frameCount) \(s.bitRate) \(subtype)")
            // Extensions (avcC, colour…) compared as values: a dictionary's description has no fixed order.
            let extensions = s.formatDescription.flatMap { CMFormatDescriptionGetExtensions($0) as NSDictionary? }
            if Self.extensionsOfFirstOpen[s.index] == nil, let extensions { Self.extensionsOfFirstOpen[s.index] = extensions as? [AnyHashable: Any] }
            lines.append("extensions \(extensions.map { $0.isEqual(to: Self.extensionsOfFirstOpen[s.index] ?? [:]) } ?? true)")
        }
        while let packet = try demuxer.readPacket() {
            lines.append("\(packet.streamIndex) \(packet.rawPTS ?? -1) \(packet.rawDTS ?? -1) \(packet.rawDuration) \(packet.size) \(packet.isKeyframe)")
        }
        return lines
    }

    @Test func aSecondDemuxerSeesWhatTheProbeFoundAndTheSamePackets() throws {
        guard DemuxerFixtures.hasFFmpeg else { return }
        let url = try Self.generate("probe.mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=1", "-f", "lavfi", "-i", "sine=sample_rate=44100:duration=1",
            "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-color_primaries", "bt709", "-colorspace", "bt709",
            "-c:a", "aac", "-shortest",
        ])
        DemuxerProbeCache.shared.removeAll()
        Self.extensionsOfFirstOpen = [:]
        let probed = try Self.facts(url)
        let key = try #require(Self.key(url))
        // The first open remembered the file; the second is served from the cache and agrees.
        let fresh = try #require(avformat_alloc_context())
        var ctx: UnsafeMutablePointer<AVFormatContext>? = fresh
        #expect(avformat_open_input(&ctx, url.path, nil, nil) >= 0)
        #expect(DemuxerProbeCache.shared.apply(key, to: ctx!))
        avformat_close_input(&ctx)
        let cached = try Self.facts(url)
        #expect(cached == probed)
        #expect(probed[1].contains("h264 ") && probed[1].contains(" 640x360 "), "\(probed[1])")
        #expect(!probed.contains("extensions false"))
    }

    @Test func aChangedFileIsProbedAgain() throws {
        guard DemuxerFixtures.hasFFmpeg else { return }
        let url = try Self.generate("changing.mov", [
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
        ])
        DemuxerProbeCache.shared.removeAll()
        let before = try Self.facts(url)
        #expect(before[1].contains("320x240"))
        // Same name, other contents (another size and codec profile): nothing stale is applied.
        try FileManager.default.removeItem(at: url)
        try DemuxerFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=2",
                                           "-c:v", "libx264", "-preset", "ultrafast", "-profile:v", "baseline", url.path])
        let after = try Self.facts(url)
        #expect(after[1].contains("160x120"), "\(after[1])")
        #expect(after[1].contains("Baseline"), "\(after[1])")
        #expect(after.count != before.count)
    }

    static func key(_ url: URL) -> DemuxerProbeCache.Key? {
        var st = stat()
        return stat(url.path, &st) == 0 ? DemuxerProbeCache.Key(st) : nil
    }
}
