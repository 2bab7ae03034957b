// String-backed types (`AVFileType`, `AVMediaType`, `AVVideoCodecType`, `CAMediaTimingFillMode`…)
// bridge to NSString as Apple's do. On Apple platforms they are Swift "newtype" wrappers of
// NSString constants, and bridge through `_ObjectiveCBridgeable`; that protocol is the standard
// library's on Linux too, and the compiler's `as` casts use it there as well, so conforming gives
// the same call shapes: `AVFileType.heic as CFString` (CFString is NSString here),
// `x as NSString`, `x as AnyObject`, `[x] as NSArray`, `nsString as? AVFileType`.
//
// What cannot compile, here or on Apple platforms: `x as String` (String is a struct, and `as`
// converts a value to another value type only by bridging to a class); write `x.rawValue`,
// `String(x.rawValue)` or `x as NSString as String`.

/// A string-backed type that bridges to `NSString` (and so `CFString`) by its raw value. Its
/// members are the ones `_ObjectiveCBridgeable` requires; conforming is all a type does.
public protocol _NSStringBridgedNewtype: _ObjectiveCBridgeable, RawRepresentable
    where RawValue == String, _ObjectiveCType == NSString {
    init(rawValue: String)
}

extension _NSStringBridgedNewtype {
    public func _bridgeToObjectiveC() -> NSString {
        NSString(string: rawValue)
    }

    public static func _forceBridgeFromObjectiveC(_ source: NSString, result: inout Self?) {
        result = Self(rawValue: String(source))
    }

    public static func _conditionallyBridgeFromObjectiveC(_ source: NSString, result: inout Self?) -> Bool {
        result = Self(rawValue: String(source))
        return true
    }

    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSString?) -> Self {
        Self(rawValue: source.map { String($0) } ?? "")
    }
}
