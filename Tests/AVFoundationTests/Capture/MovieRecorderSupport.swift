// Helpers for the movie recorder tests: a feed of numbered frames and a tone stamped like capture
// (host-clock-like times far from zero), and ffprobe/ffmpeg views of the recorded file.
import AVFoundation
import Foundation
import Testing

/// Feeds a `MovieRecorder` as a camera and a microphone would: frame `i` at `base + i/fps`, and
/// after each frame the tone up to that frame's end (Float32 stereo, 48 kHz).
final class RecordingFeed {
    let fps: Int32
    let base: CMTime
    let frames: [CVPixelBuffer]
    let videoFormat: CMVideoFormatDescription
    let audioFormat: CMAudioFormatDescription
    private(set) var frameIndex: Int64 = 0
    private var audioFrames: Int64 = 0

    /// `noise`: pictures of random bytes (incompressible: files grow at the bit rate asked for).
    init(width: Int = 320, height: Int = 240, fps: Int32 = 30, distinctFrames: Int = 30, noise: Bool = false,
         base: CMTime = CMTime(value: 5_000 * 30_000, timescale: 30_000)) {
        self.fps = fps
        self.base = base
        frames = (0..<distinctFrames).map {
            let buffer = WriterFixtures.pixelBuffer(width: width, height: height, format: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, index: $0)
            if noise { RecordingFeed.fillWithNoise(buffer) }
            return buffer
        }
        var video: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: frames[0], formatDescriptionOut: &video)
        videoFormat = video!
        var asbd = AudioStreamBasicDescription(mSampleRate: 48_000, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: 8, mFramesPerPacket: 1, mBytesPerFrame: 8, mChannelsPerFrame: 2,
                                               mBitsPerChannel: 32, mReserved: 0)
        var audio: CMAudioFormatDescription?
        CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                       magicCookie: nil, extensions: nil, formatDescriptionOut: &audio)
        audioFormat = audio!
    }

    /// Random bytes in every plane (read from /dev/urandom straight into the planes).
    static func fillWithNoise(_ buffer: CVPixelBuffer) {
        guard let random = FileHandle(forReadingAtPath: "/dev/urandom") else { return }
        defer { try? random.close() }
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        for plane in 0..<CVPixelBufferGetPlaneCount(buffer) {
            let bytes = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane) * CVPixelBufferGetHeightOfPlane(buffer, plane)
            let data = random.readData(ofLength: bytes)
            data.withUnsafeBytes { _ = memcpy(CVPixelBufferGetBaseAddressOfPlane(buffer, plane)!, $0.baseAddress!, data.count) }
        }
    }

    var frameDuration: CMTime { CMTime(value: 1, timescale: fps) }

    /// The capture time of frame `i`.
    func time(ofFrame i: Int64) -> CMTime { CMTimeAdd(base, CMTimeMultiply(frameDuration, multiplier: Int32(i))) }

    func videoSample(_ i: Int64, pixelBuffer: CVPixelBuffer? = nil) -> CMSampleBuffer {
        var timing = CMSampleTimingInfo(duration: frameDuration, presentationTimeStamp: time(ofFrame: i), decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: pixelBuffer ?? frames[Int(i) % frames.count],
                                                 formatDescription: videoFormat, sampleTiming: &timing, sampleBufferOut: &sample)
        return sample!
    }

    /// Tone frames `first..<first+count` (48 kHz) presented from `base`.
    func audioSample(firstFrame first: Int64, count: Int) -> CMSampleBuffer {
        var samples = [Float](repeating: 0, count: count * 2)
        for n in 0..<count {
            let v = Float(0.25 * sin(2 * Double.pi * 440 * Double(first + Int64(n)) / 48_000))
            samples[2 * n] = v
            samples[2 * n + 1] = v
        }
        let bytes = samples.count * 4
        var block: CMBlockBuffer?
        CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: bytes, blockAllocator: nil, customBlockSource: nil,
                                           offsetToData: 0, dataLength: bytes, flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
        _ = samples.withUnsafeBytes { CMBlockBufferReplaceDataBytes(with: $0.baseAddress!, blockBuffer: block!, offsetIntoDestination: 0, dataLength: bytes) }
        var sample: CMSampleBuffer?
        let pts = CMTimeAdd(base, CMTime(value: first, timescale: 48_000))
        CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: block!, formatDescription: audioFormat, sampleCount: count,
                                                             presentationTimeStamp: pts, packetDescriptions: nil, sampleBufferOut: &sample)
        return sample!
    }

    /// Appends the next `count` frames, each followed by the tone up to its end, waiting (briefly)
    /// for the video input to be ready so that no frame is dropped. `pixelBuffer` replaces the
    /// feed's frames. Returns the append results of the frames.
    @discardableResult
    func feed(_ recorder: MovieRecorder, frames count: Int, waitForReady: Bool = true,
              pixelBuffer: ((Int64) -> CVPixelBuffer)? = nil) -> [MovieRecorder.AppendResult] {
        var results: [MovieRecorder.AppendResult] = []
        for _ in 0..<count {
            if waitForReady {
                var spins = 0
                while !recorder.isReadyForMoreVideo && recorder.currentState != .finished && spins < 20_000 {
                    usleep(250)
                    spins += 1
                }
            }
            let i = frameIndex
            results.append(recorder.appendVideo(videoSample(i, pixelBuffer: pixelBuffer?(i))))
            let until = (i + 1) * 48_000 / Int64(fps)
            recorder.appendAudio(audioSample(firstFrame: audioFrames, count: Int(until - audioFrames)))
            audioFrames = until
            frameIndex += 1
        }
        return results
    }

    /// Moves the feed `seconds` ahead without appending anything (time passing while paused).
    func skip(seconds: Double) {
        let frames = Int64((seconds * Double(fps)).rounded())
        frameIndex += frames
        audioFrames = frameIndex * 48_000 / Int64(fps)
    }
}

