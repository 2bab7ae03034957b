// Reading property-list values out of extension and attachment dictionaries, whichever way
// they were bridged (NSNumber or Swift numbers, NSData or Data, NSString or String).

/// Helpers for the property-list values of format description extensions.
enum FormatDescriptionValues {
    /// A dictionary's entries keyed by String.
    static func stringKeyed(_ d: NSDictionary?) -> [String: Any] {
        guard let d else { return [:] }
        var out: [String: Any] = [:]
        for (k, v) in d {
            if let key = k as? String { out[key] = v } else if let key = k as? NSString { out[key as String] = v }
        }
        return out
    }

    /// A value as a dictionary keyed by String, if it is one.
    static func dictionary(_ v: Any?) -> [String: Any]? {
        if let d = v as? NSDictionary { return stringKeyed(d) }
        if let d = v as? [String: Any] { return d }
        return nil
    }

    /// A numeric value as Double, if it is a number.
    static func number(_ v: Any?) -> Double? {
        switch v {
        case let n as NSNumber: return n.doubleValue
        case let n as Int: return Double(n)
        case let n as Double: return n
        case let n as Float: return Double(n)
        case let n as Int32: return Double(n)
        case let n as Int64: return Double(n)
        case let n as UInt32: return Double(n)
        default: return nil
        }
    }

    /// A value as bytes, if it is data.
    static func data(_ v: Any?) -> Data? {
        if let d = v as? Data { return d }
        if let d = v as? NSData { return d.length == 0 ? Data() : Data(bytes: d.bytes, count: d.length) }  // native copy: see CGDataProvider
        return nil
    }

    /// The sample description extension atoms of an extensions dictionary, as Data by key.
    static func atoms(in extensions: NSDictionary?) -> [String: Data]? {
        guard let e = extensions,
              let atoms = dictionary(e[kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms]) else { return nil }
        var out: [String: Data] = [:]
        for (k, v) in atoms {
            if let d = data(v) { out[k] = d }
        }
        return out
    }

    /// A CFString or CFArray of CFStrings as a list of keys.
    static func keyList(_ v: CFTypeRef?) -> [String] {
        guard let v else { return [] }
        if let s = v as? String { return [s] }
        if let a = v as? NSArray { return a.compactMap { $0 as? String } }
        if let a = v as? [String] { return a }
        return []
    }

    /// Property-list equality of two dictionaries; nil equals empty.
    static func dictionariesEqual(_ a: NSDictionary?, _ b: NSDictionary?) -> Bool {
        let x = a ?? NSDictionary(), y = b ?? NSDictionary()
        guard x.count == y.count else { return false }
        let xs = stringKeyed(x), ys = stringKeyed(y)
        guard xs.count == ys.count else { return false }
        for (k, v) in xs {
            guard let w = ys[k], valuesEqual(v, w) else { return false }
        }
        return true
    }

    /// Property-list equality of two values.
    static func valuesEqual(_ a: Any, _ b: Any) -> Bool {
        if let x = dictionary(a), let y = dictionary(b) {
            return dictionariesEqual(NSDictionary(dictionary: x), NSDictionary(dictionary: y))
        }
        if let x = number(a), let y = number(b), !(a is String), !(b is String) { return x == y }
        if let x = a as? String, let y = b as? String { return x == y }
        if let x = data(a), let y = data(b) { return x == y }
        if let x = a as? NSArray, let y = b as? NSArray {
            guard x.count == y.count else { return false }
            return zip(x, y).allSatisfy { valuesEqual($0, $1) }
        }
        if let x = a as? Bool, let y = b as? Bool { return x == y }
        if let x = a as? NSObject, let y = b as? NSObject { return x.isEqual(y) }
        if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
        return (a as AnyObject) === (b as AnyObject)
    }
}
