// AVAssetReaderOutput: the abstract output an asset reader vends sample buffers through.
import CoreMedia
import Foundation

/// An abstract output of an `AVAssetReader`: the sample buffers of one kind of media read from the
/// reader's asset. Add a concrete output (`AVAssetReaderTrackOutput`, …) to a reader, start the
/// reader, then call `copyNextSampleBuffer()` until it returns nil.
///
/// Each output reads through its own `ReaderSampleSource` (its own demuxer and decoder), so
/// outputs are independent and may be read from different threads at once; one output's calls
/// are serialised.
///
/// Subclasses in this module supply their source through `makeSource(timeRange:)` and list the
/// tracks they read in `sourceTracks`.
open class AVAssetReaderOutput: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private let storedMediaType: AVMediaType
    private var copiesSampleData = true
    private var randomAccess = false
    /// The reader's shared state, once the output is added to a reader.
    private var session: ReaderSession?
    private var source: (any ReaderSampleSource)?
    /// The source returned nil since the output last started or was reset.
    private var exhausted = false
    private var configurationIsFinal = false

    /// An output of `mediaType` (for subclasses).
    init(mediaType: AVMediaType) {
        storedMediaType = mediaType
        super.init()
    }

    deinit { source?.cancel() }

    /// The media type of the samples the output vends.
    open var mediaType: AVMediaType { storedMediaType }

    /// Whether the output vends sample buffers whose data the caller may modify (the default,
    /// true): decoded pictures are copied out of the decoder's buffers and compressed samples out of
    /// the demuxer's. Set it to false to receive buffers that share memory with the engine (no copy);
    /// do not modify them. Cannot be changed once reading has started.
    open var alwaysCopiesSampleData: Bool {
        get { lock.withLock { copiesSampleData } }
        set {
            lock.withLock {
                if startedLocked {
                    raiseReaderException(.invalidArgument,
                                         "*** -[\(exceptionClassName) setAlwaysCopiesSampleData:] cannot be called after reading has started")
                }
                copiesSampleData = newValue
            }
        }
    }

    /// Whether the output may be reset to read other time ranges after it returned nil (default
    /// false). While true, the reader does not complete until `markConfigurationAsFinal()` is
    /// called. Cannot be changed once reading has started.
    open var supportsRandomAccess: Bool {
        get { lock.withLock { randomAccess } }
        set {
            lock.withLock {
                if startedLocked {
                    raiseReaderException(.invalidArgument,
                                         "*** -[\(exceptionClassName) setSupportsRandomAccess:] cannot be called after reading has started")
                }
                randomAccess = newValue
            }
        }
    }

    /// The next sample buffer, in the output's order; nil once every sample of the time range(s)
    /// has been vended, or when reading failed (see the reader's `error`) or was cancelled.
    /// Raises an exception unless the output was added to a reader that started reading.
    @discardableResult
    open func copyNextSampleBuffer() -> CMSampleBuffer? {
        var change: ReaderSession.Change?
        defer { change?.post() }  // after the unlock below: observers are told with no lock held
        lock.lock()
        defer { lock.unlock() }
        guard let session, session.hasStarted else {
            raiseReaderException(.internalInconsistency,
                                 "*** -[\(exceptionClassName) copyNextSampleBuffer] cannot copy next sample buffer before adding this output "
                                     + "to an instance of AVAssetReader (using -addOutput:) and calling -startReading on that asset reader")
        }
        guard session.status == .reading, !exhausted, let source else {
            if session.status != .reading { releaseSource() }
            return nil
        }
        do {
            if let buffer = try source.next() { return buffer }
        } catch {
            releaseSource()
            change = session.fail(error)
            return nil
        }
        exhausted = true
        let awaits = randomAccess && !configurationIsFinal
        if !awaits { releaseSource() }
        change = session.outputExhausted(self, awaitsConfiguration: awaits)
        return nil
    }

    /// Starts reading again, for `timeRanges` (`NSValue(timeRange:)`s with strictly increasing,
    /// non-overlapping ranges, each starting at a numeric time and lasting a numeric time or
    /// +infinity); they replace the reader's time range. Only for outputs with
    /// `supportsRandomAccess`, after `copyNextSampleBuffer()` returned nil and before
    /// `markConfigurationAsFinal()`; otherwise an exception is raised. After the reader failed or
    /// was cancelled nothing changes.
    open func reset(forReadingTimeRanges timeRanges: [NSValue]) {
        var change: ReaderSession.Change?
        defer { change?.post() }
        lock.lock()
        defer { lock.unlock() }
        let method = "*** -[\(exceptionClassName) resetForReadingTimeRanges:]"
        guard randomAccess else {
            raiseReaderException(.invalidArgument, "\(method) cannot reset an output whose supportsRandomAccess is NO")
        }
        guard !configurationIsFinal else {
            raiseReaderException(.invalidArgument, "\(method) cannot be called after -markConfigurationAsFinal")
        }
        guard let session, session.hasStarted else {
            raiseReaderException(.internalInconsistency, "\(method) cannot be called before -startReading")
        }
        guard !timeRanges.isEmpty else { raiseReaderException(.invalidArgument, "\(method) timeRanges must not be empty") }
        let ranges = timeRanges.map(\.timeRangeValue)
        for (i, range) in ranges.enumerated() {
            guard range.start.isNumeric, range.duration.isNumeric || range.duration.isPositiveInfinity, range.duration >= .zero else {
                raiseReaderException(.invalidArgument, "\(method) time range \(i) is not numeric")
            }
            if i > 0 {
                guard range.start > ranges[i - 1].start else {
                    raiseReaderException(.invalidArgument, "\(method) the start times of the time ranges must be strictly increasing")
                }
                guard ranges[i - 1].end <= range.start else {
                    raiseReaderException(.invalidArgument, "\(method) the time ranges must not overlap")
                }
            }
        }
        guard session.status == .reading else { return }
        guard exhausted else {
            raiseReaderException(.internalInconsistency,
                                 "\(method) cannot be called before copyNextSampleBuffer has returned NULL")
        }
        do {
            try source?.reset(timeRanges: ranges.map(Self.effective))
            exhausted = false
            session.outputRestarted(self)
        } catch {
            releaseSource()
            change = session.fail(error)
        }
    }

    /// Declares that the output will not be reset again: once it has returned nil, the reader
    /// may complete.
    open func markConfigurationAsFinal() {
        var change: ReaderSession.Change?
        defer { change?.post() }
        lock.lock()
        defer { lock.unlock() }
        guard !configurationIsFinal else { return }
        configurationIsFinal = true
        if exhausted { releaseSource() }
        change = session?.outputConfigurationFinal(self)
    }

    // MARK: Subclass hooks

    /// Makes the source this output reads through, for reading `timeRange` (the reader starts it
    /// with `start(timeRange:)` right after). Called once, in `startReading()`; errors are
    /// `AVError`s and fail the reader. Concrete outputs override it.
    func makeSource(timeRange: CMTimeRange) throws -> any ReaderSampleSource {
        preconditionFailure("\(exceptionClassName) is abstract: use a concrete AVAssetReaderOutput subclass")
    }

    /// The tracks the output reads (all must belong to the reader's asset).
    var sourceTracks: [AVAssetTrack] { [] }

    /// Whether the reader this output belongs to has started reading (settings that configure
    /// reading may no longer change: subclasses raise with `raiseReaderException`).
    var hasStartedReading: Bool { lock.withLock { startedLocked } }

    /// `hasStartedReading`, with the output's lock held.
    private var startedLocked: Bool { session?.hasStarted == true }

    // MARK: Reader side

    /// The reader this output was added to (nil before).
    var isAttached: Bool { lock.withLock { session != nil } }

    /// Joins a reader's session; false when the output already belongs to a reader.
    func attach(to session: ReaderSession) -> Bool {
        lock.withLock {
            guard self.session == nil else { return false }
            self.session = session
            return true
        }
    }

    /// Makes and starts the source for `timeRange`.
    func startSource(timeRange: CMTimeRange) throws {
        let range = Self.effective(timeRange)
        let made = try makeSource(timeRange: range)
        try made.start(timeRange: range)
        lock.withLock {
            source = made
            exhausted = false
        }
    }

    /// Stops and frees the source (cancel, failure elsewhere), waiting for a sample in progress.
    func stopSource() {
        interruptSource()
        lock.withLock { releaseSource() }
    }

    /// Called from any thread before the source is stopped, without the output's lock: a source
    /// that may wait on others (a compositor) stops waiting. Concrete outputs override it.
    func interruptSource() {}

    private func releaseSource() {
        source?.cancel()
        source = nil
    }

    /// A time range as reading uses it: nothing before the asset's start (zero).
    static func effective(_ range: CMTimeRange) -> CMTimeRange {
        guard range.start < .zero else { return range }
        return CMTimeRange(start: .zero, end: range.end)
    }

    /// The Objective-C class name Apple's messages use.
    var exceptionClassName: String { String(describing: type(of: self)) }
}
