// The capture audio path's conversions (issue 13): AVCaptureAudioDataOutput.audioSettings
// (libswresample through AudioResampler: rate, channels, sample type, interleaving) with exact,
// continuous times; AVCaptureAudioChannel volume and isEnabled applied to the delivered samples and
// the levels; recommended asset writer settings an AVAssetWriterInput takes; and
// AVCaptureMovieFileOutput recording AAC at the asked-for rate and channel count. A 1 kHz tone
// played into the capture services' null sink is captured from its monitor (the default microphone).
@testable import AVFoundation
import Foundation
import MediaEngine
import Synchronization
import Testing
import TestSupport

/// One delivered buffer with its samples.
struct CapturedPCM: Sendable {
    let pts: CMTime
    let frames: Int
    let asbd: AudioStreamBasicDescription
    let bytes: Data
    let bufferCount: Int
}

/// A delegate keeping every buffer's format, time and bytes.
final class PCMCollector: NSObject, AVCaptureAudioDataOutputSampleBufferDelegate, @unchecked Sendable {
    private let state = Mutex<[CapturedPCM]>([])
    let queue = DispatchQueue(label: "pcm collector")

    var buffers: [CapturedPCM] { state.withLock { $0 } }

    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        guard let format = CMSampleBufferGetFormatDescription(sampleBuffer),
              let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(format)?.pointee,
              let block = CMSampleBufferGetDataBuffer(sampleBuffer) else { return }
        let length = CMBlockBufferGetDataLength(block)
        var bytes = Data(count: length)
        let copied = bytes.withUnsafeMutableBytes { CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: length, destination: $0.baseAddress!) }
        guard copied == noErr else { return }
        // How many buffers Core Media's buffer list gives (one per channel when non-interleaved).
        var needed = 0
        _ = CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(sampleBuffer, bufferListSizeNeededOut: &needed, bufferListOut: nil,
                                                                    bufferListSize: 0, blockBufferAllocator: nil,
                                                                    blockBufferMemoryAllocator: nil, flags: 0, blockBufferOut: nil)
        let list = AudioBufferList.allocate(maximumBuffers: 8)
        defer { free(list.unsafeMutablePointer) }
        var retained: CMBlockBuffer?
        let listed = CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(sampleBuffer, bufferListSizeNeededOut: nil,
                                                                             bufferListOut: list.unsafeMutablePointer, bufferListSize: needed,
                                                                             blockBufferAllocator: nil, blockBufferMemoryAllocator: nil,
                                                                             flags: 0, blockBufferOut: &retained)
        let planes = listed == noErr ? list.count : 0
        let entry = CapturedPCM(pts: CMSampleBufferGetPresentationTimeStamp(sampleBuffer), frames: CMSampleBufferGetNumSamples(sampleBuffer),
                                asbd: asbd, bytes: bytes, bufferCount: planes)
        state.withLock { $0.append(entry) }
    }
}

extension CapturedPCM {
    /// Channel `channel`'s samples as floats (Float32 or Int16 / 32768), interleaved or not.
    func samples(channel: Int) -> [Float] {
        let channels = Int(asbd.mChannelsPerFrame)
        let planar = asbd.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0
        let isFloat = asbd.mFormatFlags & kAudioFormatFlagIsFloat != 0
        let bytesPerSample = Int(asbd.mBitsPerChannel) / 8
        return bytes.withUnsafeBytes { raw in
            (0..<frames).map { i -> Float in
                let index = planar ? channel * frames + i : i * channels + channel
                let offset = index * bytesPerSample
                if isFloat { return raw.loadUnaligned(fromByteOffset: offset, as: Float.self) }
                return Float(raw.loadUnaligned(fromByteOffset: offset, as: Int16.self)) / 32768
            }
        }
    }
}

/// The RMS level of `samples` in dBFS.
private func rmsDecibels(_ samples: [Float]) -> Double {
    let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))
    return power > 0 ? 10 * log10(power) : -160
}

