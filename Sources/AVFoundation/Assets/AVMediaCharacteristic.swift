// AVMediaCharacteristic: what a track's media is like (visual, audible, legible, …).

/// A characteristic of a track's media, used to select tracks independently of media type.
public struct AVMediaCharacteristic: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The characteristic's string.
    public let rawValue: String
    /// A characteristic from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A characteristic from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The string.
    public var description: String { rawValue }

    /// Media presented visually (video, text, subtitles, closed captions…).
    public static let visual = AVMediaCharacteristic("AVMediaCharacteristicVisual")
    /// Media presented audibly.
    public static let audible = AVMediaCharacteristic("AVMediaCharacteristicAudible")
    /// Media that can be read (text, subtitles, closed captions).
    public static let legible = AVMediaCharacteristic("AVMediaCharacteristicLegible")
    /// Media made of frames (video).
    public static let frameBased = AVMediaCharacteristic("AVMediaCharacteristicFrameBased")
    /// Video whose colour space is wider than Rec. 709 (Rec. 2020, P3).
    public static let usesWideGamutColorSpace = AVMediaCharacteristic("AVMediaCharacteristicUsesWideGamutColorSpace")
    /// Video with HDR transfer functions (PQ, HLG).
    public static let containsHDRVideo = AVMediaCharacteristic("AVMediaCharacteristicContainsHDRVideo")
    /// Video with an alpha channel.
    public static let containsAlphaChannel = AVMediaCharacteristic("AVMediaCharacteristicContainsAlphaChannel")
    /// Subtitles containing only forced subtitles.
    public static let containsOnlyForcedSubtitles = AVMediaCharacteristic("public.subtitles.forced-only")
    /// The main program content.
    public static let isMainProgramContent = AVMediaCharacteristic("public.main-program-content")
    /// Auxiliary content (commentary…).
    public static let isAuxiliaryContent = AVMediaCharacteristic("public.auxiliary-content")
    /// Content in its original language.
    public static let isOriginalContent = AVMediaCharacteristic("public.original-content")
    /// Transcribes spoken dialog for accessibility.
    public static let transcribesSpokenDialogForAccessibility = AVMediaCharacteristic("public.accessibility.transcribes-spoken-dialog")
    /// Describes music and sound for accessibility.
    public static let describesMusicAndSoundForAccessibility = AVMediaCharacteristic("public.accessibility.describes-music-and-sound")
    /// Easy to read.
    public static let easyToRead = AVMediaCharacteristic("public.easy-to-read")
    /// Describes video for accessibility.
    public static let describesVideoForAccessibility = AVMediaCharacteristic("public.accessibility.describes-video")
    /// A translation.
    public static let languageTranslation = AVMediaCharacteristic("public.translation")
    /// A dubbed translation.
    public static let dubbedTranslation = AVMediaCharacteristic("public.translation.dubbed")
    /// A voice-over translation.
    public static let voiceOverTranslation = AVMediaCharacteristic("public.translation.voice-over")
}
