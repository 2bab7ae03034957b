// The metadata entry point the asset layer calls: reads the file's own bytes for the formats we
// parse (ISO-BMFF: MP4/MOV/M4A/3GP; ID3v2/ID3v1 on MP3 and friends), and turns FFmpeg's tags
// (ContainerTags) into items for the rest (Ogg/FLAC/Opus, Matroska/WebM, WAV, AIFF, …).
import Foundation
internal import MediaEngine

/// Reads an asset's metadata.
enum MetadataReader {
    /// Reads the metadata of the file at `url`. `container` is what the demuxer reported; it
    /// supplies the items of formats parsed elsewhere and chapters the bytes do not carry.
    ///
    /// Throws only when the file cannot be opened; damaged or hostile metadata yields fewer
    /// items, never an error, crash or hang.
    static func read(url: URL, container: ContainerTags) throws -> AssetMetadata {
        let file = try MediaFile(url: url)
        var metadata = AssetMetadata()
        let head = file.read(upTo: 12, at: 0)
        if ISOBoxReader.looksLikeISOBMFF(head) {
            ISOBMFFMetadataParser(file: file).parse(into: &metadata)
            if metadata.chapterGroupsByLocale.isEmpty {
                ContainerMetadata.addChapters(container.chapters, to: &metadata)
            }
            return metadata
        }
        if head.starts(with: [0x49, 0x44, 0x33]) || ID3Parser.hasID3v1(file) {
            ID3Parser(file: file).parse(into: &metadata)
            if !metadata.formats.isEmpty {
                ContainerMetadata.addChapters(container.chapters, to: &metadata)
                ContainerMetadata.addTrackTags(container, to: &metadata)
                return metadata
            }
        }
        ContainerMetadata.add(container, to: &metadata)
        return metadata
    }
}