extension CaptureTests {
    @Suite("Capture audio settings, volume and enabling", .serialized,
           .enabled(if: CaptureServices.shouldRun, "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
    struct CaptureAudioSettingsTests {
        /// The default microphone into one audio data output per collector (each configured by
        /// `configure` with its output and connection), running, while the 3 s −6 dBFS 1 kHz tone
        /// plays; stopped after it.
        private func captureTone(collectors: [PCMCollector],
                                 configure: ([AVCaptureAudioDataOutput], [AVCaptureConnection]) -> Void) throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            let tone = try CaptureServicesEnvironment.makeTone(in: FileManager.default.temporaryDirectory)
            defer { try? FileManager.default.removeItem(at: tone) }
            let microphone = try #require(AVCaptureDevice.default(for: .audio))
            let session = AVCaptureSession()
            session.beginConfiguration()
            session.addInput(try AVCaptureDeviceInput(device: microphone))
            var outputs: [AVCaptureAudioDataOutput] = []
            for collector in collectors {
                let output = AVCaptureAudioDataOutput()
                output.setSampleBufferDelegate(collector, queue: collector.queue)
                try #require(session.canAddOutput(output))
                session.addOutput(output)
                outputs.append(output)
            }
            session.commitConfiguration()
            let connections = try outputs.map { try #require($0.connection(with: .audio)) }
            configure(outputs, connections)
            session.startRunning()
            // The stream settles its latency first (PulseSource re-anchors once in its first seconds).
            Thread.sleep(forTimeInterval: 2.5)
            let played = try services.run("paplay", ["-d", services.sink, tone.path])
            #expect(played.status == 0, "\(played.errors)")
            Thread.sleep(forTimeInterval: 0.3)
            session.stopRunning()
        }

        /// Buffers of `all` whose samples are the tone (after the settling, away from its edges):
        /// the middle `fraction` of the loud run.
        private func loudMiddle(_ all: [CapturedPCM], fraction: Double = 0.5) -> [CapturedPCM] {
            let loud = all.enumerated().filter { rmsDecibels($0.element.samples(channel: 0)) > -20 }.map(\.offset)
            guard let first = loud.first, let last = loud.last, last > first else { return [] }
            let span = Double(last - first)
            let from = first + Int(span * (1 - fraction) / 2), to = last - Int(span * (1 - fraction) / 2)
            return Array(all[from...to])
        }

        @Test func invalidAudioSettingsRaise() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let output = AVCaptureAudioDataOutput()
                output.audioSettings = [AVFormatIDKey: NSNumber(value: kAudioFormatMPEG4AAC)]
            }
            expectExit(result, says: "-[AVCaptureAudioDataOutput setAudioSettings:] AVCaptureAudioDataOutput does not currently support compressed output")
            let depth = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let output = AVCaptureAudioDataOutput()
                output.audioSettings = [AVFormatIDKey: NSNumber(value: kAudioFormatLinearPCM), AVLinearPCMBitDepthKey: NSNumber(value: 12)]
            }
            expectExit(depth, says: "AVLinearPCMBitDepthKey must be 8, 16, 24 or 32")
        }

