// AudioChannelLayout: a variable-length structure, as in C. The declared type holds one channel
// description; layouts with more are allocated with room for `mNumberChannelDescriptions` of them
// laid out after the header, and their size is `AudioChannelLayout.sizeInBytes(maximumDescriptions:)`.

/// Describes the channels of an audio stream, by tag, bitmap or per-channel descriptions.
public struct AudioChannelLayout: Sendable {
    /// A predefined layout, or `kAudioChannelLayoutTag_UseChannelBitmap` / `…UseChannelDescriptions`.
    public var mChannelLayoutTag: AudioChannelLayoutTag
    /// Speaker positions, when the tag is `kAudioChannelLayoutTag_UseChannelBitmap`.
    public var mChannelBitmap: AudioChannelBitmap
    /// How many descriptions follow.
    public var mNumberChannelDescriptions: UInt32
    /// The first channel description (more may follow in memory).
    public var mChannelDescriptions: (AudioChannelDescription)

    /// An all-zero layout.
    public init() {
        mChannelLayoutTag = 0
        mChannelBitmap = []
        mNumberChannelDescriptions = 0
        mChannelDescriptions = AudioChannelDescription()
    }

    /// A layout with every field given.
    public init(mChannelLayoutTag: AudioChannelLayoutTag, mChannelBitmap: AudioChannelBitmap,
                mNumberChannelDescriptions: UInt32, mChannelDescriptions: (AudioChannelDescription)) {
        self.mChannelLayoutTag = mChannelLayoutTag
        self.mChannelBitmap = mChannelBitmap
        self.mNumberChannelDescriptions = mNumberChannelDescriptions
        self.mChannelDescriptions = mChannelDescriptions
    }

    /// Bytes needed for a layout with `count` channel descriptions (at least one slot, as in C).
    package static func sizeInBytes(maximumDescriptions count: Int) -> Int {
        MemoryLayout<AudioChannelLayout>.size + max(0, count - 1) * MemoryLayout<AudioChannelDescription>.stride
    }
}
