// The C API of CMSampleBuffer: creation, copying, timing, sizes, readiness, invalidation.

private func entries<T>(_ count: Int, _ p: UnsafePointer<T>?) -> [T]? {
    guard count > 0 else { return [] }
    guard let p else { return nil }
    return Array(UnsafeBufferPointer(start: p, count: count))
}

/// Validates and builds a sample buffer; the common core of the Create functions.
private func makeSampleBuffer(dataBuffer: CMBlockBuffer?, imageBuffer: CVImageBuffer?, dataReady: Bool,
                              callback: CMSampleBufferMakeDataReadyCallback?, refcon: UnsafeMutableRawPointer?,
                              formatDescription: CMFormatDescription?, numSamples: Int,
                              timingCount: Int, timing: UnsafePointer<CMSampleTimingInfo>?,
                              sizeCount: Int, sizes: UnsafePointer<Int>?,
                              packetDescriptions: [AudioStreamPacketDescription]? = nil,
                              out: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    out.pointee = nil
    guard numSamples >= 0, timingCount >= 0, sizeCount >= 0 else { return kCMSampleBufferError_InvalidEntryCount }
    guard timingCount <= 1 || timingCount == numSamples, sizeCount <= 1 || sizeCount == numSamples else {
        return kCMSampleBufferError_InvalidEntryCount
    }
    guard let timingArray = entries(timingCount, timing), let sizeArray = entries(sizeCount, sizes) else {
        return kCMSampleBufferError_RequiredParameterMissing
    }
    guard sizeArray.allSatisfy({ $0 >= 0 }) else { return kCMSampleBufferError_InvalidEntryCount }
    if let dataBuffer, numSamples > 0, !sizeArray.isEmpty {
        let total = sizeArray.count == 1 ? sizeArray[0] * numSamples : sizeArray.reduce(0, +)
        guard total <= dataBuffer.length else { return kCMSampleBufferError_InvalidSampleData }
    }
    out.pointee = CMSampleBuffer(dataBuffer: dataBuffer, imageBuffer: imageBuffer, formatDescription: formatDescription,
                                 numSamples: numSamples, timing: timingArray, sizes: sizeArray,
                                 packetDescriptions: packetDescriptions, dataReady: dataReady, makeDataReady: callback, refcon: refcon)
    return noErr
}

/// Creates a sample buffer. Timing and size arrays hold 0 entries, 1 entry applying to every
/// sample, or one entry per sample.
@discardableResult
public func CMSampleBufferCreate(allocator: CFAllocator?, dataBuffer: CMBlockBuffer?, dataReady: Bool,
                                 makeDataReadyCallback: CMSampleBufferMakeDataReadyCallback?, refcon makeDataReadyRefcon: UnsafeMutableRawPointer?,
                                 formatDescription: CMFormatDescription?, sampleCount numSamples: CMItemCount,
                                 sampleTimingEntryCount numSampleTimingEntries: CMItemCount, sampleTimingArray: UnsafePointer<CMSampleTimingInfo>?,
                                 sampleSizeEntryCount numSampleSizeEntries: CMItemCount, sampleSizeArray: UnsafePointer<Int>?,
                                 sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    makeSampleBuffer(dataBuffer: dataBuffer, imageBuffer: nil, dataReady: dataReady, callback: makeDataReadyCallback,
                     refcon: makeDataReadyRefcon, formatDescription: formatDescription, numSamples: numSamples,
                     timingCount: numSampleTimingEntries, timing: sampleTimingArray, sizeCount: numSampleSizeEntries,
                     sizes: sampleSizeArray, out: sampleBufferOut)
}

/// Creates a sample buffer whose data is ready.
@discardableResult
public func CMSampleBufferCreateReady(allocator: CFAllocator?, dataBuffer: CMBlockBuffer?, formatDescription: CMFormatDescription?,
                                      sampleCount numSamples: CMItemCount, sampleTimingEntryCount numSampleTimingEntries: CMItemCount,
                                      sampleTimingArray: UnsafePointer<CMSampleTimingInfo>?, sampleSizeEntryCount numSampleSizeEntries: CMItemCount,
                                      sampleSizeArray: UnsafePointer<Int>?, sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    makeSampleBuffer(dataBuffer: dataBuffer, imageBuffer: nil, dataReady: true, callback: nil, refcon: nil,
                     formatDescription: formatDescription, numSamples: numSamples, timingCount: numSampleTimingEntries,
                     timing: sampleTimingArray, sizeCount: numSampleSizeEntries, sizes: sampleSizeArray, out: sampleBufferOut)
}

