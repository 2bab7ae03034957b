// ReaderVideoSource: a video track decoded into pixel buffers, for track outputs with video
// output settings — the demuxer → decoder → (converter) → sample buffer pipe.
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine

/// Decodes one video track and produces one sample buffer per picture, in presentation order,
/// each holding a `CVPixelBuffer` in the format and size the settings ask for, with a
/// `CMVideoFormatDescription` made for the image buffer and the picture's exact presentation time
/// and duration (the sample's duration in the container).
///
/// Pictures come out of FFmpeg's decoder (frame threads on every core, as the ffmpeg CLI sets
/// them) and become pixel buffers without a copy; when that buffer is not what was asked for (another
/// format or size, a memory layout of its own, colour properties, or a copy because the output
/// always copies sample data) it is converted once by the shared `PixelConverter` into a buffer
/// from a pool — with libswscale's fast (RealTime) paths when the size is unchanged — so the memory
/// in use is bounded by what the caller keeps.
///
/// Only pictures whose presentation interval overlaps the time range are produced; decoding
/// starts at the keyframe they need. The pipe is MediaEngine's stages: a `PacketSource`
/// positioned on each range, a `DecodeLoop` flushed between ranges. A decoding error fails the
/// output with `AVError.decodeFailed`.
final class ReaderVideoSource: ReaderSampleSource, SegmentStage {
    private let url: URL
    /// The flag the demuxer reads with when a segment walker gives one (to stop it from another
    /// thread); nil: a fresh one per start.
    private let cancellation: DemuxerCancellation?
    private let streamIndex: Int
    private let settings: ReaderVideoSettings
    private let copiesSampleData: Bool
    private let nominalFrameDuration: CMTime
    /// Where an edited track's presentation ends (+infinity without an edit list).
    private let trackEnd: CMTime
    private var packets: PacketSource?
    private var loop: DecodeLoop?
    private var pendingRanges: [CMTimeRange] = []
    private var range = CMTimeRange.invalid
    /// The duration of the last picture that had one.
    private var lastDuration = CMTime.invalid
    /// The time after the last picture, for pictures the container gives no time (nil: the
    /// window's clock start).
    private var clock: CMTime?
    private var pool: CVPixelBufferPool?
    private var poolKey: (format: OSType, width: Int, height: Int)?
    private var samples = ImageSampleBuffers()
    private let converter = PixelConverter.shared

    init(source: SourceTrack, settings: ReaderVideoSettings, copiesSampleData: Bool,
         cancellation: DemuxerCancellation? = nil) {
        url = source.url
        self.cancellation = cancellation
        streamIndex = source.streamIndex
        self.settings = settings
        self.copiesSampleData = copiesSampleData
        let rate = source.stream.averageFrameRate
        nominalFrameDuration = rate > 0 ? CMTime(seconds: 1 / rate, preferredTimescale: 90_000) : .invalid
        trackEnd = source.presentationEnd
    }

    /// Frame threads as the ffmpeg CLI chooses them: one more than the cores (a thread waits on
    /// the caller while the others decode), at most 16, at least 1 per 16 rows.
    static func decoderThreads(height: Int) -> Int {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let usable = height > 0 ? min(cores, (height + 15) / 16) : cores
        return usable > 1 ? min(usable + 1, 16) : 1
    }

    func start(timeRange: CMTimeRange) throws {
        let packets = try ReaderTrackPackets.open(url: url, streamIndex: streamIndex,
                                                   cancellation: cancellation ?? DemuxerCancellation())
        self.packets = packets
        guard packets.stream.kind == .video else {
            throw AVError(.decoderNotFound, userInfo: [NSLocalizedDescriptionKey: "Cannot Decode",
                                                       NSLocalizedFailureReasonErrorKey: "The track is not a video track."])
        }
        let decoder: Decoder
        do {
            decoder = try packets.makeDecoder(threads: Self.decoderThreads(height: packets.stream.height))
        } catch {
            throw AVError.from(error, url: url)
        }
        loop = DecodeLoop(decoder: decoder, tracksDurations: true, cancellation: packets.cancellation)
        try reset(timeRanges: [timeRange])
    }

    func reset(timeRanges: [CMTimeRange]) throws {
        pendingRanges = ReaderTrackPackets.clamp(timeRanges, to: trackEnd)
        range = .invalid
        try advance()
    }

