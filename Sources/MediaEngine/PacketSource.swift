// PacketSource: the demux stage — one stream of a file, positioned on a time range, its packets
// in decode order; repositionable while running.
import CoreMedia
import Foundation

/// The packets of one stream of a file that a time range needs, in decode (file) order: the
/// first stage of every pipe (reader outputs, the frame seeker, the audio stream reader).
///
/// Positioning, by what the consumer needs:
/// - `position(for:)` — exact, by packet. A range from the track's start (or earlier) is read
///   from the first packet with no index, up to the first packet decoded at or after its end.
///   Any other range is resolved with the stream's packet index (built once per file and
///   shared, see `PacketIndexCache`): reading starts at the keyframe decoding must start from to
///   show the first frame whose presentation interval overlaps the range (a leading picture of
///   an open GOP reaches back to the keyframe before), less `prerollPackets`, and ends with the
///   last packet in decode order that presents before the range's end.
/// - `position(atDecodeIndex:)` — from a keyframe the index names, with no end (the frame
///   seeker, which chooses the packets it decodes itself).
/// - `position(decodingFrom:preroll:)` — for decoded audio, which is trimmed to the sample
///   after decoding: reading starts `preroll` before the time in containers whose timestamps
///   stay exact after a seek, from the top of the file otherwise. No index is needed.
///
/// Every positioning may be called at any time, also while reading (a player seeks): packets
/// read ahead are dropped and the next `next()` returns the new window's first packet. A seek
/// is checked against the index: where the demuxer lands after the wanted keyframe, or where it
/// cannot tell, reading starts again from the beginning and passes over earlier packets.
///
/// Times are FFmpeg's, which are the asset's timeline: the mov demuxer applies edit lists, so an
/// edited track's first presented sample is at its edit's start.
///
/// Failures are `MediaError`s; `cancel()` (from any thread) makes a read in progress and every
/// later one fail with `.cancelled`. Not thread-safe otherwise: one owner at a time.
package final class PacketSource: @unchecked Sendable {
    /// The file read.
    package let url: URL
    /// The stream read.
    package let stream: StreamInfo
    /// The flag FFmpeg's I/O polls; `cancel()` sets it.
    package let cancellation: DemuxerCancellation
    /// Packets before the first one a range needs (decoder pre-roll), for `position(for:)`; 0 by default.
    package var prerollPackets = 0
    /// Whether reaching the end of the file before the end the container declares for the
    /// stream fails the read (a file cut short). On by default.
    package var detectsTruncation = true
    /// The time of the window's first packet, where a clock starts for samples whose container
    /// gives no times (elementary streams, some MPEG program streams): the stream's start (or
    /// zero), or the index's time of the keyframe reading starts from.
    package private(set) var clockStart = CMTime.zero

    private let demuxer: Demuxer
    private var timeline: FrameTimeline?
    private var lastFrameDuration: Int64 = 0
    /// Whether the demuxer has not read anything since it was opened or rewound.
    private var atStart = true
    /// The decode index of the next packet read (nil when the position is not known).
    private var nextDecodeIndex: Int? = 0
    /// Packets before this decode index are passed over.
    private var firstDecodeIndex = 0
    /// The last decode index to read; nil: to the end of the stream.
    private var lastDecodeIndex: Int?
    /// Reading also stops at the first packet decoded at or after this time (no packet after it
    /// in decode order can present earlier).
    private var stopDecodeTime: CMTime?
    /// Packets of the stream read from the demuxer and not yet handed out, in file order (the
    /// landing packet of a seek, packets looked ahead at).
    private var pending: [DemuxerPacket] = []
    private var pendingHead = 0
    private var finished = false
    /// Where the container says the stream's samples end (QuickTime family, whose sample tables
    /// are exact; nil for other containers). Reaching the end of the file with the samples read so
    /// far ending earlier — by more than a sample — means the file was cut short. (Comparing sample
    /// counts would not do: FFmpeg leaves out the samples before an edit list's keyframe.)
    private let declaredEnd: CMTime?
    /// The latest presentation end and the longest duration of the packets read in this window.
    private var readEnd: CMTime?
    private var longestDuration = CMTime.zero

    /// Opens `url` for the stream with FFmpeg index `streamIndex`. `index` is the stream's packet
    /// index when the caller has it (else it comes from `PacketIndexCache` when first needed).
    package init(url: URL, streamIndex: Int, index: PacketIndex? = nil,
                 cancellation: DemuxerCancellation = DemuxerCancellation()) throws(MediaError) {
        self.url = url
        self.cancellation = cancellation
        demuxer = try Demuxer(url: url, cancellation: cancellation)
        guard streamIndex >= 0, streamIndex < demuxer.streams.count else {
            throw .failedToParse(code: MediaError.streamNotFoundCode, message: "\(url.path): the track's stream is missing")
        }
        stream = demuxer.streams[streamIndex]
        demuxer.selectStreams([streamIndex])
        let quickTime = demuxer.formatName.contains("mov") || demuxer.formatName.contains("mp4")
        if quickTime, stream.duration.isNumeric, stream.duration > .zero {
            declaredEnd = (stream.startTime.isNumeric ? stream.startTime : .zero) + stream.duration
        } else {
            declaredEnd = nil
        }
        if let index { useIndex(index) }
        clockStart = stream.startTime.isNumeric ? stream.startTime : .zero
    }

    /// The container's short names (e.g. "mov,mp4,m4a,3gp,3g2,mj2").
    package var formatName: String { demuxer.formatName }

    /// A decoder for the stream (see `Demuxer.makeDecoder(stream:threads:)`).
    package func makeDecoder(threads: Int = 0) throws(MediaError) -> Decoder {
        try demuxer.makeDecoder(stream: stream, threads: threads)
    }

    /// The stream's frames in presentation order, from its packet index (scanned once per file).
    package func loadTimeline() throws(MediaError) -> FrameTimeline {
        if let timeline { return timeline }
        useIndex(try PacketIndexCache.shared.index(for: url, stream: stream.index, cancellation: cancellation))
        return timeline!
    }

    private func useIndex(_ index: PacketIndex) {
        timeline = FrameTimeline(index)
        lastFrameDuration = index.count > 0 ? index.entries[index.decodeIndex(forPresentationIndex: index.count - 1)].duration : 0
    }

    // MARK: Positioning

    /// Positions reading on what `range` needs (see the type's description). Returns false when
    /// no packet of the stream presents inside it (the range lies before the first or after the
    /// last sample); nothing is read then until the next positioning.
    package func position(for range: CMTimeRange) throws(MediaError) -> Bool {
        resetWindow()
        let fromStart = range.start <= .zero || (stream.startTime.isNumeric && range.start <= stream.startTime)
        let endless = !range.end.isNumeric
        if fromStart {
            // From the first packet, no index needed: an end stops at the first packet decoded at
            // or after it.
            try rewind()
            stopDecodeTime = endless ? nil : range.end
            return true
        }
        let timeline = try loadTimeline()
        guard !timeline.isEmpty else { finished = true; return false }
        // The last packet (decode order) that presents before the range's end.
        var last: Int?
        if !endless {
            for i in timeline.frames.indices {
                guard timeline.time(ofFrame: i) < range.end else { break }
                last = max(last ?? 0, timeline.frames[i].decodeIndex)
            }
            guard last != nil else { finished = true; return false }
        }
        var first = 0
        if let shown = timeline.frameIndex(containing: range.start) {
            let lastFrame = timeline.frames.count - 1
            if shown == lastFrame, let end = endOfLastFrame(timeline), range.start >= end { finished = true; return false }
            first = timeline.startIndex(for: shown).map { timeline.frames[$0].decodeIndex } ?? 0
            if timeline.time(ofFrame: 0) > range.start { first = 0 }
        }
        // Decoder pre-roll: packets before the first one the range needs, so that the first
        // shown samples decode as they do in the whole stream (an AAC frame overlaps the one before).
        if first > 0, prerollPackets > 0 { first = max(0, first - prerollPackets) }
        lastDecodeIndex = last
        try start(atDecodeIndex: first, timeline: timeline)
        return true
    }

    /// Positions reading at the packet with decode index `decodeIndex` (a keyframe of the index,
    /// or 0), to the end of the stream. Packets before it are passed over.
    package func position(atDecodeIndex decodeIndex: Int) throws(MediaError) {
        resetWindow()
        try start(atDecodeIndex: decodeIndex, timeline: try loadTimeline())
    }

    /// Positions reading for decoding from `time` on, to the end of the stream: `preroll`
    /// earlier in containers that seek exactly (`seeksExactly`), from the top otherwise or
    /// when `time` is that close to the start. The consumer drops what it decodes before `time`.
    package func position(decodingFrom time: CMTime, preroll: CMTime) throws(MediaError) {
        resetWindow()
        nextDecodeIndex = nil
        if time.isNumeric, time > preroll, seeksExactly {
            do {
                try demuxer.seek(stream: stream.index, to: time - preroll)
                atStart = false
                return
            } catch {
                if case .cancelled = error { throw error }
                // Unseekable input: decode from the top and drop what comes before `time`.
                atStart = false
            }
        }
        try rewind()
    }

    /// Containers whose packets carry exact timestamps after a seek. Elsewhere (MP3, ADTS AAC,
    /// AC-3 and other raw streams) FFmpeg estimates the position it seeks to — from a VBR table of
    /// contents or the bit rate — and the timestamps after it, so decoding starts from the top.
    static let exactSeekingFormats: Set<String> = ["mov", "mp4", "matroska", "webm", "ogg", "wav", "w64", "aiff", "caf", "flac"]

    /// Whether seeking this container by time lands on exact timestamps.
    package var seeksExactly: Bool {
        demuxer.formatName.split(separator: ",").contains { Self.exactSeekingFormats.contains(String($0)) }
    }

    private func resetWindow() {
        pending.removeAll(keepingCapacity: true)
        pendingHead = 0
        finished = false
        readEnd = nil
        longestDuration = .zero
        stopDecodeTime = nil
        firstDecodeIndex = 0
        lastDecodeIndex = nil
        clockStart = stream.startTime.isNumeric ? stream.startTime : .zero
    }

    private func start(atDecodeIndex first: Int, timeline: FrameTimeline) throws(MediaError) {
        firstDecodeIndex = first
        if let frame = timeline.frameIndex(decodeIndex: first) { clockStart = timeline.time(ofFrame: frame) }
        if first == 0 {
            try rewind()
        } else {
            try seek(toDecodeIndex: first, timeline: timeline)
        }
    }

    private func rewind() throws(MediaError) {
        nextDecodeIndex = 0
        guard !atStart else { return }
        try demuxer.rewind()
        atStart = true
    }

    /// Seeks to the keyframe at decode index `target`, checking where the demuxer landed: at or
    /// before it, earlier packets are passed over; after it (or unknown), reading starts again
    /// from the beginning.
    private func seek(toDecodeIndex target: Int, timeline: FrameTimeline) throws(MediaError) {
        let landed = try demuxer.seek(stream: stream.index, toDecodeIndex: target, in: timeline)
        atStart = false
        guard let landed else { return try rewind() }
        pending = [landed.packet]
        nextDecodeIndex = landed.decodeIndex
    }

    // MARK: Reading

    /// The next packet in the window, nil after its last one (or at the end of the file).
    package func next() throws(MediaError) -> DemuxerPacket? {
        if finished { return nil }
        while true {
            guard let packet = try takePacket() else {
                finished = true
                if detectsTruncation, let declaredEnd, let reached = readEnd, reached + longestDuration < declaredEnd {
                    throw .failedToParse(code: MediaError.invalidDataCode,
                                         message: "\(url.path): the file ends at \(reached.seconds) s of a track "
                                             + "that lasts until \(declaredEnd.seconds) s (it was cut short)")
                }
                return nil
            }
            let index = nextDecodeIndex ?? decodeIndex(of: packet)
            nextDecodeIndex = index.map { $0 + 1 }
            if let index, index < firstDecodeIndex { continue }
            if let index, let lastDecodeIndex, index > lastDecodeIndex { finished = true; return nil }
            if let stopDecodeTime, packet.decodeTime.isNumeric, packet.decodeTime >= stopDecodeTime { finished = true; return nil }
            if detectsTruncation {
                let duration = packet.duration
                if packet.presentationTime.isNumeric, duration.isNumeric {
                    let end = packet.presentationTime + duration
                    if readEnd.map({ end > $0 }) ?? true { readEnd = end }
                    if duration > longestDuration { longestDuration = duration }
                }
            }
            return packet
        }
    }

    /// The packet `offset` places ahead of what `next()` reads (before the window's filtering:
    /// the stream's packets in file order), reading ahead as needed; nil at the end of the file.
    /// For consumers that plan which packets to decode (the frame seeker's reference planner).
    package func peek(_ offset: Int) throws(MediaError) -> DemuxerPacket? {
        while pending.count - pendingHead <= offset {
            guard let packet = try readOwnPacket() else { return nil }
            pending.append(packet)
        }
        return pending[pendingHead + offset]
    }

    /// How many packets have been read ahead (`peek`) and not yet handed out.
    package var readAheadCount: Int { pending.count - pendingHead }

    /// Makes any read in progress (on another thread) or to come fail as cancelled.
    package func cancel() { cancellation.cancel() }

    /// The decode index of a packet of the stream, from its timestamp and the index (nil when no
    /// index is loaded or the packet is not in it).
    package func decodeIndex(of packet: DemuxerPacket) -> Int? { timeline?.decodeIndex(ofTimestamp: packet.rawPTS) }

    private func takePacket() throws(MediaError) -> DemuxerPacket? {
        if pendingHead < pending.count {
            let packet = pending[pendingHead]
            pendingHead += 1
            if pendingHead == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingHead = 0
            }
            return packet
        }
        return try readOwnPacket()
    }

    /// The next packet of the stream from the demuxer, nil at the end of the file.
    private func readOwnPacket() throws(MediaError) -> DemuxerPacket? {
        while true {
            let read = try demuxer.readPacket()
            atStart = false
            guard let read else { return nil }
            if read.streamIndex == stream.index { return read }
        }
    }

    private func endOfLastFrame(_ timeline: FrameTimeline) -> CMTime? {
        guard let last = timeline.frames.last else { return nil }
        return StreamInfo.time(last.pts.saturatingAdding(max(1, lastFrameDuration)), timeline.timeBase)
    }
}
