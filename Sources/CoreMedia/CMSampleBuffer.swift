// CMSampleBuffer: zero or more samples of one media type with their format, timing, sizes and
// attachments, and either a block buffer of data or an image buffer.

/// A callback that makes a sample buffer's data ready. (On Apple platforms a C function pointer;
/// Swift cannot put a class in a C function type without Objective-C, so here it is a Swift
/// function type — closure literals and global functions passed by ported code still fit.)
public typealias CMSampleBufferMakeDataReadyCallback = (CMSampleBuffer, UnsafeMutableRawPointer?) -> OSStatus
/// A callback run when a sample buffer is invalidated (a Swift function type; see above).
public typealias CMSampleBufferInvalidateCallback = (CMSampleBuffer, UInt64) -> Void
/// A block run when a sample buffer is invalidated.
public typealias CMSampleBufferInvalidateHandler = (CMSampleBuffer) -> Void

/// Media samples with their format, timing, sizes and attachments. Internally locked.
public final class CMSampleBuffer: @unchecked Sendable, Hashable, CustomStringConvertible {
    let lock = NSLock()
    var dataBufferStorage: CMBlockBuffer?
    let imageBufferStorage: CVImageBuffer?
    let formatDescriptionStorage: CMFormatDescription?
    let sampleCount: Int
    let timingEntries: [CMSampleTimingInfo]
    let sizeEntries: [Int]
    let packetDescriptions: [AudioStreamPacketDescription]?
    var ready: Bool
    var failedStatus: OSStatus?
    let makeDataReadyHandler: CMSampleBufferMakeDataReadyCallback?
    let makeDataReadyRefcon: UnsafeMutableRawPointer?
    var invalidated = false
    var invalidateAction: ((CMSampleBuffer) -> Void)?
    var explicitOutputPTS: CMTime?
    var perSampleAttachments: [NSMutableDictionary]?
    let attachments = AttachmentStorage()

    init(dataBuffer: CMBlockBuffer?, imageBuffer: CVImageBuffer?, formatDescription: CMFormatDescription?, numSamples: Int,
         timing: [CMSampleTimingInfo], sizes: [Int], packetDescriptions: [AudioStreamPacketDescription]? = nil,
         dataReady: Bool, makeDataReady: CMSampleBufferMakeDataReadyCallback? = nil, refcon: UnsafeMutableRawPointer? = nil) {
        dataBufferStorage = dataBuffer
        imageBufferStorage = imageBuffer
        formatDescriptionStorage = formatDescription
        sampleCount = numSamples
        timingEntries = timing
        sizeEntries = sizes
        self.packetDescriptions = packetDescriptions
        ready = dataReady
        self.makeDataReadyHandler = makeDataReady
        makeDataReadyRefcon = refcon
    }

    /// Runs `body` under the buffer's lock.
    func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// The timing of sample `index`, expanding a single entry (PTS and DTS advance by the duration).
    func timing(at index: Int) -> CMSampleTimingInfo? {
        guard !timingEntries.isEmpty, index >= 0, index < max(sampleCount, 1) else { return nil }
        if timingEntries.count > 1 || index == 0 { return timingEntries[min(index, timingEntries.count - 1)] }
        let e = timingEntries[0]
        guard let offset = SampleTime.multiply(e.duration, index) else { return nil }
        let pts = SampleTime.isNumeric(e.presentationTimeStamp) ? SampleTime.add(e.presentationTimeStamp, offset) ?? SampleTime.invalid
                                                                : e.presentationTimeStamp
        let dts = SampleTime.isNumeric(e.decodeTimeStamp) ? SampleTime.add(e.decodeTimeStamp, offset) ?? SampleTime.invalid
                                                          : e.decodeTimeStamp
        return CMSampleTimingInfo(duration: e.duration, presentationTimeStamp: pts, decodeTimeStamp: dts)
    }

    /// The size of sample `index` (0 when sizes are unknown).
    func size(at index: Int) -> Int {
        guard index >= 0, index < sampleCount, !sizeEntries.isEmpty else { return 0 }
        return sizeEntries.count == 1 ? sizeEntries[0] : sizeEntries[index]
    }

    /// The earliest presentation time of the samples.
    var minimumPTS: CMTime {
        guard let first = timingEntries.first else { return SampleTime.invalid }
        var best = first.presentationTimeStamp
        for e in timingEntries.dropFirst() where SampleTime.isNumeric(e.presentationTimeStamp) {
            if !SampleTime.isNumeric(best) || SampleTime.less(e.presentationTimeStamp, best) { best = e.presentationTimeStamp }
        }
        return best
    }