    /// Moves to the next range that has pictures, with a flushed decoder; leaves `range` invalid
    /// when none is left.
    private func advance() throws {
        guard let packets, let loop else { return }
        loop.flush()
        clock = nil
        while !pendingRanges.isEmpty {
            let next = pendingRanges.removeFirst()
            if try packets.positionForReading(next) {
                range = next
                return
            }
        }
        range = .invalid
    }

    func reposition(to range: CMTimeRange) throws {
        if packets == nil { try start(timeRange: range) } else { try reset(timeRanges: [range]) }
    }

    func cancel() {
        packets?.cancel()
        packets = nil
        loop = nil
        pool = nil
        pendingRanges = []
        range = .invalid
    }

    func next() throws -> CMSampleBuffer? {
        while range.isValid {
            guard let packets, let loop else { return nil }
            if packets.cancellation.isCancelled { return nil }
            let decoded: DecodeLoop.Frame?
            do {
                decoded = try loop.next(feed: { () throws(MediaError) -> DemuxerPacket? in
                    let packet = try packets.next()
                    if let packet { loop.decoder.skipMode = self.skipsPicture(of: packet) ? .nonReference : .none }
                    return packet
                })
            } catch {
                switch error {
                case .cancelled: return nil
                case .reading(let error): throw AVError.from(error, url: url)
                case .decoding(let error):
                    throw Self.decodeFailure("the video cannot be decoded (\(error.message))", code: error.code, url: url)
                }
            }
            guard let decoded else {
                try advance()
                continue
            }
            let frame = decoded.frame
            let pts: CMTime, duration: CMTime
            if frame.timestamp != nil {
                pts = frame.presentationTime
                duration = pictureDuration(decoded.duration)
            } else {
                // No time in the container (elementary streams): pictures follow each other.
                pts = clock ?? packets.clockStart
                duration = loop.lastPacketDuration.isNumeric ? loop.lastPacketDuration
                    : lastDuration.isNumeric ? lastDuration : nominalFrameDuration
            }
            if pts.isNumeric, duration.isNumeric { clock = max(clock ?? pts, pts + duration) }
            if overlaps(pts, duration) { return try sampleBuffer(for: frame, pts: pts, duration: duration) }
        }
        return nil
    }

    /// Whether the picture of `packet` ends before the range starts, so that, when nothing refers
    /// to it, the decoder can leave it undecoded (`AVDISCARD_NONREF`): a range starting mid-GOP —
    /// a player's exact seek, a reader's time range — decodes only the pictures the ones it
    /// shows are built from, as the frame seeker does.
    private func skipsPicture(of packet: DemuxerPacket) -> Bool {
        let pts = packet.presentationTime
        guard pts.isNumeric, range.isValid, range.start.isNumeric else { return false }
        let duration = packet.duration.isNumeric ? packet.duration : nominalFrameDuration
        guard duration.isNumeric else { return false }
        return pts + duration <= range.start
    }

    /// The duration of a picture whose packet lasted `packetDuration`: that, else the last one
    /// seen, else the nominal frame duration.
    private func pictureDuration(_ packetDuration: CMTime) -> CMTime {
        if packetDuration.isNumeric {
            lastDuration = packetDuration
            return packetDuration
        }
        return lastDuration.isNumeric ? lastDuration : nominalFrameDuration
    }

    /// Whether the presentation interval [pts, pts + duration) overlaps the range.
    private func overlaps(_ pts: CMTime, _ duration: CMTime) -> Bool {
        guard pts.isNumeric else { return false }
        if range.end.isNumeric, pts >= range.end { return false }
        let end = duration.isNumeric && duration > .zero ? pts + duration : pts
        return duration.isNumeric && duration > .zero ? end > range.start : pts >= range.start
    }

    // MARK: Pictures

    private func sampleBuffer(for frame: DecodedFrame, pts: CMTime, duration: CMTime) throws -> CMSampleBuffer {
        let image = try pixelBuffer(for: frame)
        guard let buffer = samples.make(image, pts: pts, duration: duration) else {
            throw Self.decodeFailure("cannot make a sample buffer for the decoded picture", code: 0, url: url)
        }
        return buffer
    }

