// AVMediaSelectionGroup: mutually exclusive options (audio languages, subtitle tracks).
import Foundation

/// A group of mutually exclusive media selection options.
public final class AVMediaSelectionGroup: NSObject, NSCopying, @unchecked Sendable {
    /// The options.
    public let options: [AVMediaSelectionOption]
    /// The option presented by default, if any.
    public let defaultOption: AVMediaSelectionOption?
    /// Whether having no option selected is allowed.
    public let allowsEmptySelection: Bool
    /// The characteristic the group was formed for (audible, legible).
    let characteristic: AVMediaCharacteristic

    init(options: [AVMediaSelectionOption], defaultOption: AVMediaSelectionOption?, allowsEmptySelection: Bool,
         characteristic: AVMediaCharacteristic) {
        self.options = options
        self.defaultOption = defaultOption
        self.allowsEmptySelection = allowsEmptySelection
        self.characteristic = characteristic
        super.init()
    }

    /// Returns the group itself (groups are immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The options that are playable.
    public class func playableMediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption])
        -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter(\.isPlayable)
    }

    /// The options whose locale's language matches `locale`'s.
    public class func mediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption],
                                            with locale: Locale) -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter { option in
            guard let tag = option.extendedLanguageTag else { return false }
            return LanguageMatching.matches(itemTag: tag, preferred: locale.identifier)
        }
    }

    /// The options that have every one of the characteristics.
    public class func mediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption],
                                            withMediaCharacteristics mediaCharacteristics: [AVMediaCharacteristic])
        -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter { option in mediaCharacteristics.allSatisfy(option.hasMediaCharacteristic) }
    }

    /// The options that have none of the characteristics.
    public class func mediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption],
                                            withoutMediaCharacteristics mediaCharacteristics: [AVMediaCharacteristic])
        -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter { option in !mediaCharacteristics.contains(where: option.hasMediaCharacteristic) }
    }

    /// The options whose language matches one of the preferred languages, ordered by the
    /// preference of the language they match; options without a matching language are left out.
    public class func mediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption],
                                            filteredAndSortedAccordingToPreferredLanguages preferredLanguages: [String])
        -> [AVMediaSelectionOption] {
        var result: [AVMediaSelectionOption] = []
        for language in preferredLanguages {
            for option in mediaSelectionOptions where !result.contains(where: { $0 === option })
                && LanguageMatching.matches(itemTag: option.extendedLanguageTag, preferred: language) {
                result.append(option)
            }
        }
        return result
    }
}
