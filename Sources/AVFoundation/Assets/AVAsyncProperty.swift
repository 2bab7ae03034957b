// AVAsyncProperty: a typed asynchronously-loadable property, and its load status.

/// A property of `Root` with value type `Value`, loaded with `load(_:)` and inspected with
/// `status(of:)`.
public final class AVAsyncProperty<Root, Value>: AVPartialAsyncProperty<Root>, @unchecked Sendable {
    /// Reads the loaded value from the root (after its key is loaded).
    let get: @Sendable (Root) throws -> Value

    init(key: String, get: @escaping @Sendable (Root) throws -> Value) {
        self.get = get
        super.init(key: key)
    }

    /// The load status of a property.
    public enum Status {
        /// Loading has not been requested.
        case notYetLoaded
        /// Loading is in progress.
        case loading
        /// The property is loaded; its value.
        case loaded(Value)
        /// Loading failed (or was cancelled); the error.
        case failed(any Error)
    }
}

extension AVAsyncProperty.Status: @unchecked Sendable {}