    /// The decoded picture as the settings ask for it: the decoder's own buffer when it already is,
    /// else one conversion into a pooled buffer (libswscale's fast paths when the size is kept).
    private func pixelBuffer(for frame: DecodedFrame) throws -> CVPixelBuffer {
        let decoded: CVPixelBuffer
        do {
            decoded = try frame.makePixelBuffer()
        } catch {
            throw Self.decodeFailure("cannot convert the decoded picture (\(error))", code: 0, url: url)
        }
        let format = CVPixelBufferGetPixelFormatType(decoded)
        let width = CVPixelBufferGetWidth(decoded), height = CVPixelBufferGetHeight(decoded)
        let target = settings.pixelFormats.isEmpty || settings.pixelFormats.contains(format) ? format : settings.pixelFormats[0]
        let targetWidth = settings.width ?? width, targetHeight = settings.height ?? height
        let sameSize = targetWidth == width && targetHeight == height
        if target == format && sameSize && !settings.forcesConversion && !copiesSampleData { return decoded }
        let output = try pooledBuffer(format: target, width: targetWidth, height: targetHeight)
        var options = PixelConverter.Options()
        options.fast = sameSize
        // An unscaled fast conversion is cheap next to decoding, whose frame threads keep every
        // core busy: on this thread it costs no wake-ups. Scaling is split over the cores.
        if sameSize { options.threads = 1 }
        options.destinationMatrix = settings.matrix.flatMap { PixelFormatColor.Matrix(rawValue: $0) }
        options.destinationColorPrimaries = settings.primaries
        options.destinationTransferFunction = settings.transferFunction
        do {
            try converter.transfer(from: decoded, to: output, options: options)
        } catch {
            throw Self.decodeFailure("cannot convert the decoded picture (\(error))", code: 0, url: url)
        }
        return output
    }

    /// A buffer from the pool for `format` at the given size (a new pool when those change).
    private func pooledBuffer(format: OSType, width: Int, height: Int) throws -> CVPixelBuffer {
        if pool == nil || poolKey.map({ $0.format != format || $0.width != width || $0.height != height }) ?? true {
            var attributes = settings.bufferAttributes
            attributes[(kCVPixelBufferPixelFormatTypeKey as String)] = NSNumber(value: format)
            attributes[(kCVPixelBufferWidthKey as String)] = NSNumber(value: width)
            attributes[(kCVPixelBufferHeightKey as String)] = NSNumber(value: height)
            var made: CVPixelBufferPool?
            let status = CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &made)
            guard status == kCVReturnSuccess, let made else {
                throw Self.decodeFailure("cannot allocate \(width)×\(height) pixel buffers (\(status))", code: 0, url: url)
            }
            pool = made
            poolKey = (format, width, height)
        }
        var buffer: CVPixelBuffer?
        let status = CVPixelBufferPoolCreatePixelBuffer(nil, pool!, &buffer)
        guard status == kCVReturnSuccess, let buffer else {
            throw Self.decodeFailure("cannot allocate a pixel buffer (\(status))", code: 0, url: url)
        }
        return buffer
    }

    /// `AVError.decodeFailed`, with the FFmpeg error (when there is one) underneath.
    static func decodeFailure(_ reason: String, code: Int32, url: URL?) -> AVError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: "Cannot Decode", NSLocalizedFailureReasonErrorKey: reason]
        if code != 0 {
            info[NSUnderlyingErrorKey] = NSError(domain: FFmpegErrorDomain, code: Int(code),
                                                 userInfo: [NSLocalizedDescriptionKey: FFmpegError(code: code).message])
        }
        if let url { info[NSURLErrorKey] = url }
        return AVError(.decodeFailed, userInfo: info)
    }
}

/// Makes sample buffers around pixel buffers, reusing the format description made for an earlier
/// picture while it matches (checked by the creation itself); a picture of another format, size
/// or colour gets a new one.
struct ImageSampleBuffers {
    private var formatDescription: CMVideoFormatDescription?

    /// A ready sample buffer for `image` shown at `pts` for `duration`; nil when none can be made.
    mutating func make(_ image: CVPixelBuffer, pts: CMTime, duration: CMTime) -> CMSampleBuffer? {
        var timing = CMSampleTimingInfo(duration: duration, presentationTimeStamp: pts, decodeTimeStamp: .invalid)
        var buffer: CMSampleBuffer?
        var status = kCMSampleBufferError_InvalidMediaFormat
        if let formatDescription {
            status = CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: image, formatDescription: formatDescription,
                                                              sampleTiming: &timing, sampleBufferOut: &buffer)
        }
        if status == kCMSampleBufferError_InvalidMediaFormat {
            var made: CMVideoFormatDescription?
            guard CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: image, formatDescriptionOut: &made) == noErr,
                  let made else { return nil }
            formatDescription = made
            status = CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: image, formatDescription: made,
                                                              sampleTiming: &timing, sampleBufferOut: &buffer)
        }
        return status == noErr ? buffer : nil
    }
}