        /// 48 kHz stereo Float32 → 44.1 kHz mono Int16 interleaved: the format description says
        /// so, the times count samples at 44.1 kHz without a gap, as many frames arrive as the
        /// native output's at 44.1 kHz (within one buffer), and the tone is still 1 kHz.
        @Test func resamplesTo44kMonoInt16WithExactContinuousTimes() throws {
            let native = PCMCollector(), converted = PCMCollector()
            try captureTone(collectors: [native, converted]) { outputs, _ in
                outputs[1].audioSettings = [AVFormatIDKey: NSNumber(value: kAudioFormatLinearPCM), AVSampleRateKey: NSNumber(value: 44_100),
                                            AVNumberOfChannelsKey: NSNumber(value: 1), AVLinearPCMBitDepthKey: NSNumber(value: 16),
                                            AVLinearPCMIsFloatKey: NSNumber(value: false), AVLinearPCMIsNonInterleaved: NSNumber(value: false),
                                            AVLinearPCMIsBigEndianKey: NSNumber(value: false)]
            }
            let out = converted.buffers, source = native.buffers
            try #require(out.count > 100 && source.count > 100)
            for buffer in out {
                #expect(buffer.asbd.mFormatID == kAudioFormatLinearPCM && buffer.asbd.mSampleRate == 44_100)
                #expect(buffer.asbd.mChannelsPerFrame == 1 && buffer.asbd.mBitsPerChannel == 16 && buffer.asbd.mBytesPerFrame == 2)
                #expect(buffer.asbd.mFormatFlags == kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, "\(buffer.asbd.mFormatFlags)")
                #expect(buffer.bytes.count == buffer.frames * 2)
                #expect(buffer.pts.timescale == 44_100)
            }
            // Continuous: each buffer starts where the one before ended, but where the source
            // itself jumped (a re-anchor; at most one, in the first seconds).
            let sourceJumps = zip(source, source.dropFirst()).filter { $1.pts != $0.pts + CMTime(value: Int64($0.frames), timescale: 48_000) }.count
            let jumps = zip(out, out.dropFirst()).filter { $1.pts != $0.pts + CMTime(value: Int64($0.frames), timescale: 44_100) }.count
            #expect(jumps == sourceJumps && jumps <= 1, "\(jumps) gaps (source \(sourceJumps))")
            // Same start, same length: the frames delivered are the native ones at 44.1 kHz,
            // within one buffer (441 frames).
            #expect(abs(out[0].pts.seconds - source[0].pts.seconds) < 1.0 / 44_100)
            let sourceFrames = source.reduce(0) { $0 + $1.frames }, outFrames = out.reduce(0) { $0 + $1.frames }
            let expected = Double(sourceFrames) * 44_100 / 48_000
            print("CaptureAudioSettingsTests: \(sourceFrames) frames at 48 kHz → \(outFrames) at 44.1 kHz (expected \(expected)); \(jumps) re-anchors")
            #expect(abs(Double(outFrames) - expected) <= 441, "\(outFrames) frames, expected \(expected)")
            let sourceEnd = source.last!.pts + CMTime(value: Int64(source.last!.frames), timescale: 48_000)
            let outEnd = out.last!.pts + CMTime(value: Int64(out.last!.frames), timescale: 44_100)
            #expect(abs(outEnd.seconds - sourceEnd.seconds) <= 1.0 / 44_100 + 1e-9, "ends \(outEnd.seconds) vs \(sourceEnd.seconds)")
            // The tone: 1 kHz, −6 dBFS peak on both source channels, so the mono average keeps it.
            let middle = loudMiddle(out).flatMap { $0.samples(channel: 0) }
            try #require(middle.count > 44_100 / 2, "\(middle.count) tone samples")
            var crossings = 0
            for (a, b) in zip(middle, middle.dropFirst()) where (a < 0) != (b < 0) { crossings += 1 }
            let frequency = Double(crossings) / 2 / (Double(middle.count) / 44_100)
            let level = rmsDecibels(middle)
            print("CaptureAudioSettingsTests: tone \(frequency) Hz at \(level) dBFS RMS over \(middle.count) samples")
            #expect(abs(frequency - 1000) <= 2, "\(frequency) Hz")
            #expect(abs(level - (-9.03)) <= 0.3, "\(level) dBFS")
        }

        /// Non-interleaved Float32 at the device's rate: one buffer per channel in each sample
        /// buffer, the same samples as the interleaved native buffers of the same time.
        @Test func nonInterleavedDeliveryHoldsTheSameSamples() throws {
            let native = PCMCollector(), planar = PCMCollector()
            try captureTone(collectors: [native, planar]) { outputs, _ in
                outputs[1].audioSettings = [AVFormatIDKey: NSNumber(value: kAudioFormatLinearPCM), AVLinearPCMIsFloatKey: NSNumber(value: true),
                                            AVLinearPCMBitDepthKey: NSNumber(value: 32), AVLinearPCMIsNonInterleaved: NSNumber(value: true)]
            }
            let out = planar.buffers, source = native.buffers
            try #require(out.count > 100)
            for buffer in out {
                #expect(buffer.asbd.mSampleRate == 48_000 && buffer.asbd.mChannelsPerFrame == 2 && buffer.asbd.mBytesPerFrame == 4)
                #expect(buffer.asbd.mFormatFlags == kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved)
                #expect(buffer.bytes.count == buffer.frames * 8 && buffer.bufferCount == 2)
            }
            // The tone's buffers: the same samples, channel by channel, at the same times.
            let bySourceTime = Dictionary(source.map { ($0.pts, $0) }, uniquingKeysWith: { a, _ in a })
            var compared = 0
            for buffer in loudMiddle(out) {
                guard let match = bySourceTime[buffer.pts], match.frames == buffer.frames else { continue }
                #expect(buffer.samples(channel: 0) == match.samples(channel: 0) && buffer.samples(channel: 1) == match.samples(channel: 1))
                compared += 1
            }
            #expect(compared > 50, "\(compared) buffers compared")
        }

