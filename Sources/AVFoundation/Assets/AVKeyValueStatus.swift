// AVKeyValueStatus: the load state of one key of an asset or track.

/// Whether a property's value is available without blocking.
public enum AVKeyValueStatus: Int, Sendable {
    /// Loading has not been requested.
    case unknown = 0
    /// Loading is in progress.
    case loading = 1
    /// The value is available.
    case loaded = 2
    /// Loading failed; `statusOfValue(forKey:error:)` gives the error.
    case failed = 3
    /// Loading was cancelled with `cancelLoading()`.
    case cancelled = 4
}
