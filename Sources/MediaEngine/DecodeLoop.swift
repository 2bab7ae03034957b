// DecodeLoop: the decode stage — libavcodec's send/receive dance around one Decoder, fed packets
// by its consumer; flushable and cancellable while running.
import CoreMedia

/// Turns packets into decoded frames with one `Decoder`: the one send/receive loop every pipe
/// uses (reader outputs, the frame seeker, the audio stream reader).
///
/// `next(feed:)` returns the next decoded frame. It receives what the decoder has ready; when
/// the decoder needs input it asks `feed` for the next packet (nil: no more — the decoder is then
/// drained of the frames it holds back) and sends it. A packet the decoder refuses because it
/// has frames to give first is held and sent again before anything else. The consumer, not the
/// loop, chooses the packets (the frame seeker feeds the ones its reference plan keeps, and sets
/// `decoder.skipMode` for each before returning it from `feed`); `consumed` is told of every
/// packet the decoder took.
///
/// Each frame comes with its presentation time (`DecodedFrame.presentationTime`) and, with
/// `tracksDurations`, the duration of the packet it was decoded from (matched by timestamp:
/// the decoder reorders pictures).
///
/// `flush()` drops everything buffered — the held packet, the decoder's frames — for a
/// reposition while running; the next packet fed should start at a keyframe. Cancellation (the
/// `DemuxerCancellation` given) is checked before every packet. Decoding errors fail the loop
/// unless a `tolerance` lets damaged packets pass, as FFmpeg's tools do.
///
/// Not thread-safe: one owner at a time.
package final class DecodeLoop: @unchecked Sendable {
    /// Why the loop stopped.
    package enum Failure: Error, Sendable, Equatable {
        /// The cancellation flag was set (or the packet source was cancelled).
        case cancelled
        /// The decoder failed on a packet or frame, beyond the tolerance.
        case decoding(FFmpegError)
        /// The packet source failed.
        case reading(MediaError)
    }

    /// How many decoding failures pass before the loop fails.
    package enum Tolerance: Sendable, Equatable {
        /// None: the first failure fails the loop.
        case none
        /// Up to `n` in a row; a packet the decoder takes starts the count again.
        case consecutive(Int)
        /// Up to `n` since the last `resetFailures()` (or flush).
        case total(Int)
    }

    /// A decoded frame and the duration of its packet.
    package struct Frame: @unchecked Sendable {
        /// The frame.
        package let frame: DecodedFrame
        /// Its packet's duration (`tracksDurations`); `.invalid` when unknown or not tracked.
        package let duration: CMTime
    }

    /// The decoder.
    package let decoder: Decoder
    /// Whether frames come with their packet's duration.
    package let tracksDurations: Bool
    /// How many decoding failures pass.
    package var tolerance: Tolerance
    /// How many packets the decoder took since the loop was made.
    package private(set) var packetsSent = 0
    /// The duration of the last packet the decoder took (`.invalid` when it had none).
    package private(set) var lastPacketDuration = CMTime.invalid
    /// A packet the decoder refused (it had frames to give first), sent again before any other.
    package private(set) var heldPacket: DemuxerPacket?

    private let cancellation: DemuxerCancellation?
    private var failures = 0
    /// Durations of packets sent, by presentation timestamp, until their frame comes out.
    private var durations: [Int64: CMTime] = [:]

    /// A loop around `decoder`.
    package init(decoder: Decoder, tolerance: Tolerance = .none, tracksDurations: Bool = false,
                 cancellation: DemuxerCancellation? = nil) {
        self.decoder = decoder
        self.tolerance = tolerance
        self.tracksDurations = tracksDurations
        self.cancellation = cancellation
    }

    /// The next decoded frame, nil once the decoder is drained (after `feed` returned nil).
    /// `feed` gives the next packet to decode; `consumed` is called with each packet the decoder
    /// took (and with each it failed on, within the tolerance).
    package func next(feed: () throws(MediaError) -> DemuxerPacket?,
                      consumed: (DemuxerPacket) -> Void = { _ in }) throws(Failure) -> Frame? {
        while true {
            let output: Decoder.Output
            do {
                output = try decoder.receive()
            } catch {
                try tolerate(error)
                continue
            }
            switch output {
            case .frame(let frame):
                return Frame(frame: frame, duration: tracksDurations ? takeDuration(of: frame) : .invalid)
            case .endOfStream:
                return nil
            case .needsInput:
                if cancellation?.isCancelled == true { throw .cancelled }
                try sendNext(feed: feed, consumed: consumed)
            }
        }
    }

    /// Drops the held packet and everything the decoder buffers, and leaves the draining state:
    /// for a reposition (the next packet fed should start at a keyframe).
    package func flush() {
        decoder.flush()
        heldPacket = nil
        durations.removeAll(keepingCapacity: true)
        failures = 0
    }

    /// Starts counting failures again (`Tolerance.total`).
    package func resetFailures() { failures = 0 }

    /// Sends the held packet, else the next one `feed` gives, else the end of the stream.
    private func sendNext(feed: () throws(MediaError) -> DemuxerPacket?, consumed: (DemuxerPacket) -> Void) throws(Failure) {
        let packet: DemuxerPacket
        if let held = heldPacket {
            heldPacket = nil
            packet = held
        } else {
            let fed: DemuxerPacket?
            do {
                fed = try feed()
            } catch {
                if case .cancelled = error { throw .cancelled }
                throw .reading(error)
            }
            guard let fed else {
                do { try decoder.sendEndOfStream() } catch { try tolerate(error) }
                return
            }
            packet = fed
        }
        do {
            guard try decoder.send(packet) else {
                heldPacket = packet
                return
            }
            if case .consecutive = tolerance { failures = 0 }
        } catch {
            try tolerate(error)
        }
        packetsSent += 1
        if tracksDurations { recordDuration(of: packet) }
        consumed(packet)
    }

    /// A failure passed (counted) or thrown. Running out of memory always fails.
    private func tolerate(_ error: FFmpegError) throws(Failure) {
        failures += 1
        switch tolerance {
        case .none:
            throw .decoding(error)
        case .consecutive(let n), .total(let n):
            if failures > n || error == .outOfMemory { throw .decoding(error) }
        }
    }

    private func recordDuration(of packet: DemuxerPacket) {
        let duration = packet.duration
        if duration.isNumeric { lastPacketDuration = duration }
        if let pts = packet.rawPTS {
            durations[pts] = duration
            if durations.count > 256, let oldest = durations.keys.min() { durations[oldest] = nil }
        }
    }

    private func takeDuration(of frame: DecodedFrame) -> CMTime {
        guard let timestamp = frame.timestamp else { return .invalid }
        return durations.removeValue(forKey: timestamp) ?? .invalid
    }
}
