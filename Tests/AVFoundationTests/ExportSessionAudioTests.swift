// AVAssetExportSession's audio: AAC encoded through the writer with each preset's settings, the
// audio mix applied, PCM sources encoded, passthrough trims whose audio starts at 0 — judged with
// ffprobe/ffmpeg and our own reader.
import AVFoundation
import Foundation
import Testing
import TestSupport

enum ExportAudioFixtures {
    /// 2 s of 1280×720 H.264 at 30 fps with 48 kHz stereo AAC.
    static let hdStereo: URL? = try? AssetFixtures.generate("hd-stereo.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=2",
        "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=48000:duration=2",
        "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest",
    ])

    /// 1 s of 640×360 H.264 with 44.1 kHz stereo 16-bit linear PCM in a QuickTime movie.
    static let pcmMovie: URL? = try? AssetFixtures.generate("pcm.mov", [
        "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=1",
        "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=44100:duration=1",
        "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "pcm_s16le", "-shortest",
    ])

    /// The number of audio sample frames our reader decodes from `url`'s first audio track, and
    /// the presentation time of the first one.
    static func decodedFrames(_ url: URL) async throws -> (frames: Int, first: CMTime?) {
        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM])
        reader.add(output)
        #expect(reader.startReading())
        var frames = 0
        var first: CMTime?
        while let sample = output.copyNextSampleBuffer() {
            if first == nil { first = CMSampleBufferGetPresentationTimeStamp(sample) }
            frames += CMSampleBufferGetNumSamples(sample)
        }
        #expect(reader.status == .completed)
        return (frames, first)
    }

    /// ffmpeg's decoded audio of `url` (mono 16-bit) — its loudest sample's magnitude.
    static func peak(_ url: URL) throws -> Int {
        let data = try TestTools.run("/usr/bin/ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a:0", "-ac", "1", "-f", "s16le", "-"]).output
        var peak = 0
        data.withUnsafeBytes { raw in
            for v in raw.bindMemory(to: Int16.self) { peak = max(peak, abs(Int(v))) }
        }
        return peak
    }

    /// The number of sample frames the ffmpeg CLI decodes from `url`'s first audio stream.
    static func ffmpegDecodedFrames(_ url: URL) throws -> Int {
        let bytes = try AssetFixtures.run("/bin/sh", ["-c", "ffmpeg -v error -i \"$0\" -map 0:a:0 -ac 1 -f s16le - | wc -c", url.path])
        return try #require(Int(bytes.output.trimmingCharacters(in: .whitespacesAndNewlines))) / 2
    }

    /// The first audio track as ffmpeg decodes it, mono 32-bit float.
    static func ffmpegSamples(_ url: URL) throws -> [Float] {
        let raw = try WriterFixtures.outputURL("samples-\(url.lastPathComponent).f32")
        let result = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", url.path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", raw.path])
        try #require(result.status == 0, "\(result.output)")
        let data = try Data(contentsOf: raw)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func probeDouble(_ url: URL, _ entry: String, stream: Int) throws -> Double {
        try #require(Double(try AssetFixtures.probe(url, entry, stream: stream)), "\(entry) of stream \(stream)")
    }
}

@Suite(.serialized) struct ExportSessionAudioTests {
    typealias F = ExportAudioFixtures

