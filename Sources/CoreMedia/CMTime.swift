// CMTime: rational time, value/timescale seconds, with flags for the special values.

/// The numerator of a CMTime.
public typealias CMTimeValue = Int64
/// The denominator of a CMTime: units per second.
public typealias CMTimeScale = Int32
/// Distinguishes unrelated timelines (e.g. loops of a presentation).
public typealias CMTimeEpoch = Int64

/// Flags of a CMTime.
public struct CMTimeFlags: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let valid = CMTimeFlags(rawValue: 1 << 0)
    public static let hasBeenRounded = CMTimeFlags(rawValue: 1 << 1)
    public static let positiveInfinity = CMTimeFlags(rawValue: 1 << 2)
    public static let negativeInfinity = CMTimeFlags(rawValue: 1 << 3)
    public static let indefinite = CMTimeFlags(rawValue: 1 << 4)
    public static let impliedValueFlagsMask: CMTimeFlags = [.positiveInfinity, .negativeInfinity, .indefinite]
}

/// A rational time value: `value / timescale` seconds.
public struct CMTime: Sendable {
    public var value: CMTimeValue
    public var timescale: CMTimeScale
    public var flags: CMTimeFlags
    public var epoch: CMTimeEpoch

    /// The all-zero time, which is invalid (no valid flag), as in C.
    public init() {
        value = 0
        timescale = 0
        flags = []
        epoch = 0
    }

    public init(value: CMTimeValue, timescale: CMTimeScale, flags: CMTimeFlags, epoch: CMTimeEpoch) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }
}
