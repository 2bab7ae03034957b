// The Core Foundation functions media code calls on the bridged Foundation objects, with Apple's
// Swift signatures: type identifiers, arrays, dictionaries, Booleans, numbers and data.
//
// swift-corelibs-foundation keeps a Core Foundation inside it whose objects *are* the Foundation
// objects (an `NSDictionary` is a `CFDictionary` there too). The functions that hand out raw
// pointers into a container call that Core Foundation, so a pointer names the object the
// container holds — alive as long as the container — and not a temporary re-bridged copy.
internal import CoreFoundation

// MARK: - Type identifiers

/// A class of ours that has a Core Foundation type identifier of its own (`CVPixelBuffer`,
/// `CMSampleBuffer`, `CGImage`, …), so that `CFGetTypeID(object)` finds it.
package protocol CFTypeIdentifiable: AnyObject {
    /// The identifier `CFGetTypeID` returns for instances, equal to the type's `…GetTypeID()`.
    static var cfTypeID: CFTypeID { get }
}

/// Identifiers for the types our modules declare, allocated above Core Foundation's own.
package enum CFTypeIDRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var names: [String] = []
    /// The first identifier handed out: far above the few dozen Core Foundation registers.
    private static let base: CFTypeID = 0x2_0000

    /// Allocates the identifier of the type named `name` (call once per type, from a `static let`).
    package static func register(_ name: String) -> CFTypeID {
        lock.lock(); defer { lock.unlock() }
        if let index = names.firstIndex(of: name) { return base + CFTypeID(index) }
        names.append(name)
        return base + CFTypeID(names.count - 1)
    }

    /// The name registered under `id`, if it is one of ours.
    package static func name(_ id: CFTypeID) -> String? {
        lock.lock(); defer { lock.unlock() }
        guard id >= base, id - base < CFTypeID(names.count) else { return nil }
        return names[Int(id - base)]
    }
}

/// The type identifier of a Core Foundation object: equal to `CVPixelBufferGetTypeID()` for a
/// pixel buffer, `CFStringGetTypeID()` for a string, `CFBooleanGetTypeID()` for `kCFBooleanTrue`,
/// and so on. An object that is no Core Foundation type gives 0 (`_kCFRuntimeNotATypeID`).
public func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID {
    guard let cf else { return 0 }
    if let identified = cf as? any CFTypeIdentifiable { return type(of: identified).cfTypeID }
    // Only Foundation objects are Core Foundation objects underneath; any other Swift object
    // would be misread by CF's runtime.
    guard cf is NSObject else { return 0 }
    return CoreFoundation.CFGetTypeID(cf)
}

/// The name of a type identifier (`"CFString"`, `"CVPixelBuffer"`, …).
public func CFCopyTypeIDDescription(_ type_id: CFTypeID) -> CFString! {
    if let name = CFTypeIDRegistry.name(type_id) { return NSString(string: name) }
    guard let description = CoreFoundation.CFCopyTypeIDDescription(type_id) else { return nil }
    return unsafeBitCast(description, to: NSString.self)
}

/// The type identifier of strings.
public func CFStringGetTypeID() -> CFTypeID { CoreFoundation.CFStringGetTypeID() }
/// The type identifier of dictionaries.
public func CFDictionaryGetTypeID() -> CFTypeID { CoreFoundation.CFDictionaryGetTypeID() }
/// The type identifier of arrays.
public func CFArrayGetTypeID() -> CFTypeID { CoreFoundation.CFArrayGetTypeID() }
/// The type identifier of numbers (Booleans have their own, `CFBooleanGetTypeID()`).
public func CFNumberGetTypeID() -> CFTypeID { CoreFoundation.CFNumberGetTypeID() }
/// The type identifier of Booleans (`kCFBooleanTrue`, `kCFBooleanFalse`).
public func CFBooleanGetTypeID() -> CFTypeID { CoreFoundation.CFBooleanGetTypeID() }
/// The type identifier of data objects.
public func CFDataGetTypeID() -> CFTypeID { CoreFoundation.CFDataGetTypeID() }
/// The type identifier of URLs.
public func CFURLGetTypeID() -> CFTypeID { CoreFoundation.CFURLGetTypeID() }
/// The type identifier of dates.
public func CFDateGetTypeID() -> CFTypeID { CoreFoundation.CFDateGetTypeID() }

