// VTSession: the property interface shared by every VideoToolbox session.

/// A VideoToolbox session: compression, decompression or pixel transfer.
public typealias VTSession = CFTypeRef

/// What a VideoToolbox session implements to answer `VTSessionSetProperty` and
/// `VTSessionCopyProperty`.
package protocol VTPropertySession: AnyObject {
    /// Sets one property; `noErr` or a VideoToolbox error code.
    func setProperty(key: String, value: Any?) -> OSStatus
    /// The value of one property, or the error code.
    func copyProperty(key: String) -> Result<Any?, VTPropertyError>
}

/// A failed property read: the VideoToolbox status to return.
package struct VTPropertyError: Error, Sendable {
    /// The status (`kVTPropertyNotSupportedErr`, `kVTInvalidSessionErr`…).
    package let status: OSStatus
    package init(_ status: OSStatus) { self.status = status }
}

/// Sets a property of a session.
///
/// The value is `Any?` rather than Apple's `CFTypeRef?`; `Any?` accepts every value Apple code
/// passes (`kVTScalingMode_Letterbox`, `kCFBooleanTrue`, `NSNumber`, dictionaries) and Swift values
/// besides.
@discardableResult
public func VTSessionSetProperty(_ session: VTSession, key propertyKey: CFString, value propertyValue: Any?) -> OSStatus {
    guard let session = session as? any VTPropertySession else { return kVTParameterErr }
    return session.setProperty(key: (propertyKey as String), value: propertyValue)
}

/// Sets several properties of a session: stops at the first failure and returns its status.
@discardableResult
public func VTSessionSetProperties(_ session: VTSession, propertyDictionary: CFDictionary) -> OSStatus {
    guard let target = session as? any VTPropertySession else { return kVTParameterErr }
    for (key, value) in propertyDictionary {
        guard let key = key as? String else { return kVTParameterErr }
        let status = target.setProperty(key: key, value: value)
        if status != noErr { return status }
    }
    return noErr
}

/// Copies a property of a session into `*propertyValueOut`.
///
/// Apple declares `valueOut` as `UnsafeMutableRawPointer?` and Apple code passes `&value` for a
/// `CFTypeRef?` (or `CFString?`, `CFBoolean?`…) variable. Here the pointer is typed, so `&value`
/// compiles the same for any optional variable and the value is stored with its real type (a
/// `String` variable receives a string property as `String`). A value that is not of the
/// variable's type is `kVTParameterErr`.
@discardableResult
public func VTSessionCopyProperty<Value>(_ session: VTSession, key propertyKey: CFString, allocator: CFAllocator?,
                                         valueOut propertyValueOut: UnsafeMutablePointer<Value?>?) -> OSStatus {
    guard let out = propertyValueOut else { return kVTParameterErr }
    guard let target = session as? any VTPropertySession else { return kVTParameterErr }
    switch target.copyProperty(key: (propertyKey as String)) {
    case .failure(let error):
        return error.status
    case .success(nil):
        out.pointee = nil
        return noErr
    case .success(let value?):
        if let typed = value as? Value {
            out.pointee = typed
        } else if Value.self == AnyObject.self, let object = value as AnyObject as? Value {
            out.pointee = object
        } else {
            return kVTParameterErr
        }
        return noErr
    }
}
