// ReaderTrackPackets: what a reader output's sources share about a track's packets — opening
// the engine's packet source with Apple's errors, and the range a track's edit list presents.
import CoreMedia
import Foundation
internal import MediaEngine

/// Helpers for the reader sources over MediaEngine's `PacketSource` (the demux stage: one
/// stream's packets, positioned on a time range, in decode order).
enum ReaderTrackPackets {
    /// Opens `url`'s stream `streamIndex`, stopped by `cancellation`. Failures are `AVError`s.
    static func open(url: URL, streamIndex: Int, cancellation: DemuxerCancellation = DemuxerCancellation()) throws -> PacketSource {
        do {
            return try PacketSource(url: url, streamIndex: streamIndex, cancellation: cancellation)
        } catch {
            throw AVError.from(error, url: url)
        }
    }

    /// `ranges` limited to what the track presents (before `end`), empty ones dropped.
    static func clamp(_ ranges: [CMTimeRange], to end: CMTime) -> [CMTimeRange] {
        ranges.compactMap { range in
            guard end.isNumeric, range.end > end else { return range }
            guard range.start < end else { return nil }
            return CMTimeRange(start: range.start, end: end)
        }
    }
}

extension PacketSource {
    /// `position(for:)` with its failures as `AVError`s.
    func positionForReading(_ range: CMTimeRange) throws -> Bool {
        do {
            return try position(for: range)
        } catch {
            throw AVError.from(error, url: url)
        }
    }

    /// `next()` with its failures as `AVError`s.
    func nextForReading() throws -> DemuxerPacket? {
        do {
            return try next()
        } catch {
            throw AVError.from(error, url: url)
        }
    }
}
