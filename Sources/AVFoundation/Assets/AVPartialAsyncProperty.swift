// AVPartialAsyncProperty: the key of a property that can be loaded asynchronously.

/// A property of `Root` that can be loaded asynchronously, without its value type. The static
/// members (`.duration`, `.tracks`, `.naturalSize`…) are declared on this class for each root
/// type and produce `AVAsyncProperty` values.
public class AVPartialAsyncProperty<Root>: @unchecked Sendable, CustomStringConvertible {
    /// The key name used with `loadValuesAsynchronously(forKeys:)` / `statusOfValue(forKey:error:)`.
    let key: String

    init(key: String) { self.key = key }

    /// The property's key name.
    public var description: String { "AVAsyncProperty(\(key))" }
}
