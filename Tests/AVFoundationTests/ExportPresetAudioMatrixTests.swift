// Every preset AVAssetExportSession offers for an asset exports it: audio sources across sample
// rates (8–96 kHz), channel counts (mono, stereo, 5.1) and codecs (PCM, MP3, AAC, Vorbis, FLAC),
// alone and beside a small video track, each exported with every compatible preset and judged
// with ffprobe (rate, channels, duration within one AAC frame of the source's).
@testable @_spi(Tools) import AVFoundation
import Foundation
import Testing

/// One generated source: 0.5 s of a tone (and, for `withVideo`, a 64×48 picture at 10 fps).
struct AudioMatrixSource: CustomStringConvertible, Sendable {
    let name: String
    let rate: Int
    let channels: Int
    let codec: [String]
    let withVideo: Bool

    var description: String { name }

    /// The ffmpeg CLI arguments that make it.
    var arguments: [String] {
        var args: [String] = []
        if withVideo { args += ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.5"] }
        let layout = channels == 6 ? "5.1" : channels == 2 ? "stereo" : "mono"
        args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):duration=0.5", "-af", "aformat=channel_layouts=\(layout)"]
        if withVideo { args += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"] }
        return args + codec
    }

    static let all: [AudioMatrixSource] = [
        // Audio only: the AppleM4A and passthrough presets.
        AudioMatrixSource(name: "pcm-8k-mono.wav", rate: 8000, channels: 1, codec: ["-c:a", "pcm_s16le"], withVideo: false),
        AudioMatrixSource(name: "mp3-11k-mono.mp3", rate: 11025, channels: 1, codec: ["-c:a", "libmp3lame", "-b:a", "32k"], withVideo: false),
        AudioMatrixSource(name: "aac-22k-stereo.m4a", rate: 22050, channels: 2, codec: ["-c:a", "aac", "-b:a", "64k"], withVideo: false),
        AudioMatrixSource(name: "flac-44k-51.flac", rate: 44100, channels: 6, codec: ["-c:a", "flac"], withVideo: false),
        AudioMatrixSource(name: "vorbis-48k-stereo.ogg", rate: 48000, channels: 2, codec: ["-c:a", "libvorbis"], withVideo: false),
        AudioMatrixSource(name: "pcm-96k-51.wav", rate: 96000, channels: 6, codec: ["-c:a", "pcm_s24le"], withVideo: false),
        // Beside a video track: every video preset.
        AudioMatrixSource(name: "av-mp3-11k-mono.mov", rate: 11025, channels: 1, codec: ["-c:a", "libmp3lame", "-b:a", "32k"], withVideo: true),
        AudioMatrixSource(name: "av-aac-96k-51.mp4", rate: 96000, channels: 6, codec: ["-c:a", "aac", "-b:a", "192k"], withVideo: true),
        AudioMatrixSource(name: "av-pcm-8k-stereo.mov", rate: 8000, channels: 2, codec: ["-c:a", "pcm_s16le"], withVideo: true),
    ]
}

@Suite struct ExportPresetAudioMatrixTests {
    /// ffprobe's view of an audio stream: rate, channels and duration in seconds.
    private static func audioStream(_ url: URL) throws -> (rate: Int, channels: Int, duration: Double) {
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                    "stream=sample_rate,channels,duration", "-of", "default=nw=1", url.path]).output
        var fields: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        let rate = try #require(fields["sample_rate"].flatMap { Int($0) }, "\(url.lastPathComponent): \(out)")
        let channels = try #require(fields["channels"].flatMap { Int($0) }, "\(url.lastPathComponent): \(out)")
        let duration = try #require(fields["duration"].flatMap { Double($0) }, "\(url.lastPathComponent): \(out)")
        return (rate, channels, duration)
    }

    /// Exports `source` with every preset compatible with it and checks each output.
    private static func exportEveryCompatiblePreset(_ source: URL, rate: Int, channels: Int, hasVideo: Bool) async throws -> [String] {
        let asset = AVURLAsset(url: source)
        let presets = AVAssetExportSession.exportPresets(compatibleWith: asset)
        let sourceAudio = try audioStream(source)
        #expect(presets.contains(AVAssetExportPresetAppleM4A), "\(source.lastPathComponent): \(presets)")
        if hasVideo {
            for name in [AVAssetExportPresetHighestQuality, AVAssetExportPresetHEVCHighestQuality, AVAssetExportPreset640x480,
                         AVAssetExportPresetAppleProRes422LPCM] {
                #expect(presets.contains(name), "\(source.lastPathComponent): \(name) missing from \(presets)")
            }
        }
        var exported: [String] = []
        for preset in presets {
            let session = try #require(AVAssetExportSession(asset: asset, presetName: preset))
            let types = await session.compatibleFileTypes
            let type = try #require(types.first, "\(preset) on \(source.lastPathComponent) lists no file type")
            #expect(await AVAssetExportSession.compatibility(ofExportPreset: preset, with: asset, outputFileType: type))
            let ext = type == .m4a ? "m4a" : type == .mp4 ? "mp4" : type == .wav ? "wav" : type == .caf ? "caf" : type == .mobile3GPP ? "3gp" : "mov"
            let out = try ExportFixtures.output("\(preset).\(ext)")
            let run = try await ExportFixtures.export(source, preset: preset, to: out, type: type)
            #expect(run.status == .completed, "\(preset) on \(source.lastPathComponent) → \(type.rawValue): \(String(describing: run.error))")
            guard run.status == .completed else { continue }
            let written = try audioStream(out)
            let label = "\(preset) on \(source.lastPathComponent): \(written)"
            if preset == AVAssetExportPresetPassthrough || preset == AVAssetExportPresetAppleProRes422LPCM {
                #expect(written.rate == rate && written.channels == channels, "\(label)")
            } else {
                // AAC: a rate the encoder takes (the source's when it is one), at most stereo.
                let expected = ExportPresetAudioMatrixTests.aacRate(rate)
                #expect(written.rate == expected, "\(label)")
                #expect(written.channels == min(2, channels), "\(label)")
            }
            // Within one AAC frame (1024 samples at the output's rate) of the source's length.
            #expect(abs(written.duration - sourceAudio.duration) <= 1024 / Double(written.rate) + 0.001,
                    "\(label) vs source \(sourceAudio.duration)")
            if hasVideo, preset != AVAssetExportPresetAppleM4A {
                #expect(try AssetFixtures.probe(out, "stream=codec_type").contains("video"), "\(label)")
            }
            exported.append(preset)
        }
        return exported
    }

    /// The AAC presets' output rate for a source rate: AAC's own rates kept, others 48 kHz.
    static func aacRate(_ rate: Int) -> Int {
        [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000].contains(rate) ? rate : 48000
    }

    @Test(arguments: AudioMatrixSource.all)
    func everyCompatiblePresetExports(_ source: AudioMatrixSource) async throws {
        let url = try AssetFixtures.generate(source.name, source.arguments)
        let exported = try await Self.exportEveryCompatiblePreset(url, rate: source.rate, channels: source.channels, hasVideo: source.withVideo)
        if source.withVideo {
            // Every preset but none: all fourteen apply to a movie with a video and an audio track.
            #expect(exported.count == AVAssetExportSession.allExportPresets().count, "\(exported)")
        } else {
            #expect(exported.contains(AVAssetExportPresetAppleM4A))
        }
    }

    @Test func appleM4AExportsAn11kHzMonoMP3() async throws {
        // pygame's house_lo.mp3: 11.025 kHz mono, where 128 kb/s AAC is more than AAC can carry.
        let source = try #require(AssetFixtures.fixture("house_lo.mp3"))
        let out = try ExportFixtures.output("house_lo.m4a")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetAppleM4A, to: out, type: .m4a)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let written = try Self.audioStream(out)
        #expect(written.rate == 11025 && written.channels == 1)
        #expect(abs(written.duration - 7.27) < 1024 / 11025.0 + 0.01, "\(written.duration)")
        // The bit rate was brought down to what 11.025 kHz mono AAC holds (6 bits a sample).
        let bitRate = try #require(Double(try AssetFixtures.probe(out, "stream=bit_rate", stream: 0)))
        #expect(bitRate <= 66_150 * 1.1 && bitRate > 16_000, "\(bitRate)")
    }

    @Test func theAACSettingsAdaptToTheSource() {
        // The plan's arithmetic, for the cases the matrix does not reach.
        func plan(_ bitRate: Int, _ rate: Double, _ channels: Int) -> (Double, Int, Int) {
            let out = ExportPreset.aacOutput(bitRate: bitRate, maxChannels: 2, sourceRate: rate, sourceChannels: channels)
            return (out.sampleRate, out.channels, out.bitRate)
        }
        #expect(plan(128_000, 11025, 1) == (11025, 1, 66_150))
        #expect(plan(128_000, 8000, 6) == (8000, 2, 96_000))
        #expect(plan(128_000, 96000, 6) == (48000, 2, 128_000))
        #expect(plan(128_000, 7350, 1) == (48000, 1, 128_000))
        #expect(plan(64_000, 8000, 1) == (8000, 1, 48_000))
        #expect(plan(192_000, 44100, 2) == (44100, 2, 192_000))
        #expect(plan(128_000, 0, 2) == (48000, 2, 128_000))
    }

    @Test func planMessagesNameMediaTypesAsWords() throws {
        let source = try #require(ExportFixtures.hd)
        let asset = AVURLAsset(url: source)
        let lines = try ExportPlanInspection.plans(asset: asset, presetName: AVAssetExportPreset640x480, fileType: .mp4)
        #expect(lines.contains { $0.hasPrefix("video track 1: ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("audio track 2: ") }, "\(lines)")
        #expect(!lines.joined().contains("soun") && !lines.joined().contains("vide "))
        // A plan the writer refuses (AAC into a WAVE file) says which track, in words.
        let aacInWave = ExportPreset(name: "AACInWave", video: .none, audio: .aac(bitRate: 128_000, channels: 2), fileTypes: [.wav],
                                     acceptsAudioOnly: true)
        do {
            _ = try ExportPlanner.plan(asset: asset, preset: aacInWave, fileType: .wav, audioMix: nil)
            Issue.record("planned")
        } catch {
            let ns = error as NSError
            #expect(ns.code == AVError.Code.operationNotSupportedForAsset.rawValue)
            #expect(ns.localizedDescription == "Operation Stopped")
            let reason = try #require(ns.localizedFailureReason)
            #expect(reason.contains("the asset's audio track") && !reason.contains("soun"), "\(reason)")
        }
    }
}