        /// Volume 0.5 lowers the delivered samples and the levels by 6.02 dB; a disabled channel is
        /// silence and meters −160 dB, the other channel is untouched.
        @Test func volumeAndDisabledChannelsApplyToSamplesAndLevels() throws {
            let native = PCMCollector(), halved = PCMCollector(), rightOff = PCMCollector()
            let levels = Mutex<[(full: Float, half: Float, off: Float, offPeak: Float)]>([])
            let polling = Mutex(true)
            var poller: Thread?
            try captureTone(collectors: [native, halved, rightOff]) { _, connections in
                #expect(connections.allSatisfy { $0.audioChannels.count == 2 })
                connections[1].audioChannels.forEach { $0.volume = 0.5 }
                #expect(connections[1].audioChannels.allSatisfy { $0.volume == 0.5 })
                connections[2].audioChannels[1].isEnabled = false
                let thread = Thread {
                    while polling.withLock({ $0 }) {
                        let reading = (connections[0].audioChannels[0].averagePowerLevel, connections[1].audioChannels[0].averagePowerLevel,
                                       connections[2].audioChannels[1].averagePowerLevel, connections[2].audioChannels[1].peakHoldLevel)
                        levels.withLock { $0.append(reading) }
                        Thread.sleep(forTimeInterval: 0.1)
                    }
                }
                thread.start()
                poller = thread
            }
            polling.withLock { $0 = false }
            _ = poller
            let source = Dictionary(native.buffers.map { ($0.pts, $0) }, uniquingKeysWith: { a, _ in a })
            var ratios: [Double] = []
            for buffer in loudMiddle(halved.buffers) {
                guard let match = source[buffer.pts] else { continue }
                ratios.append(rmsDecibels(buffer.samples(channel: 0)) - rmsDecibels(match.samples(channel: 0)))
                ratios.append(rmsDecibels(buffer.samples(channel: 1)) - rmsDecibels(match.samples(channel: 1)))
            }
            try #require(ratios.count > 50)
            print("CaptureAudioSettingsTests: volume 0.5 → \(ratios.min()!)…\(ratios.max()!) dB")
            #expect(ratios.allSatisfy { abs($0 - 20 * log10(0.5)) < 0.01 }, "\(ratios.prefix(5))")
            let off = loudMiddle(rightOff.buffers)
            try #require(off.count > 50)
            #expect(off.allSatisfy { $0.samples(channel: 1).allSatisfy { $0 == 0 } })
            #expect(off.allSatisfy { rmsDecibels($0.samples(channel: 0)) > -10 })
            // Levels: the halved connection 6 dB below the full one while the tone sounds, the
            // disabled channel silent throughout.
            let readings = levels.withLock { $0 }
            let loud = readings.filter { $0.full > -12 }
            try #require(loud.count >= 10, "\(loud.count) loud readings")
            let differences = loud.map { Double($0.full - $0.half) }.sorted()
            let median = differences[differences.count / 2]
            print("CaptureAudioSettingsTests: level difference at volume 0.5: median \(median) dB over \(loud.count) readings")
            #expect(abs(median - 6.02) < 0.1, "\(differences)")
            #expect(readings.allSatisfy { $0.off == -160 && $0.offPeak == -160 })
        }

