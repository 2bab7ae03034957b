// Reading audio as linear PCM through AVAssetReader: every sample, byte for byte as FFmpeg decodes
// it, in each layout Apple's audio settings describe, with encoder priming removed and time ranges
// trimmed to the sample; damaged input fails with an AVError.
import AVFoundation
import Foundation
import Testing
import TestSupport

/// Audio fixtures generated once per process, and helpers that read through the public API.
enum AudioReaderMedia {
    static let dir: URL = try! AssetFixtures.tempDirectory()

    /// Runs ffmpeg and returns its standard output.
    static func ffmpeg(_ args: [String]) -> Data {
        try! TestTools.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin"] + args).output
    }

    /// Generates `name` in the fixture folder with ffmpeg (once).
    static func make(_ name: String, _ args: [String]) -> URL {
        let url = dir.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = ffmpeg(["-y"] + args + [url.path])
        }
        return url
    }

    /// 44223 frames (1.00279 s) of a 440 Hz tone at 44.1 kHz, mono 16-bit: an odd length no
    /// AAC packet boundary falls on.
    static let tone44k = make("tone44k.wav", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1.00278911",
                                              "-c:a", "pcm_s16le"])
    /// That tone as AAC in M4A, the movie timescale the sample rate so the edit list is exact.
    static let aacExact = make("tone-exact.m4a", ["-i", tone44k.path, "-c:a", "aac", "-b:a", "128k", "-movie_timescale", "44100"])
    /// Three seconds of a chirp as AAC in M4A with ffmpeg's default movie timescale.
    static let aacChirp = make("chirp.m4a", ["-f", "lavfi", "-i", "aevalsrc=sin(2*PI*(200+300*t)*t):s=44100:d=3", "-c:a", "aac",
                                             "-b:a", "160k"])
    /// Twenty seconds of a chirp as variable-bit-rate MP3 (seeking in it is by estimate).
    static let mp3VBR = make("chirp-vbr.mp3", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(200+100*t)*t):s=44100:d=20",
                                                "-c:a", "libmp3lame", "-q:a", "5"])
    /// Twenty seconds as Opus in Ogg (48 kHz, 312-sample pre-skip).
    static let opus = make("chirp.opus", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(200+100*t)*t):s=48000:d=20",
                                          "-c:a", "libopus", "-b:a", "64k"])
    /// 8 kHz mono 16-bit, one second.
    static let tone8k = make("tone8k.wav", ["-f", "lavfi", "-i", "sine=frequency=500:sample_rate=8000:duration=1", "-c:a", "pcm_s16le"])
    /// 48 kHz stereo 16-bit, a different tone on each side, half a second.
    static let stereo = make("stereo.wav", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*300*t)|0.25*sin(2*PI*700*t):s=48000:d=0.5",
                                            "-c:a", "pcm_s16le"])

    /// The linear PCM settings of the tests: integer unless `float`, little-endian interleaved
    /// unless told otherwise.
    static func pcm(bits: Int = 16, float: Bool = false, bigEndian: Bool = false, nonInterleaved: Bool = false,
                    rate: Double? = nil, channels: Int? = nil) -> [String: Any] {
        var settings: [String: Any] = [
            AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: bits, AVLinearPCMIsFloatKey: float,
            AVLinearPCMIsBigEndianKey: bigEndian, AVLinearPCMIsNonInterleaved: nonInterleaved,
        ]
        if let rate { settings[AVSampleRateKey] = rate }
        if let channels { settings[AVNumberOfChannelsKey] = channels }
        return settings
    }

    /// What one read produced.
    struct Result {
        var status: AVAssetReader.Status
        var error: (any Error)?
        var buffers: [CMSampleBuffer]
        /// Every buffer's bytes, one after another.
        var data: Data
        var frames: Int { buffers.reduce(0) { $0 + CMSampleBufferGetNumSamples($1) } }
        var firstTime: CMTime { buffers.first.map(CMSampleBufferGetPresentationTimeStamp) ?? .invalid }
        var asbd: AudioStreamBasicDescription? {
            buffers.first.flatMap(CMSampleBufferGetFormatDescription).flatMap { CMAudioFormatDescriptionGetStreamBasicDescription($0)?.pointee }
        }
    }

    /// Reads the audio tracks of `url` mixed (one track: converted) into `settings`.
    static func read(_ url: URL, settings: [String: Any]?, timeRange: CMTimeRange? = nil,
                     mix: ((AVAssetReaderAudioMixOutput, [AVAssetTrack]) -> Void)? = nil) async throws -> Result {
        let asset = AVURLAsset(url: url)
        let tracks = try await asset.loadTracks(withMediaType: .audio)
        let reader = try AVAssetReader(asset: asset)
        if let timeRange { reader.timeRange = timeRange }
        let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: settings)
        mix?(output, tracks)
        reader.add(output)
        var result = Result(status: .unknown, error: nil, buffers: [], data: Data())
        if reader.startReading() {
            while let buffer = output.copyNextSampleBuffer() {
                result.buffers.append(buffer)
                if let block = CMSampleBufferGetDataBuffer(buffer) {
                    var bytes = Data(count: CMBlockBufferGetDataLength(block))
                    bytes.withUnsafeMutableBytes { _ = CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
                    result.data.append(bytes)
                }
            }
        }
        result.status = reader.status
        result.error = reader.error
        return result
    }

    /// Little-endian 16-bit samples.
    static func int16s(_ data: Data) -> [Int16] { data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } }
    /// Native 32-bit floats.
    static func floats(_ data: Data) -> [Float] { data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } }
}

