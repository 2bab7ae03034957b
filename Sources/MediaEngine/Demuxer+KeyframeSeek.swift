// Seeking a demuxer to a keyframe a FrameTimeline names, checking where it really landed: the
// one rule the frame seeker and the asset reader both position by.
internal import CFFmpeg

extension FrameTimeline {
    /// The decode index of the frame with timestamp `pts`, if the timeline has it.
    package func decodeIndex(ofTimestamp pts: Int64?) -> Int? {
        pts.flatMap { frameIndex(timestamp: $0) }.map { frames[$0].decodeIndex }
    }
}

extension Demuxer {
    /// Moves `stream` to the packet at decode index `target` (a keyframe of `timeline`) and
    /// returns the first packet of that stream read there with its decode index, when it lies at
    /// or before `target` (the caller passes over earlier packets). Returns nil when the
    /// demuxer landed after it, could not tell, or could not seek: the caller then reads from the
    /// beginning (`rewind()`). Only cancellation throws.
    package func seek(stream: Int, toDecodeIndex target: Int,
                      in timeline: FrameTimeline) throws(MediaError) -> (packet: DemuxerPacket, decodeIndex: Int)? {
        guard let frame = timeline.frameIndex(decodeIndex: target) else { return nil }
        do {
            try seek(stream: stream, toTimestamp: timeline.frames[frame].pts)
            while let packet = try readPacket() {
                guard packet.streamIndex == stream else { continue }
                guard let landed = timeline.decodeIndex(ofTimestamp: packet.rawPTS), landed <= target else { return nil }
                return (packet, landed)
            }
        } catch {
            if case .cancelled = error { throw error }
        }
        return nil
    }
}
