// AVFileType: container file types, as Uniform Type Identifier strings.
import UniformTypeIdentifiers

/// A media container file type, identified by its Uniform Type Identifier.
public struct AVFileType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The Uniform Type Identifier.
    public let rawValue: String
    /// A file type from its UTI.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A file type from its UTI.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The UTI.
    public var description: String { rawValue }

    /// QuickTime movie (.mov).
    public static let mov = AVFileType("com.apple.quicktime-movie")
    /// MPEG-4 (.mp4).
    public static let mp4 = AVFileType("public.mpeg-4")
    /// iTunes video (.m4v).
    public static let m4v = AVFileType("com.apple.m4v-video")
    /// Apple MPEG-4 audio (.m4a).
    public static let m4a = AVFileType("com.apple.m4a-audio")
    /// 3GPP (.3gp).
    public static let mobile3GPP = AVFileType("public.3gpp")
    /// 3GPP2 (.3g2).
    public static let mobile3GPP2 = AVFileType("public.3gpp2")
    /// Core Audio Format (.caf).
    public static let caf = AVFileType("com.apple.coreaudio-format")
    /// WAVE (.wav).
    public static let wav = AVFileType("com.microsoft.waveform-audio")
    /// AIFF (.aif).
    public static let aiff = AVFileType("public.aiff-audio")
    /// AIFC (.aifc).
    public static let aifc = AVFileType("public.aifc-audio")
    /// Adaptive Multi-Rate audio (.amr).
    public static let amr = AVFileType("org.3gpp.adaptive-multi-rate-audio")
    /// MPEG layer 3 audio (.mp3).
    public static let mp3 = AVFileType("public.mp3")
    /// Sun/NeXT audio (.au).
    public static let au = AVFileType("public.au-audio")
    /// AC-3 audio (.ac3).
    public static let ac3 = AVFileType("public.ac3-audio")
    /// Enhanced AC-3 audio (.eac3).
    public static let eac3 = AVFileType("public.enhanced-ac3-audio")
    /// JPEG image.
    public static let jpg = AVFileType("public.jpeg")
    /// Adobe DNG raw image.
    public static let dng = AVFileType("com.adobe.raw-image")
    /// HEIC image.
    public static let heic = AVFileType("public.heic")
    /// AVCI image.
    public static let avci = AVFileType("public.avci")
    /// HEIF image.
    public static let heif = AVFileType("public.heif")
    /// TIFF image.
    public static let tif = AVFileType("public.tiff")
    /// iTunes Timed Text (.itt).
    public static let appleiTT = AVFileType("com.apple.itunes-timed-text")
    /// Scenarist closed captions (.scc).
    public static let SCC = AVFileType("com.scenarist.closed-caption")
}
