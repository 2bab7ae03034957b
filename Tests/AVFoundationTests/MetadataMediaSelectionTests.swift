// Media selection groups and options built from hand-made track lists.
import Testing
import Foundation
@testable import AVFoundation

@Suite("Media selection (metadata)")
struct MetadataMediaSelectionTests {
    static func track(_ id: CMPersistentTrackID, _ type: AVMediaType, _ language: String?, isDefault: Bool = false,
                      characteristics: [AVMediaCharacteristic] = [], title: String? = nil) -> SelectableTrack {
        SelectableTrack(trackID: id, mediaType: type, language: language, extendedLanguageTag: nil, isDefault: isDefault,
                        characteristics: characteristics, title: title, formatSubType: 0x6D70_3461)
    }

    @Test func groupsFromTracks() throws {
        let tracks = [
            Self.track(1, .video, nil, isDefault: true),
            Self.track(2, .audio, "eng", isDefault: true), Self.track(3, .audio, "fre"),
            Self.track(4, .subtitle, "eng"), Self.track(5, .subtitle, "fra", characteristics: [.containsOnlyForcedSubtitles]),
        ]
        let groups = MediaSelectionBuilder.groups(from: tracks)
        #expect(groups.count == 2)
        let audible = try #require(groups.first { $0.options.first?.hasMediaCharacteristic(.audible) == true })
        #expect(audible.allowsEmptySelection == false && audible.defaultOption?.extendedLanguageTag == "en")
        #expect(audible.options.map(\.extendedLanguageTag) == ["en", "fr"])
        #expect(audible.options[1].displayName(with: Locale(identifier: "en")) == "French")
        #expect(audible.options[0].mediaSubTypes == [NSNumber(value: 0x6D70_3461)])
        let legible = try #require(groups.first { $0.options.first?.hasMediaCharacteristic(.legible) == true })
        #expect(legible.allowsEmptySelection && legible.defaultOption == nil)
        let french = AVMediaSelectionGroup.mediaSelectionOptions(from: legible.options, with: Locale(identifier: "fr_FR"))
        #expect(french.count == 1 && french[0].hasMediaCharacteristic(.containsOnlyForcedSubtitles))
        let sorted = AVMediaSelectionGroup.mediaSelectionOptions(from: audible.options,
                                                                 filteredAndSortedAccordingToPreferredLanguages: ["fr-CA", "en"])
        #expect(sorted.map(\.extendedLanguageTag) == ["fr", "en"])
        #expect(AVMediaSelectionGroup.playableMediaSelectionOptions(from: audible.options).count == 2)
        #expect(AVMediaSelectionGroup.mediaSelectionOptions(from: legible.options,
                                                            withoutMediaCharacteristics: [.containsOnlyForcedSubtitles]).count == 1)
        // A single audio track outside any alternate group forms no audible group.
        #expect(MediaSelectionBuilder.groups(from: [Self.track(1, .audio, "eng")]).isEmpty)
    }
}