/// Creates a one-sample buffer holding an image buffer. The format description must match the
/// image buffer (CMVideoFormatDescriptionMatchesImageBuffer) or kCMSampleBufferError_InvalidMediaFormat is returned.
@discardableResult
public func CMSampleBufferCreateForImageBuffer(allocator: CFAllocator?, imageBuffer: CVImageBuffer, dataReady: Bool,
                                               makeDataReadyCallback: CMSampleBufferMakeDataReadyCallback?,
                                               refcon makeDataReadyRefcon: UnsafeMutableRawPointer?,
                                               formatDescription: CMVideoFormatDescription, sampleTiming: UnsafePointer<CMSampleTimingInfo>,
                                               sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard CMVideoFormatDescriptionMatchesImageBuffer(formatDescription, imageBuffer: imageBuffer) else {
        return kCMSampleBufferError_InvalidMediaFormat
    }
    return makeSampleBuffer(dataBuffer: nil, imageBuffer: imageBuffer, dataReady: dataReady, callback: makeDataReadyCallback,
                            refcon: makeDataReadyRefcon, formatDescription: formatDescription, numSamples: 1,
                            timingCount: 1, timing: sampleTiming, sizeCount: 0, sizes: nil, out: sampleBufferOut)
}

/// Creates a ready one-sample buffer holding an image buffer.
@discardableResult
public func CMSampleBufferCreateReadyWithImageBuffer(allocator: CFAllocator?, imageBuffer: CVImageBuffer,
                                                     formatDescription: CMVideoFormatDescription, sampleTiming: UnsafePointer<CMSampleTimingInfo>,
                                                     sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    CMSampleBufferCreateForImageBuffer(allocator: allocator, imageBuffer: imageBuffer, dataReady: true, makeDataReadyCallback: nil,
                                       refcon: nil, formatDescription: formatDescription, sampleTiming: sampleTiming,
                                       sampleBufferOut: sampleBufferOut)
}

/// Copies a sample buffer's state into a new buffer with (optionally) new timing.
private func copy(_ s: CMSampleBuffer, timing: [CMSampleTimingInfo]?) -> CMSampleBuffer {
    let (data, ready, failed, attachmentsCopy) = s.locked {
        (s.dataBufferStorage, s.ready, s.failedStatus, s.perSampleAttachments?.map { (($0.mutableCopy() as? NSMutableDictionary) ?? NSMutableDictionary()) })
    }
    let c = CMSampleBuffer(dataBuffer: data, imageBuffer: s.imageBufferStorage, formatDescription: s.formatDescriptionStorage,
                           numSamples: s.sampleCount, timing: timing ?? s.timingEntries, sizes: s.sizeEntries,
                           packetDescriptions: s.packetDescriptions, dataReady: ready, makeDataReady: s.makeDataReadyHandler,
                           refcon: s.makeDataReadyRefcon)
    c.failedStatus = failed
    c.perSampleAttachments = attachmentsCopy
    if timing == nil { c.explicitOutputPTS = s.locked { s.explicitOutputPTS } }
    CMPropagateAttachments(s, destination: c)
    return c
}

/// Creates a shallow copy: the same data or image buffer and format description, copied timing,
/// sizes and sample attachments, and the propagatable buffer attachments.
@discardableResult
public func CMSampleBufferCreateCopy(allocator: CFAllocator?, sampleBuffer sbuf: CMSampleBuffer,
                                     sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    guard CMSampleBufferIsValid(sbuf) else { sampleBufferOut.pointee = nil; return kCMSampleBufferError_Invalidated }
    sampleBufferOut.pointee = copy(sbuf, timing: nil)
    return noErr
}

