// ReaderSampleSource: what every AVAssetReader output reads through — one producer of sample
// buffers per output, each with its own demuxer (and decoder), started by the reader.
import CoreMedia
import Foundation

/// Produces one reader output's sample buffers in order.
///
/// The reader creates one source per output in `startReading()`, starts it for the reader's
/// time range, and pulls from it in `copyNextSampleBuffer()`. Errors are `AVError`s (domain
/// `AVFoundationErrorDomain`); the reader then fails. A source is used from one thread at a
/// time.
protocol ReaderSampleSource: AnyObject {
    /// Opens what the source reads and positions it at `timeRange`'s start.
    func start(timeRange: CMTimeRange) throws
    /// The next sample buffer, nil at the end of the time range.
    func next() throws -> CMSampleBuffer?
    /// Restarts reading for `timeRanges` (in increasing order, not overlapping): outputs with
    /// `supportsRandomAccess` after their samples ran out.
    func reset(timeRanges: [CMTimeRange]) throws
    /// Stops reading and frees what the source holds.
    func cancel()
}
