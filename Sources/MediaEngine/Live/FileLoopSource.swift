// FileLoopSource: a media file as a virtual camera — its video decoded through the reader's own
// PacketSource → DecodeLoop path, looped seamlessly and released in real time by a ClockedPump.
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// The pictures of a file's first video track, in presentation order, without end: at the end of
/// the track reading starts again from the top (`PacketSource.position(for:)` + `DecodeLoop.flush()`)
/// and the times of the next pass continue where the last one ended, so media times increase
/// strictly across the seam with no gap: pass k's picture at `t` comes at `t − start + k × length`,
/// where `length` is the end of the last picture (time + duration) minus the first picture's time.
/// A file with one picture (an image) repeats it every `imageFrameDuration`.
///
/// Pictures are converted once (`PixelConverter`, into a pool) to `'420v'` at the asked size
/// when they are not already so. Not thread-safe: one owner at a time.
package final class FileLoopReader {
    /// A picture and its place on the looped timeline.
    // Invariant: holds a pixel buffer (C memory) that no one writes once it is handed out.
    package struct Picture: @unchecked Sendable {
        package let pixelBuffer: CVPixelBuffer
        package let mediaTime: CMTime
        package let duration: CMTime
    }

    package let url: URL
    package let width: Int
    package let height: Int
    /// How many times reading has reached the end of the track.
    package private(set) var loopCount = 0

    private let packets: PacketSource
    private let loop: DecodeLoop
    private let nominalDuration: CMTime
    private let imageFrameDuration: CMTime
    private var pool: CVPixelBufferPool?
    private var passStart: CMTime?
    private var passEnd: CMTime?
    private var offset = CMTime.zero
    private var picturesInPass = 0
    /// An image's picture and the media time of its next repetition.
    private var image: (buffer: CVPixelBuffer, next: CMTime)?

    /// Opens `url`'s first video track; pictures come at `width`×`height` (default: the
    /// track's size).
    package init(url: URL, width: Int? = nil, height: Int? = nil,
                 imageFrameDuration: CMTime = CMTime(value: 1, timescale: 30)) throws(LiveSourceError) {
        self.url = url
        let stream = try FileLoopReader.videoStream(of: url)
        do {
            packets = try PacketSource(url: url, streamIndex: stream.index)
            packets.detectsTruncation = false
            loop = DecodeLoop(decoder: try packets.makeDecoder(), tolerance: .consecutive(16), tracksDurations: true,
                              cancellation: packets.cancellation)
        } catch {
            throw FileLoopReader.failure(error, url: url)
        }
        self.width = width ?? stream.width
        self.height = height ?? stream.height
        nominalDuration = FileLoopReader.frameDuration(rate: stream.averageFrameRate > 0 ? stream.averageFrameRate : stream.realFrameRate)
        self.imageFrameDuration = imageFrameDuration
        do throws(MediaError) {
            _ = try packets.position(for: CMTimeRange(start: .zero, duration: .positiveInfinity))
            let first = try packets.peek(0), second = try packets.peek(1)
            isImage = first != nil && second == nil
        } catch {
            throw FileLoopReader.failure(error, url: url)
        }
    }

    /// Whether the track holds one picture (an image, or a one-frame movie): repeated every
    /// `imageFrameDuration` from media time 0.
    package let isImage: Bool

    /// The next picture (never nil: the track loops); fails when the file cannot be read or
    /// holds no picture.
    package func next() throws(LiveSourceError) -> Picture {
        if let image {
            self.image = (image.buffer, image.next + imageFrameDuration)
            return Picture(pixelBuffer: image.buffer, mediaTime: image.next, duration: imageFrameDuration)
        }
        while true {
            let decoded: DecodeLoop.Frame?
            do {
                decoded = try loop.next(feed: { [packets] () throws(MediaError) -> DemuxerPacket? in try packets.next() })
            } catch {
                switch error {
                case .cancelled: throw .failed("\(url.path): reading was cancelled")
                case .reading(let e): throw FileLoopReader.failure(e, url: url)
                case .decoding(let e): throw .failed("\(url.path): the video cannot be decoded (\(e.message))")
                }
            }
            guard let decoded else {
                try endOfPass()
                continue
            }
            let pts = decoded.frame.presentationTime
            guard pts.isNumeric else { continue }
            let buffer = try convert(decoded.frame)
            if isImage {
                image = (buffer, imageFrameDuration)
                return Picture(pixelBuffer: buffer, mediaTime: .zero, duration: imageFrameDuration)
            }
            let duration = decoded.duration.isNumeric && decoded.duration > .zero ? decoded.duration : nominalDuration
            let start = passStart ?? pts
            passStart = start
            passEnd = max(passEnd ?? pts + duration, pts + duration)
            picturesInPass += 1
            return Picture(pixelBuffer: buffer, mediaTime: pts - start + offset, duration: duration)
        }
    }

    /// The end of a pass: reading starts again from the top, later by the pass's length.
    private func endOfPass() throws(LiveSourceError) {
        guard picturesInPass > 0, let start = passStart, let end = passEnd else {
            throw .failed("\(url.path): the video track has no picture")
        }
        offset = offset + (end - start)
        loopCount += 1
        picturesInPass = 0
        passStart = nil
        passEnd = nil
        loop.flush()
        try reposition()
    }

    private func reposition() throws(LiveSourceError) {
        do {
            _ = try packets.position(for: CMTimeRange(start: .zero, duration: .positiveInfinity))
        } catch {
            throw FileLoopReader.failure(error, url: url)
        }
    }

    /// The decoded picture as `'420v'` at the reader's size.
    private func convert(_ frame: DecodedFrame) throws(LiveSourceError) -> CVPixelBuffer {
        let decoded: CVPixelBuffer
        do {
            decoded = try frame.makePixelBuffer()
        } catch {
            throw .failed("\(url.path): cannot convert the decoded picture (\(error))")
        }
        let format = kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
        if CVPixelBufferGetPixelFormatType(decoded) == format, CVPixelBufferGetWidth(decoded) == width,
           CVPixelBufferGetHeight(decoded) == height {
            return decoded
        }
        if pool == nil {
            guard let made = CVPixelBufferPool.make(pixelFormat: format, width: width, height: height) else {
                throw .failed("cannot make a pool of \(width)×\(height) pixel buffers")
            }
            pool = made
        }
        var output: CVPixelBuffer?
        guard let pool, CVPixelBufferPoolCreatePixelBuffer(nil, pool, &output) == kCVReturnSuccess, let output else {
            throw .failed("cannot get a \(width)×\(height) pixel buffer")
        }
        var options = PixelConverter.Options()
        let sameSize = CVPixelBufferGetWidth(decoded) == width && CVPixelBufferGetHeight(decoded) == height
        options.fast = sameSize
        if sameSize { options.threads = 1 }
        do {
            try PixelConverter.shared.transfer(from: decoded, to: output, options: options)
        } catch {
            throw .failed("\(url.path): cannot convert the decoded picture (\(error))")
        }
        return output
    }

    // MARK: Probing

    /// The formats a file camera offers: the track's size and every smaller standard size, in
    /// `'420v'`, at 1 fps up to the track's frame rate (30 for an image or an unknown rate).
    package static func formats(of url: URL) throws(LiveSourceError) -> [LiveVideoFormat] {
        let stream = try videoStream(of: url)
        let rate = stream.frameCount == 1 ? 0 : (stream.averageFrameRate > 0 ? stream.averageFrameRate : stream.realFrameRate)
        let duration = rate > 0 ? frameDuration(rate: rate) : CMTime(value: 1, timescale: 30)
        return VirtualCamera.formats(width: stream.width & ~1, height: stream.height & ~1, minFrameDuration: duration)
    }

    /// The first video stream of `url`.
    static func videoStream(of url: URL) throws(LiveSourceError) -> StreamInfo {
        guard FileManager.default.fileExists(atPath: url.path) else { throw .disconnected("\(url.path) does not exist") }
        let demuxer: Demuxer
        do {
            demuxer = try Demuxer(url: url)
        } catch {
            throw failure(error, url: url)
        }
        guard let stream = demuxer.streams.first(where: { $0.kind == .video && $0.width > 0 && $0.height > 0 }) else {
            throw .failed("\(url.path) has no video track")
        }
        return stream
    }

    /// 1/rate, exact for whole rates and the NTSC rates (24000/1001, 30000/1001, 60000/1001).
    static func frameDuration(rate: Double) -> CMTime {
        guard rate.isFinite, rate > 0 else { return CMTime(value: 1, timescale: 30) }
        if rate == rate.rounded() { return CMTime(value: 1, timescale: CMTimeScale(rate)) }
        let ntsc = (rate * 1.001).rounded()
        if abs(ntsc / 1.001 - rate) < 1e-3 { return CMTime(value: 1001, timescale: CMTimeScale(ntsc * 1000)) }
        return CMTime(value: 1_000_000, timescale: CMTimeScale((rate * 1_000_000).rounded()))
    }

    static func failure(_ error: MediaError, url: URL) -> LiveSourceError {
        if case .fileNotFound = error { return .disconnected("\(url.path) does not exist") }
        return .failed("\(url.path): \(error.message)")
    }
}

