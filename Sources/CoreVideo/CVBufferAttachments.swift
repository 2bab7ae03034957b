// CVBuffer attachments: key/value metadata carried by a buffer, each in one propagation mode.
//
// Values are Core Foundation objects (`CFTypeRef`, here `AnyObject`); a `CFString` such as
// `kCVImageBufferYCbCrMatrix_ITU_R_709_2` is one (an `NSString`). Values are read back as objects
// (strings as `NSString`), so `as? String`, `as? NSNumber`, `as? NSDictionary` work.

/// Attachment key: attachments copied to derived buffers (a dictionary).
nonisolated(unsafe) public let kCVBufferPropagatedAttachmentsKey: CFString = "PropagatedAttachments"
/// Attachment key: attachments not copied to derived buffers (a dictionary).
nonisolated(unsafe) public let kCVBufferNonPropagatedAttachmentsKey: CFString = "NonPropagatedAttachments"
/// Attachment key: the movie time of the buffer (a dictionary of TimeValue and TimeScale).
nonisolated(unsafe) public let kCVBufferMovieTimeKey: CFString = "QTMovieTime"
/// Key of kCVBufferMovieTimeKey's dictionary: the time value (a number).
nonisolated(unsafe) public let kCVBufferTimeValueKey: CFString = "TimeValue"
/// Key of kCVBufferMovieTimeKey's dictionary: the time scale (a number).
nonisolated(unsafe) public let kCVBufferTimeScaleKey: CFString = "TimeScale"

extension CVBuffer {
    /// The stored value for `key` as an object, and its mode. A value stored as a Swift value
    /// (by code writing `attachmentsByMode` directly) is boxed once and stored back, so the
    /// object handed out stays alive as long as the attachment does. Call with `mutex` held.
    fileprivate func objectLocked(forKey key: String, in modes: [CVAttachmentMode] = [.shouldPropagate, .shouldNotPropagate])
        -> (AnyObject, CVAttachmentMode)? {
        for mode in modes {
            guard let value = attachmentsByMode[mode]?[key] else { continue }
            let object = value as AnyObject
            attachmentsByMode[mode]?[key] = object
            return (object, mode)
        }
        return nil
    }

    /// Stores `value` for `key` in `mode`, removing it from the other mode. Call with `mutex` held.
    fileprivate func setLocked(_ value: AnyObject, forKey key: String, mode: CVAttachmentMode) {
        let other: CVAttachmentMode = mode == .shouldPropagate ? .shouldNotPropagate : .shouldPropagate
        attachmentsByMode[other]?[key] = nil
        attachmentsByMode[mode, default: [:]][key] = value
    }

    /// The attachments of `mode` as a dictionary of objects. Call with `mutex` held.
    fileprivate func dictionaryLocked(_ mode: CVAttachmentMode) -> NSDictionary {
        let out = NSMutableDictionary()
        for key in (attachmentsByMode[mode] ?? [:]).keys {
            if let (object, _) = objectLocked(forKey: key, in: [mode]) { out[NSString(string: key)] = object }
        }
        return out
    }

    /// The value of attachment `key` in either mode, for other modules (colour info, timing).
    package func attachmentValue(forKey key: String) -> Any? {
        mutex.lock()
        defer { mutex.unlock() }
        return attachmentsByMode[.shouldPropagate]?[key] ?? attachmentsByMode[.shouldNotPropagate]?[key]
    }
}

/// Sets attachment `key` to `value` in `attachmentMode`, replacing any value the key had in
/// either mode (a key lives in one mode at a time).
public func CVBufferSetAttachment(_ buffer: CVBuffer, _ key: CFString, _ value: CFTypeRef,
                                  _ attachmentMode: CVAttachmentMode) {
    buffer.mutex.lock()
    buffer.setLocked(value, forKey: (key as String), mode: attachmentMode)
    buffer.mutex.unlock()
}

/// The attachment for `key`, unretained (the buffer keeps it alive), and its mode through
/// `attachmentMode`; nil if absent.
@available(macOS, introduced: 10.4, deprecated: 12.0, renamed: "CVBufferCopyAttachment(_:_:_:)")
@available(iOS, introduced: 4.0, deprecated: 15.0, renamed: "CVBufferCopyAttachment(_:_:_:)")
@available(tvOS, introduced: 9.0, deprecated: 15.0, renamed: "CVBufferCopyAttachment(_:_:_:)")
@discardableResult
public func CVBufferGetAttachment(_ buffer: CVBuffer, _ key: CFString,
                                  _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?) -> Unmanaged<CFTypeRef>? {
    buffer.mutex.lock()
    defer { buffer.mutex.unlock() }
    guard let (object, mode) = buffer.objectLocked(forKey: (key as String)) else { return nil }
    attachmentMode?.pointee = mode
    return Unmanaged.passUnretained(object)
}

