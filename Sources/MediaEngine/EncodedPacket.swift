// EncodedPacket: one compressed (or PCM) packet on its way to the muxer, owning an AVPacket.
internal import CFFmpeg
import CoreMedia
import Foundation

/// A packet produced by an `Encoder` or built from a sample buffer's bytes, owning its
/// `AVPacket`. Timestamps count in `timeBase` (the track's requested time base); the muxer
/// rescales them to the time base the container settled on.
package final class EncodedPacket: @unchecked Sendable {
    /// The FFmpeg packet (owned; freed with this object).
    let pointer: UnsafeMutablePointer<AVPacket>
    /// The time base of the timestamps.
    var timeBase: AVRational

    /// Takes ownership of `packet`.
    init(taking packet: UnsafeMutablePointer<AVPacket>, timeBase: AVRational) {
        pointer = packet
        self.timeBase = timeBase
    }

    /// A packet holding a copy of `bytes`. Timestamps are in `timeBase`; nil means unknown.
    init(copying bytes: UnsafeRawBufferPointer, pts: Int64?, dts: Int64?, duration: Int64, isKeyframe: Bool,
                 timeBase: AVRational) throws(MediaError) {
        MediaEngine.configure()
        guard bytes.count < Int(Int32.max) else { throw MediaError.invalidArgument(message: "sample of \(bytes.count) bytes is too large") }
        guard let packet = av_packet_alloc() else { throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory") }
        let result = av_new_packet(packet, Int32(bytes.count))
        if result < 0 {
            var doomed: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&doomed)
            throw MediaError.other(code: result, message: "cannot allocate a packet: \(MediaError.ffmpegMessage(result))")
        }
        if let base = bytes.baseAddress, bytes.count > 0 {
            packet.pointee.data.update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        }
        packet.pointee.pts = pts ?? cffmpeg_nopts()
        packet.pointee.dts = dts ?? cffmpeg_nopts()
        packet.pointee.duration = duration
        if isKeyframe { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        pointer = packet
        self.timeBase = timeBase
    }

    /// A packet holding a copy of `bytes`, timestamps in 1/`timescale`.
    package convenience init(copying bytes: UnsafeRawBufferPointer, pts: Int64, dts: Int64, duration: Int64,
                             isKeyframe: Bool, timescale: Int32) throws(MediaError) {
        try self.init(copying: bytes, pts: pts, dts: dts, duration: duration, isKeyframe: isKeyframe,
                      timeBase: AVRational(num: 1, den: timescale))
    }

    /// Another packet with the same payload (shared, reference-counted) and timestamps, for a
    /// second muxer (`Muxer.write` consumes the packet it is given).
    package func copy() throws(MediaError) -> EncodedPacket {
        guard let clone = av_packet_clone(pointer) else { throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory") }
        return EncodedPacket(taking: clone, timeBase: timeBase)
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    /// The presentation timestamp in `timeBase`; nil when unknown.
    package var pts: Int64? {
        get { pointer.pointee.pts == cffmpeg_nopts() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? cffmpeg_nopts() }
    }
    /// The decode timestamp in `timeBase`; nil when unknown.
    package var dts: Int64? {
        get { pointer.pointee.dts == cffmpeg_nopts() ? nil : pointer.pointee.dts }
        set { pointer.pointee.dts = newValue ?? cffmpeg_nopts() }
    }
    /// The duration in `timeBase` (0 when unknown).
    package var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }
    /// Whether decoding can start at this packet.
    package var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// The payload size in bytes.
    package var size: Int { Int(max(0, pointer.pointee.size)) }

    /// Calls `body` with the payload bytes (no copy); valid only inside `body`.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let data = pointer.pointee.data, size > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Converts the timestamps to `target` (rounding to nearest); no change when equal.
    func rescale(to target: AVRational) {
        guard target.num != timeBase.num || target.den != timeBase.den else { return }
        av_packet_rescale_ts(pointer, timeBase, target)
        timeBase = target
    }
}
