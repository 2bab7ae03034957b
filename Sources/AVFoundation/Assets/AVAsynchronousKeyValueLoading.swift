// AVAsynchronousKeyValueLoading: loading property values without blocking, in the classic
// (keys + completion handler) and modern (async load of typed properties) styles.
import Foundation

/// Loading of an object's property values without blocking the calling thread. Adopted by
/// `AVAsset` and `AVAssetTrack`.
public protocol AVAsynchronousKeyValueLoading {
    /// The status of the value for `key`; when it is `.failed` or `.cancelled`, `outError`
    /// receives the error.
    func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus

    /// Loads the values of the keys that are not loaded yet. The handler is called exactly once
    /// per call, on a background queue, when every key is loaded, failed or cancelled.
    func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)?)
}

extension AVAsynchronousKeyValueLoading {
    /// Loads the keys and throws the first key's error when any of them did not load.
    private func loadKeys(_ keys: [String], isolation: isolated (any Actor)?) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loadValuesAsynchronously(forKeys: keys) { continuation.resume() }
        }
        for key in keys {
            var error: NSError?
            let status = statusOfValue(forKey: key, error: &error)
            if status == .loaded { continue }
            // Throw the error as it was raised (an `AVError` stays an `AVError`), not its NSError form.
            if let original = (self as? any KeyValueErrorProviding)?.loadError(forKey: key) { throw original }
            throw error ?? AVError(status == .cancelled ? .operationCancelled : .unknown)
        }
    }

    /// Loads a property and returns its value.
    public func load<T>(_ property: AVAsyncProperty<Self, T>,
                        isolation: isolated (any Actor)? = #isolation) async throws -> T {
        try await loadKeys([property.key], isolation: isolation)
        return try property.get(self)
    }

    /// Loads two or more properties at once and returns their values as a tuple.
    public func load<A, B, each C>(_ firstProperty: AVAsyncProperty<Self, A>, _ secondProperty: AVAsyncProperty<Self, B>,
                                   _ properties: repeat AVAsyncProperty<Self, each C>,
                                   isolation: isolated (any Actor)? = #isolation) async throws -> (A, B, repeat each C) {
        var keys = [firstProperty.key, secondProperty.key]
        for property in repeat each properties { keys.append(property.key) }
        try await loadKeys(keys, isolation: isolation)
        return (try firstProperty.get(self), try secondProperty.get(self), repeat try (each properties).get(self))
    }

    /// The load status of a property, with its value once loaded.
    public func status<T>(of property: AVAsyncProperty<Self, T>) -> AVAsyncProperty<Self, T>.Status {
        var error: NSError?
        switch statusOfValue(forKey: property.key, error: &error) {
        case .unknown: return .notYetLoaded
        case .loading: return .loading
        case .loaded:
            do { return .loaded(try property.get(self)) } catch { return .failed(error) }
        case .failed, .cancelled: return .failed(error ?? AVError(.unknown))
        }
    }
}

/// Implemented by the library's loadable objects to hand `load(_:)` the original Swift error.
protocol KeyValueErrorProviding {
    func loadError(forKey key: String) -> (any Error)?
}
