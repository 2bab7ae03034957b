// The channel bitmap of an AudioChannelLayout (used with kAudioChannelLayoutTag_UseChannelBitmap).

/// Which speaker positions a layout uses, one bit per position.
public struct AudioChannelBitmap: OptionSet, Sendable, Hashable {
    /// The bits.
    public var rawValue: UInt32
    /// A bitmap with the given bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Left.
    public static let bit_Left = AudioChannelBitmap(rawValue: 1 << 0)
    /// Right.
    public static let bit_Right = AudioChannelBitmap(rawValue: 1 << 1)
    /// Center.
    public static let bit_Center = AudioChannelBitmap(rawValue: 1 << 2)
    /// Low-frequency effects.
    public static let bit_LFEScreen = AudioChannelBitmap(rawValue: 1 << 3)
    /// Left surround.
    public static let bit_LeftSurround = AudioChannelBitmap(rawValue: 1 << 4)
    /// Right surround.
    public static let bit_RightSurround = AudioChannelBitmap(rawValue: 1 << 5)
    /// Left center.
    public static let bit_LeftCenter = AudioChannelBitmap(rawValue: 1 << 6)
    /// Right center.
    public static let bit_RightCenter = AudioChannelBitmap(rawValue: 1 << 7)
    /// Center surround.
    public static let bit_CenterSurround = AudioChannelBitmap(rawValue: 1 << 8)
    /// Left surround direct.
    public static let bit_LeftSurroundDirect = AudioChannelBitmap(rawValue: 1 << 9)
    /// Right surround direct.
    public static let bit_RightSurroundDirect = AudioChannelBitmap(rawValue: 1 << 10)
    /// Top center surround.
    public static let bit_TopCenterSurround = AudioChannelBitmap(rawValue: 1 << 11)
    /// Vertical height left.
    public static let bit_VerticalHeightLeft = AudioChannelBitmap(rawValue: 1 << 12)
    /// Vertical height center.
    public static let bit_VerticalHeightCenter = AudioChannelBitmap(rawValue: 1 << 13)
    /// Vertical height right.
    public static let bit_VerticalHeightRight = AudioChannelBitmap(rawValue: 1 << 14)
    /// Top back left.
    public static let bit_TopBackLeft = AudioChannelBitmap(rawValue: 1 << 15)
    /// Top back center.
    public static let bit_TopBackCenter = AudioChannelBitmap(rawValue: 1 << 16)
    /// Top back right.
    public static let bit_TopBackRight = AudioChannelBitmap(rawValue: 1 << 17)
}
