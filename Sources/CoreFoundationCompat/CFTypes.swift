// The Core Foundation and MacTypes names that Apple's media APIs are declared with.
//
// On Apple platforms these are CF types toll-free bridged to Foundation classes, so ported code
// writes `attributes as CFDictionary`, `kCVPixelBufferPixelFormatTypeKey as String`,
// `url as CFURL` and `provider.data as Data?`. swift-corelibs-foundation has no such bridging,
// so here each CF name is an alias of the Foundation type it bridges to, and those casts compile
// and behave the same.
@_exported import Foundation

/// A Core Foundation string. Bridges to `String`, as `CFString` does on Apple platforms.
public typealias CFString = String
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
/// A Core Foundation type identifier.
public typealias CFTypeID = UInt

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

/// The Boolean true value (`kCFBooleanTrue`).
public var kCFBooleanTrue: CFBoolean { NSNumber(value: true) }
/// The Boolean false value (`kCFBooleanFalse`).
public var kCFBooleanFalse: CFBoolean { NSNumber(value: false) }

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
