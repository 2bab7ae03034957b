// The Swift overlay Apple's SDK adds to CMSampleBuffer (macOS 10.15 / iOS 13).

extension CMSampleBuffer {
    /// The errors the overlay throws: NSErrors in `NSOSStatusErrorDomain` with the C error code.
    public struct Error: Sendable {
        static func error(_ status: OSStatus) -> NSError { NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
        /// -12730.
        public static var allocationFailed: NSError { error(kCMSampleBufferError_AllocationFailed) }
        /// -12731.
        public static var requiredParameterMissing: NSError { error(kCMSampleBufferError_RequiredParameterMissing) }
        /// -12732.
        public static var alreadyHasDataBuffer: NSError { error(kCMSampleBufferError_AlreadyHasDataBuffer) }
        /// -12733.
        public static var bufferNotReady: NSError { error(kCMSampleBufferError_BufferNotReady) }
        /// -12734.
        public static var sampleIndexOutOfRange: NSError { error(kCMSampleBufferError_SampleIndexOutOfRange) }
        /// -12735.
        public static var bufferHasNoSampleSizes: NSError { error(kCMSampleBufferError_BufferHasNoSampleSizes) }
        /// -12736.
        public static var bufferHasNoSampleTimingInfo: NSError { error(kCMSampleBufferError_BufferHasNoSampleTimingInfo) }
        /// -12737.
        public static var arrayTooSmall: NSError { error(kCMSampleBufferError_ArrayTooSmall) }
        /// -12738.
        public static var invalidEntryCount: NSError { error(kCMSampleBufferError_InvalidEntryCount) }
        /// -12739.
        public static var cannotSubdivide: NSError { error(kCMSampleBufferError_CannotSubdivide) }
        /// -12740.
        public static var sampleTimingInfoInvalid: NSError { error(kCMSampleBufferError_SampleTimingInfoInvalid) }
        /// -12741.
        public static var invalidMediaTypeForOperation: NSError { error(kCMSampleBufferError_InvalidMediaTypeForOperation) }
        /// -12742.
        public static var invalidSampleData: NSError { error(kCMSampleBufferError_InvalidSampleData) }
        /// -12743.
        public static var invalidMediaFormat: NSError { error(kCMSampleBufferError_InvalidMediaFormat) }
        /// -12744.
        public static var invalidated: NSError { error(kCMSampleBufferError_Invalidated) }
        /// -16750.
        public static var dataFailed: NSError { error(kCMSampleBufferError_DataFailed) }
        /// -16751.
        public static var dataCanceled: NSError { error(kCMSampleBufferError_DataCanceled) }
    }

    /// Flags of the AudioBufferList functions.
    public struct Flags: OptionSet, Sendable {
        /// The bits.
        public var rawValue: UInt32
        /// Flags with the given bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Align each buffer to 16 bytes.
        public static let audioBufferList_Assure16ByteAlignment = Flags(rawValue: kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment)
    }

    /// Whether the data is ready, not ready, or failed.
    public enum DataReadiness: Equatable, Hashable, Sendable {
        /// Not ready.
        case notReady
        /// Ready.
        case ready
        /// Loading failed with a status.
        case failed(OSStatus)
    }

    private static func check(_ status: OSStatus) throws {
        if status != noErr { throw Error.error(status) }
    }

    private convenience init(taking other: CMSampleBuffer?, status: OSStatus) throws {
        guard status == noErr, let o = other else { throw Error.error(status == noErr ? kCMSampleBufferError_AllocationFailed : status) }
        self.init(dataBuffer: o.dataBufferStorage, imageBuffer: o.imageBufferStorage, formatDescription: o.formatDescriptionStorage,
                  numSamples: o.sampleCount, timing: o.timingEntries, sizes: o.sizeEntries, packetDescriptions: o.packetDescriptions,
                  dataReady: o.ready, makeDataReady: o.makeDataReadyHandler, refcon: o.makeDataReadyRefcon)
        failedStatus = o.failedStatus
        explicitOutputPTS = o.explicitOutputPTS
        perSampleAttachments = o.perSampleAttachments
        for mode in [kCMAttachmentMode_ShouldPropagate, kCMAttachmentMode_ShouldNotPropagate] {
            for (k, v) in o.attachments.all(mode) { attachments.set(k, v, mode) }
        }
    }

