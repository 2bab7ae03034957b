// CGDataProvider: the bytes behind an image.

/// Supplies an image's bytes. Apple code reads them back with `image.dataProvider?.data as Data?`.
public final class CGDataProvider: @unchecked Sendable {
    /// The bytes.
    package let bytes: Data

    /// A provider over a copy of `data` (as Apple's, which retains the immutable CFData).
    public init?(data: CFData) {
        self.bytes = Data(referencing: data)
    }

    /// A provider over bytes already in Swift.
    package init(bytes: Data) {
        self.bytes = bytes
    }

    /// A provider reading the whole file at `url`; nil when it cannot be read.
    public init?(url: CFURL) {
        guard let path = url.path, let d = FileManager.default.contents(atPath: path) else { return nil }
        self.bytes = d
    }

    /// A provider reading the whole file at `filename`; nil when it cannot be read.
    public init?(filename: UnsafePointer<CChar>) {
        guard let d = FileManager.default.contents(atPath: String(cString: filename)) else { return nil }
        self.bytes = d
    }

    /// A copy of the provider's bytes (`CGDataProviderCopyData`).
    public var data: CFData? { NSData(data: bytes) }
}