// MARK: - Memory management

/// Unavailable, as in Apple's Swift SDK: ARC owns Core Foundation objects in Swift.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed")
public func CFRetain(_ cf: CFTypeRef!) -> CFTypeRef! { cf }

/// Unavailable, as in Apple's Swift SDK: ARC owns Core Foundation objects in Swift.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed")
public func CFRelease(_ cf: CFTypeRef!) {}

// MARK: - Arrays

/// The number of values in an array.
public func CFArrayGetCount(_ theArray: CFArray!) -> CFIndex { theArray.count }

/// The value at `idx`, as a pointer to the object the array holds (a `CFDictionary` of a sample
/// attachments array, for example: `unsafeBitCast(value, to: CFDictionary.self)`). The array
/// keeps the object alive. An index outside the array stops the program, as Core Foundation does.
public func CFArrayGetValueAtIndex(_ theArray: CFArray!, _ idx: CFIndex) -> UnsafeRawPointer! {
    precondition(idx >= 0 && idx < theArray.count, "CFArrayGetValueAtIndex: index \(idx) out of bounds (\(theArray.count))")
    return CoreFoundation.CFArrayGetValueAtIndex(unsafeBitCast(theArray, to: CoreFoundation.CFArray.self), idx)
}

// MARK: - Dictionaries

/// The number of entries in a dictionary.
public func CFDictionaryGetCount(_ theDict: CFDictionary!) -> CFIndex { theDict.count }

/// The value for `key` (a pointer to a key object, e.g.
/// `Unmanaged.passUnretained(kCMSampleAttachmentKey_NotSync).toOpaque()`), or nil when the
/// dictionary has no such key. The returned pointer names the object the dictionary holds.
public func CFDictionaryGetValue(_ theDict: CFDictionary!, _ key: UnsafeRawPointer!) -> UnsafeRawPointer! {
    CoreFoundation.CFDictionaryGetValue(unsafeBitCast(theDict, to: CoreFoundation.CFDictionary.self), key)
}

/// Whether the dictionary has an entry for `key` (a pointer to a key object).
public func CFDictionaryContainsKey(_ theDict: CFDictionary!, _ key: UnsafeRawPointer!) -> Bool {
    CoreFoundation.CFDictionaryContainsKey(unsafeBitCast(theDict, to: CoreFoundation.CFDictionary.self), key)
}

/// Sets the value for `key` (both pointers to objects, e.g. `Unmanaged.passUnretained(k).toOpaque()`);
/// the dictionary retains both, as a Core Foundation dictionary with the CFType callbacks does.
public func CFDictionarySetValue(_ theDict: CFMutableDictionary!, _ key: UnsafeRawPointer!, _ value: UnsafeRawPointer!) {
    CoreFoundation.CFDictionarySetValue(unsafeBitCast(theDict, to: CoreFoundation.CFMutableDictionary.self), key, value)
}

/// Removes the entry for `key` (a pointer to a key object), if any.
public func CFDictionaryRemoveValue(_ theDict: CFMutableDictionary!, _ key: UnsafeRawPointer!) {
    CoreFoundation.CFDictionaryRemoveValue(unsafeBitCast(theDict, to: CoreFoundation.CFMutableDictionary.self), key)
}

// MARK: - Booleans

/// The Boolean true value; the same object a `true` stored in a Foundation container becomes.
public let kCFBooleanTrue: CFBoolean! = unsafeBitCast(CoreFoundation.kCFBooleanTrue, to: NSNumber.self)
/// The Boolean false value.
public let kCFBooleanFalse: CFBoolean! = unsafeBitCast(CoreFoundation.kCFBooleanFalse, to: NSNumber.self)