/// Creates a copy with new timing (0, 1 or numSamples entries).
@discardableResult
public func CMSampleBufferCreateCopyWithNewTiming(allocator: CFAllocator?, sampleBuffer originalSBuf: CMSampleBuffer,
                                                  sampleTimingEntryCount numSampleTimingEntries: CMItemCount,
                                                  sampleTimingArray: UnsafePointer<CMSampleTimingInfo>?,
                                                  sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard CMSampleBufferIsValid(originalSBuf) else { return kCMSampleBufferError_Invalidated }
    guard numSampleTimingEntries >= 0,
          numSampleTimingEntries <= 1 || numSampleTimingEntries == originalSBuf.sampleCount else {
        return kCMSampleBufferError_InvalidEntryCount
    }
    guard let timing = entries(numSampleTimingEntries, sampleTimingArray) else { return kCMSampleBufferError_RequiredParameterMissing }
    sampleBufferOut.pointee = copy(originalSBuf, timing: timing)
    return noErr
}

extension CMSampleBuffer {
    /// A new buffer holding samples `location..<location+length` (their data, timing, sizes and
    /// sample attachments): the work of CMSampleBufferCopySampleBufferForRange.
    func copy(location: Int, length: Int) -> (CMSampleBuffer?, OSStatus) {
        guard CMSampleBufferIsValid(self) else { return (nil, kCMSampleBufferError_Invalidated) }
        guard imageBufferStorage == nil else { return (nil, kCMSampleBufferError_CannotSubdivide) }
        guard location >= 0, length > 0, location + length <= sampleCount else { return (nil, kCMSampleBufferError_SampleIndexOutOfRange) }
        var newData: CMBlockBuffer?
        var packets: [AudioStreamPacketDescription]?
        if let data = locked({ dataBufferStorage }) {
            guard !sizeEntries.isEmpty else { return (nil, kCMSampleBufferError_CannotSubdivide) }
            let start = (0..<location).reduce(0) { $0 + size(at: $1) }
            let bytes = (location..<location + length).reduce(0) { $0 + size(at: $1) }
            if bytes > 0 {
                let status = CMBlockBufferCreateWithBufferReference(allocator: nil, referenceBuffer: data, offsetToData: start,
                                                                    dataLength: bytes, flags: 0, blockBufferOut: &newData)
                guard status == noErr else { return (nil, status) }
            } else {
                newData = CMBlockBuffer()
            }
            if let p = packetDescriptions {
                packets = p[location..<location + length].map {
                    AudioStreamPacketDescription(mStartOffset: $0.mStartOffset - Int64(start),
                                                 mVariableFramesInPacket: $0.mVariableFramesInPacket, mDataByteSize: $0.mDataByteSize)
                }
            }
        }
        let timing: [CMSampleTimingInfo] = timingEntries.isEmpty ? []
            : (location..<location + length).compactMap { self.timing(at: $0) }
        let sizes: [Int] = sizeEntries.count == 1 ? sizeEntries : sizeEntries.isEmpty ? [] : Array(sizeEntries[location..<location + length])
        let c = CMSampleBuffer(dataBuffer: newData, imageBuffer: nil, formatDescription: formatDescriptionStorage, numSamples: length,
                               timing: timing, sizes: sizes, packetDescriptions: packets, dataReady: locked { ready })
        c.perSampleAttachments = locked { perSampleAttachments.map { Array($0[location..<location + length]).map { (($0.mutableCopy() as? NSMutableDictionary) ?? NSMutableDictionary()) } } }
        CMPropagateAttachments(self, destination: c)
        return (c, noErr)
    }
}

// MARK: Timing

/// The earliest presentation time of the samples (kCMTimeInvalid without timing).
@discardableResult
public func CMSampleBufferGetPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.minimumPTS }

/// The earliest decode time of the samples (kCMTimeInvalid when not given).
@discardableResult
public func CMSampleBufferGetDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.minimumDTS }

/// The total duration of the samples.
@discardableResult
public func CMSampleBufferGetDuration(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.totalDuration }

/// The output presentation time: set explicitly, or the presentation time plus
/// kCMSampleBufferAttachmentKey_TrimDurationAtStart.
@discardableResult
public func CMSampleBufferGetOutputPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.outputPTS }

/// Sets the output presentation time.
@discardableResult
public func CMSampleBufferSetOutputPresentationTimeStamp(_ sbuf: CMSampleBuffer, newValue outputPresentationTimeStamp: CMTime) -> OSStatus {
    guard CMSampleBufferIsValid(sbuf) else { return kCMSampleBufferError_Invalidated }
    sbuf.locked { sbuf.explicitOutputPTS = outputPresentationTimeStamp }
    return noErr
}

