// Items from FFmpeg's view of a file (ContainerTags), for the formats Apple's framework has no
// key space of its own for. Decisions, documented in docs/COMPATIBILITY.md:
// - Ogg/FLAC/Opus (Vorbis comments): key space "vorb", key = the field name upper-cased,
//   format "org.xiph.vorbis-comment".
// - Matroska/WebM: key space and format "org.matroska", key = FFmpeg's tag name upper-cased.
// - WAV/AIFF: Apple's audio-file key space "caaf", key = the RIFF INFO chunk ID (INAM, IART, …),
//   format "com.apple.coreaudio.caaf".
// - anything else: the common key space directly (key = the common key), format .unknown.
// Every item that maps to a common key appears in commonMetadata.
import Foundation

enum ContainerMetadata {
    /// The key space of Vorbis comments (Ogg, FLAC, Opus).
    static let vorbisKeySpace = AVMetadataKeySpace("vorb")
    /// The format of Vorbis comments.
    static let vorbisFormat = AVMetadataFormat("org.xiph.vorbis-comment")
    /// The key space of Matroska tags.
    static let matroskaKeySpace = AVMetadataKeySpace("org.matroska")
    /// The format of Matroska tags.
    static let matroskaFormat = AVMetadataFormat("org.matroska")
    /// The format of RIFF INFO / AIFF text chunks.
    static let audioFileFormat = AVMetadataFormat("com.apple.coreaudio.caaf")

    /// FFmpeg's normalised names for RIFF INFO (and AIFF) chunks, back to the chunk IDs.
    private static let riffIDs: [String: String] = [
        "title": "INAM", "artist": "IART", "album": "IPRD", "date": "ICRD", "genre": "IGNR",
        "comment": "ICMT", "copyright": "ICOP", "encoder": "ISFT", "language": "ILNG",
        "encoded_by": "IENG", "subject": "ISBJ", "track": "ITRK", "author": "IART",
    ]

    /// Keys FFmpeg adds that are not the file's metadata.
    private static let ignored: Set<String> = ["major_brand", "minor_version", "compatible_brands", "handler_name",
                                               "vendor_id", "duration", "_statistics_tags", "_statistics_writing_app",
                                               "_statistics_writing_date_utc"]

    private static func classify(_ formatName: String) -> (AVMetadataKeySpace, AVMetadataFormat) {
        let names = Set(formatName.lowercased().split(separator: ",").map(String.init))
        if !names.isDisjoint(with: ["ogg", "flac", "opus", "oga", "ogv", "spx"]) { return (vorbisKeySpace, vorbisFormat) }
        if !names.isDisjoint(with: ["matroska", "webm"]) { return (matroskaKeySpace, matroskaFormat) }
        if !names.isDisjoint(with: ["wav", "aiff", "w64", "rf64"]) { return (.audioFile, audioFileFormat) }
        return (.common, .unknown)
    }

    /// One item per tag, in the container's key space.
    static func items(_ tags: [(key: String, value: String)], formatName: String) -> [AVMetadataItem] {
        let (keySpace, _) = classify(formatName)
        var items: [AVMetadataItem] = []
        for (key, value) in tags where !ignored.contains(key.lowercased()) && !key.lowercased().hasPrefix("_statistics") {
            let itemKey: String
            switch keySpace {
            case .audioFile: itemKey = riffIDs[key.lowercased()] ?? key
            case .common:
                guard let common = CommonKeyMapping.commonKey(forKey: key.uppercased() as NSString,
                                                              keySpace: vorbisKeySpace) else { continue }
                itemKey = common.rawValue
            default: itemKey = key.uppercased()
            }
            items.append(AVMetadataItem(key: itemKey as NSString, keySpace: keySpace, value: value as NSString,
                                        dataType: (kCMMetadataBaseDataType_UTF8 as String)))
        }
        return items
    }

    /// Adds file-level tags, chapters and track tags from the demuxer's view.
    static func add(_ container: ContainerTags, to metadata: inout AssetMetadata) {
        let format = classify(container.formatName).1
        metadata.add(items(container.tags, formatName: container.formatName), format: format)
        addChapters(container.chapters, to: &metadata)
        addTrackTags(container, to: &metadata)
    }

    /// Adds track-level tags (title, language-independent tags; "language" itself is the
    /// track's property, not metadata).
    static func addTrackTags(_ container: ContainerTags, to metadata: inout AssetMetadata) {
        let format = classify(container.formatName).1
        for (trackID, tags) in container.trackTags.sorted(by: { $0.key < $1.key }) {
            let kept = tags.filter { $0.key.lowercased() != "language" }
            metadata.addTrackItems(items(kept, formatName: container.formatName), format: format, trackID: trackID)
        }
    }

    /// Adds the demuxer's chapters: one group per chapter with a title item (common key
    /// space, key "title", timed to the chapter), under the "und" locale as the demuxer's
    /// chapters carry no language.
    static func addChapters(_ chapters: [ContainerTags.Chapter], to metadata: inout AssetMetadata) {
        let groups = chapters.enumerated().map { index, chapter -> AVTimedMetadataGroup in
            let range = CMTimeRange(start: chapter.start, end: chapter.end)
            let title = chapter.title ?? "Chapter \(index + 1)"
            let item = AVMetadataItem(key: AVMetadataKey.commonKeyTitle.rawValue as NSString, keySpace: .common,
                                      value: title as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String),
                                      time: range.start, duration: range.duration)
            return AVTimedMetadataGroup(items: [item], timeRange: range)
        }
        metadata.addChapters(groups, locale: Locale(identifier: "und"))
    }
}
