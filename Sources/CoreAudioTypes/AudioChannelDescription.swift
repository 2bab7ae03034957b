// One channel of an AudioChannelLayout.

/// The role and (optionally) position of one channel.
public struct AudioChannelDescription: Sendable {
    /// The channel's role.
    public var mChannelLabel: AudioChannelLabel
    /// How `mCoordinates` are expressed.
    public var mChannelFlags: AudioChannelFlags
    /// Position, when `mChannelLabel` is `kAudioChannelLabel_UseCoordinates`.
    public var mCoordinates: (Float32, Float32, Float32)

    /// An all-zero description.
    public init() {
        mChannelLabel = 0
        mChannelFlags = []
        mCoordinates = (0, 0, 0)
    }

    /// A description with every field given.
    public init(mChannelLabel: AudioChannelLabel, mChannelFlags: AudioChannelFlags,
                mCoordinates: (Float32, Float32, Float32)) {
        self.mChannelLabel = mChannelLabel
        self.mChannelFlags = mChannelFlags
        self.mCoordinates = mCoordinates
    }
}