    /// Creates a ready sample buffer with data.
    public convenience init(dataBuffer: CMBlockBuffer?, formatDescription: CMFormatDescription?, numSamples: CMItemCount,
                            sampleTimings: [CMSampleTimingInfo], sampleSizes: [Int]) throws {
        var out: CMSampleBuffer?
        let status = CMSampleBufferCreateReady(allocator: nil, dataBuffer: dataBuffer, formatDescription: formatDescription,
                                               sampleCount: numSamples, sampleTimingEntryCount: sampleTimings.count,
                                               sampleTimingArray: sampleTimings, sampleSizeEntryCount: sampleSizes.count,
                                               sampleSizeArray: sampleSizes, sampleBufferOut: &out)
        try self.init(taking: out, status: status)
    }

    /// Creates a ready sample buffer holding an image buffer.
    public convenience init(imageBuffer: CVImageBuffer, formatDescription: CMFormatDescription, sampleTiming: CMSampleTimingInfo) throws {
        var timing = sampleTiming
        var out: CMSampleBuffer?
        let status = CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: imageBuffer, formatDescription: formatDescription,
                                                              sampleTiming: &timing, sampleBufferOut: &out)
        try self.init(taking: out, status: status)
    }

    /// Creates a shallow copy.
    public convenience init(copy other: CMSampleBuffer) throws {
        var out: CMSampleBuffer?
        let status = CMSampleBufferCreateCopy(allocator: nil, sampleBuffer: other, sampleBufferOut: &out)
        try self.init(taking: out, status: status)
    }

    /// The earliest presentation time.
    public var presentationTimeStamp: CMTime { CMSampleBufferGetPresentationTimeStamp(self) }
    /// The earliest decode time.
    public var decodeTimeStamp: CMTime { CMSampleBufferGetDecodeTimeStamp(self) }
    /// The total duration.
    public var duration: CMTime { CMSampleBufferGetDuration(self) }
    /// The output presentation time.
    public var outputPresentationTimeStamp: CMTime { CMSampleBufferGetOutputPresentationTimeStamp(self) }
    /// Sets the output presentation time.
    public func setOutputPresentationTimeStamp(_ newValue: CMTime) throws {
        try Self.check(CMSampleBufferSetOutputPresentationTimeStamp(self, newValue: newValue))
    }
    /// The output duration.
    public var outputDuration: CMTime { CMSampleBufferGetOutputDuration(self) }
    /// The output decode time.
    public var outputDecodeTimeStamp: CMTime { CMSampleBufferGetOutputDecodeTimeStamp(self) }
    /// The image buffer.
    public var imageBuffer: CVImageBuffer? { CMSampleBufferGetImageBuffer(self) }
    /// The data buffer.
    public var dataBuffer: CMBlockBuffer? { CMSampleBufferGetDataBuffer(self) }
    /// Attaches a data buffer.
    public func setDataBuffer(_ dataBuffer: CMBlockBuffer) throws { try Self.check(CMSampleBufferSetDataBuffer(self, newValue: dataBuffer)) }
    /// The format description.
    public var formatDescription: CMFormatDescription? { CMSampleBufferGetFormatDescription(self) }
    /// The number of samples.
    public var numSamples: CMItemCount { sampleCount }
    /// The sum of the sample sizes.
    public var totalSampleSize: Int { CMSampleBufferGetTotalSampleSize(self) }
    /// Whether the buffer is valid.
    public var isValid: Bool { CMSampleBufferIsValid(self) }
    /// Invalidates the buffer.
    public func invalidate() throws { try Self.check(CMSampleBufferInvalidate(self)) }
    /// Sets the invalidation handler.
    public func setInvalidateHandler(_ handler: @escaping (CMSampleBuffer) -> Void) throws {
        try Self.check(CMSampleBufferSetInvalidateHandler(self, handler: handler))
    }
    /// The readiness of the data.
    public var dataReadiness: DataReadiness {
        var status: OSStatus = 0
        if CMSampleBufferHasDataFailed(self, statusOut: &status) { return .failed(status) }
        return CMSampleBufferDataIsReady(self) ? .ready : .notReady
    }
    /// Sets the readiness of the data.
    public func setDataReadiness(_ newValue: DataReadiness) throws {
        switch newValue {
        case .ready: try Self.check(CMSampleBufferSetDataReady(self))
        case .failed(let s): try Self.check(CMSampleBufferSetDataFailed(self, status: s))
        case .notReady: throw Error.invalidEntryCount
        }
    }
    /// Makes the data ready.
    public func makeDataReady() throws { try Self.check(CMSampleBufferMakeDataReady(self)) }

