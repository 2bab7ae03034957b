// Flags of an AudioChannelDescription's coordinates.

/// How the coordinates of an `AudioChannelDescription` are expressed.
public struct AudioChannelFlags: OptionSet, Sendable, Hashable {
    /// The bits.
    public var rawValue: UInt32
    /// Flags with the given bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The coordinates are right/front/up (x, y, z).
    public static let rectangularCoordinates = AudioChannelFlags(rawValue: 1 << 0)
    /// The coordinates are azimuth/elevation/distance.
    public static let sphericalCoordinates = AudioChannelFlags(rawValue: 1 << 1)
    /// Units are meters (otherwise relative to a unit cube/sphere).
    public static let meters = AudioChannelFlags(rawValue: 1 << 2)
}
