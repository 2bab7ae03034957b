// SendableDictionary: a caller's `[String: Any]` — output settings, ImageIO property
// dictionaries — as values a `Mutex` can hold, so such state needs no lock of its own.
import CoreGraphics
import Foundation

enum SendableDictionary {
    /// `dictionary` with every value in a Sendable form: the numbers, booleans, strings, codec
    /// types, data, dates, arrays and nested dictionaries settings and metadata are made of keep
    /// their type; a value of any other type (not one these dictionaries carry) is left out.
    static func make(_ dictionary: [String: Any]) -> [String: any Sendable] {
        dictionary.compactMapValues(value)
    }

    private static func value(_ x: Any) -> (any Sendable)? {
        switch x {
        case let v as AVVideoCodecType: return v
        case let v as Bool where type(of: x) == Bool.self: return v
        case let v as Int where type(of: x) == Int.self: return v
        case let v as Double where type(of: x) == Double.self: return v
        case let v as Float where type(of: x) == Float.self: return v
        case let v as CGFloat where type(of: x) == CGFloat.self: return v
        case let v as Int32 where type(of: x) == Int32.self: return v
        case let v as UInt32 where type(of: x) == UInt32.self: return v
        case let v as Int64 where type(of: x) == Int64.self: return v
        case let v as UInt64 where type(of: x) == UInt64.self: return v
        case let v as NSNumber: return v
        case let v as String: return v
        case let v as Data: return v
        case let v as Date: return v
        case let v as [String: Any]: return make(v)
        case let v as [Any]: return v.compactMap(value)
        default: return nil
        }
    }
}