/// The value of a Boolean.
public func CFBooleanGetValue(_ boolean: CFBoolean!) -> Bool { boolean.boolValue }

// MARK: - Numbers

/// The C type a `CFNumberGetValue` call reads a number as.
public enum CFNumberType: CFIndex, Sendable {
    case sInt8Type = 1
    case sInt16Type = 2
    case sInt32Type = 3
    case sInt64Type = 4
    case float32Type = 5
    case float64Type = 6
    case charType = 7
    case shortType = 8
    case intType = 9
    case longType = 10
    case longLongType = 11
    case floatType = 12
    case doubleType = 13
    case cfIndexType = 14
    case nsIntegerType = 15
    case cgFloatType = 16
    /// The largest raw value (`cgFloatType`).
    public static var maxType: CFNumberType { .cgFloatType }
}

/// Stores the number, converted to `theType`, at `valuePtr`; false when the conversion lost
/// information (out of range, or a fraction dropped), in which case the stored value is the
/// converted one, as Core Foundation documents.
public func CFNumberGetValue(_ number: CFNumber!, _ theType: CFNumberType, _ valuePtr: UnsafeMutableRawPointer!) -> Bool {
    guard let cfType = CoreFoundation.CFNumberType(rawValue: theType.rawValue) else { return false }
    return CoreFoundation.CFNumberGetValue(unsafeBitCast(number, to: CoreFoundation.CFNumber.self), cfType, valuePtr)
}

/// The type the number stores its value as.
public func CFNumberGetType(_ number: CFNumber!) -> CFNumberType {
    let raw = CoreFoundation.CFNumberGetType(unsafeBitCast(number, to: CoreFoundation.CFNumber.self)).rawValue
    return CFNumberType(rawValue: raw) ?? .sInt64Type
}

/// Whether the number is a floating-point value.
public func CFNumberIsFloatType(_ number: CFNumber!) -> Bool {
    CoreFoundation.CFNumberIsFloatType(unsafeBitCast(number, to: CoreFoundation.CFNumber.self))
}

// MARK: - Data

/// New immutable data holding a copy of `length` bytes.
public func CFDataCreate(_ allocator: CFAllocator!, _ bytes: UnsafePointer<UInt8>!, _ length: CFIndex) -> CFData! {
    guard let bytes, length > 0 else { return NSData() }
    return NSData(bytes: bytes, length: length)
}

/// New empty mutable data; `capacity` is a hint (0: no limit), as in Core Foundation.
public func CFDataCreateMutable(_ allocator: CFAllocator!, _ capacity: CFIndex) -> CFMutableData! {
    NSMutableData(capacity: max(capacity, 0))
}

/// The number of bytes.
public func CFDataGetLength(_ theData: CFData!) -> CFIndex { theData.length }

/// The bytes; valid while the data object lives and is not mutated.
public func CFDataGetBytePtr(_ theData: CFData!) -> UnsafePointer<UInt8>! {
    theData.bytes.assumingMemoryBound(to: UInt8.self)
}

/// The bytes of mutable data, writable in place.
public func CFDataGetMutableBytePtr(_ theData: CFMutableData!) -> UnsafeMutablePointer<UInt8>! {
    theData.mutableBytes.assumingMemoryBound(to: UInt8.self)
}

/// Appends `length` bytes.
public func CFDataAppendBytes(_ theData: CFMutableData!, _ bytes: UnsafePointer<UInt8>!, _ length: CFIndex) {
    guard let bytes, length > 0 else { return }
    theData.append(bytes, length: length)
}

/// Sets the length, zero-filling new bytes.
public func CFDataSetLength(_ theData: CFMutableData!, _ length: CFIndex) { theData.length = max(length, 0) }

// MARK: - Autorelease pools

/// Runs `body` and returns its value (Apple's `autoreleasepool(invoking:)`, which reader/writer
/// loops wrap around every sample). There are no autoreleased objects on Linux — ARC frees each
/// object when its last reference goes — so there is no pool to drain.
@inlinable
public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}