/// The output duration: duration minus the trims at start and end.
@discardableResult
public func CMSampleBufferGetOutputDuration(_ sbuf: CMSampleBuffer) -> CMTime {
    var d = sbuf.totalDuration
    guard SampleTime.isNumeric(d) else { return d }
    let (start, end) = sbuf.trims
    if let start { d = SampleTime.subtract(d, start) ?? SampleTime.invalid }
    if let end { d = SampleTime.subtract(d, end) ?? SampleTime.invalid }
    return d
}

/// The output decode time: the decode time shifted as the output presentation time is.
@discardableResult
public func CMSampleBufferGetOutputDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime {
    let dts = sbuf.minimumDTS, pts = sbuf.minimumPTS
    guard SampleTime.isNumeric(dts), SampleTime.isNumeric(pts), let shift = SampleTime.subtract(sbuf.outputPTS, pts) else { return dts }
    return SampleTime.add(dts, shift) ?? SampleTime.invalid
}

/// The timing of sample `sampleIndex`.
@discardableResult
public func CMSampleBufferGetSampleTimingInfo(_ sbuf: CMSampleBuffer, at sampleIndex: CMItemIndex,
                                              timingInfoOut: UnsafeMutablePointer<CMSampleTimingInfo>) -> OSStatus {
    guard !sbuf.timingEntries.isEmpty else { return kCMSampleBufferError_BufferHasNoSampleTimingInfo }
    guard let t = sbuf.timing(at: sampleIndex) else { return kCMSampleBufferError_SampleIndexOutOfRange }
    timingInfoOut.pointee = t
    return noErr
}

private func fill<T>(_ values: [T], _ capacity: Int, _ array: UnsafeMutablePointer<T>?, _ needed: UnsafeMutablePointer<Int>?,
                     missing: OSStatus) -> OSStatus {
    needed?.pointee = values.count
    guard !values.isEmpty else { return missing }
    guard let array else { return noErr }
    guard capacity >= values.count else { return kCMSampleBufferError_ArrayTooSmall }
    for (i, v) in values.enumerated() { array[i] = v }
    return noErr
}

/// The stored timing entries (one entry when one applies to every sample).
@discardableResult
public func CMSampleBufferGetSampleTimingInfoArray(_ sbuf: CMSampleBuffer, entryCount: CMItemCount,
                                                   arrayToFill timingArrayOut: UnsafeMutablePointer<CMSampleTimingInfo>?,
                                                   entriesNeededOut timingArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?) -> OSStatus {
    fill(sbuf.timingEntries, entryCount, timingArrayOut, timingArrayEntriesNeededOut, missing: kCMSampleBufferError_BufferHasNoSampleTimingInfo)
}

/// The stored timing entries moved to output time (shifted as the output presentation time is).
@discardableResult
public func CMSampleBufferGetOutputSampleTimingInfoArray(_ sbuf: CMSampleBuffer, entryCount timingArrayEntries: CMItemCount,
                                                         arrayToFill timingArrayOut: UnsafeMutablePointer<CMSampleTimingInfo>?,
                                                         entriesNeededOut timingArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?) -> OSStatus {
    fill(outputTiming(sbuf), timingArrayEntries, timingArrayOut, timingArrayEntriesNeededOut,
         missing: kCMSampleBufferError_BufferHasNoSampleTimingInfo)
}

func outputTiming(_ sbuf: CMSampleBuffer) -> [CMSampleTimingInfo] {
    guard let shift = SampleTime.subtract(sbuf.outputPTS, sbuf.minimumPTS) else { return sbuf.timingEntries }
    return sbuf.timingEntries.map { e in
        CMSampleTimingInfo(duration: e.duration,
                           presentationTimeStamp: SampleTime.add(e.presentationTimeStamp, shift) ?? e.presentationTimeStamp,
                           decodeTimeStamp: SampleTime.add(e.decodeTimeStamp, shift) ?? e.decodeTimeStamp)
    }
}

// MARK: Sizes and contents

