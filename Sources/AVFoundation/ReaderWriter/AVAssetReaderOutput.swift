// TEMPORARY (readeraudio branch): a minimal AVAssetReaderOutput so that AVAssetReaderAudioMixOutput
// compiles and runs here. The reader branch's real AVAssetReaderOutput replaces this file at merge.
import CoreMedia
import Foundation

/// Reads samples of one kind from an asset reader's asset (temporary minimal base class).
open class AVAssetReaderOutput: NSObject, @unchecked Sendable {
    /// The media type of the samples the output reads.
    public let mediaType: AVMediaType
    /// Whether sample buffers are copies the client may modify.
    open var alwaysCopiesSampleData = true
    /// Whether the output may be reset for other time ranges after its samples ran out.
    open var supportsRandomAccess = false

    weak var reader: AVAssetReader?
    var source: (any ReaderSampleSource)?

    init(mediaType: AVMediaType) {
        self.mediaType = mediaType
        super.init()
    }

    /// The hook every concrete output overrides: a new, unstarted source for its samples; the
    /// reader starts it for its time range.
    func makeSource(timeRange: CMTimeRange) throws -> any ReaderSampleSource {
        preconditionFailure("\(type(of: self)) must override makeSource(timeRange:)")
    }

    var configurationIsFinal = false

    /// The next sample buffer; nil at the end or when reading failed.
    open func copyNextSampleBuffer() -> CMSampleBuffer? {
        guard let reader, reader.status == .reading else { return nil }
        return reader.nextSampleBuffer(for: self)
    }

    /// Starts reading `timeRanges` (ascending, not overlapping) after the samples ran out;
    /// requires `supportsRandomAccess`.
    open func reset(forReadingTimeRanges timeRanges: [NSValue]) {
        precondition(supportsRandomAccess && !configurationIsFinal, "*** -[AVAssetReaderOutput resetForReadingTimeRanges:] cannot be called")
        guard let reader else { return }
        reader.reset(self, timeRanges: timeRanges.map(\.timeRangeValue))
    }

    /// Declares that no more resets follow, so reading can complete.
    open func markConfigurationAsFinal() {
        configurationIsFinal = true
        reader?.configurationBecameFinal()
    }
}
