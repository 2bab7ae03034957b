// DemuxerPacket: one compressed packet from the demuxer, owning FFmpeg's reference-counted AVPacket.
internal import CFFmpeg
import CoreMedia

/// A compressed packet as read from the container. It owns the `AVPacket` (freed when the
/// packet dies) and exposes its payload without copying. Immutable after creation.
package final class DemuxerPacket: @unchecked Sendable {
    /// The FFmpeg packet, for `avcodec_send_packet`; valid while this object lives. Do not modify.
    let pointer: UnsafeMutablePointer<AVPacket>
    /// The time base of the packet's timestamps (its stream's).
    let timeBase: AVRational

    init(taking packet: UnsafeMutablePointer<AVPacket>, timeBase: AVRational) {
        pointer = packet
        self.timeBase = timeBase
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    /// The FFmpeg stream index.
    package var streamIndex: Int { Int(pointer.pointee.stream_index) }
    /// The presentation timestamp in the stream's time base; nil when the container gives none.
    package var rawPTS: Int64? { pointer.pointee.pts == cffmpeg_nopts() ? nil : pointer.pointee.pts }
    /// The decode timestamp in the stream's time base; nil when the container gives none.
    package var rawDTS: Int64? { pointer.pointee.dts == cffmpeg_nopts() ? nil : pointer.pointee.dts }
    /// The duration in the stream's time base (0 when unknown).
    package var rawDuration: Int64 { pointer.pointee.duration }
    /// The presentation time; `.invalid` when unknown.
    package var presentationTime: CMTime { rawPTS.map { StreamInfo.time($0, timeBase) } ?? .invalid }
    /// The decode time; `.invalid` when unknown.
    package var decodeTime: CMTime { rawDTS.map { StreamInfo.time($0, timeBase) } ?? .invalid }
    /// The duration; `.invalid` when the container gives none.
    package var duration: CMTime { rawDuration > 0 ? StreamInfo.time(rawDuration, timeBase) : .invalid }
    /// Whether the packet is a sync sample (decoding can start here).
    package var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// Whether no other frame depends on this one.
    package var isDiscardable: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISPOSABLE != 0 }
    /// Whether the demuxer marks the packet as not to be shown (`AV_PKT_FLAG_DISCARD`): the mov
    /// demuxer's edit-list handling reads it only to decode an edit's first frames, or it lies
    /// outside every edit (the keyframe after an edit's end). Decoders drop its frame.
    package var isDiscarded: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
    /// Whether the demuxer flagged the packet as possibly corrupt.
    package var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }
    /// The byte offset of the packet in the file; nil when unknown.
    package var position: Int64? { pointer.pointee.pos >= 0 ? pointer.pointee.pos : nil }
    /// The payload size in bytes.
    package var size: Int { Int(max(0, pointer.pointee.size)) }

    /// Calls `body` with the payload bytes (no copy); valid only inside `body`.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let data = pointer.pointee.data, size > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: data, count: size))
    }
}
