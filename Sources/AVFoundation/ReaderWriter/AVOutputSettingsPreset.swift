// AVOutputSettingsPreset: the presets AVOutputSettingsAssistant builds output settings for.
import Foundation

/// A preset configuration for `AVOutputSettingsAssistant`.
public struct AVOutputSettingsPreset: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// H.264, 640×480.
    public static let preset640x480 = AVOutputSettingsPreset("AVOutputSettingsPreset640x480")
    /// H.264, 960×540.
    public static let preset960x540 = AVOutputSettingsPreset("AVOutputSettingsPreset960x540")
    /// H.264, 1280×720.
    public static let preset1280x720 = AVOutputSettingsPreset("AVOutputSettingsPreset1280x720")
    /// H.264, 1920×1080.
    public static let preset1920x1080 = AVOutputSettingsPreset("AVOutputSettingsPreset1920x1080")
    /// H.264, 3840×2160.
    public static let preset3840x2160 = AVOutputSettingsPreset("AVOutputSettingsPreset3840x2160")
    /// HEVC, 1920×1080.
    public static let hevc1920x1080 = AVOutputSettingsPreset("AVOutputSettingsPresetHEVC1920x1080")
    /// HEVC with alpha, 1920×1080 (not available here: `init(preset:)` returns nil).
    public static let hevc1920x1080WithAlpha = AVOutputSettingsPreset("AVOutputSettingsPresetHEVC1920x1080WithAlpha")
    /// HEVC, 3840×2160.
    public static let hevc3840x2160 = AVOutputSettingsPreset("AVOutputSettingsPresetHEVC3840x2160")
    /// HEVC with alpha, 3840×2160 (not available here: `init(preset:)` returns nil).
    public static let hevc3840x2160WithAlpha = AVOutputSettingsPreset("AVOutputSettingsPresetHEVC3840x2160WithAlpha")
}
