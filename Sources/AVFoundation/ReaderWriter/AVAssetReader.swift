// TEMPORARY (readeraudio branch): a minimal AVAssetReader that drives its outputs' sample
// sources, so the audio outputs can be built and tested here. The reader branch's real
// AVAssetReader replaces this file at merge.
import CoreMedia
import Foundation

/// Reads media samples from an asset (temporary minimal implementation).
open class AVAssetReader: NSObject, @unchecked Sendable {
    /// The reader's states.
    public enum Status: Int, Sendable {
        case unknown = 0, reading, completed, failed, cancelled
    }

    /// The asset read.
    public let asset: AVAsset
    /// The reader's state.
    open private(set) var status: Status = .unknown
    /// Why reading failed.
    open private(set) var error: (any Error)?
    /// The outputs added.
    open private(set) var outputs: [AVAssetReaderOutput] = []
    /// The time range read.
    open var timeRange = CMTimeRange(start: .zero, duration: .positiveInfinity)
    private let lock = NSLock()

    /// A reader for `asset`.
    public init(asset: AVAsset) throws {
        self.asset = asset
        super.init()
    }

    /// Whether `output` can be added.
    open func canAdd(_ output: AVAssetReaderOutput) -> Bool { status == .unknown && output.reader == nil }

    /// Adds an output.
    open func add(_ output: AVAssetReaderOutput) {
        precondition(canAdd(output), "*** -[AVAssetReader addOutput:] cannot add output")
        output.reader = self
        outputs.append(output)
    }

    /// Starts reading; false (with `error`) when a source cannot start.
    open func startReading() -> Bool {
        precondition(status == .unknown, "*** -[AVAssetReader startReading] cannot be called again after reading has already started")
        do {
            for output in outputs {
                let source = try output.makeSource(timeRange: timeRange)
                try source.start(timeRange: timeRange)
                output.source = source
            }
            status = .reading
            return true
        } catch {
            fail(error)
            return false
        }
    }

    /// Stops reading.
    open func cancelReading() {
        for output in outputs { output.source?.cancel() }
        if status == .reading || status == .unknown { status = .cancelled }
    }

    private var exhausted = Set<ObjectIdentifier>()

    func nextSampleBuffer(for output: AVAssetReaderOutput) -> CMSampleBuffer? {
        lock.lock()
        defer { lock.unlock() }
        guard status == .reading, let source = output.source, !exhausted.contains(ObjectIdentifier(output)) else { return nil }
        do {
            if let buffer = try source.next() { return buffer }
            exhausted.insert(ObjectIdentifier(output))
            completeIfDone()
            return nil
        } catch {
            fail(error)
            return nil
        }
    }

    func reset(_ output: AVAssetReaderOutput, timeRanges: [CMTimeRange]) {
        lock.lock()
        defer { lock.unlock() }
        guard status == .reading, let source = output.source else { return }
        do {
            try source.reset(timeRanges: timeRanges)
            exhausted.remove(ObjectIdentifier(output))
        } catch {
            fail(error)
        }
    }

    func configurationBecameFinal() {
        lock.lock()
        defer { lock.unlock() }
        completeIfDone()
    }

    private func completeIfDone() {
        let done = outputs.allSatisfy { exhausted.contains(ObjectIdentifier($0)) && (!$0.supportsRandomAccess || $0.configurationIsFinal) }
        if done, status == .reading { status = .completed }
    }

    private func fail(_ error: any Error) {
        self.error = error
        status = .failed
        for output in outputs { output.source?.cancel() }
    }
}
