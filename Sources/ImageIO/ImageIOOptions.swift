// Reading option and property dictionaries that Apple code passes as CFDictionary.
import Foundation

/// Values read out of a `CFDictionary` of options or properties, whatever Foundation type
/// (NSNumber, Swift number, Bool) holds them.
struct ImageIOOptions {
    let values: [String: Any]

    init(_ dictionary: CFDictionary?) {
        var values: [String: Any] = [:]
        if let dictionary {
            for (key, value) in dictionary {
                if let k = key as? String { values[k] = value } else if let k = key as? NSString { values[k.description] = value }
            }
        }
        self.values = values
    }

    init(values: [String: Any]) { self.values = values }

    func bool(_ key: String) -> Bool? {
        switch values[key] {
        case let b as Bool: return b
        case let n as NSNumber: return n.boolValue
        case let i as Int: return i != 0
        default: return nil
        }
    }

    func double(_ key: String) -> Double? {
        switch values[key] {
        case let d as Double: return d
        case let n as NSNumber: return n.doubleValue
        case let i as Int: return Double(i)
        case let f as Float: return Double(f)
        case let c as CGFloat: return Double(c)
        case let u as UInt32: return Double(u)
        default: return nil
        }
    }

    func int(_ key: String) -> Int? {
        guard let d = double(key), d.isFinite, abs(d) < 1e15 else { return nil }
        return Int(d)
    }

    func string(_ key: String) -> String? {
        switch values[key] {
        case let s as String: return s
        case let s as NSString: return s.description
        default: return nil
        }
    }

    func dictionary(_ key: String) -> ImageIOOptions? {
        switch values[key] {
        case let d as NSDictionary: return ImageIOOptions(d)
        case let d as [String: Any]: return ImageIOOptions(values: d)
        default: return nil
        }
    }

    /// These options with `other`'s values taking precedence.
    func merging(_ other: ImageIOOptions) -> ImageIOOptions {
        ImageIOOptions(values: values.merging(other.values) { _, new in new })
    }
}
