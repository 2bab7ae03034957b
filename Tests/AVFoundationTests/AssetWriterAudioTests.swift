// Linear PCM through the asset writer: WAVE, AIFF, AIFC, CAF and QuickTime files, checked with
// ffprobe and by decoding the file back to the bytes that were appended. Compressed audio and the
// conversions through the resampler: AssetWriterCompressedAudioTests.
import AVFoundation
import Foundation
import Testing

@Suite(.serialized) struct AssetWriterAudioTests {
    /// Interleaved PCM of `channels` channels: a 441 Hz sine in each, frame `i` of channel `c`
    /// scaled by (c + 1)/channels, in the layout asked for.
    static func pcm(frames: Int, channels: Int, bits: Int, float: Bool, bigEndian: Bool = false) -> Data {
        var data = Data(capacity: frames * channels * bits / 8)
        for i in 0..<frames {
            for c in 0..<channels {
                let v = sin(Double(i) * 2 * .pi * 441 / 44_100) * 0.8 * Double(c + 1) / Double(channels)
                var bytes: [UInt8]
                switch (bits, float) {
                case (32, true): bytes = withUnsafeBytes(of: Float(v).bitPattern.littleEndian) { Array($0) }
                case (64, true): bytes = withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) }
                case (8, false): bytes = [UInt8(Int(v * 127) + 128)]
                default:
                    let n = Int64(v * Double((1 << (bits - 1)) - 1))
                    bytes = (0..<bits / 8).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) }
                }
                data.append(contentsOf: bigEndian ? bytes.reversed() : bytes)
            }
        }
        return data
    }

    static func format(channels: Int, bits: Int, float: Bool, bigEndian: Bool = false, signed: Bool = true,
                       rate: Double = 44_100) -> CMAudioFormatDescription {
        var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
        if float { flags |= kAudioFormatFlagIsFloat } else if signed { flags |= kAudioFormatFlagIsSignedInteger }
        if bigEndian { flags |= kAudioFormatFlagIsBigEndian }
        var asbd = AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                               mBytesPerPacket: UInt32(bits / 8 * channels), mFramesPerPacket: 1,
                                               mBytesPerFrame: UInt32(bits / 8 * channels), mChannelsPerFrame: UInt32(channels),
                                               mBitsPerChannel: UInt32(bits), mReserved: 0)
        var out: CMAudioFormatDescription?
        CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                       magicCookie: nil, extensions: nil, formatDescriptionOut: &out)
        return out!
    }

    /// Sample buffers of `chunk` frames covering `data`, starting at `start` seconds.
    static func sampleBuffers(_ data: Data, format: CMAudioFormatDescription, chunk: Int = 1024,
                              start: CMTime = .zero) -> [CMSampleBuffer] {
        let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(format)!.pointee
        let frameBytes = Int(asbd.mBytesPerFrame)
        let frames = data.count / frameBytes
        var buffers: [CMSampleBuffer] = []
        var first = 0
        while first < frames {
            let n = min(chunk, frames - first)
            var block: CMBlockBuffer?
            CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: n * frameBytes, blockAllocator: nil,
                                               customBlockSource: nil, offsetToData: 0, dataLength: n * frameBytes,
                                               flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
            _ = data.withUnsafeBytes {
                CMBlockBufferReplaceDataBytes(with: $0.baseAddress! + first * frameBytes, blockBuffer: block!, offsetIntoDestination: 0,
                                              dataLength: n * frameBytes)
            }
            var sample: CMSampleBuffer?
            let pts = CMTimeAdd(start, CMTime(value: Int64(first), timescale: Int32(asbd.mSampleRate)))
            CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: block!, formatDescription: format,
                                                                 sampleCount: n, presentationTimeStamp: pts,
                                                                 packetDescriptions: nil, sampleBufferOut: &sample)
            buffers.append(sample!)
            first += n
        }
        return buffers
    }

    /// Writes `buffers` through one audio input with `settings`; returns the finished writer.
    static func write(_ buffers: [CMSampleBuffer], to url: URL, fileType: AVFileType, settings: [String: Any]?,
                      hint: CMFormatDescription? = nil, sessionStart: CMTime = .zero) async throws -> AVAssetWriter {
        let writer = try AVAssetWriter(outputURL: url, fileType: fileType)
        let input = AVAssetWriterInput(mediaType: .audio, outputSettings: settings, sourceFormatHint: hint)
        #expect(writer.canAdd(input))
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: sessionStart)
        for buffer in buffers {
            while !input.isReadyForMoreMediaData && writer.status == .writing { try await Task.sleep(nanoseconds: 1_000_000) }
            guard input.append(buffer) else { break }
        }
        input.markAsFinished()
        await writer.finishWriting()
        return writer
    }

    static func lpcm(bits: Int, float: Bool = false, bigEndian: Bool = false, channels: Int = 2, rate: Double = 44_100) -> [String: Any] {
        [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels,
         AVLinearPCMBitDepthKey: bits, AVLinearPCMIsFloatKey: float, AVLinearPCMIsBigEndianKey: bigEndian,
         AVLinearPCMIsNonInterleaved: false]
    }

    /// The file decoded by ffmpeg to raw samples of `rawFormat` ("s16le", "f32le"…).
    static func decoded(_ url: URL, as rawFormat: String) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", url.path, "-f", rawFormat, "-"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return data
    }

    @Test(arguments: [
        (AVFileType.wav, "wav", 16, false, false, "pcm_s16le", "s16le"),
        (.wav, "wav", 24, false, false, "pcm_s24le", "s24le"),
        (.wav, "wav", 32, true, false, "pcm_f32le", "f32le"),
        (.aiff, "aif", 16, false, true, "pcm_s16be", "s16le"),
        (.aiff, "aif", 24, false, true, "pcm_s24be", "s24le"),
        (.aifc, "aifc", 32, true, true, "pcm_f32be", "f32le"),
        (.caf, "caf", 16, false, false, "pcm_s16le", "s16le"),
        (.caf, "caf", 64, true, true, "pcm_f64be", "f64le"),
        (.mov, "mov", 16, false, false, "pcm_s16le", "s16le"),
        (.mov, "mov", 24, false, true, "pcm_s24be", "s24le"),
    ])
    func linearPCMIsStoredSampleForSample(_ type: AVFileType, _ ext: String, _ bits: Int, _ float: Bool, _ bigEndian: Bool,
                                          _ codec: String, _ raw: String) async throws {
        // Little-endian input of the same width: stored as is, or byte-swapped by FFmpeg's PCM codecs.
        let input = Self.pcm(frames: 22_050, channels: 2, bits: bits, float: float)
        let url = try WriterFixtures.outputURL("pcm.\(ext)")
        let writer = try await Self.write(Self.sampleBuffers(input, format: Self.format(channels: 2, bits: bits, float: float)),
                                          to: url, fileType: type, settings: Self.lpcm(bits: bits, float: float, bigEndian: bigEndian))
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let stream = try WriterFixtures.stream(url, "a")
        #expect(stream["codec_name"] == codec)
        #expect(stream["sample_rate"] == "44100")
        #expect(stream["channels"] == "2")
        #expect(try Self.decoded(url, as: raw) == input)
        if type == .aifc {
            #expect(String(decoding: try Data(contentsOf: url)[8..<12], as: UTF8.self) == "AIFC")
        }
    }

    @Test func aifcHoldsBigEndianIntegersInItsCompressedForm() async throws {
        let input = Self.pcm(frames: 4410, channels: 1, bits: 16, float: false)
        let url = try WriterFixtures.outputURL("int.aifc")
        let writer = try await Self.write(Self.sampleBuffers(input, format: Self.format(channels: 1, bits: 16, float: false)),
                                          to: url, fileType: .aifc, settings: Self.lpcm(bits: 16, bigEndian: true, channels: 1))
        #expect(writer.status == .completed)
        let bytes = try Data(contentsOf: url)
        #expect(String(decoding: bytes[8..<12], as: UTF8.self) == "AIFC")
        #expect(try Self.decoded(url, as: "s16le") == input)
    }

    @Test func eightBitSamplesAreUnsignedInWaveAndSignedInAIFF() async throws {
        let input = Self.pcm(frames: 4410, channels: 1, bits: 8, float: false)
        let wav = try WriterFixtures.outputURL("u8.wav")
        _ = try await Self.write(Self.sampleBuffers(input, format: Self.format(channels: 1, bits: 8, float: false, signed: false)),
                                 to: wav, fileType: .wav, settings: Self.lpcm(bits: 8, channels: 1))
        #expect(try WriterFixtures.stream(wav, "a")["codec_name"] == "pcm_u8")
        #expect(try Self.decoded(wav, as: "u8") == input)
        let aiff = try WriterFixtures.outputURL("s8.aif")
        _ = try await Self.write(Self.sampleBuffers(input, format: Self.format(channels: 1, bits: 8, float: false, signed: false)),
                                 to: aiff, fileType: .aiff, settings: Self.lpcm(bits: 8, bigEndian: true, channels: 1))
        #expect(try WriterFixtures.stream(aiff, "a")["codec_name"] == "pcm_s8")
        #expect(try Self.decoded(aiff, as: "u8") == input)
    }

    @Test func thirtyTwoBitIntegersBecomeTwentyFourBitSamples() async throws {
        let input = Self.pcm(frames: 4410, channels: 2, bits: 32, float: false)
        let url = try WriterFixtures.outputURL("s24.wav")
        let writer = try await Self.write(Self.sampleBuffers(input, format: Self.format(channels: 2, bits: 32, float: false)),
                                          to: url, fileType: .wav, settings: Self.lpcm(bits: 24))
        #expect(writer.status == .completed)
        #expect(try WriterFixtures.stream(url, "a")["codec_name"] == "pcm_s24le")
        // The top 24 bits of each sample.
        let decoded = try Self.decoded(url, as: "s32le")
        let expected = Data(input.enumerated().map { $0.offset % 4 == 0 ? 0 : $0.element })
        #expect(decoded == expected)
    }

    @Test func theSessionTrimsSamplesToTheFrame() async throws {
        let input = Self.pcm(frames: 44_100, channels: 1, bits: 16, float: false)
        let url = try WriterFixtures.outputURL("session.wav")
        let writer = try await Self.write(Self.sampleBuffers(input, format: Self.format(channels: 1, bits: 16, float: false), chunk: 1000),
                                          to: url, fileType: .wav, settings: Self.lpcm(bits: 16, channels: 1),
                                          sessionStart: CMTime(value: 10_025, timescale: 44_100))
        #expect(writer.status == .completed)
        #expect(try Self.decoded(url, as: "s16le") == input.dropFirst(10_025 * 2))
    }

    @Test func endSessionCutsTheLastBuffer() async throws {
        let input = Self.pcm(frames: 44_100, channels: 1, bits: 16, float: false)
        let url = try WriterFixtures.outputURL("end.caf")
        let writer = try AVAssetWriter(outputURL: url, fileType: .caf)
        let audio = AVAssetWriterInput(mediaType: .audio, outputSettings: Self.lpcm(bits: 16, channels: 1))
        writer.add(audio)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        writer.endSession(atSourceTime: CMTime(value: 30_000, timescale: 44_100))
        for buffer in Self.sampleBuffers(input, format: Self.format(channels: 1, bits: 16, float: false), chunk: 4096) {
            while !audio.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            #expect(audio.append(buffer))
        }
        await writer.finishWriting()
        #expect(writer.status == .completed)
        #expect(try Self.decoded(url, as: "s16le") == input.prefix(30_000 * 2))
    }

    @Test func compressedAudioSettingsApplyWhereTheFileTypeHoldsThem() throws {
        let writer = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("a.m4a"), fileType: .m4a)
        let aac: [String: Any] = [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2,
                                  AVEncoderBitRateKey: 128_000]
        #expect(writer.canApply(outputSettings: aac, forMediaType: .audio))
        #expect(writer.canApply(outputSettings: nil, forMediaType: .audio))
        #expect(!writer.canApply(outputSettings: Self.lpcm(bits: 16), forMediaType: .audio))
    }

    @Test func fileTypesRefuseLayoutsTheyCannotHold() throws {
        let dir = try AssetFixtures.tempDirectory()
        let wav = try AVAssetWriter(outputURL: dir.appendingPathComponent("a.wav"), fileType: .wav)
        #expect(wav.canApply(outputSettings: Self.lpcm(bits: 16), forMediaType: .audio))
        #expect(!wav.canApply(outputSettings: Self.lpcm(bits: 16, bigEndian: true), forMediaType: .audio))
        #expect(!wav.canApply(outputSettings: Self.lpcm(bits: 16), forMediaType: .video))
        var planar = Self.lpcm(bits: 16)
        planar[AVLinearPCMIsNonInterleaved] = true
        #expect(!wav.canApply(outputSettings: planar, forMediaType: .audio))
        let aiff = try AVAssetWriter(outputURL: dir.appendingPathComponent("a.aif"), fileType: .aiff)
        #expect(aiff.canApply(outputSettings: Self.lpcm(bits: 24, bigEndian: true), forMediaType: .audio))
        #expect(!aiff.canApply(outputSettings: Self.lpcm(bits: 32, float: true, bigEndian: true), forMediaType: .audio))
        #expect(!aiff.canApply(outputSettings: Self.lpcm(bits: 16), forMediaType: .audio))
        let caf = try AVAssetWriter(outputURL: dir.appendingPathComponent("a.caf"), fileType: .caf)
        #expect(caf.canApply(outputSettings: Self.lpcm(bits: 64, float: true, bigEndian: true), forMediaType: .audio))
    }

    @Test func compressedInputWithOutputSettingsFailsTheWriterWithAnAVError() async throws {
        // Output settings take linear PCM; µ-law sample buffers are not decoded first.
        var asbd = AudioStreamBasicDescription(mSampleRate: 8000, mFormatID: kAudioFormatULaw, mFormatFlags: 0, mBytesPerPacket: 1,
                                               mFramesPerPacket: 1, mBytesPerFrame: 1, mChannelsPerFrame: 1, mBitsPerChannel: 8, mReserved: 0)
        var format: CMAudioFormatDescription?
        CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0, magicCookie: nil,
                                       extensions: nil, formatDescriptionOut: &format)
        let url = try WriterFixtures.outputURL("ulaw-in.caf")
        let writer = try await Self.write(Self.sampleBuffers(Data(repeating: 0x7F, count: 800), format: format!, chunk: 400),
                                          to: url, fileType: .caf, settings: Self.lpcm(bits: 16, channels: 1, rate: 8000))
        #expect(writer.status == .failed)
        let error = try #require(writer.error as? AVError)
        #expect(error.code == .unsupportedOutputSettings)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func linearPCMPassesThroughWithAHint() async throws {
        let input = Self.pcm(frames: 8820, channels: 2, bits: 16, float: false)
        let format = Self.format(channels: 2, bits: 16, float: false)
        let url = try WriterFixtures.outputURL("pass.wav")
        let writer = try await Self.write(Self.sampleBuffers(input, format: format), to: url, fileType: .wav, settings: nil, hint: format)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try WriterFixtures.stream(url, "a")["codec_name"] == "pcm_s16le")
        #expect(try Self.decoded(url, as: "s16le") == input)
    }

    @Test func audioAndVideoInterleaveInOneMovie() async throws {
        let url = try WriterFixtures.outputURL("av.mov")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mov)
        let video = AVAssetWriterInput(mediaType: .video, outputSettings: [AVVideoCodecKey: AVVideoCodecType.h264,
                                                                          AVVideoWidthKey: 160, AVVideoHeightKey: 120])
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: video)
        let audio = AVAssetWriterInput(mediaType: .audio, outputSettings: Self.lpcm(bits: 16, channels: 1))
        writer.add(video)
        writer.add(audio)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        let pcm = Self.pcm(frames: 44_100 * 2, channels: 1, bits: 16, float: false)
        let audioBuffers = Self.sampleBuffers(pcm, format: Self.format(channels: 1, bits: 16, float: false), chunk: 2205)
        // Two producers, each appending while its input is ready, as Apple's sample code does.
        final class Progress: @unchecked Sendable { var frame = 0; var chunk = 0 }
        let progress = Progress()
        let pool = try #require(adaptor.pixelBufferPool)
        let group = DispatchGroup()
        group.enter(); group.enter()
        video.requestMediaDataWhenReady(on: DispatchQueue(label: "video")) {
            while video.isReadyForMoreMediaData {
                guard progress.frame < 60 else { video.markAsFinished(); group.leave(); return }
                let buffer = WriterFixtures.pixelBuffer(width: 160, height: 120, index: progress.frame, pool: pool)
                _ = adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(progress.frame), timescale: 30))
                progress.frame += 1
            }
        }
        audio.requestMediaDataWhenReady(on: DispatchQueue(label: "audio")) {
            while audio.isReadyForMoreMediaData {
                guard progress.chunk < audioBuffers.count else { audio.markAsFinished(); group.leave(); return }
                _ = audio.append(audioBuffers[progress.chunk])
                progress.chunk += 1
            }
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in group.notify(queue: .global()) { c.resume() } }
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try WriterFixtures.stream(url, "v")["nb_frames"] == "60")
        #expect(try WriterFixtures.stream(url, "a")["duration_ts"] == "88200")
        let tracks = try await AVURLAsset(url: url).load(.tracks)
        #expect(Set(tracks.map(\.mediaType)) == [.video, .audio])
    }
}