/// The number of samples.
@discardableResult
public func CMSampleBufferGetNumSamples(_ sbuf: CMSampleBuffer) -> CMItemCount { sbuf.sampleCount }

/// The size of one sample in bytes; 0 when out of range or unknown.
@discardableResult
public func CMSampleBufferGetSampleSize(_ sbuf: CMSampleBuffer, at sampleIndex: CMItemIndex) -> Int { sbuf.size(at: sampleIndex) }

/// The stored size entries (one entry when all samples have the same size).
@discardableResult
public func CMSampleBufferGetSampleSizeArray(_ sbuf: CMSampleBuffer, entryCount: CMItemCount, arrayToFill sizeArrayOut: UnsafeMutablePointer<Int>?,
                                             entriesNeededOut sizeArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?) -> OSStatus {
    fill(sbuf.sizeEntries, entryCount, sizeArrayOut, sizeArrayEntriesNeededOut, missing: kCMSampleBufferError_BufferHasNoSampleSizes)
}

/// The sum of the sample sizes; 0 without sizes.
@discardableResult
public func CMSampleBufferGetTotalSampleSize(_ sbuf: CMSampleBuffer) -> Int {
    sbuf.sizeEntries.count == 1 ? sbuf.sizeEntries[0] * sbuf.sampleCount : sbuf.sizeEntries.reduce(0, +)
}

/// The image buffer, for buffers made with one.
@discardableResult
public func CMSampleBufferGetImageBuffer(_ sbuf: CMSampleBuffer) -> CVImageBuffer? { sbuf.imageBufferStorage }

/// The data buffer.
@discardableResult
public func CMSampleBufferGetDataBuffer(_ sbuf: CMSampleBuffer) -> CMBlockBuffer? { sbuf.locked { sbuf.dataBufferStorage } }

/// The format description.
@discardableResult
public func CMSampleBufferGetFormatDescription(_ sbuf: CMSampleBuffer) -> CMFormatDescription? { sbuf.formatDescriptionStorage }

/// Attaches a data buffer to a buffer created without one.
@discardableResult
public func CMSampleBufferSetDataBuffer(_ sbuf: CMSampleBuffer, newValue dataBuffer: CMBlockBuffer) -> OSStatus {
    sbuf.locked {
        guard !sbuf.invalidated else { return kCMSampleBufferError_Invalidated }
        guard sbuf.dataBufferStorage == nil, sbuf.imageBufferStorage == nil else { return kCMSampleBufferError_AlreadyHasDataBuffer }
        sbuf.dataBufferStorage = dataBuffer
        return noErr
    }
}

/// The per-sample attachment dictionaries (mutable; changes stick), created when asked.
@discardableResult
public func CMSampleBufferGetSampleAttachmentsArray(_ sbuf: CMSampleBuffer, createIfNecessary: Bool) -> CFArray? {
    sbuf.locked {
        if sbuf.perSampleAttachments == nil {
            guard createIfNecessary, sbuf.sampleCount > 0 else { return nil }
            sbuf.perSampleAttachments = (0..<sbuf.sampleCount).map { _ in NSMutableDictionary() }
        }
        return NSArray(array: sbuf.perSampleAttachments!)
    }
}

// MARK: Readiness

/// Whether the data is ready.
@discardableResult
public func CMSampleBufferDataIsReady(_ sbuf: CMSampleBuffer) -> Bool { sbuf.locked { sbuf.ready } }

/// Marks the data ready.
@discardableResult
public func CMSampleBufferSetDataReady(_ sbuf: CMSampleBuffer) -> OSStatus {
    sbuf.locked {
        guard !sbuf.invalidated else { return kCMSampleBufferError_Invalidated }
        sbuf.ready = true
        return noErr
    }
}

/// Makes the data ready by calling the make-data-ready callback, if it is not ready yet.
@discardableResult
public func CMSampleBufferMakeDataReady(_ sbuf: CMSampleBuffer) -> OSStatus {
    if let failed = sbuf.locked({ sbuf.failedStatus }) { return failed }
    if CMSampleBufferDataIsReady(sbuf) { return noErr }
    guard let callback = sbuf.makeDataReadyHandler else { return kCMSampleBufferError_BufferNotReady }
    let status = callback(sbuf, sbuf.makeDataReadyRefcon)
    guard status == noErr else { return status }
    return CMSampleBufferSetDataReady(sbuf)
}

