// Compressed audio through the asset writer: AAC, Apple Lossless, FLAC, Opus, µ-law and A-law
// from Float32 and Int16 sample buffers, judged by ffprobe and mediainfo and read back through
// AVAssetReader (every frame, priming hidden by the edit list; lossless codecs bit for bit);
// linear PCM conversions (rate, channels, sample type, interleaving); Apple's refusals.
import AVFoundation
import Foundation
import Testing

@Suite(.serialized) struct AssetWriterCompressedAudioTests {
    typealias W = AssetWriterAudioTests

    /// Non-interleaved 32-bit float, one buffer per channel.
    static func planarFloatFormat(channels: Int, rate: Double) -> CMAudioFormatDescription {
        var asbd = AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved,
                                               mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: UInt32(channels),
                                               mBitsPerChannel: 32, mReserved: 0)
        var out: CMAudioFormatDescription?
        CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                       magicCookie: nil, extensions: nil, formatDescriptionOut: &out)
        return out!
    }

    /// Sample buffers of `chunk` frames of non-interleaved data (`planes[c]` per channel).
    static func planarBuffers(_ planes: [[Float]], format: CMAudioFormatDescription, rate: Int32, chunk: Int = 1000) -> [CMSampleBuffer] {
        let frames = planes[0].count
        var buffers: [CMSampleBuffer] = []
        var first = 0
        while first < frames {
            let n = min(chunk, frames - first)
            var bytes = Data()
            for plane in planes { plane[first..<first + n].withUnsafeBytes { bytes.append(contentsOf: $0) } }
            var block: CMBlockBuffer?
            CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: bytes.count, blockAllocator: nil,
                                               customBlockSource: nil, offsetToData: 0, dataLength: bytes.count,
                                               flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
            _ = bytes.withUnsafeBytes { CMBlockBufferReplaceDataBytes(with: $0.baseAddress!, blockBuffer: block!, offsetIntoDestination: 0, dataLength: $0.count) }
            var sample: CMSampleBuffer?
            CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: block!, formatDescription: format, sampleCount: n,
                                                                 presentationTimeStamp: CMTime(value: Int64(first), timescale: rate),
                                                                 packetDescriptions: nil, sampleBufferOut: &sample)
            buffers.append(sample!)
            first += n
        }
        return buffers
    }

    static func settings(_ format: AudioFormatID, rate: Int, channels: Int, extra: [String: Any] = [:]) -> [String: Any] {
        var s: [String: Any] = [AVFormatIDKey: format, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels]
        if format == kAudioFormatAppleLossless { s[AVEncoderBitDepthHintKey] = 16 }
        return s.merging(extra) { $1 }
    }

    /// mediainfo's Format|SamplingRate|Channels for the first audio track.
    static func mediainfo(_ url: URL) throws -> String {
        try AssetFixtures.run("mediainfo", ["--Inform=Audio;%Format%|%SamplingRate%|%Channel(s)%", url.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ffprobe's decoded frame count (-count_frames) and codec facts.
    static func probe(_ url: URL) throws -> [String: String] {
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-count_frames", "-show_entries",
                                                   "stream=codec_name,sample_rate,channels,nb_read_frames,duration_ts,start_time,bit_rate",
                                                   "-of", "default=nw=1", url.path]).output
        var fields: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// Normalised correlation of two equally long sample arrays.
    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let n = min(a.count, b.count)
        var ab = 0.0, aa = 0.0, bb = 0.0
        for i in 0..<n { ab += Double(a[i]) * Double(b[i]); aa += Double(a[i]) * Double(a[i]); bb += Double(b[i]) * Double(b[i]) }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var format: AudioFormatID
        var fileType: AVFileType
        var ext: String
        var codecName: String
        var mediainfoFormat: String
        var rate: Int
        var channels: Int
        var floatInput: Bool
        var lossless: Bool
        var testDescription: String { "\(codecName) \(ext) \(rate) Hz \(channels) ch \(floatInput ? "float" : "int16")" }
    }

    static let cases: [Case] = [
        Case(format: kAudioFormatMPEG4AAC, fileType: .m4a, ext: "m4a", codecName: "aac", mediainfoFormat: "AAC", rate: 44_100, channels: 2, floatInput: true, lossless: false),
        Case(format: kAudioFormatMPEG4AAC, fileType: .mp4, ext: "mp4", codecName: "aac", mediainfoFormat: "AAC", rate: 48_000, channels: 1, floatInput: false, lossless: false),
        Case(format: kAudioFormatMPEG4AAC, fileType: .mov, ext: "mov", codecName: "aac", mediainfoFormat: "AAC", rate: 44_100, channels: 1, floatInput: true, lossless: false),
        Case(format: kAudioFormatAppleLossless, fileType: .m4a, ext: "m4a", codecName: "alac", mediainfoFormat: "ALAC", rate: 44_100, channels: 2, floatInput: false, lossless: true),
        Case(format: kAudioFormatAppleLossless, fileType: .mov, ext: "mov", codecName: "alac", mediainfoFormat: "ALAC", rate: 48_000, channels: 1, floatInput: false, lossless: true),
        Case(format: kAudioFormatFLAC, fileType: .caf, ext: "caf", codecName: "flac", mediainfoFormat: "FLAC", rate: 44_100, channels: 2, floatInput: false, lossless: true),
        Case(format: kAudioFormatOpus, fileType: .mp4, ext: "mp4", codecName: "opus", mediainfoFormat: "Opus", rate: 48_000, channels: 2, floatInput: true, lossless: false),
        Case(format: kAudioFormatULaw, fileType: .wav, ext: "wav", codecName: "pcm_mulaw", mediainfoFormat: "ADPCM", rate: 8000, channels: 1, floatInput: false, lossless: false),
        Case(format: kAudioFormatULaw, fileType: .caf, ext: "caf", codecName: "pcm_mulaw", mediainfoFormat: "ADPCM", rate: 44_100, channels: 2, floatInput: true, lossless: false),
        Case(format: kAudioFormatALaw, fileType: .aifc, ext: "aifc", codecName: "pcm_alaw", mediainfoFormat: "PCM", rate: 44_100, channels: 1, floatInput: false, lossless: false),
        Case(format: kAudioFormatULaw, fileType: .mov, ext: "mov", codecName: "pcm_mulaw", mediainfoFormat: "ADPCM", rate: 48_000, channels: 2, floatInput: false, lossless: false),
    ]

    @Test(arguments: cases)
    func compressedAudioHoldsEveryAppendedFrame(_ c: Case) async throws {
        let frames = c.rate + 777  // about a second, not a whole number of codec frames
        let bits = c.floatInput ? 32 : 16
        let source = W.pcm(frames: frames, channels: c.channels, bits: bits, float: c.floatInput)
        let format = W.format(channels: c.channels, bits: bits, float: c.floatInput, rate: Double(c.rate))
        let url = try WriterFixtures.outputURL("out.\(c.ext)")
        let writer = try await W.write(W.sampleBuffers(source, format: format, chunk: 1000), to: url, fileType: c.fileType,
                                       settings: Self.settings(c.format, rate: c.rate, channels: c.channels))
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let probe = try Self.probe(url)
        #expect(probe["codec_name"] == c.codecName)
        #expect(probe["sample_rate"] == String(c.rate))
        #expect(probe["channels"] == String(c.channels))
        #expect((Int(probe["nb_read_frames"] ?? "") ?? 0) > 0)
        // mediainfo: format, rate and (where it reports them) channels.
        let info = try Self.mediainfo(url).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        #expect(info.count == 3 && info[0].lowercased() == c.mediainfoFormat.lowercased(), "\(info)")
        #expect(info.count == 3 && Double(info[1]) == Double(c.rate), "\(info)")
        #expect(info.count == 3 && (info[2].isEmpty || info[2] == String(c.channels)), "\(info)")

        // Read back through AVAssetReader as 16-bit or float interleaved PCM.
        let read = try await AudioReaderMedia.read(url, settings: AudioReaderMedia.pcm(bits: bits, float: c.floatInput))
        #expect(read.status == .completed, "\(String(describing: read.error))")
        if c.codecName == "opus" {
            // Opus pads its last packet; MP4's edit list ends the track at the last appended frame.
            #expect(read.frames >= frames && read.frames < frames + 960 * 2)
        } else {
            #expect(read.frames == frames)
        }
        if c.lossless {
            #expect(read.data == source)
        } else {
            let decoded = c.floatInput ? AudioReaderMedia.floats(read.data) : AudioReaderMedia.int16s(read.data).map { Float($0) / 32_768 }
            let original = c.floatInput ? AudioReaderMedia.floats(source) : AudioReaderMedia.int16s(source).map { Float($0) / 32_768 }
            // The decoded sine lines up with the source (priming removed) and keeps its shape.
            let correlation = Self.correlation(Array(decoded.prefix(original.count)), original)
            #expect(correlation > 0.98, "correlation \(correlation)")
        }
    }

    @Test func aacHidesItsPrimingBehindAnEditList() async throws {
        let frames = 44_100
        let source = W.pcm(frames: frames, channels: 2, bits: 32, float: true)
        let url = try WriterFixtures.outputURL("primed.m4a")
        let writer = try await W.write(W.sampleBuffers(source, format: W.format(channels: 2, bits: 32, float: true), chunk: 4096),
                                       to: url, fileType: .m4a,
                                       settings: Self.settings(kAudioFormatMPEG4AAC, rate: 44_100, channels: 2,
                                                               extra: [AVEncoderBitRateKey: 128_000]))
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        // The edit list: one entry whose media time is FFmpeg's AAC priming, 1024 frames.
        let bytes = try [UInt8](Data(contentsOf: url))
        let elst = try #require(bytes.firstRange(of: Array("elst".utf8)))
        let entry = elst.upperBound + 4 + 4  // version/flags, entry count
        let mediaTime = bytes[entry + 4 ..< entry + 8].reduce(0) { $0 << 8 | Int($1) }
        #expect(bytes[elst.upperBound + 4 ..< elst.upperBound + 8] == [0, 0, 0, 1])
        #expect(mediaTime == 1024)
        // ffprobe: the packets cover priming + frames; the track starts at 0.
        let packets = try WriterFixtures.packets(url, "a")
        #expect(packets.first?.pts == -1024)
        #expect(packets.reduce(0) { $0 + $1.duration } == Int64(frames + 1024))
        #expect(Double(try Self.probe(url)["start_time"] ?? "") == 0)
        // Bit rate close to the one asked for.
        let bitRate = Int(try Self.probe(url)["bit_rate"] ?? "") ?? 0
        #expect(abs(bitRate - 128_000) < 20_000, "\(bitRate)")
        // The asset's duration is the appended audio.
        let duration = try await AVURLAsset(url: url).load(.duration)
        #expect(abs(duration.seconds - 1) < 0.001)
    }

    // MARK: Linear PCM conversions

    @Test func linearPCMIsResampledAndRemixed() async throws {
        // 44.1 kHz stereo Int16 → 48 kHz mono float.
        let frames = 44_100
        let source = W.pcm(frames: frames, channels: 2, bits: 16, float: false)
        let url = try WriterFixtures.outputURL("resampled.caf")
        let writer = try await W.write(W.sampleBuffers(source, format: W.format(channels: 2, bits: 16, float: false), chunk: 1111),
                                       to: url, fileType: .caf, settings: W.lpcm(bits: 32, float: true, channels: 1, rate: 48_000))
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let probe = try Self.probe(url)
        #expect(probe["codec_name"] == "pcm_f32le")
        #expect(probe["sample_rate"] == "48000")
        #expect(probe["channels"] == "1")
        #expect(probe["duration_ts"] == "48000")
        let decoded = AudioReaderMedia.floats(try W.decoded(url, as: "f32le"))
        #expect(decoded.count == 48_000)
        // The mono mix is the average of the channels: a 441 Hz sine at 0.8 × (1/2 + 2/2) / 2.
        let peak = decoded.map(abs).max() ?? 0
        #expect(abs(peak - 0.6) < 0.01, "\(peak)")
    }

    @Test func stereoIsAveragedIntoMonoSampleForSample() async throws {
        let source = W.pcm(frames: 4410, channels: 2, bits: 16, float: false)
        let url = try WriterFixtures.outputURL("mono.wav")
        let writer = try await W.write(W.sampleBuffers(source, format: W.format(channels: 2, bits: 16, float: false)),
                                       to: url, fileType: .wav, settings: W.lpcm(bits: 32, float: true, channels: 1))
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let input = AudioReaderMedia.int16s(source)
        let decoded = AudioReaderMedia.floats(try W.decoded(url, as: "f32le"))
        #expect(decoded.count == 4410)
        let expected = (0..<4410).map { (Float(input[2 * $0]) / 32_768 + Float(input[2 * $0 + 1]) / 32_768) / 2 }
        #expect(zip(decoded, expected).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func integersBecomeFloatsAndNonInterleavedFloatsBecomeIntegers() async throws {
        // Int16 → Float32: exact (x / 32768).
        let source = W.pcm(frames: 4410, channels: 2, bits: 16, float: false)
        let url = try WriterFixtures.outputURL("float.caf")
        let writer = try await W.write(W.sampleBuffers(source, format: W.format(channels: 2, bits: 16, float: false)),
                                       to: url, fileType: .caf, settings: W.lpcm(bits: 32, float: true))
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(AudioReaderMedia.floats(try W.decoded(url, as: "f32le")) == AudioReaderMedia.int16s(source).map { Float($0) / 32_768 })
        // Non-interleaved float → interleaved Int16 (rounded to nearest).
        let left = (0..<4000).map { Float(sin(Double($0) * 0.05) * 0.5) }, right = left.map { -$0 }
        let planarURL = try WriterFixtures.outputURL("planar.wav")
        let planar = try await W.write(Self.planarBuffers([left, right], format: Self.planarFloatFormat(channels: 2, rate: 44_100), rate: 44_100),
                                       to: planarURL, fileType: .wav, settings: W.lpcm(bits: 16))
        #expect(planar.status == .completed, "\(String(describing: planar.error))")
        let decoded = AudioReaderMedia.int16s(try W.decoded(planarURL, as: "s16le"))
        #expect(decoded.count == 8000)
        let expected = (0..<4000).flatMap { [Int16((left[$0] * 32_768).rounded()), Int16((right[$0] * 32_768).rounded())] }
        #expect(zip(decoded, expected).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test func aFormatChangeMidStreamFailsWithAnAVError() async throws {
        let a = W.sampleBuffers(W.pcm(frames: 2048, channels: 2, bits: 16, float: false), format: W.format(channels: 2, bits: 16, float: false))
        let b = W.sampleBuffers(W.pcm(frames: 2048, channels: 1, bits: 16, float: false), format: W.format(channels: 1, bits: 16, float: false),
                                start: CMTime(value: 2048, timescale: 44_100))
        let url = try WriterFixtures.outputURL("change.m4a")
        let writer = try await W.write(a + b, to: url, fileType: .m4a, settings: Self.settings(kAudioFormatMPEG4AAC, rate: 44_100, channels: 2))
        #expect(writer.status == .failed)
        #expect((writer.error as? AVError)?.code == .unsupportedOutputSettings)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    // MARK: What can be applied

    @Test func fileTypesTakeTheCodecsTheyCanHold() throws {
        let dir = try AssetFixtures.tempDirectory()
        func can(_ type: AVFileType, _ format: AudioFormatID, rate: Int = 44_100, extra: [String: Any] = [:]) throws -> Bool {
            let writer = try AVAssetWriter(outputURL: dir.appendingPathComponent(UUID().uuidString), fileType: type)
            return writer.canApply(outputSettings: Self.settings(format, rate: rate, channels: 2, extra: extra), forMediaType: .audio)
        }
        #expect(try can(.m4a, kAudioFormatMPEG4AAC))
        #expect(try can(.mp4, kAudioFormatMPEG4AAC))
        #expect(try can(.mov, kAudioFormatMPEG4AAC))
        #expect(try can(.m4a, kAudioFormatAppleLossless))
        #expect(try can(.caf, kAudioFormatFLAC))
        // FFmpeg's CAF muxer drops Opus's pre-skip.
        #expect(try !can(.caf, kAudioFormatOpus, rate: 48_000))
        #expect(try can(.mp4, kAudioFormatOpus, rate: 48_000))
        #expect(try can(.wav, kAudioFormatULaw))
        #expect(try can(.aifc, kAudioFormatALaw))
        #expect(try !can(.wav, kAudioFormatMPEG4AAC))
        #expect(try !can(.aiff, kAudioFormatULaw))
        #expect(try !can(.mov, kAudioFormatFLAC))
        #expect(try !can(.m4a, kAudioFormatOpus, rate: 48_000))
        // FFmpeg's CAF muxer cannot write AAC.
        #expect(try !can(.caf, kAudioFormatMPEG4AAC))
        // Bit rates the encoder cannot do.
        #expect(try !can(.m4a, kAudioFormatMPEG4AAC, extra: [AVEncoderBitRateKey: 4_000]))
        #expect(try !can(.m4a, kAudioFormatMPEG4AAC, extra: [AVEncoderBitRateKey: 2_000_000]))
        #expect(try can(.m4a, kAudioFormatMPEG4AAC, extra: [AVEncoderBitRatePerChannelKey: 96_000]))
        // Not fully specified: no hint can fill the gap in canApply.
        let m4a = try AVAssetWriter(outputURL: dir.appendingPathComponent("x.m4a"), fileType: .m4a)
        #expect(!m4a.canApply(outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100], forMediaType: .audio))
    }

    @Test func aSourceFormatHintFillsTheRateAndChannels() async throws {
        let format = W.format(channels: 1, bits: 16, float: false, rate: 22_050)
        let source = W.pcm(frames: 22_050, channels: 1, bits: 16, float: false)
        let url = try WriterFixtures.outputURL("hinted.m4a")
        let writer = try await W.write(W.sampleBuffers(source, format: format), to: url, fileType: .m4a,
                                       settings: [AVFormatIDKey: kAudioFormatMPEG4AAC], hint: format)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let probe = try Self.probe(url)
        #expect(probe["sample_rate"] == "22050")
        #expect(probe["channels"] == "1")
    }

    @Test func bothBitRateKeysStopTheProgram() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100,
                                                                      AVNumberOfChannelsKey: 2, AVEncoderBitRateKey: 128_000,
                                                                      AVEncoderBitRatePerChannelKey: 64_000])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Cannot specify both AVEncoderBitRateKey and AVEncoderBitRatePerChannelKey"))
        }
    }

    @Test func missingChannelsStopTheProgramWithoutAHint() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Missing required key AVChannelLayoutKey"))
        }
    }

    @Test func aLayoutForAnotherChannelCountStopsTheProgram() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var layout = AudioChannelLayout()
            layout.mChannelLayoutTag = kAudioChannelLayoutTag_Stereo
            let data = withUnsafeBytes(of: &layout) { Data($0) }
            _ = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100,
                                                                      AVNumberOfChannelsKey: 1, AVChannelLayoutKey: data])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("AudioChannelLayout channel count does not match AVNumberOfChannelsKey channel count"))
        }
    }

    @Test func linearPCMKeysAreNotAllowedForAAC() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100,
                                                                      AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16,
                                                                      AVLinearPCMIsFloatKey: false])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("The following keys are not allowed when format ID is 'aac ': AVLinearPCMBitDepthKey, AVLinearPCMIsFloatKey"))
        }
    }

    // MARK: The settings assistant

    @Test func assistantPresetWritesVideoAndAAC() async throws {
        let assistant = try #require(AVOutputSettingsAssistant(preset: .preset640x480))
        let url = try WriterFixtures.outputURL("assistant-av.mov")
        let writer = try AVAssetWriter(outputURL: url, fileType: assistant.outputFileType)
        let video = AVAssetWriterInput(mediaType: .video, outputSettings: assistant.videoSettings)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: video)
        let audioSettings = try #require(assistant.audioSettings)
        #expect(writer.canApply(outputSettings: audioSettings, forMediaType: .audio))
        let audio = AVAssetWriterInput(mediaType: .audio, outputSettings: audioSettings)
        writer.add(video)
        writer.add(audio)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        let pool = try #require(adaptor.pixelBufferPool)
        let pcm = W.pcm(frames: 44_100, channels: 2, bits: 32, float: true)
        var buffers = W.sampleBuffers(pcm, format: W.format(channels: 2, bits: 32, float: true), chunk: 4410)[...]
        var frame = 0
        while frame < 30 || !buffers.isEmpty {
            if frame < 30, video.isReadyForMoreMediaData {
                _ = adaptor.append(WriterFixtures.pixelBuffer(width: 640, height: 480, index: frame, pool: pool),
                                   withPresentationTime: CMTime(value: Int64(frame), timescale: 30))
                frame += 1
            } else if let next = buffers.first, audio.isReadyForMoreMediaData {
                #expect(audio.append(next))
                buffers = buffers.dropFirst()
            } else {
                try await Task.sleep(nanoseconds: 1_000_000)
            }
        }
        video.markAsFinished()
        audio.markAsFinished()
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try WriterFixtures.stream(url, "v")["codec_name"] == "h264")
        let a = try WriterFixtures.stream(url, "a")
        #expect(a["codec_name"] == "aac")
        #expect(a["channels"] == "2")
        #expect(a["sample_rate"] == "44100")
    }
}
