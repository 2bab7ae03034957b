// The track description the asset layer feeds to media selection, and how groups are formed.
import Foundation

/// One track as media selection sees it.
struct SelectableTrack: Sendable {
    var trackID: CMPersistentTrackID
    var mediaType: AVMediaType
    /// ISO 639 language code as the container gives it ("eng", "fr"), nil if undetermined.
    var language: String?
    /// BCP 47 tag, when the container has one (mp4 `elng`, Matroska LanguageIETF).
    var extendedLanguageTag: String?
    /// Whether the track is on by default (tkhd enabled / Matroska FlagDefault).
    var isDefault: Bool
    /// Characteristics beyond those implied by the media type (forced, SDH, …).
    var characteristics: [AVMediaCharacteristic]
    /// A title for display, if the file names the track.
    var title: String?
    /// The codec four-character code (e.g. 'mp4a'), 0 if unknown.
    var formatSubType: FourCharCode
    /// The alternate group (tkhd); 0 means "group by media characteristic".
    var alternateGroup: Int = 0
    /// Whether the track can be decoded.
    var isPlayable: Bool = true
    /// The track's common metadata.
    var commonMetadata: [AVMetadataItem] = []

    /// The characteristics the media type implies.
    var impliedCharacteristics: [AVMediaCharacteristic] {
        switch mediaType {
        case .audio: return [.audible]
        case .video: return [.visual, .frameBased]
        case .subtitle, .closedCaption, .text: return [.legible]
        default: return []
        }
    }

    /// The selection group characteristic of the track: audible or legible; nil for others.
    var selectionCharacteristic: AVMediaCharacteristic? {
        switch mediaType {
        case .audio: return .audible
        case .subtitle, .closedCaption, .text: return .legible
        default: return nil
        }
    }
}

enum MediaSelectionBuilder {
    /// The selection groups of an asset: audible and legible tracks, one group per
    /// characteristic (tracks in a non-zero alternate group together, as the file says).
    /// An audible group is formed when there are at least two audio tracks or an alternate
    /// group; a legible group whenever there is a legible track. Legible groups allow an empty
    /// selection; audible groups do not.
    static func groups(from tracks: [SelectableTrack]) -> [AVMediaSelectionGroup] {
        var result: [AVMediaSelectionGroup] = []
        for characteristic in [AVMediaCharacteristic.audible, .legible] {
            let members = tracks.filter { $0.selectionCharacteristic == characteristic }
            guard !members.isEmpty else { continue }
            if characteristic == .audible && members.count < 2 && members.allSatisfy({ $0.alternateGroup == 0 }) { continue }
            let options = members.map(AVMediaSelectionOption.init(track:))
            let allowsEmpty = characteristic == .legible
            let defaultOption = options.first { $0.track.isDefault } ?? (allowsEmpty ? nil : options.first)
            result.append(AVMediaSelectionGroup(options: options, defaultOption: defaultOption,
                                                allowsEmptySelection: allowsEmpty, characteristic: characteristic))
        }
        return result
    }
}