        /// The recommended settings follow the delivered format and an asset writer takes them.
        @Test func recommendedSettingsSuitAnAssetWriterInput() throws {
            guard CaptureServicesEnvironment.install() != nil else { return }
            let microphone = try #require(AVCaptureDevice.default(for: .audio))
            let session = AVCaptureSession()
            session.addInput(try AVCaptureDeviceInput(device: microphone))
            let output = AVCaptureAudioDataOutput()
            session.addOutput(output)
            let directory = try TestTools.temporaryDirectory("recommended-audio")
            defer { try? FileManager.default.removeItem(at: directory) }
            for (settings, rate, channels) in [(nil as [String: Any]?, 48_000.0, 2),
                                               ([AVSampleRateKey: 22_050, AVNumberOfChannelsKey: 1] as [String: Any]?, 22_050, 1)] {
                output.audioSettings = settings
                let recommended = try #require(output.recommendedAudioSettingsForAssetWriter(writingTo: .mov))
                #expect((recommended[AVFormatIDKey] as? NSNumber)?.uint32Value == kAudioFormatMPEG4AAC)
                #expect((recommended[AVSampleRateKey] as? NSNumber)?.doubleValue == rate)
                #expect((recommended[AVNumberOfChannelsKey] as? NSNumber)?.intValue == channels)
                let writer = try AVAssetWriter(outputURL: directory.appendingPathComponent("\(channels).mov"), fileType: .mov)
                #expect(writer.canApply(outputSettings: recommended, forMediaType: .audio))
                let input = AVAssetWriterInput(mediaType: .audio, outputSettings: recommended)
                #expect(writer.canAdd(input))
            }
            #expect(output.recommendedAudioSettingsForAssetWriter(writingTo: .wav) == nil)
        }

        /// A movie file output's audio connection set to 22.05 kHz mono AAC at 48 kb/s records that.
        @Test func movieFileOutputRecordsTheAskedForRateAndChannels() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            let tone = try CaptureServicesEnvironment.makeTone(in: FileManager.default.temporaryDirectory)
            defer { try? FileManager.default.removeItem(at: tone) }
            let camera = try CaptureCameras.vgaCamera()
            let microphone = try #require(AVCaptureDevice.default(for: .audio))
            let session = AVCaptureSession()
            session.beginConfiguration()
            session.addInput(try AVCaptureDeviceInput(device: camera))
            session.addInput(try AVCaptureDeviceInput(device: microphone))
            session.sessionPreset = .vga640x480
            let output = AVCaptureMovieFileOutput()
            session.addOutput(output)
            session.commitConfiguration()
            let audio = try #require(output.connection(with: .audio))
            #expect(output.supportedOutputSettingsKeys(for: audio).contains(AVSampleRateKey))
            output.setOutputSettings([AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 22_050, AVNumberOfChannelsKey: 1,
                                      AVEncoderBitRateKey: 48_000], for: audio)
            let settings = output.outputSettings(for: audio)
            #expect((settings[AVSampleRateKey] as? Double) == 22_050 || (settings[AVSampleRateKey] as? Int) == 22_050)
            #expect((settings[AVNumberOfChannelsKey] as? Int) == 1)
            session.startRunning()
            defer { session.stopRunning() }
            Thread.sleep(forTimeInterval: 2.5)
            let directory = try TestTools.temporaryDirectory("movie-audio-settings")
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("mono22k.mov")
            let delegate = FileRecordingDelegate()
            output.maxRecordedDuration = CMTime(value: 2, timescale: 1)
            output.startRecording(to: url, recordingDelegate: delegate)
            // The tone sounds through the recording (so the encoder has something to spend bits on).
            let played = try services.run("paplay", ["-d", services.sink, tone.path])
            #expect(played.status == 0, "\(played.errors)")
            let finish = try #require(delegate.waitForFinish())
            #expect(finish.error?.code == AVError.Code.maximumDurationReached.rawValue)
            let probed = try TestTools.runText("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                           "stream=codec_name,sample_rate,channels,bit_rate,duration", "-of", "default=nw=1", url.path]).output
            print("CaptureAudioSettingsTests: movie audio \(probed.replacingOccurrences(of: "\n", with: " "))")
            #expect(probed.contains("codec_name=aac") && probed.contains("sample_rate=22050") && probed.contains("channels=1"), "\(probed)")
            let bitRate = probed.split(separator: "\n").first { $0.hasPrefix("bit_rate=") }.flatMap { Double($0.dropFirst(9)) } ?? 0
            #expect(bitRate > 30_000 && bitRate < 60_000, "bit rate \(bitRate)")
        }
    }
}

