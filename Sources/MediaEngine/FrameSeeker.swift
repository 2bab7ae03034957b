// FrameSeeker: exact frames at requested times, by one decoder moving forward through a track.
internal import CFFmpeg
import CoreMedia
import CoreVideo
import Foundation

/// Why a frame could not be produced.
package enum FrameSeekerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Opening, indexing or reading the file failed.
    case media(MediaError)
    /// The stream is not a video stream, or has no frames.
    case noFrames(String)
    /// The decoder could not be opened (no decoder for the codec, bad parameters).
    case decoderUnavailable(code: Int32, message: String)
    /// Decoding failed before the frame appeared (damaged data, truncated file).
    case decodeFailed(String)
    /// The picture could not be converted.
    case conversionFailed(PixelConversionError)
    /// The caller cancelled.
    case cancelled

    package var description: String {
        switch self {
        case .media(let e): return e.message
        case .noFrames(let m): return m
        case .decoderUnavailable(_, let m): return m
        case .decodeFailed(let m): return m
        case .conversionFailed(let e): return "cannot convert the decoded picture (\(e))"
        case .cancelled: return "cancelled"
        }
    }
}

extension FrameTimeline {
    /// The timeline of the frames a packet index lists (every packet of a video stream is one
    /// frame).
    package init(_ index: PacketIndex) {
        self.init(timeBase: index.timeBase, frames: index.entries.enumerated().map { i, e in
            Frame(pts: e.pts, dts: e.dts, decodeIndex: i, isKeyframe: e.isKeyframe)
        })
    }
}

