// The audio writer case of `avtool bench`: 60 s of stereo 48 kHz Float32 PCM encoded to AAC
// 128 kb/s in an M4A through AVAssetWriter, against the ffmpeg CLI encoding the same raw samples
// with the same encoder (FFmpeg's native aac) and bit rate.
import AVFoundation

/// Seconds, rate, channels and bit rate of the audio writer benchmark.
private enum AudioWriterBench {
    static let seconds = 60, rate = 48_000, channels = 2, bitRate = 128_000
    /// Frames per appended sample buffer (what a capture or reader pipeline hands over).
    static let chunk = 4096
}

/// Times the AAC encode (ours: sample buffers appended as the input asks for them; theirs:
/// `ffmpeg -f f32le -ar 48000 -ac 2 -i RAW -c:a aac -b:a 128k OUT.m4a`) and prints one line.
func benchWriterAudio(in dir: URL, repeats: Int) throws {
    let raw = dir.appendingPathComponent("audio-\(AudioWriterBench.seconds)s.f32le")
    let bytesPerFrame = 4 * AudioWriterBench.channels
    let frames = AudioWriterBench.seconds * AudioWriterBench.rate
    if ((try? FileManager.default.attributesOfItem(atPath: raw.path)[.size] as? Int) ?? 0) != frames * bytesPerFrame {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi",
                               "-i", "sine=f=440:r=\(AudioWriterBench.rate):d=\(AudioWriterBench.seconds)",
                               "-f", "lavfi", "-i", "anoisesrc=r=\(AudioWriterBench.rate):d=\(AudioWriterBench.seconds):a=0.1",
                               "-filter_complex", "[0][1]amerge=inputs=2", "-ac", "2", "-f", "f32le", raw.path])
    }
    let samples = try Data(contentsOf: raw, options: .alwaysMapped)
    let out = dir.appendingPathComponent("audio-writer-out")
    try? FileManager.default.removeItem(at: out)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { if ProcessInfo.processInfo.environment["AVTOOL_KEEP_BENCH_OUTPUT"] == nil { try? FileManager.default.removeItem(at: out) } }
    var ours = Double.infinity, theirs = Double.infinity
    for run in 0..<max(1, repeats) {
        var t0 = DispatchTime.now().uptimeNanoseconds
        try writeBenchAudio(samples, to: out.appendingPathComponent("ours-\(run).m4a"))
        ours = min(ours, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        t0 = DispatchTime.now().uptimeNanoseconds
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "f32le", "-ar", "\(AudioWriterBench.rate)",
                               "-ac", "\(AudioWriterBench.channels)", "-i", raw.path, "-c:a", "aac",
                               "-b:a", "\(AudioWriterBench.bitRate)", out.appendingPathComponent("ffmpeg-\(run).m4a").path])
        theirs = min(theirs, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
    }
    let label = "AAC writer \(AudioWriterBench.seconds) s stereo 48 kHz"
    print(label.padding(toLength: 44, withPad: " ", startingAt: 0)
          + String(format: "%7.3f s   %7.3f s   %5.2f×", ours, theirs, ours / theirs))
}

/// Writes interleaved stereo Float32 `samples` to an AAC M4A with AVAssetWriter, as an Apple
/// program would: sample buffers of `chunk` frames appended while the input is ready.
private func writeBenchAudio(_ samples: Data, to url: URL) throws {
    let (rate, channels) = (AudioWriterBench.rate, AudioWriterBench.channels)
    var asbd = AudioStreamBasicDescription(mSampleRate: Double(rate), mFormatID: kAudioFormatLinearPCM,
                                           mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                           mBytesPerPacket: UInt32(4 * channels), mFramesPerPacket: 1,
                                           mBytesPerFrame: UInt32(4 * channels), mChannelsPerFrame: UInt32(channels),
                                           mBitsPerChannel: 32, mReserved: 0)
    var made: CMAudioFormatDescription?
    CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                   magicCookie: nil, extensions: nil, formatDescriptionOut: &made)
    guard let format = made else { throw DemoError("no audio format description") }
    let writer = try AVAssetWriter(outputURL: url, fileType: .m4a)
    let input = AVAssetWriterInput(mediaType: .audio, outputSettings: [
        AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels,
        AVEncoderBitRateKey: AudioWriterBench.bitRate])
    input.expectsMediaDataInRealTime = false
    writer.add(input)
    guard writer.startWriting() else { throw DemoError("cannot start writing: \(String(describing: writer.error))") }
    writer.startSession(atSourceTime: .zero)
    let bytesPerFrame = 4 * channels
    let total = samples.count / bytesPerFrame
    var first = 0
    while first < total {
        while !input.isReadyForMoreMediaData && writer.status == .writing { usleep(200) }
        guard writer.status == .writing else { break }
        let n = min(AudioWriterBench.chunk, total - first)
        var block: CMBlockBuffer?
        CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: n * bytesPerFrame, blockAllocator: nil,
                                           customBlockSource: nil, offsetToData: 0, dataLength: n * bytesPerFrame,
                                           flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
        guard let block else { throw DemoError("no block buffer") }
        samples.withUnsafeBytes { bytes in
            _ = CMBlockBufferReplaceDataBytes(with: bytes.baseAddress! + first * bytesPerFrame, blockBuffer: block,
                                              offsetIntoDestination: 0, dataLength: n * bytesPerFrame)
        }
        var sample: CMSampleBuffer?
        CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: block, formatDescription: format,
                                                             sampleCount: n,
                                                             presentationTimeStamp: CMTime(value: Int64(first), timescale: Int32(rate)),
                                                             packetDescriptions: nil, sampleBufferOut: &sample)
        guard let sample, input.append(sample) else { throw DemoError("append failed: \(String(describing: writer.error))") }
        first += n
    }
    input.markAsFinished()
    let done = DispatchSemaphore(value: 0)
    writer.finishWriting { done.signal() }
    done.wait()
    guard writer.status == .completed else { throw DemoError("writing failed: \(String(describing: writer.error))") }
}
