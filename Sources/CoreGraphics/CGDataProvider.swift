// CGDataProvider: the bytes behind an image.

/// A callback that releases the data handed to `CGDataProvider(dataInfo:data:size:releaseData:)`.
public typealias CGDataProviderReleaseDataCallback =
    @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer, Int) -> Void

/// Supplies an image's bytes. Apple code reads them back with `image.dataProvider?.data as Data?`.
public final class CGDataProvider: @unchecked Sendable {
    /// The bytes.
    package let bytes: Data
    /// The info pointer given at creation, if any.
    public let info: UnsafeMutableRawPointer?
    /// Calls the release callback of an empty direct provider when the provider goes away.
    private let emptyRelease: ReleaseOnce?

    /// A provider over a copy of `data` (as Apple's, which retains the immutable CFData).
    public init?(data: CFData) {
        // A native copy: on Linux a Data that references an NSData reads every byte through
        // NSData's bridging, which made encoders ~10× slower than reading contiguous memory.
        self.bytes = data.length == 0 ? Data() : Data(bytes: data.bytes, count: data.length)
        self.info = nil
        self.emptyRelease = nil
    }

    /// A provider over bytes already in Swift.
    package init(bytes: Data) {
        self.bytes = bytes
        self.info = nil
        self.emptyRelease = nil
    }

    /// A provider reading the whole file at `url`; nil when it cannot be read.
    public init?(url: CFURL) {
        guard let path = url.path, let d = FileManager.default.contents(atPath: path) else { return nil }
        self.bytes = d
        self.info = nil
        self.emptyRelease = nil
    }

    /// A provider reading the whole file at `filename`; nil when it cannot be read.
    public init?(filename: UnsafePointer<CChar>) {
        guard let d = FileManager.default.contents(atPath: String(cString: filename)) else { return nil }
        self.bytes = d
        self.info = nil
        self.emptyRelease = nil
    }

    /// A direct-access provider over `size` bytes at `data`, which the caller keeps valid until
    /// `releaseData` is called. The bytes are used in place; `releaseData(info, data, size)` is
    /// called exactly once, when the provider and every image and byte copy sharing its storage
    /// are gone (a very small buffer, up to 14 bytes, is copied at once and released right away,
    /// as the callback's contract allows). Nil when `size` is negative.
    public init?(dataInfo info: UnsafeMutableRawPointer?, data: UnsafeRawPointer, size: Int,
                 releaseData: CGDataProviderReleaseDataCallback) {
        guard size >= 0 else { return nil }
        let release = ReleaseOnce(callback: releaseData, info: info, data: data, size: size)
        self.info = info
        if size == 0 {
            self.bytes = Data()
            self.emptyRelease = release
        } else {
            self.bytes = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: data), count: size,
                              deallocator: .custom { _, _ in release.fire() })
            self.emptyRelease = nil
        }
    }

    deinit { emptyRelease?.fire() }

    /// A copy of the provider's bytes (`CGDataProviderCopyData`).
    public var data: CFData? { NSData(data: bytes) }
}

/// A release callback with its arguments, called at most once.
private final class ReleaseOnce: @unchecked Sendable {
    private let callback: CGDataProviderReleaseDataCallback
    private let info: UnsafeMutableRawPointer?
    private let data: UnsafeRawPointer
    private let size: Int
    private let lock = NSLock()
    private var fired = false

    init(callback: CGDataProviderReleaseDataCallback, info: UnsafeMutableRawPointer?, data: UnsafeRawPointer,
         size: Int) {
        self.callback = callback
        self.info = info
        self.data = data
        self.size = size
    }

    func fire() {
        lock.lock()
        let first = !fired
        fired = true
        lock.unlock()
        if first { callback(info, data, size) }
    }
}

/// A direct-access provider over caller-owned bytes; `releaseData` (if any) is called once when
/// the bytes are no longer needed.
@discardableResult
public func CGDataProviderCreateWithData(_ info: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ size: Int,
                                         _ releaseData: CGDataProviderReleaseDataCallback?) -> CGDataProvider? {
    guard let data, size >= 0 else { return nil }
    guard let releaseData else {
        // As Apple's: the bytes are used in place and must outlive the provider.
        return CGDataProvider(bytes: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: data), count: size,
                                          deallocator: .none))
    }
    return CGDataProvider(dataInfo: info, data: data, size: size, releaseData: releaseData)
}
/// A provider over `data`.
@discardableResult
public func CGDataProviderCreateWithCFData(_ data: CFData?) -> CGDataProvider? {
    guard let data else { return nil }
    return CGDataProvider(data: data)
}
/// A provider over the file at `url`.
@discardableResult
public func CGDataProviderCreateWithURL(_ url: CFURL?) -> CGDataProvider? {
    guard let url else { return nil }
    return CGDataProvider(url: url)
}
/// A copy of the provider's bytes.
@discardableResult
public func CGDataProviderCopyData(_ provider: CGDataProvider?) -> CFData? { provider?.data }
/// The provider's info pointer.
@discardableResult
public func CGDataProviderGetInfo(_ provider: CGDataProvider?) -> UnsafeMutableRawPointer? { provider?.info }