    /// The timing of every sample (one entry per sample).
    public func sampleTimingInfos() throws -> [CMSampleTimingInfo] {
        guard !timingEntries.isEmpty else { throw Error.bufferHasNoSampleTimingInfo }
        return (0..<max(sampleCount, 1)).compactMap { timing(at: $0) }
    }
    /// The output timing entries.
    public func outputSampleTimingInfos() throws -> [CMSampleTimingInfo] {
        guard !timingEntries.isEmpty else { throw Error.bufferHasNoSampleTimingInfo }
        return outputTiming(self)
    }
    /// The timing of one sample.
    public func sampleTimingInfo(at sampleIndex: Int) throws -> CMSampleTimingInfo {
        var info = CMSampleTimingInfo()
        try Self.check(CMSampleBufferGetSampleTimingInfo(self, at: sampleIndex, timingInfoOut: &info))
        return info
    }
    /// The size of one sample.
    public func sampleSize(at sampleIndex: Int) -> Int { CMSampleBufferGetSampleSize(self, at: sampleIndex) }
    /// The size of every sample.
    public func sampleSizes() throws -> [Int] {
        guard !sizeEntries.isEmpty else { throw Error.bufferHasNoSampleSizes }
        return (0..<sampleCount).map { size(at: $0) }
    }
    /// The packet descriptions of compressed audio.
    public func audioStreamPacketDescriptions() throws -> [AudioStreamPacketDescription] {
        guard formatDescriptionStorage?.mediaTypeCode == kCMMediaType_Audio else { throw Error.invalidMediaTypeForOperation }
        return packetDescriptions ?? []
    }

