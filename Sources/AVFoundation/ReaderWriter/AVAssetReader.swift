// AVAssetReader: reads an asset's media as sample buffers, through the outputs added to it.
import CoreMedia
import Foundation
import Synchronization

/// Reads the media data of an asset: add outputs (`AVAssetReaderTrackOutput`, …), call
/// `startReading()`, then pull each output's sample buffers with `copyNextSampleBuffer()` until it
/// returns nil. The reader completes when every output has returned nil (and every output that
/// supports random access was marked final); it fails, with `error`, when reading fails.
///
/// Outputs are independent (each reads through its own demuxer and decoder) and may be read from
/// different threads at once. Reading is not real time and not for playback.
open class AVAssetReader: NSObject, @unchecked Sendable {
    /// The states of a reader.
    public enum Status: Int, Sendable {
        /// Not reading yet (`startReading()` was not called).
        case unknown = 0
        /// Reading: outputs vend sample buffers.
        case reading = 1
        /// Every output has vended all its samples.
        case completed = 2
        /// Reading failed; `error` says why.
        case failed = 3
        /// `cancelReading()` was called.
        case cancelled = 4
    }

    /// The asset the reader reads.
    public let asset: AVAsset
    private let session = ReaderSession()
    /// The outputs added, in order, and the range to read.
    private let settings = Mutex<(outputs: [AVAssetReaderOutput], range: CMTimeRange)>(([], CMTimeRange(start: .zero, duration: .positiveInfinity)))

    /// A reader for `asset`. Throws `AVError.operationNotSupportedForAsset` for assets that have
    /// no media to read (neither a media file nor tracks of segments).
    public init(asset: AVAsset) throws {
        guard asset.hasMedia else {
            throw AVError(.operationNotSupportedForAsset, userInfo: [
                NSLocalizedDescriptionKey: "Operation Stopped",
                NSLocalizedFailureReasonErrorKey: "The asset has no media to read (it is neither a media file nor made of tracks of segments).",
            ])
        }
        self.asset = asset
        super.init()
        session.setReader(self)
    }

    /// The reader's state. Key-value observable: observers are told each change on the thread
    /// that made it (`startReading()`'s, `cancelReading()`'s, or the one whose
    /// `copyNextSampleBuffer()` returned the last sample's nil or met the failure).
    open var status: Status { session.status }

    /// Why reading failed (when `status` is `.failed`).
    open var error: (any Error)? { session.error }

    /// The range of the asset's timeline to read (default: zero to +infinity). Outputs vend the
    /// samples whose presentation overlaps it (passthrough outputs also the samples decoding
    /// them needs, from the keyframe before). Can only be set before `startReading()`.
    open var timeRange: CMTimeRange {
        get { settings.withLock { $0.range } }
        set {
            let method = "*** -[AVAssetReader setTimeRange:]"
            if session.hasStarted { raiseReaderException(.invalidArgument, "\(method) cannot be called after reading has started") }
            guard newValue.start.isNumeric, newValue.duration.isNumeric || newValue.duration.isPositiveInfinity,
                  newValue.duration >= .zero else {
                raiseReaderException(.invalidArgument,
                                     "\(method) invalid parameter not satisfying: CMTIMERANGE_IS_VALID(timeRange) "
                                         + "with a numeric start and a numeric or positive infinite duration")
            }
            settings.withLock { $0.range = newValue }
        }
    }

    /// The outputs added to the reader, in order.
    open var outputs: [AVAssetReaderOutput] { settings.withLock { $0.outputs } }

    /// Whether `output` can be added: reading has not started, the output belongs to no reader,
    /// and it reads tracks of this reader's asset.
    @discardableResult
    open func canAdd(_ output: AVAssetReaderOutput) -> Bool {
        refusal(for: output) == nil
    }

    /// Adds an output. Raises an exception when `canAdd(_:)` would say no.
    open func add(_ output: AVAssetReaderOutput) {
        if let reason = refusal(for: output) {
            raiseReaderException(.invalidArgument, "*** -[AVAssetReader addOutput:] \(reason)")
        }
        guard output.attach(to: session) else {
            raiseReaderException(.invalidArgument, "*** -[AVAssetReader addOutput:] cannot add an output that has already been added to another AVAssetReader")
        }
        session.add(output)
        settings.withLock { $0.outputs.append(output) }
    }

    /// Why `output` cannot be added, nil when it can.
    private func refusal(for output: AVAssetReaderOutput) -> String? {
        if session.hasStarted { return "cannot add an output after reading has started" }
        if output.isAttached {
            return outputs.contains(output) ? "cannot add the same output twice"
                : "cannot add an output that has already been added to another AVAssetReader"
        }
        for track in output.sourceTracks where track.asset !== asset {
            return "the track of the output (trackID \(track.trackID)) does not belong to the asset of this asset reader"
        }
        return nil
    }

    /// Starts reading: opens every output's source (its demuxer and decoder) for `timeRange`.
    /// Returns false, with `status` `.failed` and `error` set, when one cannot be opened (a
    /// missing or damaged file, a codec without decoder…). Raises an exception when called again.
    @discardableResult
    open func startReading() -> Bool {
        guard session.beginStarting() else {
            raiseReaderException(.internalInconsistency,
                                 "*** -[AVAssetReader startReading] cannot be called again after reading has already started")
        }
        let (outputs, range) = settings.withLock { ($0.outputs, $0.range) }
        do {
            for output in outputs { try output.startSource(timeRange: range) }
        } catch {
            session.fail(error)?.post()
            for output in outputs { output.stopSource() }
            _ = session.finishStarting()
            return false
        }
        return session.finishStarting() != .failed && session.status != .cancelled
    }

    /// Stops reading: outputs return nil from then on and their sources are freed (a sample in
    /// progress on another thread finishes first). Nothing changes once reading has ended.
    open func cancelReading() {
        session.cancel()
    }
}