    /// The earliest decode time of the samples (invalid when they have none).
    var minimumDTS: CMTime {
        guard let first = timingEntries.first, SampleTime.isNumeric(first.decodeTimeStamp) else { return SampleTime.invalid }
        var best = first.decodeTimeStamp
        for e in timingEntries.dropFirst() where SampleTime.isNumeric(e.decodeTimeStamp) {
            if SampleTime.less(e.decodeTimeStamp, best) { best = e.decodeTimeStamp }
        }
        return best
    }

    /// The total duration (invalid when any sample's duration is unknown).
    var totalDuration: CMTime {
        guard !timingEntries.isEmpty else { return SampleTime.invalid }
        if timingEntries.count == 1 {
            return SampleTime.multiply(timingEntries[0].duration, max(sampleCount, 1)) ?? SampleTime.invalid
        }
        var sum = SampleTime.zero(timingEntries[0].duration.timescale)
        for e in timingEntries {
            guard let s = SampleTime.add(sum, e.duration) else { return SampleTime.invalid }
            sum = s
        }
        return sum
    }

    /// The trim attachments.
    var trims: (start: CMTime?, end: CMTime?) {
        (SampleTime.fromAttachment(attachments.get((kCMSampleBufferAttachmentKey_TrimDurationAtStart as String))?.value),
         SampleTime.fromAttachment(attachments.get((kCMSampleBufferAttachmentKey_TrimDurationAtEnd as String))?.value))
    }

    /// The output presentation time: explicit if set, else PTS + trim at start.
    var outputPTS: CMTime {
        if let t = locked({ explicitOutputPTS }) { return t }
        let pts = minimumPTS
        if let start = trims.start, SampleTime.isNumeric(pts) { return SampleTime.add(pts, start) ?? pts }
        return pts
    }

    /// Identity.
    public static func == (lhs: CMSampleBuffer, rhs: CMSampleBuffer) -> Bool { lhs === rhs }
    /// Identity hash.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// A summary.
    public var description: String {
        let pts = minimumPTS
        return "<CMSampleBuffer numSamples=\(sampleCount) pts=\(pts.value)/\(pts.timescale) "
            + "format=\(formatDescriptionStorage.map { "'\($0.mediaSubTypeCode.fourCCString)'" } ?? "nil")>"
    }
}

// MARK: Errors

/// Memory could not be allocated.
public let kCMSampleBufferError_AllocationFailed: OSStatus = -12730
/// A required parameter was missing.
public let kCMSampleBufferError_RequiredParameterMissing: OSStatus = -12731
/// The sample buffer already has a data buffer.
public let kCMSampleBufferError_AlreadyHasDataBuffer: OSStatus = -12732
/// The buffer's data is not ready.
public let kCMSampleBufferError_BufferNotReady: OSStatus = -12733
/// A sample index was out of range.
public let kCMSampleBufferError_SampleIndexOutOfRange: OSStatus = -12734
/// The buffer has no sample sizes.
public let kCMSampleBufferError_BufferHasNoSampleSizes: OSStatus = -12735
/// The buffer has no sample timing.
public let kCMSampleBufferError_BufferHasNoSampleTimingInfo: OSStatus = -12736
/// The output array is too small.
public let kCMSampleBufferError_ArrayTooSmall: OSStatus = -12737
/// An entry count was invalid.
public let kCMSampleBufferError_InvalidEntryCount: OSStatus = -12738
/// The buffer cannot be subdivided.
public let kCMSampleBufferError_CannotSubdivide: OSStatus = -12739
/// Sample timing was invalid.
public let kCMSampleBufferError_SampleTimingInfoInvalid: OSStatus = -12740
/// The media type does not suit the operation.
public let kCMSampleBufferError_InvalidMediaTypeForOperation: OSStatus = -12741
/// The sample data was invalid.
public let kCMSampleBufferError_InvalidSampleData: OSStatus = -12742
/// The media does not match its format description.
public let kCMSampleBufferError_InvalidMediaFormat: OSStatus = -12743
/// The sample buffer was invalidated.
public let kCMSampleBufferError_Invalidated: OSStatus = -12744
/// Loading the data failed.
public let kCMSampleBufferError_DataFailed: OSStatus = -16750
/// Loading the data was canceled.
public let kCMSampleBufferError_DataCanceled: OSStatus = -16751

/// CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer: align each buffer to 16 bytes.
public let kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment: UInt32 = 1 << 0
