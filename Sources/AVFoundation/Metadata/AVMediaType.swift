// AVMediaType and AVMediaCharacteristic (AVMediaFormat.h). Declared here for media selection;
// the asset layer uses the same types.
import Foundation

/// A media type: the kind of data a track or selection option carries.
public struct AVMediaType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The four-character type string, e.g. `"vide"`.
    public let rawValue: String
    /// Creates a media type from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a media type from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }

    /// Video, `"vide"`.
    public static let video = AVMediaType("vide")
    /// Audio, `"soun"`.
    public static let audio = AVMediaType("soun")
    /// Text, `"text"`.
    public static let text = AVMediaType("text")
    /// Closed captions, `"clcp"`.
    public static let closedCaption = AVMediaType("clcp")
    /// Subtitles, `"sbtl"`.
    public static let subtitle = AVMediaType("sbtl")
    /// Timecode, `"tmcd"`.
    public static let timecode = AVMediaType("tmcd")
    /// Timed metadata, `"meta"`.
    public static let metadata = AVMediaType("meta")
    /// Muxed media, `"muxx"`.
    public static let muxed = AVMediaType("muxx")
    /// Depth data, `"dpth"`.
    public static let depthData = AVMediaType("dpth")
}

/// A media characteristic: a property a track or selection option has.
public struct AVMediaCharacteristic: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The characteristic's string, e.g. `"public.audible"`.
    public let rawValue: String
    /// Creates a characteristic from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a characteristic from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }

    /// Audible content, `"public.audible"`.
    public static let audible = AVMediaCharacteristic("public.audible")
    /// Visual content, `"public.visual"`.
    public static let visual = AVMediaCharacteristic("public.visual")
    /// Legible content (subtitles, captions), `"public.legible"`.
    public static let legible = AVMediaCharacteristic("public.legible")
    /// Frame-based content, `"public.frame-based"`.
    public static let frameBased = AVMediaCharacteristic("public.frame-based")
    /// Forced subtitles only, `"public.subtitles.forced-only"`.
    public static let containsOnlyForcedSubtitles = AVMediaCharacteristic("public.subtitles.forced-only")
    /// Describes music and sound for accessibility (SDH), `"public.accessibility.describes-music-and-sound"`.
    public static let describesMusicAndSoundForAccessibility = AVMediaCharacteristic("public.accessibility.describes-music-and-sound")
    /// Transcribes spoken dialog for accessibility, `"public.accessibility.transcribes-spoken-dialog"`.
    public static let transcribesSpokenDialogForAccessibility = AVMediaCharacteristic("public.accessibility.transcribes-spoken-dialog")
    /// Describes video for accessibility, `"public.accessibility.describes-video"`.
    public static let describesVideoForAccessibility = AVMediaCharacteristic("public.accessibility.describes-video")
    /// Easy to read, `"public.easy-to-read"`.
    public static let easyToRead = AVMediaCharacteristic("public.easy-to-read")
    /// Main program content, `"public.main-program-content"`.
    public static let isMainProgramContent = AVMediaCharacteristic("public.main-program-content")
    /// Auxiliary content, `"public.auxiliary-content"`.
    public static let isAuxiliaryContent = AVMediaCharacteristic("public.auxiliary-content")
    /// Original content, `"public.original-content"`.
    public static let isOriginalContent = AVMediaCharacteristic("public.original-content")
    /// A translation, `"public.translation"`.
    public static let languageTranslation = AVMediaCharacteristic("public.translation")
    /// A dubbed translation, `"public.translation.dubbed"`.
    public static let dubbedTranslation = AVMediaCharacteristic("public.translation.dubbed")
    /// A voice-over translation, `"public.translation.voice-over"`.
    public static let voiceOverTranslation = AVMediaCharacteristic("public.translation.voice-over")
}
