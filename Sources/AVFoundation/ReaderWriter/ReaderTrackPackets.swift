// ReaderTrackPackets: one track's packets for a reader output, in decode order, limited to what a
// time range needs — the demuxer stage every reader source (passthrough or decoding) reads from.
import CoreMedia
import Foundation
import MediaEngine

/// The packets of one stream of a file that a time range needs, in decode (file) order.
///
/// A range from the track's start (or earlier) is read from the first packet with no index, up
/// to the first packet decoded at or after its end. Any other range is resolved with the track's packet
/// index (built once per file and shared, see `PacketIndexCache`): reading starts at the keyframe
/// decoding must start from to show the first frame whose presentation interval overlaps the
/// range (a leading picture of an open GOP reaches back to the keyframe before), and ends with the
/// last packet in decode order that presents before the range's end. The demuxer is positioned
/// with a seek and the landing checked against the index, as the frame seeker does.
///
/// Times are FFmpeg's, which are the asset's timeline: the mov demuxer applies edit lists, so an
/// edited track's first presented sample is at its edit's start.
///
/// Not thread-safe: one owner at a time.
final class ReaderTrackPackets {
    let url: URL
    let stream: StreamInfo
    let cancellation: DemuxerCancellation
    private let demuxer: Demuxer
    private var timeline: FrameTimeline?
    /// Whether the demuxer has not read anything since it was opened or rewound.
    private var atStart = true
    /// The decode index of the next packet read (nil when the position is not known).
    private var nextDecodeIndex: Int? = 0
    /// Packets before this decode index are passed over.
    private var firstDecodeIndex = 0
    /// The last decode index to read; nil: to the end of the track.
    private var lastDecodeIndex: Int?
    /// Reading also stops at the first packet decoded at or after this time (no packet after it
    /// in decode order can present earlier).
    private var stopDecodeTime: CMTime?
    /// The time of the window's first packet, where a clock starts for samples whose container
    /// gives no times (elementary streams, some MPEG program streams): the stream's start (or
    /// zero), or the index's time of the keyframe reading starts from.
    private(set) var clockStart = CMTime.zero
    /// A packet read while checking where a seek landed, not yet handed out.
    private var pending: DemuxerPacket?
    private var finished = false
    /// Where the container says the track's samples end (QuickTime family, whose sample tables
    /// are exact; nil for other containers). Reaching the end of the file with the samples read so
    /// far ending earlier — by more than a sample — means the file was cut short. (Comparing sample
    /// counts would not do: FFmpeg leaves out the samples before an edit list's keyframe.)
    private let declaredEnd: CMTime?
    /// The latest presentation end and the longest duration of the packets read in this window.
    private var readEnd: CMTime?
    private var longestDuration = CMTime.zero
    /// Packets read before the first one a range needs (decoder pre-roll); 0 by default.
    var prerollPackets = 0

    /// Opens `url` for the stream with FFmpeg index `streamIndex`. Failures are `AVError`s.
    init(url: URL, streamIndex: Int, cancellation: DemuxerCancellation) throws {
        self.url = url
        self.cancellation = cancellation
        do {
            demuxer = try Demuxer(url: url, cancellation: cancellation)
        } catch {
            throw AVError.from(error, url: url)
        }
        guard streamIndex >= 0, streamIndex < demuxer.streams.count else {
            throw AVError.from(.failedToParse(code: MediaError.streamNotFoundCode,
                                              message: "\(url.path): the track's stream is missing"), url: url)
        }
        stream = demuxer.streams[streamIndex]
        demuxer.selectStreams([streamIndex])
        let quickTime = demuxer.formatName.contains("mov") || demuxer.formatName.contains("mp4")
        if quickTime, stream.duration.isNumeric, stream.duration > .zero {
            declaredEnd = (stream.startTime.isNumeric ? stream.startTime : .zero) + stream.duration
        } else {
            declaredEnd = nil
        }
    }

    /// A decoder for the stream (`threads` 0: one per core). Failures are `AVError`s: no decoder
    /// for the codec is `.decoderNotFound`.
    func makeDecoder(threads: Int) throws -> Decoder {
        let timeBase = stream.timeBase
        do {
            return try demuxer.withCodecParameters(stream: stream.index) { parameters in
                try Decoder(parameters: parameters, timeBase: timeBase, threads: threads)
            }
        } catch let error as FFmpegError {
            let media: MediaError = error.code == Decoder.decoderNotFound
                ? .decoderNotFound(code: error.code, message: "no decoder for the \(stream.codecName) codec")
                : .other(code: error.code, message: "cannot open the \(stream.codecName) decoder: \(error.message)")
            throw AVError.from(media, url: url)
        } catch let error as MediaError {
            throw AVError.from(error, url: url)
        }
    }

