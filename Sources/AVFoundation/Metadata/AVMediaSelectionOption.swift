// AVMediaSelectionOption: one alternative (a language's audio, a subtitle track) of a group.
import Foundation

/// One option of a media selection group.
public final class AVMediaSelectionOption: NSObject, NSCopying, @unchecked Sendable {
    let track: SelectableTrack

    init(track: SelectableTrack) {
        self.track = track
        super.init()
    }

    /// Returns the option itself (options are immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The option's media type.
    public var mediaType: AVMediaType { track.mediaType }

    /// The codec four-character codes of the option's media.
    public var mediaSubTypes: [NSNumber] { track.formatSubType == 0 ? [] : [NSNumber(value: track.formatSubType)] }

    /// Whether the option has a characteristic (implied by its media type or declared).
    public func hasMediaCharacteristic(_ mediaCharacteristic: AVMediaCharacteristic) -> Bool {
        track.impliedCharacteristics.contains(mediaCharacteristic) || track.characteristics.contains(mediaCharacteristic)
    }

    /// Whether the option can be played.
    public var isPlayable: Bool { track.isPlayable }

    /// The option's language as a BCP 47 tag.
    public var extendedLanguageTag: String? {
        if let tag = track.extendedLanguageTag, !tag.isEmpty, tag != "und" { return tag }
        return track.language.flatMap { ISO639.tag(fromThreeLetter: $0) ?? ($0.count == 2 ? $0.lowercased() : nil) }
    }

    /// The option's locale.
    public var locale: Locale? { extendedLanguageTag.map { Locale(identifier: $0) } }

    /// The option's common metadata (the track's).
    public var commonMetadata: [AVMetadataItem] { track.commonMetadata }

    /// The option's name for display in the current locale.
    public var displayName: String { displayName(with: Locale.current) }

    /// The option's name for display in a locale: the track's title when it has one, else its
    /// language's name in that locale, else "Unknown Language".
    public func displayName(with locale: Locale) -> String {
        if let title = track.title, !title.isEmpty { return title }
        if let tag = extendedLanguageTag,
           let name = locale.localizedString(forLanguageCode: LanguageMatching.language(of: tag)) {
            return name
        }
        return "Unknown Language"
    }

    /// A description naming the option.
    public override var description: String {
        "<AVMediaSelectionOption: \(mediaType.rawValue), language = \(extendedLanguageTag ?? "und"), title = \(displayName(with: Locale(identifier: "en")))>"
    }
}