/// Produces the frame to show at requested times from one video stream of a file.
///
/// One demuxer and one decoder serve every request. Requests in a batch are sorted by the frame
/// they resolve to; the decoder only seeks (to the keyframe decoding must start from, found in
/// the packet index) when the next frame is behind it or beyond the next keyframe, so all the
/// frames of one GOP cost one decode pass. While approaching a frame, packets shown before it
/// are decoded with `AVDISCARD_NONREF` so pictures nothing refers to are not decoded at all;
/// the wanted frame's packet never is. The result is the decoded frame itself (zero-copy), to
/// be scaled once to its final size by the caller.
///
/// Not thread-safe: use from one thread at a time.
package final class FrameSeeker: @unchecked Sendable {
    /// One request: a time and how far from it the frame may be.
    package struct Request: Sendable {
        /// The requested time, in the stream's timeline.
        package var time: CMTime
        /// How much earlier the frame may be shown (zero: exact).
        package var toleranceBefore: CMTime
        /// How much later the frame may be shown (zero: exact).
        package var toleranceAfter: CMTime

        /// A request.
        package init(time: CMTime, toleranceBefore: CMTime = .zero, toleranceAfter: CMTime = .zero) {
            self.time = time
            self.toleranceBefore = toleranceBefore
            self.toleranceAfter = toleranceAfter
        }
    }

    /// A frame found for a request.
    package struct Output: @unchecked Sendable {
        /// The decoded frame.
        package var frame: DecodedFrame
        /// Its presentation index in the timeline.
        package var frameIndex: Int
        /// Its presentation time (what `actualTime` reports).
        package var time: CMTime
    }

    /// The stream being read.
    package let stream: StreamInfo
    /// The stream's frames.
    package let timeline: FrameTimeline
    /// How many packets were sent to the decoder (for tests and diagnostics).
    package private(set) var packetsDecoded = 0
    /// How many packets were sent with non-reference skipping on.
    package private(set) var packetsSkippable = 0
    /// How many seeks were made.
    package private(set) var seekCount = 0
    /// The decoder's thread count as asked for (0: one per core). Seekers that run side by side
    /// use 1, and so should their pixel conversions.
    package let decoderThreads: Int
    /// Whether reference pictures that no requested frame depends on are left undecoded (H.264,
    /// proven per run from the slice headers). On by default; off decodes every reference picture.
    package var skipsUnneededReferences = true
    /// How many packets were not decoded because they are reference pictures no requested frame
    /// depends on.
    package private(set) var packetsSkippedAsUnneededReferences = 0

    /// The demux stage: the stream's packets from the keyframe a seek chose.
    private let packets: PacketSource
    /// The decode stage, fed the packets this seeker chooses (with their skip modes).
    private let loop: DecodeLoop
    private var decoder: Decoder { loop.decoder }
    private var position: FrameTimeline.Position?
    private var last: (index: Int, frame: DecodedFrame)?
    /// Proves which reference pictures may be skipped (H.264 only).
    private let planner: H264ReferencePlanner?
    /// The proven decisions for packets by decode index (empty: the non-reference rule only).
    private var decisions: [Int: H264ReferencePlanner.Decision] = [:]
    /// How many packets or pictures the decoder may fail on while approaching one frame.
    private static let tolerableFailures = 64
    /// The most packets (and bytes) read ahead to plan one request.
    private static let lookaheadLimit = (packets: 4096, bytes: 256 << 20)

    /// Opens `url`'s stream `streamIndex` for frame extraction. The packet index comes from the
    /// process-wide cache (one scan per file) unless given.
    /// `decoderThreads` 0 lets the decoder use every core; seekers that run side by side in one
    /// batch use one thread each instead.
    package init(url: URL, streamIndex: Int, index: PacketIndex? = nil, decoderThreads: Int = 0,
                 cancellation: DemuxerCancellation = DemuxerCancellation()) throws(FrameSeekerError) {
        let packets: PacketSource
        do {
            packets = try PacketSource(url: url, streamIndex: streamIndex, index: index, cancellation: cancellation)
        } catch {
            if case .failedToParse(MediaError.streamNotFoundCode, _) = error { throw .noFrames("stream \(streamIndex) is not a video stream") }
            throw .media(error)
        }
        guard packets.stream.kind == .video else { throw .noFrames("stream \(streamIndex) is not a video stream") }
        let stream = packets.stream
        // A seeker fails on a damaged picture only when it never gets the frame it wants.
        packets.detectsTruncation = false
        let timeline: FrameTimeline
        do {
            timeline = try packets.loadTimeline()
        } catch {
            throw .media(error)
        }
        guard !timeline.isEmpty else { throw .noFrames("the video track has no frames") }
        let decoder: Decoder
        do {
            decoder = try packets.makeDecoder(threads: decoderThreads)
        } catch {
            switch error {
            case .decoderNotFound(let code, let message), .other(let code, let message):
                throw .decoderUnavailable(code: code, message: message)
            default:
                throw .media(error)
            }
        }
        self.packets = packets
        self.stream = stream
        self.timeline = timeline
        self.loop = DecodeLoop(decoder: decoder, tolerance: .total(FrameSeeker.tolerableFailures))
        self.decoderThreads = decoderThreads
        planner = stream.codecName == "h264" ? H264ReferencePlanner(extradata: [UInt8](stream.extradata)) : nil
    }

    /// The frame to show for `request`.
    package func frame(for request: Request, isCancelled: () -> Bool = { false }) throws(FrameSeekerError) -> Output {
        guard let index = timeline.selectFrame(for: request.time, toleranceBefore: request.toleranceBefore,
                                               toleranceAfter: request.toleranceAfter) else {
            throw .noFrames("no frame at an invalid or indefinite time")
        }
        let frame = try decode(frameAt: index, wanted: [index], drains: false, isCancelled: isCancelled)
        return Output(frame: frame, frameIndex: index, time: timeline.time(ofFrame: index))
    }

    /// Serves `requests` in the order of the frames they resolve to (ties in request order),
    /// calling `body` once per request with its position in `requests` and its outcome. `body`
    /// returns false to stop; the remaining requests are then not served (the caller reports
    /// them). Returns the positions of requests that were not served.
    ///
    /// Where the next frame in this order needs decoding to start from another keyframe, the
    /// decoder is drained after the frame's packet instead of being fed the packets that follow
    /// (which only push the frame out of the reorder delay); the next frame seeks anyway. With
    /// `drainsAtEnd`, the last frame is served the same way: for callers whose next request is
    /// known to start from another keyframe. Without it, the decoder stays where it is, so that
    /// a later call can go on forward.
    @discardableResult
    package func frames(for requests: [Request], drainsAtEnd: Bool = false, isCancelled: () -> Bool = { false },
                        _ body: (Int, Result<Output, FrameSeekerError>) -> Bool) -> [Int] {
        let chosen = requests.map {
            timeline.selectFrame(for: $0.time, toleranceBefore: $0.toleranceBefore, toleranceAfter: $0.toleranceAfter)
        }
        let order = requests.indices.sorted { (chosen[$0] ?? -1, $0) < (chosen[$1] ?? -1, $1) }
        for (n, r) in order.enumerated() {
            let outcome: Result<Output, FrameSeekerError>
            if isCancelled() {
                return Array(order[n...])
            }
            if let index = chosen[r] {
                let drains: Bool
                if n + 1 < order.count {
                    // Drain when the next frame has another decode start (it seeks, or would
                    // only continue through packets the drain saves decoding).
                    drains = chosen[order[n + 1]].map { timeline.startIndex(for: $0) != timeline.startIndex(for: index) } ?? true
                } else {
                    drains = drainsAtEnd
                }
                // The frames still to come from this one's decode start: a plan serves them all.
                let start = timeline.startIndex(for: index)
                let wanted = order[n...].compactMap { chosen[$0] }.filter { timeline.startIndex(for: $0) == start }
                do {
                    let frame = try decode(frameAt: index, wanted: wanted, drains: drains, isCancelled: isCancelled)
                    outcome = .success(Output(frame: frame, frameIndex: index, time: timeline.time(ofFrame: index)))
                } catch {
                    outcome = .failure(error)
                }
            } else {
                outcome = .failure(.noFrames("no frame at an invalid or indefinite time"))
            }
            if !body(r, outcome) { return Array(order[(n + 1)...]) }
        }
        return []
    }

    /// The order `frames(for:)` serves `requests` in, cut into runs: consecutive requests whose
    /// frames share a decode start (keyframe), so one decoder serves a run without seeking.
    /// Runs are independent of each other: separate seekers on the same file may serve
    /// different runs at the same time. Requests at invalid times form runs of their own.
    package func runs(for requests: [Request]) -> [[Int]] {
        let chosen = requests.map {
            timeline.selectFrame(for: $0.time, toleranceBefore: $0.toleranceBefore, toleranceAfter: $0.toleranceAfter)
        }
        let order = requests.indices.sorted { (chosen[$0] ?? -1, $0) < (chosen[$1] ?? -1, $1) }
        var runs: [[Int]] = []
        var currentStart: Int?
        for r in order {
            let start = chosen[r].flatMap { timeline.startIndex(for: $0) }
            if let start, start == currentStart, !runs.isEmpty {
                runs[runs.count - 1].append(r)
            } else {
                runs.append([r])
            }
            currentStart = start
        }
        return runs
    }

    /// What serving `requests` (one run) costs from a fresh seek: the packets decoded from its
    /// keyframe to its last frame in decode order. For scheduling runs across seekers.
    package func decodeCost(of requests: [Request]) -> Int {
        requests.compactMap {
            timeline.selectFrame(for: $0.time, toleranceBefore: $0.toleranceBefore, toleranceAfter: $0.toleranceAfter)
        }.map { timeline.cost(of: $0) + 1 }.max() ?? 0
    }

    // MARK: Decoding

    /// Decodes forward (seeking first when needed) until frame `index` comes out. `wanted` lists
    /// the frames this decoder is to serve from the same decode start (`index` among them), so
    /// that a plan leaves undecoded only what none of them needs. With `drains`, once the
    /// frame's packet is sent the decoder is drained rather than fed further packets (no packet
    /// after a frame in decode order can change it), and the next request seeks.
    private func decode(frameAt index: Int, wanted: [Int], drains: Bool, isCancelled: () -> Bool) throws(FrameSeekerError) -> DecodedFrame {
        if let last, last.index == index { return last.frame }
        var planned = skipsUnneededReferences && planner != nil
        while true {
            do {
                try prepare(frameAt: index, wanted: planned ? wanted : [])
                let frame = try decodeUntil(timeline.frames[index].pts, index: index, drains: drains, isCancelled: isCancelled)
                if decoder.isDraining {
                    // A drained decoder takes no more packets until flushed: the next request seeks.
                    position = nil
                }
                return frame
            } catch {
                // Leave the decoder in a known state: the next request seeks.
                position = nil
                if case .decodeFailed = error, planned, planner?.hasSkippedReferences == true {
                    // Not expected (the plan was proven), but a frame is never lost to it: once
                    // more from the keyframe, decoding every reference picture.
                    planned = false
                    continue
                }
                throw error
            }
        }
    }

    /// Seeks when the decoder cannot go on forward to frame `index`, then plans the packets up
    /// to the last of `wanted` (no plan when `wanted` is empty or nothing can be proven).
    private func prepare(frameAt index: Int, wanted: [Int]) throws(FrameSeekerError) {
        if !timeline.canContinue(to: index, from: position) {
            try seek(toStartOf: index)
        }
        decisions = [:]
        guard let planner else { return }
        if wanted.isEmpty {
            // Decoding every reference picture from here is only right if none was skipped.
            if planner.hasSkippedReferences { try seek(toStartOf: index) }
            return
        }
        if let plan = try plan(wanted) {
            decisions = plan
        } else if planner.hasSkippedReferences {
            // Pictures skipped for earlier requests may be needed now: start again.
            try seek(toStartOf: index)
            decisions = try plan(wanted) ?? [:]
        }
    }

    /// Reads ahead to the last wanted frame's packet and asks the planner for decisions.
    private func plan(_ wanted: [Int]) throws(FrameSeekerError) -> [Int: H264ReferencePlanner.Decision]? {
        guard let planner, planner.isUsable, let position else { return nil }
        let from = max(position.nextDecodeIndex, position.startDecodeIndex)
        let wantedDecode = Set(wanted.map { timeline.frames[$0].decodeIndex })
        var upcoming: [Int] = []
        guard let horizon = wantedDecode.max(), horizon >= from else {
            // Everything wanted has been sent already: check that it was decoded right.
            return planner.plan(upcoming: [], wanted: wantedDecode)
        }
        // The packets not yet sent, in file order: the one the decoder refused, then those read ahead.
        let held = loop.heldPacket
        var bytes = 0
        var k = 0
        while true {
            let packet: DemuxerPacket
            if k == 0, let held {
                packet = held
            } else {
                let offset = held == nil ? k : k - 1
                if offset >= packets.readAheadCount {
                    guard offset < Self.lookaheadLimit.packets, bytes < Self.lookaheadLimit.bytes else { return nil }
                }
                let peeked: DemuxerPacket?
                do {
                    peeked = try packets.peek(offset)
                } catch {
                    if case .cancelled = error { throw .cancelled }
                    return nil
                }
                guard let peeked else { return nil }
                packet = peeked
            }
            k += 1
            bytes += packet.size
            guard let d = decodeIndex(of: packet) else { return nil }
            if d < from { continue }
            guard packet.withUnsafeBytes({ planner.read(decodeIndex: d, packet: $0) }) else { return nil }
            upcoming.append(d)
            if d >= horizon { break }
        }
        return planner.plan(upcoming: upcoming, wanted: wantedDecode)
    }

    /// The decode index of a packet of this stream, from its timestamp.
    private func decodeIndex(of packet: DemuxerPacket) -> Int? { timeline.decodeIndex(ofTimestamp: packet.rawPTS) }

    private func decodeUntil(_ target: Int64, index: Int, drains: Bool, isCancelled: () -> Bool) throws(FrameSeekerError) -> DecodedFrame {
        if isCancelled() { throw .cancelled }
        var targetSent = false
        loop.resetFailures()
        // A packet the decoder refused is sent first, decided for this target and plan.
        if let held = loop.heldPacket { choose(held, before: target) }
        while true {
            let decoded: DecodeLoop.Frame?
            do {
                decoded = try loop.next(feed: { () throws(MediaError) -> DemuxerPacket? in
                    if isCancelled() { throw .cancelled(code: MediaError.exitCode, message: "cancelled") }
                    // Once the target's packet is in and draining is asked for: the end of the stream.
                    if drains && targetSent { return nil }
                    return try nextPacket(before: target)
                }, consumed: { packet in
                    didSend(packet)
                    if packet.rawPTS == target { targetSent = true }
                })
            } catch {
                switch error {
                case .cancelled: throw .cancelled
                case .decoding(let error): throw .decodeFailed("the video cannot be decoded: \(error.message)")
                case .reading(let error): throw .media(error)
                }
            }
            guard let frame = decoded?.frame else {
                position = nil
                throw .decodeFailed("the video ended before the frame at \(CMTimeGetSeconds(timeline.time(ofFrame: index))) s was decoded")
            }
            guard let ts = frame.timestamp else { continue }
            position?.lastOutputTimestamp = ts
            if ts == target {
                last = (index, frame)
                return frame
            }
            if ts > target {
                throw .decodeFailed("the frame at \(CMTimeGetSeconds(timeline.time(ofFrame: index))) s could not be decoded")
            }
        }
    }

    /// The decode index and decision of the packet last given to the decode loop (which may
    /// hold it and send it later).
    private var fed: (decodeIndex: Int?, decision: H264ReferencePlanner.Decision) = (nil, .decode)

    /// The next packet to decode on the way to the frame at `target`, with the decoder's skip
    /// mode set for it: the plan's decision, else pictures nothing refers to that are shown
    /// before the target are dropped. Nil at the end of the stream (a read error ends it too:
    /// what was decoded is drained).
    private func nextPacket(before target: Int64) throws(MediaError) -> DemuxerPacket? {
        while true {
            let read: DemuxerPacket?
            do {
                read = try packets.next()
            } catch {
                if case .cancelled = error { throw error }
                return nil
            }
            guard let packet = read else { return nil }
            if let decodeIndex = decodeIndex(of: packet), let start = position?.startDecodeIndex, decodeIndex < start { continue }
            choose(packet, before: target)
            return packet
        }
    }

    /// Sets the decoder's skip mode for `packet` (and remembers it as `fed`).
    private func choose(_ packet: DemuxerPacket, before target: Int64) {
        let decodeIndex = decodeIndex(of: packet)
        let decision: H264ReferencePlanner.Decision
        if let decodeIndex, let planned = decisions[decodeIndex] {
            decision = planned
        } else {
            decision = packet.rawPTS.map { $0 < target } ?? false ? .skipUnreferenced : .decode
        }
        switch decision {
        case .decode: decoder.skipMode = .none
        case .skipUnreferenced: decoder.skipMode = .nonReference
        case .skipReference: decoder.skipMode = .bidirectional
        }
        fed = (decodeIndex, decision)
    }

    /// Bookkeeping for a packet the decoder took: counts, the planner's record, the position.
    private func didSend(_ packet: DemuxerPacket) {
        let (decodeIndex, decision) = fed
        packetsDecoded += 1
        if decision == .skipUnreferenced { packetsSkippable += 1 }
        if decision == .skipReference { packetsSkippedAsUnneededReferences += 1 }
        if skipsUnneededReferences, let planner, planner.isUsable {
            if let decodeIndex, packet.withUnsafeBytes({ planner.read(decodeIndex: decodeIndex, packet: $0) }) {
                // NONREF drops the picture only if nothing refers to it.
                let reference = planner.isReference(decodeIndex) ?? true
                planner.record(decodeIndex: decodeIndex, decision: decision == .skipUnreferenced && reference ? .decode : decision)
            } else {
                planner.invalidate()  // what was sent is unknown: no plans until the next seek
            }
        }
        if let decodeIndex, var p = position {
            p.nextDecodeIndex = max(p.nextDecodeIndex, decodeIndex + 1)
            position = p
        }
    }

    /// Flushes the decode loop and moves the packet source to the keyframe frame `index` needs.
    private func seek(toStartOf index: Int) throws(FrameSeekerError) {
        loop.flush()
        planner?.reset()
        decisions = [:]
        seekCount += 1
        let start = timeline.startIndex(for: index)
        let startDecode = start.map { timeline.frames[$0].decodeIndex } ?? 0
        position = FrameTimeline.Position(startDecodeIndex: startDecode, nextDecodeIndex: startDecode, lastOutputTimestamp: nil)
        do {
            try packets.position(atDecodeIndex: startDecode)
        } catch {
            // Reading goes on from wherever the demuxer is; packets before the start are passed over.
            if case .cancelled = error { throw .cancelled }
        }
    }
}