enum RecorderFixtures {
    /// A recorder configuration for a `width`×`height` @ `fps` feed with stereo AAC.
    static func configuration(_ url: URL, width: Int = 320, height: Int = 240, fps: Double = 30) -> MovieRecorder.Configuration {
        var c = MovieRecorder.Configuration(outputURL: url)
        c.videoSettings = MovieRecorder.defaultVideoSettings(width: width, height: height, frameRate: fps)
        c.audioSettings = MovieRecorder.defaultAudioSettings(channels: 2)
        return c
    }

    /// Collects the completion handler's calls.
    final class Completion: @unchecked Sendable {
        private let lock = NSLock()
        private var calls: [NSError?] = []
        private let semaphore = DispatchSemaphore(value: 0)

        var handler: @Sendable ((any Error)?) -> Void {
            { [self] error in
                lock.withLock { calls.append(error.map { $0 as NSError }) }
                semaphore.signal()
            }
        }

        /// Waits for the first call (at most `seconds`); its error, or nil for success. Records an
        /// issue when no call comes.
        func wait(seconds: Double = 30) -> (called: Bool, error: NSError?) {
            guard semaphore.wait(timeout: .now() + seconds) == .success else { return (false, nil) }
            return (true, lock.withLock { calls.first ?? nil })
        }

        /// How many times the handler was called.
        var count: Int { lock.withLock { calls.count } }
    }

    /// ffprobe's format duration in seconds.
    static func duration(_ url: URL) throws -> Double? {
        Double(try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path])
            .output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The codec names of the file's streams, in order.
    static func codecs(_ url: URL) throws -> [String] {
        try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", url.path])
            .output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether ffmpeg decodes every frame of every stream without an error message.
    static func decodesCleanly(_ url: URL) throws -> (ok: Bool, output: String) {
        let result = try AssetFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "null", "-"])
        return (result.status == 0 && result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, result.output)
    }

    /// The top-level box types of an ISO-BMFF file, in order (walks the 8/16-byte headers).
    static func topLevelBoxes(_ url: URL) throws -> [String] {
        let data = try Data(contentsOf: url)
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            if size == 0 { size = data.count - offset }
            boxes.append(type)
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }

    /// AVURLAsset's view: duration in seconds and the tracks' media types.
    static func assetFacts(_ url: URL) async throws -> (duration: Double, types: [AVMediaType]) {
        let asset = AVURLAsset(url: url)
        let duration = try await asset.load(.duration)
        let tracks = try await asset.load(.tracks)
        return (duration.seconds, tracks.map(\.mediaType))
    }
}