/// The converter behind `audioSettings` on made-up chunks (no services needed): exact sample-count
/// times within a run, the filter's tail at a discontinuity and at the end, a new anchor after.
@Suite("Capture audio converter")
struct CaptureAudioConverterTests {
    /// `frames` frames of a stereo 1 kHz sine at 48 kHz (interleaved Float32), from frame `start`.
    private func chunk(start: Int, frames: Int, pts: CMTime, discontinuity: Bool) -> LiveAudioChunk {
        var samples = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let value = Float(0.5 * sin(2 * Double.pi * 1000 * Double(start + i) / 48_000))
            samples[2 * i] = value
            samples[2 * i + 1] = value
        }
        return LiveAudioChunk(samples: samples.withUnsafeBytes { Data($0) }, frameCount: frames,
                              format: LiveAudioFormat(sampleRate: 48_000, channelCount: 2), pts: pts, isDiscontinuity: discontinuity)
    }

    @Test func runsAreAnchoredCountedAndFlushed() throws {
        let output = AudioPCMFormat(sampleRate: 44_100, channels: .mono, sampleType: .signedInteger, bitsPerSample: 16)
        let converter = try #require(CaptureAudioConverter(output: output, layout: AudioChannelSet.mono.audioChannelLayout))
        var buffers: [CMSampleBuffer] = []
        // Run 1: 100 chunks of 480 frames (1 s) from 10 s; run 2 (a discontinuity) 50 chunks from 20.5 s.
        for k in 0..<100 {
            buffers += converter.convert(chunk(start: k * 480, frames: 480, pts: CMTime(value: 480_000 + Int64(k) * 480, timescale: 48_000),
                                               discontinuity: k == 0))
        }
        let firstRun = buffers.count
        for k in 0..<50 {
            buffers += converter.convert(chunk(start: k * 480, frames: 480, pts: CMTime(value: 984_000 + Int64(k) * 480, timescale: 48_000),
                                               discontinuity: k == 0))
        }
        if let tail = converter.flush() { buffers.append(tail) }
        #expect(converter.flush() == nil)
        let times = buffers.map(CMSampleBufferGetPresentationTimeStamp), counts = buffers.map(CMSampleBufferGetNumSamples)
        #expect(times.allSatisfy { $0.timescale == 44_100 })
        // Each run starts at its first chunk's time and counts samples; the second starts afresh.
        #expect(times[0] == CMTime(value: 441_000, timescale: 44_100))
        let runStart = try #require(times.firstIndex { $0 == CMTime(value: 904_050, timescale: 44_100) })
        #expect(runStart >= firstRun)
        for i in 1..<buffers.count where i != runStart {
            #expect(times[i] == times[i - 1] + CMTime(value: Int64(counts[i - 1]), timescale: 44_100), "buffer \(i)")
        }
        // Exactly each run's duration at 44.1 kHz: 1 s and 0.5 s.
        #expect(counts[..<runStart].reduce(0, +) == 44_100)
        #expect(counts[runStart...].reduce(0, +) == 22_050)
        let description = try #require(CMSampleBufferGetFormatDescription(buffers[0]))
        let asbd = try #require(CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee)
        #expect(asbd.mSampleRate == 44_100 && asbd.mChannelsPerFrame == 1 && asbd.mBitsPerChannel == 16 && asbd.mBytesPerFrame == 2)
    }

    @Test func channelVolumeAndEnablingMakeTheGain() {
        let channel = AVCaptureAudioChannel()
        #expect(channel.volume == 1 && channel.isEnabled && channel.gain == 1)
        channel.volume = 0.5
        #expect(channel.gain == 0.5)
        channel.volume = 2
        #expect(channel.volume == 2 && channel.gain == 2)
        channel.volume = -1
        #expect(channel.volume == 0)
        channel.volume = 0.25
        channel.isEnabled = false
        #expect(channel.gain == 0 && channel.volume == 0.25)
    }

    @Test func gainsScaleEachChannel() {
        let source = chunk(start: 0, frames: 1000, pts: .zero, discontinuity: true)
        let halfAndOff = source.applyingGains([0.5, 0])
        let input = source.samples.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let output = halfAndOff.samples.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(output.count == input.count)
        #expect(stride(from: 0, to: output.count, by: 2).allSatisfy { output[$0] == input[$0] * 0.5 && output[$0 + 1] == 0 })
        #expect(source.applyingGains([1, 1]).samples == source.samples)
        let both = source.applyingGains([0.25, 0.25]).samples.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(zip(both, input).allSatisfy { $0 == $1 * 0.25 })
    }
}