/// Marks the data as failed with `status`.
@discardableResult
public func CMSampleBufferSetDataFailed(_ sbuf: CMSampleBuffer, status: OSStatus) -> OSStatus {
    sbuf.locked {
        sbuf.failedStatus = status
        return noErr
    }
}

/// Whether the data failed, and with what status.
@discardableResult
public func CMSampleBufferHasDataFailed(_ sbuf: CMSampleBuffer, statusOut: UnsafeMutablePointer<OSStatus>?) -> Bool {
    let failed = sbuf.locked { sbuf.failedStatus }
    statusOut?.pointee = failed ?? noErr
    return failed != nil
}

// MARK: Invalidation

/// Whether the buffer has not been invalidated.
@discardableResult
public func CMSampleBufferIsValid(_ sbuf: CMSampleBuffer) -> Bool { sbuf.locked { !sbuf.invalidated } }

/// Invalidates the buffer, running its invalidation callback once.
@discardableResult
public func CMSampleBufferInvalidate(_ sbuf: CMSampleBuffer) -> OSStatus {
    let action: ((CMSampleBuffer) -> Void)? = sbuf.locked {
        guard !sbuf.invalidated else { return nil }
        sbuf.invalidated = true
        defer { sbuf.invalidateAction = nil }
        return sbuf.invalidateAction
    }
    action?(sbuf)
    return noErr
}

/// Sets the invalidation callback (only one may be set).
@discardableResult
public func CMSampleBufferSetInvalidateCallback(_ sbuf: CMSampleBuffer, callback invalidateCallback: @escaping CMSampleBufferInvalidateCallback,
                                                refcon invalidateRefCon: UInt64) -> OSStatus {
    CMSampleBufferSetInvalidateHandler(sbuf, handler: { invalidateCallback($0, invalidateRefCon) })
}

/// Sets the invalidation handler (only one may be set).
@discardableResult
public func CMSampleBufferSetInvalidateHandler(_ sbuf: CMSampleBuffer, handler invalidateHandler: @escaping CMSampleBufferInvalidateHandler) -> OSStatus {
    sbuf.locked {
        guard !sbuf.invalidated else { return kCMSampleBufferError_Invalidated }
        guard sbuf.invalidateAction == nil else { return kCMSampleBufferError_RequiredParameterMissing }
        sbuf.invalidateAction = invalidateHandler
        return noErr
    }
}

// MARK: Iteration

/// Calls `callback` with a single-sample buffer for each sample, stopping at the first error.
@discardableResult
public func CMSampleBufferCallForEachSample(_ sbuf: CMSampleBuffer,
                                            callback: (CMSampleBuffer, CMItemCount, UnsafeMutableRawPointer?) -> OSStatus,
                                            refcon: UnsafeMutableRawPointer?) -> OSStatus {
    CMSampleBufferCallBlockForEachSample(sbuf) { callback($0, $1, refcon) }
}

/// Calls `handler` with a single-sample buffer for each sample, stopping at the first error.
@discardableResult
public func CMSampleBufferCallBlockForEachSample(_ sbuf: CMSampleBuffer, _ handler: (CMSampleBuffer, CMItemCount) -> OSStatus) -> OSStatus {
    if sbuf.sampleCount == 1 || sbuf.imageBufferStorage != nil { return handler(sbuf, 0) }
    for i in 0..<sbuf.sampleCount {
        let (single, status) = sbuf.copy(location: i, length: 1)
        guard let single else { return status }
        let result = handler(single, i)
        if result != noErr { return result }
    }
    return noErr
}

/// Creates a sample buffer holding samples `sampleRange.location ..< location + length` of `sbuf`,
/// with their timing, sizes, attachments and data (CMSampleBufferCopySampleBufferForRange).
@discardableResult
public func CMSampleBufferCopySampleBufferForRange(allocator: CFAllocator?, sampleBuffer sbuf: CMSampleBuffer,
                                                   sampleRange: CFRange,
                                                   sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    let (copy, status) = sbuf.copy(location: sampleRange.location, length: sampleRange.length)
    sampleBufferOut.pointee = copy
    return status
}