    /// Calls `body` with the audio data as an AudioBufferList and the block buffer keeping it alive.
    public func withAudioBufferList<R>(blockBufferAllocator: CFAllocator? = kCFAllocatorDefault,
                                       blockBufferMemoryAllocator: CFAllocator? = kCFAllocatorDefault, flags: Flags = [],
                                       body: (UnsafeMutableAudioBufferListPointer, CMBlockBuffer) throws -> R) throws -> R {
        var needed = 0
        try Self.check(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            self, bufferListSizeNeededOut: &needed, bufferListOut: nil, bufferListSize: 0, blockBufferAllocator: nil,
            blockBufferMemoryAllocator: nil, flags: flags.rawValue, blockBufferOut: nil))
        let raw = UnsafeMutableRawPointer.allocate(byteCount: needed, alignment: 16)
        defer { raw.deallocate() }
        let list = raw.bindMemory(to: AudioBufferList.self, capacity: 1)
        var block: CMBlockBuffer?
        try Self.check(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            self, bufferListSizeNeededOut: nil, bufferListOut: list, bufferListSize: needed, blockBufferAllocator: blockBufferAllocator,
            blockBufferMemoryAllocator: blockBufferMemoryAllocator, flags: flags.rawValue, blockBufferOut: &block))
        return try body(UnsafeMutableAudioBufferListPointer(list), block!)
    }

    /// Copies the buffers of an AudioBufferList into the sample buffer's data.
    public func setDataBuffer(fromAudioBufferList bufferList: UnsafePointer<AudioBufferList>,
                              blockBufferMemoryAllocator: CFAllocator? = kCFAllocatorDefault, flags: Flags = []) throws {
        try Self.check(CMSampleBufferSetDataBufferFromAudioBufferList(self, blockBufferAllocator: nil,
                                                                      blockBufferMemoryAllocator: blockBufferMemoryAllocator,
                                                                      flags: flags.rawValue, bufferList: bufferList))
    }

    /// Copies PCM frames `range` into `bufferList`.
    public func copyPCMData(fromRange range: Range<Int>, into bufferList: UnsafeMutablePointer<AudioBufferList>) throws {
        try Self.check(CMSampleBufferCopyPCMDataIntoAudioBufferList(self, at: Int32(clamping: range.lowerBound),
                                                                    frameCount: Int32(clamping: range.count), into: bufferList))
    }

    /// One single-sample buffer per sample.
    public func singleSampleBuffers() throws -> SingleSampleBuffers {
        if imageBufferStorage == nil && sampleCount > 1 && sizeEntries.isEmpty { throw Error.cannotSubdivide }
        return SingleSampleBuffers(buffer: self)
    }

    /// A sequence of single-sample buffers cut from one sample buffer.
    public struct SingleSampleBuffers: Sequence, @unchecked Sendable {
        let buffer: CMSampleBuffer

        /// Produces the single-sample buffers in order.
        public struct Iterator: IteratorProtocol {
            let buffer: CMSampleBuffer
            var index = 0
            /// The next single-sample buffer.
            public mutating func next() -> CMSampleBuffer? {
                guard index < buffer.sampleCount else { return nil }
                defer { index += 1 }
                if buffer.sampleCount == 1 { return buffer }
                return buffer.copy(location: index, length: 1).0
            }
        }

        /// An iterator over the buffers.
        public func makeIterator() -> Iterator { Iterator(buffer: buffer) }
    }

    /// The per-sample attachment dictionaries, created on first use.
    public var sampleAttachments: SampleAttachmentsArray { SampleAttachmentsArray(buffer: self) }

    /// The per-sample attachments of a sample buffer, one dictionary per sample.
    public struct SampleAttachmentsArray: RandomAccessCollection, @unchecked Sendable {
        let dictionaries: [NSMutableDictionary]
        init(buffer: CMSampleBuffer) {
            _ = CMSampleBufferGetSampleAttachmentsArray(buffer, createIfNecessary: true)
            dictionaries = buffer.locked { buffer.perSampleAttachments ?? [] }
        }
        /// 0.
        public var startIndex: Int { 0 }
        /// The number of samples.
        public var endIndex: Int { dictionaries.count }
        /// The attachments of one sample.
        public subscript(position: Int) -> PerSampleAttachmentsDictionary { PerSampleAttachmentsDictionary(storage: dictionaries[position]) }
    }

    /// The attachments of one sample; changes are stored in the sample buffer.
    public struct PerSampleAttachmentsDictionary: @unchecked Sendable {
        let storage: NSMutableDictionary

        /// A per-sample attachment key.
        public struct Key: RawRepresentable, Hashable, @unchecked Sendable {
            /// The key string (immutable: keys are constant strings).
            public var rawValue: CFString
            /// A key from its string.
            public init(rawValue: CFString) { self.rawValue = rawValue }
            /// kCMSampleAttachmentKey_NotSync.
            public static let notSync = Key(rawValue: kCMSampleAttachmentKey_NotSync)
            /// kCMSampleAttachmentKey_PartialSync.
            public static let partialSync = Key(rawValue: kCMSampleAttachmentKey_PartialSync)
            /// kCMSampleAttachmentKey_HasRedundantCoding.
            public static let hasRedundantCoding = Key(rawValue: kCMSampleAttachmentKey_HasRedundantCoding)
            /// kCMSampleAttachmentKey_IsDependedOnByOthers.
            public static let isDependedOnByOthers = Key(rawValue: kCMSampleAttachmentKey_IsDependedOnByOthers)
            /// kCMSampleAttachmentKey_DependsOnOthers.
            public static let dependsOnOthers = Key(rawValue: kCMSampleAttachmentKey_DependsOnOthers)
            /// kCMSampleAttachmentKey_EarlierDisplayTimesAllowed.
            public static let earlierDisplayTimesAllowed = Key(rawValue: kCMSampleAttachmentKey_EarlierDisplayTimesAllowed)
            /// kCMSampleAttachmentKey_DisplayImmediately.
            public static let displayImmediately = Key(rawValue: kCMSampleAttachmentKey_DisplayImmediately)
            /// kCMSampleAttachmentKey_DoNotDisplay.
            public static let doNotDisplay = Key(rawValue: kCMSampleAttachmentKey_DoNotDisplay)
        }

        /// The attachment for a key.
        public subscript(key: Key) -> Any? {
            get { storage[key.rawValue] }
            nonmutating set { storage[key.rawValue] = newValue }
        }
    }
}

extension CMBlockBuffer {
    /// The total data length.
    public var dataLength: Int { CMBlockBufferGetDataLength(self) }
    /// Whether the buffer has no data.
    public var isEmpty: Bool { CMBlockBufferIsEmpty(self) }
    /// Whether a range lies in one memory block.
    public func isContiguous(atOffset offset: Int, length: Int) -> Bool {
        CMBlockBufferIsRangeContiguous(self, atOffset: offset, length: length)
    }
    /// A copy of all the data.
    public func dataBytes() throws -> Data {
        var data = Data(count: dataLength)
        guard !data.isEmpty else { return data }
        let status = data.withUnsafeMutableBytes { CMBlockBufferCopyDataBytes(self, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
        if status != noErr { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
        return data
    }
}