@Suite("AVAssetReader: audio as linear PCM")
struct AssetReaderAudioTests {
    @Test("house_lo.wav as 16-bit LPCM: all 78331 frames, byte-identical to ffmpeg, timed from 0 at 1/11025 s each")
    func houseLoWav() async throws {
        guard let url = AssetFixtures.fixture("house_lo.wav") else { return }
        let result = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm())
        #expect(result.status == .completed)
        #expect(result.frames == 78331)
        #expect(result.data == AudioReaderMedia.ffmpeg(["-i", url.path, "-f", "s16le", "-"]))
        let asbd = try #require(result.asbd)
        #expect(asbd.mFormatID == kAudioFormatLinearPCM)
        #expect(asbd.mSampleRate == 11025 && asbd.mChannelsPerFrame == 1 && asbd.mBitsPerChannel == 16)
        #expect(asbd.mFormatFlags == kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked)
        #expect(asbd.mBytesPerFrame == 2 && asbd.mBytesPerPacket == 2 && asbd.mFramesPerPacket == 1)
        // Buffers follow each other without gaps; each sample lasts 1/11025 s.
        var next = CMTime(value: 0, timescale: 11025)
        for buffer in result.buffers {
            #expect(CMSampleBufferGetPresentationTimeStamp(buffer) == next)
            #expect(CMSampleBufferGetPresentationTimeStamp(buffer).timescale == 11025)
            var timing = CMSampleTimingInfo.invalid
            #expect(CMSampleBufferGetSampleTimingInfo(buffer, at: 0, timingInfoOut: &timing) == noErr)
            #expect(timing.duration == CMTime(value: 1, timescale: 11025))
            #expect(CMSampleBufferGetNumSamples(buffer) <= 8192)
            next = next + CMSampleBufferGetDuration(buffer)
        }
        #expect(next == CMTime(value: 78331, timescale: 11025))
        // The channel layout rides along: mono.
        let description = try #require(CMSampleBufferGetFormatDescription(result.buffers[0]))
        var size = 0
        let layout = try #require(CMAudioFormatDescriptionGetChannelLayout(description, sizeOut: &size))
        #expect(layout.pointee.mChannelLayoutTag == kAudioChannelLayoutTag_Mono)
    }

    @Test("16-bit big-endian and 24-bit little-endian match ffmpeg's s16be and s24le")
    func integerLayouts() async throws {
        guard let url = AssetFixtures.fixture("house_lo.wav") else { return }
        let be = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm(bigEndian: true))
        #expect(be.data == AudioReaderMedia.ffmpeg(["-i", url.path, "-f", "s16be", "-"]))
        #expect(be.asbd?.mFormatFlags == kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked | kAudioFormatFlagIsBigEndian)
        let s24 = try await AudioReaderMedia.read(AudioReaderMedia.stereo, settings: AudioReaderMedia.pcm(bits: 24))
        #expect(s24.data == AudioReaderMedia.ffmpeg(["-i", AudioReaderMedia.stereo.path, "-f", "s24le", "-"]))
        #expect(s24.asbd?.mBytesPerFrame == 6)
        #expect(s24.asbd?.mBitsPerChannel == 24)
        #expect(s24.frames == 24000)
        let u8 = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm(bits: 8))
        #expect(u8.data == AudioReaderMedia.ffmpeg(["-i", url.path, "-f", "u8", "-"]), "8-bit LPCM is unsigned, as in the WAV")
        #expect(u8.asbd?.mFormatFlags == kAudioFormatFlagIsPacked)
    }

    @Test("32-bit float non-interleaved: one buffer per channel through the AudioBufferList API")
    func floatNonInterleaved() async throws {
        let url = AudioReaderMedia.stereo
        let result = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm(bits: 32, float: true, nonInterleaved: true))
        #expect(result.status == .completed)
        #expect(result.frames == 24000)
        let asbd = try #require(result.asbd)
        #expect(asbd.mFormatFlags == kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved)
        #expect(asbd.mBytesPerFrame == 4 && asbd.mChannelsPerFrame == 2)
        let interleaved = AudioReaderMedia.floats(AudioReaderMedia.ffmpeg(["-i", url.path, "-f", "f32le", "-"]))
        var left: [Float] = [], right: [Float] = []
        for buffer in result.buffers {
            let frames = CMSampleBufferGetNumSamples(buffer)
            var needed = 0
            #expect(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
                buffer, bufferListSizeNeededOut: &needed, bufferListOut: nil, bufferListSize: 0, blockBufferAllocator: nil,
                blockBufferMemoryAllocator: nil, flags: 0, blockBufferOut: nil) == noErr)
            let list = AudioBufferList.allocate(maximumBuffers: 2)
            defer { free(list.unsafeMutablePointer) }
            var block: CMBlockBuffer?
            let status = CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
                buffer, bufferListSizeNeededOut: nil, bufferListOut: list.unsafeMutablePointer, bufferListSize: needed,
                blockBufferAllocator: nil, blockBufferMemoryAllocator: nil, flags: 0, blockBufferOut: &block)
            try #require(status == noErr)
            #expect(block != nil)
            #expect(list.count == 2)
            for (i, audioBuffer) in list.enumerated() {
                #expect(audioBuffer.mNumberChannels == 1)
                #expect(Int(audioBuffer.mDataByteSize) == frames * 4)
                let samples = UnsafeBufferPointer(start: audioBuffer.mData!.assumingMemoryBound(to: Float.self), count: frames)
                if i == 0 { left += samples } else { right += samples }
            }
        }
        let expectedLeft = stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] }
        let expectedRight = stride(from: 1, to: interleaved.count, by: 2).map { interleaved[$0] }
        #expect(left == expectedLeft)
        #expect(right == expectedRight)
    }

    @Test("interleaved stereo gives one buffer holding both channels")
    func interleavedBufferList() async throws {
        let result = try await AudioReaderMedia.read(AudioReaderMedia.stereo, settings: AudioReaderMedia.pcm())
        let buffer = try #require(result.buffers.first)
        var list = AudioBufferList()
        var block: CMBlockBuffer?
        let status = CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            buffer, bufferListSizeNeededOut: nil, bufferListOut: &list, bufferListSize: MemoryLayout<AudioBufferList>.size,
            blockBufferAllocator: nil, blockBufferMemoryAllocator: nil, flags: 0, blockBufferOut: &block)
        #expect(status == noErr)
        #expect(list.mNumberBuffers == 1)
        #expect(list.mBuffers.mNumberChannels == 2)
        #expect(Int(list.mBuffers.mDataByteSize) == CMSampleBufferGetNumSamples(buffer) * 4)
        #expect(result.data == AudioReaderMedia.ffmpeg(["-i", AudioReaderMedia.stereo.path, "-f", "s16le", "-"]))
    }

    @Test("8000 → 44100 Hz: exactly the implied 44100 frames, as ffmpeg's resampler gives them")
    func resampling() async throws {
        let result = try await AudioReaderMedia.read(AudioReaderMedia.tone8k, settings: AudioReaderMedia.pcm(rate: 44100))
        #expect(result.status == .completed)
        #expect(result.frames == 44100)
        #expect(result.asbd?.mSampleRate == 44100)
        #expect(result.firstTime == CMTime(value: 0, timescale: 44100))
        let ours = AudioReaderMedia.int16s(result.data)
        let theirs = AudioReaderMedia.int16s(AudioReaderMedia.ffmpeg(["-i", AudioReaderMedia.tone8k.path, "-ar", "44100", "-f", "s16le", "-"]))
        #expect(theirs.count == 44100)
        let worst = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? .max
        #expect(worst <= 1, "largest difference from ffmpeg: \(worst)")
    }

    @Test("mono → stereo puts the mono signal on both sides unchanged")
    func monoToStereo() async throws {
        guard let url = AssetFixtures.fixture("house_lo.wav") else { return }
        let mono = AudioReaderMedia.int16s(try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm()).data)
        let result = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm(channels: 2))
        #expect(result.asbd?.mChannelsPerFrame == 2)
        let stereo = AudioReaderMedia.int16s(result.data)
        #expect(stereo.count == 2 * mono.count)
        let expected = mono.flatMap { [$0, $0] }
        #expect(stereo == expected)
        let description = try #require(result.buffers.first.flatMap(CMSampleBufferGetFormatDescription))
        #expect(CMAudioFormatDescriptionGetChannelLayout(description, sizeOut: nil)?.pointee.mChannelLayoutTag == kAudioChannelLayoutTag_Stereo)
    }

    @Test("AVChannelLayoutKey: a layout tag, or channel descriptions in any order, shape the output")
    func channelLayoutKey() async throws {
        let url = AudioReaderMedia.stereo
        let plain = AudioReaderMedia.int16s(try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm()).data)
        // Right, then left, as two channel descriptions.
        var layout = Data(count: 12 + 2 * 20)
        layout.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: kAudioChannelLayoutTag_UseChannelDescriptions, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(2), toByteOffset: 8, as: UInt32.self)
            raw.storeBytes(of: kAudioChannelLabel_Right, toByteOffset: 12, as: UInt32.self)
            raw.storeBytes(of: kAudioChannelLabel_Left, toByteOffset: 32, as: UInt32.self)
        }
        var settings = AudioReaderMedia.pcm(channels: 2)
        settings[AVChannelLayoutKey] = layout
        let swapped = try await AudioReaderMedia.read(url, settings: settings)
        let expected: [Int16] = stride(from: 0, to: plain.count, by: 2).flatMap { [plain[$0 + 1], plain[$0]] }
        #expect(AudioReaderMedia.int16s(swapped.data) == expected)
        // The description carries the layout as given.
        let description = try #require(swapped.buffers.first.flatMap(CMSampleBufferGetFormatDescription))
        var size = 0
        let carried = try #require(CMAudioFormatDescriptionGetChannelLayout(description, sizeOut: &size))
        #expect(size == layout.count)
        #expect(carried.pointee.mChannelLayoutTag == kAudioChannelLayoutTag_UseChannelDescriptions)
        #expect(carried.pointee.mNumberChannelDescriptions == 2)
        #expect(carried.pointee.mChannelDescriptions.mChannelLabel == kAudioChannelLabel_Right)
        // A mono layout tag alone makes stereo mono: the average of the sides.
        var monoLayout = AudioChannelLayout()
        monoLayout.mChannelLayoutTag = kAudioChannelLayoutTag_Mono
        let monoData = withUnsafeBytes(of: &monoLayout) { Data($0) }
        settings = AudioReaderMedia.pcm()
        settings[AVChannelLayoutKey] = monoData
        let downmix = try await AudioReaderMedia.read(url, settings: settings)
        #expect(downmix.asbd?.mChannelsPerFrame == 1)
        let averaged = AudioReaderMedia.int16s(downmix.data)
        #expect(averaged.count == plain.count / 2)
        var worst = 0
        for i in averaged.indices {
            let mean = (Int(plain[2 * i]) + Int(plain[2 * i + 1])) / 2
            worst = max(worst, abs(Int(averaged[i]) - mean))
        }
        #expect(worst <= 1)
    }

    @Test("5.1 audio: described as Apple's MPEG 5.1 A layout, and folded down to stereo on request")
    func surround() async throws {
        let url = AudioReaderMedia.make("six.flac", ["-f", "lavfi", "-i", "sine=frequency=300:sample_rate=48000:duration=0.3", "-ac", "6"])
        let native = try await AudioReaderMedia.read(url, settings: nil)
        #expect(native.asbd?.mChannelsPerFrame == 6)
        let description = try #require(native.buffers.first.flatMap(CMSampleBufferGetFormatDescription))
        #expect(CMAudioFormatDescriptionGetChannelLayout(description, sizeOut: nil)?.pointee.mChannelLayoutTag == kAudioChannelLayoutTag_MPEG_5_1_A)
        #expect(native.frames == 14400)
        let stereo = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm(channels: 2))
        #expect(stereo.asbd?.mChannelsPerFrame == 2)
        #expect(stereo.frames == 14400)
        // The same signal on every input channel gives the same signal on both sides.
        let samples = AudioReaderMedia.int16s(stereo.data)
        #expect(stride(from: 0, to: samples.count, by: 2).allSatisfy { samples[$0] == samples[$0 + 1] })
        #expect(samples.contains { abs(Int($0)) > 1000 })
    }

    @Test("random access: after the samples run out, reset(forReadingTimeRanges:) reads further ranges exactly")
    func randomAccess() async throws {
        guard let url = AssetFixtures.fixture("house_lo.wav") else { return }
        let full = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm()).data
        let asset = AVURLAsset(url: url)
        let tracks = try await asset.loadTracks(withMediaType: .audio)
        let reader = try AVAssetReader(asset: asset)
        reader.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 1000, timescale: 11025))
        let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: AudioReaderMedia.pcm())
        output.supportsRandomAccess = true
        reader.add(output)
        #expect(reader.startReading())
        func drain() -> (Data, [CMTime]) {
            var data = Data(), starts: [CMTime] = []
            while let buffer = output.copyNextSampleBuffer() {
                starts.append(CMSampleBufferGetPresentationTimeStamp(buffer))
                data.append(try! CMSampleBufferGetDataBuffer(buffer)!.dataBytes())
            }
            return (data, starts)
        }
        #expect(drain().0 == full.prefix(2000))
        #expect(reader.status == .reading)
        let ranges = [CMTimeRange(start: CMTime(value: 2000, timescale: 11025), duration: CMTime(value: 1000, timescale: 11025)),
                      CMTimeRange(start: CMTime(value: 50_000, timescale: 11025), duration: CMTime(value: 9000, timescale: 11025))]
        output.reset(forReadingTimeRanges: ranges.map { NSValue(timeRange: $0) })
        let (data, starts) = drain()
        #expect(data == full.subdata(in: 4000..<6000) + full.subdata(in: 100_000..<118_000))
        #expect(starts.first == CMTime(value: 2000, timescale: 11025))
        #expect(starts.contains(CMTime(value: 50_000, timescale: 11025)))
        output.markConfigurationAsFinal()
        #expect(reader.status == .completed)
    }

    @Test("AAC in M4A: encoder priming removed — starts at 0 with exactly the source's 44223 frames, aligned with it")
    func aacPrimingRemoved() async throws {
        let result = try await AudioReaderMedia.read(AudioReaderMedia.aacExact, settings: AudioReaderMedia.pcm())
        #expect(result.status == .completed)
        #expect(result.firstTime == .zero)
        #expect(result.frames == 44223)
        // Aligned with the source: the lossy copy is far closer at lag 0 than at any shift by
        // a fraction of a packet (a leftover 1024-frame priming would show as a shift).
        let source = AudioReaderMedia.int16s(AudioReaderMedia.ffmpeg(["-i", AudioReaderMedia.tone44k.path, "-f", "s16le", "-"]))
        let decoded = AudioReaderMedia.int16s(result.data)
        func error(lag: Int) -> Double {
            var sum = 0.0
            for i in 2048..<40000 { let d = Double(decoded[i + lag]) - Double(source[i]); sum += d * d }
            return (sum / 37952).squareRoot()
        }
        let atZero = error(lag: 0)
        #expect(atZero < 300, "RMS error at lag 0: \(atZero)")
        for lag in [-1024, -512, -25, 25, 512, 1024] { #expect(error(lag: lag) > 3 * atZero, "lag \(lag)") }
    }

    @Test("AAC with ffmpeg's millisecond movie timescale: a whole second is exactly 44100 frames")
    func aacMillisecondTimescale() async throws {
        let url = AudioReaderMedia.make("second.m4a", ["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=1",
                                                       "-c:a", "aac"])
        let result = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm())
        #expect(result.firstTime == .zero)
        #expect(result.frames == 44100)
    }

    @Test("a time range is trimmed to the sample at both ends", arguments: ["chirp.m4a", "house_lo.wav", "house_lo.mp3", "house_lo.ogg", "chirp-vbr.mp3", "chirp.opus"])
    func timeRangeTrimming(name: String) async throws {
        let url: URL
        if name == "chirp.m4a" {
            url = AudioReaderMedia.aacChirp
        } else if name == "chirp-vbr.mp3" {
            url = AudioReaderMedia.mp3VBR
        } else if name == "chirp.opus" {
            url = AudioReaderMedia.opus
        } else {
            guard let fixture = AssetFixtures.fixture(name) else { return }
            url = fixture
        }
        let full = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm())
        let rate = Int64(try #require(full.asbd).mSampleRate)
        // Start between samples (rounds up to the next sample), end on one (exclusive); deep
        // into the longer files, so that reading starts with a seek.
        let first = (full.frames > 14 * Int(rate) ? 12 * rate : rate) + 7, count = rate / 2 + 3
        let range = CMTimeRange(start: CMTime(value: first * 1000 - 400, timescale: Int32(rate * 1000)),
                                end: CMTime(value: first + count, timescale: Int32(rate)))
        let part = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm(), timeRange: range)
        #expect(part.status == .completed)
        #expect(part.frames == Int(count))
        #expect(part.firstTime == CMTime(value: first, timescale: Int32(rate)))
        // The whole read starts where the track does (an MP3's LAME encoder delay is FFmpeg's start time).
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .audio).first)
        let trackStart = try await track.load(.timeRange).start
        #expect(full.firstTime == CMTimeConvertScale(trackStart, timescale: Int32(rate), method: .roundHalfAwayFromZero))
        let base = Int(full.firstTime.value)
        #expect(part.data == full.data.subdata(in: (Int(first) - base) * 2 ..< (Int(first + count) - base) * 2))
    }

    @Test("no audio settings: 32-bit float, non-interleaved, at the track's rate and channels")
    func defaultFormat() async throws {
        let result = try await AudioReaderMedia.read(AudioReaderMedia.stereo, settings: nil)
        let asbd = try #require(result.asbd)
        #expect(asbd.mSampleRate == 48000 && asbd.mChannelsPerFrame == 2 && asbd.mBitsPerChannel == 32)
        #expect(asbd.mFormatFlags == kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved)
        #expect(result.frames == 24000)
    }

    @Test("MP3 and Vorbis decode to their full length from time 0")
    func compressedFixtures() async throws {
        for name in ["house_lo.mp3", "house_lo.ogg"] {
            guard let url = AssetFixtures.fixture(name) else { continue }
            let result = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm())
            #expect(result.status == .completed, "\(name)")
            #expect(result.firstTime == .zero, "\(name)")
            let reference = AudioReaderMedia.ffmpeg(["-i", url.path, "-f", "s16le", "-"])
            #expect(result.data == reference, "\(name): \(result.data.count) bytes, ffmpeg \(reference.count)")
        }
    }

    @Test("cancelReading stops the output: no more buffers, status cancelled")
    func cancelling() async throws {
        let asset = AVURLAsset(url: AudioReaderMedia.aacChirp)
        let tracks = try await asset.loadTracks(withMediaType: .audio)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: AudioReaderMedia.pcm())
        reader.add(output)
        #expect(reader.startReading())
        #expect(output.copyNextSampleBuffer() != nil)
        reader.cancelReading()
        #expect(reader.status == .cancelled)
        #expect(output.copyNextSampleBuffer() == nil)
    }

    @Test("damaged audio fails with an AVError (or reads what survives), never crashes or hangs")
    func damagedAudio() async throws {
        let source = try Data(contentsOf: AudioReaderMedia.aacChirp)
        var variants: [(String, Data)] = []
        var zeroed = source
        // Wipe most of the media data (the 'mdat' box comes before 'moov' in ffmpeg's files).
        if let mdat = source.range(of: Data("mdat".utf8)) {
            for i in (mdat.upperBound + 64)..<min(source.count - 4096, mdat.upperBound + 40000) { zeroed[i] = 0xFF }
        }
        variants.append(("garbled", zeroed))
        variants.append(("truncated", source.prefix(source.count / 3)))
        if let mp3 = AssetFixtures.fixture("house_lo.mp3") {
            var bytes = try Data(contentsOf: mp3)
            for i in stride(from: 3000, to: bytes.count, by: 7) { bytes[i] ^= 0x5A }
            variants.append(("mp3 bit flips", bytes))
        }
        for (name, bytes) in variants {
            let url = AudioReaderMedia.dir.appendingPathComponent("damaged-\(name.replacingOccurrences(of: " ", with: "-")).\(name.hasPrefix("mp3") ? "mp3" : "m4a")")
            try bytes.write(to: url)
            let asset = AVURLAsset(url: url)
            let tracks: [AVAssetTrack]
            do {
                tracks = try await asset.loadTracks(withMediaType: .audio)
            } catch {
                #expect((error as NSError).domain == AVFoundationErrorDomain, "\(name): \(error)")
                continue
            }
            guard !tracks.isEmpty else { continue }
            let result = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm())
            #expect(result.status == .completed || result.status == .failed, "\(name)")
            if result.status == .failed {
                let error = try #require(result.error, "\(name)")
                #expect((error as NSError).domain == AVFoundationErrorDomain, "\(name): \(error)")
            }
        }
    }
}