    /// Prepares reading what `range` needs. Returns false when no packet of the track presents
    /// inside it (the range lies before the first or after the last sample).
    func position(for range: CMTimeRange) throws -> Bool {
        pending = nil
        finished = false
        readEnd = nil
        stopDecodeTime = nil
        clockStart = stream.startTime.isNumeric ? stream.startTime : .zero
        let fromStart = range.start <= .zero || (stream.startTime.isNumeric && range.start <= stream.startTime)
        let endless = !range.end.isNumeric
        if fromStart {
            // From the first packet, no index needed: an end stops at the first packet decoded at
            // or after it.
            try rewind()
            firstDecodeIndex = 0
            lastDecodeIndex = nil
            stopDecodeTime = endless ? nil : range.end
            return true
        }
        let timeline = try loadTimeline()
        guard !timeline.isEmpty else { return false }
        // The last packet (decode order) that presents before the range's end.
        var last: Int?
        if !endless {
            for i in timeline.frames.indices {
                guard timeline.time(ofFrame: i) < range.end else { break }
                last = max(last ?? 0, timeline.frames[i].decodeIndex)
            }
            guard last != nil else { return false }
        }
        var first = 0
        if !fromStart, let shown = timeline.frameIndex(containing: range.start) {
            let lastFrame = timeline.frames.count - 1
            if shown == lastFrame, let end = endOfLastFrame(timeline), range.start >= end { return false }
            first = timeline.startIndex(for: shown).map { timeline.frames[$0].decodeIndex } ?? 0
            if timeline.time(ofFrame: 0) > range.start { first = 0 }
        }
        // Decoder pre-roll: packets before the first one the range needs, so that the first
        // shown samples decode as they do in the whole track (an AAC frame overlaps the one before).
        if first > 0, prerollPackets > 0 { first = max(0, first - prerollPackets) }
        firstDecodeIndex = first
        lastDecodeIndex = last
        if let frame = timeline.frameIndex(decodeIndex: first) { clockStart = timeline.time(ofFrame: frame) }
        if first == 0 {
            try rewind()
        } else {
            try seek(toDecodeIndex: first, timeline: timeline)
        }
        return true
    }

    /// The next packet in the window, nil after its last one (or at the end of the file).
    /// Damaged data and read failures are `AVError`s.
    func next() throws -> DemuxerPacket? {
        if finished { return nil }
        while true {
            let packet: DemuxerPacket
            if let p = pending {
                pending = nil
                packet = p
            } else {
                let read = try readOwnPacket()
                guard let read else {
                    finished = true
                    if let declaredEnd, let reached = readEnd, reached + longestDuration < declaredEnd {
                        throw AVError.from(.failedToParse(code: MediaError.invalidDataCode,
                                                          message: "\(url.path): the file ends at \(reached.seconds) s of a track "
                                                              + "that lasts until \(declaredEnd.seconds) s (it was cut short)"), url: url)
                    }
                    return nil
                }
                packet = read
            }
            let index = nextDecodeIndex ?? decodeIndex(of: packet)
            nextDecodeIndex = index.map { $0 + 1 }
            if let index, index < firstDecodeIndex { continue }
            if let index, let lastDecodeIndex, index > lastDecodeIndex { finished = true; return nil }
            if let stopDecodeTime, packet.decodeTime.isNumeric, packet.decodeTime >= stopDecodeTime { finished = true; return nil }
            let duration = packet.duration
            if packet.presentationTime.isNumeric, duration.isNumeric {
                let end = packet.presentationTime + duration
                if readEnd.map({ end > $0 }) ?? true { readEnd = end }
                if duration > longestDuration { longestDuration = duration }
            }
            return packet
        }
    }

    /// Makes any read in progress (on another thread) or to come fail as cancelled.
    func cancel() { cancellation.cancel() }

    /// `ranges` limited to what the track presents (before `end`), empty ones dropped.
    static func clamp(_ ranges: [CMTimeRange], to end: CMTime) -> [CMTimeRange] {
        ranges.compactMap { range in
            guard end.isNumeric, range.end > end else { return range }
            guard range.start < end else { return nil }
            return CMTimeRange(start: range.start, end: end)
        }
    }

    // MARK: Positioning

    private func rewind() throws {
        nextDecodeIndex = 0
        guard !atStart else { return }
        do { try demuxer.rewind() } catch { throw AVError.from(error, url: url) }
        atStart = true
    }

    /// Seeks to the keyframe at decode index `target`, checking where the demuxer landed: at or
    /// before it, earlier packets are passed over; after it (or unknown), reading starts again
    /// from the beginning.
    private func seek(toDecodeIndex target: Int, timeline: FrameTimeline) throws {
        let landed: (packet: DemuxerPacket, decodeIndex: Int)?
        do {
            landed = try demuxer.seek(stream: stream.index, toDecodeIndex: target, in: timeline)
        } catch {
            throw AVError.from(error, url: url)
        }
        atStart = false
        guard let landed else { return try rewind() }
        pending = landed.packet
        nextDecodeIndex = landed.decodeIndex
    }

    /// The next packet of the stream from the demuxer, nil at the end of the file.
    private func readOwnPacket() throws -> DemuxerPacket? {
        while true {
            let read: DemuxerPacket?
            do {
                read = try demuxer.readPacket()
            } catch {
                throw AVError.from(error, url: url)
            }
            atStart = false
            guard let read else { return nil }
            if read.streamIndex == stream.index { return read }
        }
    }

    private func decodeIndex(of packet: DemuxerPacket) -> Int? { timeline?.decodeIndex(ofTimestamp: packet.rawPTS) }

    private func loadTimeline() throws -> FrameTimeline {
        if let timeline { return timeline }
        do {
            let index = try PacketIndexCache.shared.index(for: url, stream: stream.index, cancellation: cancellation)
            let made = FrameTimeline(index)
            timeline = made
            lastFrameDuration = index.count > 0 ? index.entries[index.decodeIndex(forPresentationIndex: index.count - 1)].duration : 0
            return made
        } catch {
            throw AVError.from(error, url: url)
        }
    }

    private var lastFrameDuration: Int64 = 0

    private func endOfLastFrame(_ timeline: FrameTimeline) -> CMTime? {
        guard let last = timeline.frames.last else { return nil }
        return StreamInfo.time(last.pts.saturatingAdding(max(1, lastFrameDuration)), timeline.timeBase)
    }
}
