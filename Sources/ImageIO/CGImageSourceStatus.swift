// CGImageSourceStatus: how far an image source has got reading its data.

/// The state of an image source, as Apple's ImageIO reports it.
public enum CGImageSourceStatus: Int32, Sendable {
    /// The end of the file was reached before the image's data ended.
    case statusUnexpectedEOF = -5
    /// The data is not a valid image of its type.
    case statusInvalidData = -4
    /// The data is of no type the source can read.
    case statusUnknownType = -3
    /// The source is still reading the file's header.
    case statusReadingHeader = -2
    /// More data is expected (incremental sources).
    case statusIncomplete = -1
    /// The data is complete and readable.
    case statusComplete = 0
}