    @Test func preset640x480EncodesAACWithThePresetsSettings() async throws {
        let source = try #require(F.hdStereo)
        let out = try ExportFixtures.output("small.mp4")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPreset640x480, to: out, type: .mp4)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        // (The picture, 640×360 H.264, is ExportSessionTests' preset640x480FitsA1280x720SourceInto640x360H264.)
        #expect(try AssetFixtures.probe(out, "stream=codec_name", stream: 1) == "aac")
        #expect(try AssetFixtures.probe(out, "stream=channels,sample_rate", stream: 1) == "48000\n2")
        // 128 kb/s AAC (libavcodec's encoder lands near its target on a pure tone).
        let bitRate = try F.probeDouble(out, "stream=bit_rate", stream: 1)
        #expect(bitRate > 64_000 && bitRate < 160_000, "audio bit rate \(bitRate)")
        // Durations within a frame (1/30 s) of the source's 2 s, video and audio.
        #expect(abs(try F.probeDouble(out, "stream=duration", stream: 0) - 2) < 1.0 / 30)
        #expect(abs(try F.probeDouble(out, "stream=duration", stream: 1) - 2) < 1.0 / 30)
        #expect(try F.probeDouble(out, "stream=start_time", stream: 1) == 0)
        // Our reader: every source sample, from time 0.
        let (frames, first) = try await F.decodedFrames(out)
        #expect(frames == 96_000)
        #expect(first == .zero)
        let asset = AVURLAsset(url: out)
        let audio = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let format = try #require(try await audio.load(.formatDescriptions).first)
        #expect(CMFormatDescriptionGetMediaSubType(format) == kAudioFormatMPEG4AAC)
        #expect(abs(try await asset.load(.duration).seconds - 2) < 1.0 / 30)
    }

    @Test func appleM4AKeepsTheSourcesDecodedLength() async throws {
        let source = try #require(F.hdStereo)
        let out = try ExportFixtures.output("sound.m4a")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetAppleM4A, to: out, type: .m4a)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(try AssetFixtures.probe(out, "stream=codec_type") == "audio")
        #expect(try AssetFixtures.probe(out, "stream=codec_name") == "aac")
        #expect(try AssetFixtures.probe(out, "format=format_name").contains("mp4"))
        // Priming hidden: our reader and ffmpeg decode exactly as many samples as from the source.
        let ours = try await F.decodedFrames(out), theirs = try await F.decodedFrames(source)
        #expect(ours.frames == theirs.frames)
        #expect(ours.frames == 96_000)
        #expect(ours.first == .zero)
        #expect(try F.probeDouble(out, "stream=start_time", stream: 0) == 0)
        #expect(try F.ffmpegDecodedFrames(out) == F.ffmpegDecodedFrames(source))
    }

    @Test func aPCMSourceThroughPreset1280x720BecomesAAC() async throws {
        let source = try #require(F.pcmMovie)
        #expect(try AssetFixtures.probe(source, "stream=codec_name", stream: 1) == "pcm_s16le")
        let out = try ExportFixtures.output("from-pcm.mov")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPreset1280x720, to: out, type: .mov)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(try AssetFixtures.probe(out, "stream=codec_name", stream: 0) == "h264")
        // Never upscaled: 640×360 stays.
        #expect(try AssetFixtures.probe(out, "stream=width,height", stream: 0) == "640\n360")
        #expect(try AssetFixtures.probe(out, "stream=codec_name", stream: 1) == "aac")
        // 44.1 kHz is kept; stereo stays stereo.
        #expect(try AssetFixtures.probe(out, "stream=channels,sample_rate", stream: 1) == "44100\n2")
        let (frames, first) = try await F.decodedFrames(out)
        #expect(frames == 44_100)
        #expect(first == .zero)
    }

    @Test func theAudioMixIsApplied() async throws {
        let source = try #require(F.hdStereo)
        let asset = AVURLAsset(url: source)
        let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let loud = try ExportFixtures.output("loud.m4a")
        let plain = try await ExportFixtures.export(source, preset: AVAssetExportPresetAppleM4A, to: loud, type: .m4a)
        #expect(plain.status == .completed, "\(String(describing: plain.error))")
        // Volume 0.1 on the track: the mixed, encoded audio peaks about a tenth as high.
        let quiet = try ExportFixtures.output("quiet.m4a")
        let parameters = AVMutableAudioMixInputParameters(track: track)
        parameters.setVolume(0.1, at: .zero)
        let mix = AVMutableAudioMix()
        mix.inputParameters = [parameters]
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetAppleM4A, to: quiet, type: .m4a) {
            $0.audioMix = mix
        }
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(try AssetFixtures.probe(quiet, "stream=codec_name") == "aac")
        let loudPeak = try F.peak(loud), quietPeak = try F.peak(quiet)
        #expect(loudPeak > 3_000, "\(loudPeak)")  // lavfi's sine: amplitude 1/8
        let ratio = Double(quietPeak) / Double(loudPeak)
        #expect(ratio > 0.08 && ratio < 0.12, "peak ratio \(ratio) (\(quietPeak) / \(loudPeak))")
        let (frames, _) = try await F.decodedFrames(quiet)
        #expect(frames == 96_000)
    }

    @Test(arguments: [AVFileType.mp4, .mov])
    func aWholePassthroughKeepsTheAudiosDecodedLength(_ type: AVFileType) async throws {
        let source = try #require(ExportFixtures.trimSource)
        let out = try ExportFixtures.output(type == .mov ? "whole.mov" : "whole.mp4")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: out, type: type)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        // The last AAC packet is a whole frame: the edit list still hides its padding.
        let ours = try await F.decodedFrames(out), theirs = try await F.decodedFrames(source)
        #expect(ours.frames == theirs.frames)
        #expect(ours.frames == 4 * 48_000)
        #expect(ours.first == .zero)
        #expect(try F.probeDouble(out, "stream=duration", stream: 1) == F.probeDouble(source, "stream=duration", stream: 1))
    }

    @Test(arguments: [AVFileType.mp4, .mov])
    func aPassthroughTrimsAudioStartsAtZeroAndLastsTheRange(_ type: AVFileType) async throws {
        let source = try #require(ExportFixtures.trimSource)
        let out = try ExportFixtures.output(type == .mov ? "trim-audio.mov" : "trim-audio.mp4")
        // 1.48 s is not on an AAC packet boundary (1024 samples at 48 kHz).
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: out, type: type) {
            $0.timeRange = CMTimeRange(start: CMTime(value: 37, timescale: 25), duration: CMTime(value: 1, timescale: 1))
        }
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(try AssetFixtures.probe(out, "stream=codec_name", stream: 1) == "aac")
        // ffprobe: the audio starts at 0 and lasts 1 s (within one AAC frame, 1024/48000 s).
        #expect(try F.probeDouble(out, "stream=start_time", stream: 1) == 0)
        #expect(abs(try F.probeDouble(out, "stream=duration", stream: 1) - 1) <= 1024.0 / 48000)
        // Our reader: the first audio sample at 0, one second of samples (priming and the lead-in
        // to the range are hidden by the edit list).
        let (frames, first) = try await F.decodedFrames(out)
        #expect(first == .zero)
        #expect(abs(frames - 48_000) <= 1024, "\(frames) samples")
        // ffmpeg decodes no more than a frame beyond the range either.
        let ffmpegFrames = try F.ffmpegDecodedFrames(out)
        #expect(abs(ffmpegFrames - 48_000) <= 1024, "ffmpeg decodes \(ffmpegFrames) samples")
        // The first shown samples decode as in the source (to rounding): the AAC packet before the
        // range came along (trimmed whole) for the decoder's overlap. (Without it the first 1024
        // samples are off by several hundredths.)
        let copied = try F.ffmpegSamples(out), original = try F.ffmpegSamples(source)
        let start = 37 * 48_000 / 25
        try #require(copied.count >= 4096 && original.count >= start + 4096)
        let worst = (0..<4096).map { abs(copied[$0] - original[start + $0]) }.max() ?? 1
        #expect(worst < 1e-3, "the trim's first samples differ from the source's by up to \(worst)")
    }
}