/// The attachment for `key`, and its mode through `attachmentMode`; nil if absent.
@discardableResult
public func CVBufferCopyAttachment(_ buffer: CVBuffer, _ key: CFString,
                                   _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?) -> CFTypeRef? {
    buffer.mutex.lock()
    defer { buffer.mutex.unlock() }
    guard let (object, mode) = buffer.objectLocked(forKey: (key as String)) else { return nil }
    attachmentMode?.pointee = mode
    return object
}

/// Whether the buffer has an attachment for `key` in either mode.
@discardableResult
public func CVBufferHasAttachment(_ buffer: CVBuffer, _ key: CFString) -> Bool {
    buffer.attachmentValue(forKey: (key as String)) != nil
}

/// Removes the attachment for `key`, whatever its mode.
public func CVBufferRemoveAttachment(_ buffer: CVBuffer, _ key: CFString) {
    buffer.mutex.lock()
    buffer.attachmentsByMode[.shouldPropagate]?[(key as String)] = nil
    buffer.attachmentsByMode[.shouldNotPropagate]?[(key as String)] = nil
    buffer.mutex.unlock()
}

/// Removes every attachment.
public func CVBufferRemoveAllAttachments(_ buffer: CVBuffer) {
    buffer.mutex.lock()
    buffer.attachmentsByMode = [.shouldPropagate: [:], .shouldNotPropagate: [:]]
    buffer.mutex.unlock()
}

/// Sets every entry of `theAttachments` as an attachment in `attachmentMode` (entries whose key
/// is not a string are skipped).
public func CVBufferSetAttachments(_ buffer: CVBuffer, _ theAttachments: CFDictionary,
                                   _ attachmentMode: CVAttachmentMode) {
    let entries = CVPixelBufferAttributeReader.stringKeyed(theAttachments)
    buffer.mutex.lock()
    for (key, value) in entries { buffer.setLocked(value as AnyObject, forKey: key, mode: attachmentMode) }
    buffer.mutex.unlock()
}

/// The attachments of `attachmentMode` (an empty dictionary when there are none).
@available(macOS, introduced: 10.4, deprecated: 12.0, renamed: "CVBufferCopyAttachments(_:_:)")
@available(iOS, introduced: 4.0, deprecated: 15.0, renamed: "CVBufferCopyAttachments(_:_:)")
@available(tvOS, introduced: 9.0, deprecated: 15.0, renamed: "CVBufferCopyAttachments(_:_:)")
@discardableResult
public func CVBufferGetAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> CFDictionary? {
    buffer.mutex.lock()
    defer { buffer.mutex.unlock() }
    return buffer.dictionaryLocked(attachmentMode)
}

/// A copy of the attachments of `attachmentMode`; nil when there are none.
@discardableResult
public func CVBufferCopyAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> CFDictionary? {
    buffer.mutex.lock()
    defer { buffer.mutex.unlock() }
    let dictionary = buffer.dictionaryLocked(attachmentMode)
    return dictionary.count == 0 ? nil : dictionary
}

/// Copies every `.shouldPropagate` attachment of `sourceBuffer` to `destinationBuffer` (in the
/// same mode, replacing values of the same keys); `.shouldNotPropagate` ones are not copied.
public func CVBufferPropagateAttachments(_ sourceBuffer: CVBuffer, _ destinationBuffer: CVBuffer) {
    guard sourceBuffer !== destinationBuffer else { return }
    sourceBuffer.mutex.lock()
    let propagated = (sourceBuffer.attachmentsByMode[.shouldPropagate] ?? [:]).keys.compactMap { key in
        sourceBuffer.objectLocked(forKey: key, in: [.shouldPropagate]).map { (key, $0.0) }
    }
    sourceBuffer.mutex.unlock()
    destinationBuffer.mutex.lock()
    for (key, object) in propagated { destinationBuffer.setLocked(object, forKey: key, mode: .shouldPropagate) }
    destinationBuffer.mutex.unlock()
}
