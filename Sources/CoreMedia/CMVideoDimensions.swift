// The encoded size of video.

/// Width and height of video in pixels.
public struct CMVideoDimensions: Sendable, Equatable, Hashable {
    /// Width in pixels.
    public var width: Int32
    /// Height in pixels.
    public var height: Int32

    /// 0×0.
    public init() {
        width = 0
        height = 0
    }

    /// The given size.
    public init(width: Int32, height: Int32) {
        self.width = width
        self.height = height
    }
}