/// A media file as a live camera: `FileLoopReader`'s pictures released at their time on the
/// source's clock by a `ClockedPump` on a thread of its own. A frame duration longer than the
/// file's keeps one picture per interval (the picture at or after each slot). A read failure
/// stops the source with `failed`; so does the file going away, seen at the next loop seam (an
/// open file stays readable after it is deleted; prompt notice is the device watcher's job).
package final class FileLoopSource: LiveSource, Sendable {
    package let url: URL
    private let pumpThread = PumpThreadSlot()
    /// The formats, once probed.
    private let cachedFormats = Mutex<[LiveVideoFormat]?>(nil)

    package init(url: URL) {
        self.url = url
    }

    /// The file's formats (`FileLoopReader.formats(of:)`), probed once; empty when the file
    /// cannot be read now.
    package var formats: [LiveVideoFormat] {
        if let cached = cachedFormats.withLock({ $0 }) { return cached }
        guard let probed = try? FileLoopReader.formats(of: url) else { return [] }
        cachedFormats.withLock { $0 = probed }
        return probed
    }

    package func start(format: LiveVideoFormat, frameDuration: CMTime, clock: CMClock,
                       deliver: @escaping @Sendable (LiveFrame) -> Void,
                       failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError) {
        try checkStart(format: format, frameDuration: frameDuration, of: url.path)
        stop()
        let reader = try FileLoopReader(url: url, width: format.width, height: format.height, imageFrameDuration: frameDuration)
        let first = try reader.next()
        let timeline = try LiveTimeline(clock: clock, timescale: LiveTimeline.timescale(for: first.duration))
        let decimates = frameDuration > format.minFrameDuration
        var pending: FileLoopReader.Picture? = first
        var slot = CMTime.zero
        var sequence: UInt64 = 0
        let failure = PumpRunBox<LiveSourceError?>(nil)
        let pump = ClockedPump<LiveFrame>(timebase: timeline.timebase, produce: { [url] in
            do {
                while true {
                    let picture: FileLoopReader.Picture
                    if let p = pending {
                        picture = p
                        pending = nil
                    } else {
                        let loops = reader.loopCount
                        picture = try reader.next()
                        // An open file stays readable after it is deleted: look at each seam.
                        if reader.loopCount != loops, !FileManager.default.fileExists(atPath: url.path) {
                            throw LiveSourceError.disconnected("\(url.path) was removed")
                        }
                    }
                    var duration = picture.duration
                    if decimates {
                        // One picture per slot: skip those before the slot (less half a picture).
                        let tolerance = CMTimeMultiplyByRatio(picture.duration, multiplier: 1, divisor: 2)
                        if picture.mediaTime + tolerance < slot { continue }
                        slot = max(slot + frameDuration, picture.mediaTime + frameDuration - tolerance)
                        duration = frameDuration
                    }
                    let pts = timeline.pts(picture.mediaTime)
                    defer { sequence += 1 }
                    return (LiveFrame(pixelBuffer: picture.pixelBuffer, pts: pts, duration: duration, sequence: sequence),
                            picture.mediaTime, duration)
                }
            } catch {
                let reason = error as? LiveSourceError ?? .failed("\(error)")
                failure.value = FileManager.default.fileExists(atPath: url.path) ? reason : .disconnected("\(url.path) was removed")
                return nil
            }
        }, release: { frame, _ in deliver(frame) })
        pumpThread.run(pump, name: "file camera", failure: failure, failed: failed)
    }

    package func stop() {
        pumpThread.stop()
    }
}
