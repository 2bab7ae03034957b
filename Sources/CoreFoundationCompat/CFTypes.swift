// The Core Foundation and MacTypes names that Apple's media APIs are declared with.
//
// On Apple platforms these are CF types toll-free bridged to Foundation classes, so ported code
// writes `attributes as CFDictionary`, `kCVPixelBufferPixelFormatTypeKey as String`,
// `url as CFURL` and `provider.data as Data?`. Here each CF name is an alias of the Foundation
// class it bridges to, which swift-corelibs-foundation itself bridges to Core Foundation, so those
// casts compile and behave the same, and the CF functions over them (CFFunctions.swift) work on
// the very objects: `Unmanaged.passUnretained(kCMSampleAttachmentKey_NotSync).toOpaque()` is a
// key `CFDictionaryGetValue` finds.
@_exported import Foundation

/// A Core Foundation string (`NSString`, as `CFString` bridges on Apple platforms): an object, so
/// `Unmanaged<CFString>` and `CFDictionaryGetValue(dict, Unmanaged.passUnretained(key).toOpaque())`
/// work, while `key as String`, `"literal" as CFString` and `string as CFString` bridge.
public typealias CFString = NSString
/// A mutable Core Foundation string (`NSMutableString`).
public typealias CFMutableString = NSMutableString
/// An immutable Core Foundation dictionary (`NSDictionary`).
public typealias CFDictionary = NSDictionary
/// A mutable Core Foundation dictionary (`NSMutableDictionary`).
public typealias CFMutableDictionary = NSMutableDictionary
/// An immutable Core Foundation array (`NSArray`).
public typealias CFArray = NSArray
/// A mutable Core Foundation array (`NSMutableArray`).
public typealias CFMutableArray = NSMutableArray
/// Immutable bytes (`NSData`); `data as Data` bridges.
public typealias CFData = NSData
/// Mutable bytes (`NSMutableData`).
public typealias CFMutableData = NSMutableData
/// A Core Foundation number (`NSNumber`).
public typealias CFNumber = NSNumber
/// A Core Foundation Boolean (`NSNumber` holding a Bool).
public typealias CFBoolean = NSNumber
/// A Core Foundation URL (`NSURL`); `url as CFURL` bridges.
public typealias CFURL = NSURL
/// Any Core Foundation object.
public typealias CFTypeRef = AnyObject
/// A Core Foundation index or count.
public typealias CFIndex = Int
/// A time interval in seconds (`CACurrentMediaTime()`, Core Animation's timing).
public typealias CFTimeInterval = Double
/// Seconds since the reference date (1 January 2001 00:00 UTC), as `Date.timeIntervalSinceReferenceDate`.
public typealias CFAbsoluteTime = Double
/// A Core Foundation type identifier (`CFGetTypeID`, `CFStringGetTypeID()`, …).
public typealias CFTypeID = UInt
/// A bit field of Core Foundation option flags.
public typealias CFOptionFlags = UInt
/// A hash code (`CFHash`).
public typealias CFHashCode = UInt

/// A result code of the Mac toolbox tradition: `noErr` (0) is success.
public typealias OSStatus = Int32
/// A four-character code stored big-endian in a 32-bit integer, e.g. `'avc1'`.
public typealias OSType = UInt32
/// A four-character code.
public typealias FourCharCode = UInt32
/// The Mac Boolean type, a byte.
public typealias Boolean = UInt8

/// Success.
public let noErr: OSStatus = 0


/// A memory allocator. On Linux allocation always uses the system allocator; the type exists so
/// that calls passing `kCFAllocatorDefault`, `nil` or `kCFAllocatorNull` compile and mean what
/// they mean on Apple platforms.
public final class CFAllocator: Sendable, CustomStringConvertible {
    /// What an allocator does.
    package enum Kind: Sendable { case system, null }
    package let kind: Kind
    package init(kind: Kind) { self.kind = kind }
    public var description: String { kind == .null ? "<CFAllocator kCFAllocatorNull>" : "<CFAllocator default>" }
}

/// The default allocator (on Apple platforms a `nil`-equivalent): the system allocator.
public let kCFAllocatorDefault: CFAllocator? = nil
/// The system allocator.
public let kCFAllocatorSystemDefault: CFAllocator? = CFAllocator(kind: .system)
/// The null allocator: memory handed over with it is never freed by the receiver.
public let kCFAllocatorNull: CFAllocator? = CFAllocator(kind: .null)

extension Optional where Wrapped == CFAllocator {
    /// True for `kCFAllocatorNull`: the receiver must not free memory passed with it.
    package var isNullAllocator: Bool { self?.kind == .null }
}

/// A range of items: `location` and `length` (Core Foundation's `CFRange`).
public struct CFRange: Sendable, Hashable {
    public var location: CFIndex
    public var length: CFIndex
    public init() { location = 0; length = 0 }
    public init(location: CFIndex, length: CFIndex) {
        self.location = location
        self.length = length
    }
}

/// Makes a `CFRange`.
@discardableResult
public func CFRangeMake(_ loc: CFIndex, _ len: CFIndex) -> CFRange { CFRange(location: loc, length: len) }
