// UTTypeRegistry: the system type declarations this implementation knows, plus types declared
// at run time with UTType(exportedAs:) / UTType(importedAs:).
import Foundation
import Synchronization

/// One declared type: its identifier, direct supertypes and tags.
struct UTTypeDeclaration: Sendable {
    var identifier: String
    var conformsTo: [String]
    var extensions: [String] = []
    var mimeTypes: [String] = []
    var description: String?
    var isSystem = true
}

/// The table of declared types, by lowercased identifier (reads and run-time declarations in a Mutex).
final class UTTypeRegistry: Sendable {
    static let shared = UTTypeRegistry()

    private let table: Mutex<[String: UTTypeDeclaration]>

    private init() {
        var declarations: [String: UTTypeDeclaration] = [:]
        for d in Self.system { declarations[d.identifier.lowercased()] = d }
        table = Mutex(declarations)
    }

    func declaration(_ identifier: String) -> UTTypeDeclaration? {
        table.withLock { $0[identifier.lowercased()] }
    }

    func declare(_ declaration: UTTypeDeclaration) {
        table.withLock { declarations in
            if declarations[declaration.identifier.lowercased()] == nil {
                declarations[declaration.identifier.lowercased()] = declaration
            }
        }
    }

    /// Declared types carrying `tag` in `tagClass`, system declarations in table order first.
    func declarations(tag: String, tagClass: UTTagClass) -> [UTTypeDeclaration] {
        let needle = tag.lowercased()
        let all = table.withLock { declarations in
            Self.system.map { declarations[$0.identifier.lowercased()] ?? $0 }
                + declarations.values.filter { !$0.isSystem }.sorted { $0.identifier < $1.identifier }
        }
        return all.filter { d in
            switch tagClass {
            case .filenameExtension: return d.extensions.contains(needle)
            case .mimeType: return d.mimeTypes.contains(needle)
            default: return false
            }
        }
    }

    /// The system declarations, in lookup-priority order (a tag shared by several types
    /// resolves to the first).
    static let system: [UTTypeDeclaration] = [
        // Roots and abstract types.
        .init(identifier: "public.item", conformsTo: [], description: "item"),
        .init(identifier: "public.content", conformsTo: [], description: "content"),
        .init(identifier: "public.composite-content", conformsTo: ["public.content"], description: "composite content"),
        .init(identifier: "public.data", conformsTo: ["public.item"], description: "data"),
        .init(identifier: "public.directory", conformsTo: ["public.item"], description: "directory"),
        .init(identifier: "public.folder", conformsTo: ["public.directory"], description: "folder"),
        .init(identifier: "public.archive", conformsTo: ["public.data"], description: "archive"),
        .init(identifier: "public.zip-archive", conformsTo: ["public.data", "public.archive"], extensions: ["zip"],
              mimeTypes: ["application/zip"], description: "ZIP archive"),
        // Images.
        .init(identifier: "public.image", conformsTo: ["public.data", "public.content"], description: "image"),
        .init(identifier: "public.png", conformsTo: ["public.image"], extensions: ["png"], mimeTypes: ["image/png"],
              description: "PNG image"),
        .init(identifier: "public.jpeg", conformsTo: ["public.image"], extensions: ["jpeg", "jpg", "jpe"],
              mimeTypes: ["image/jpeg", "image/jpg"], description: "JPEG image"),
        .init(identifier: "public.tiff", conformsTo: ["public.image"], extensions: ["tiff", "tif"],
              mimeTypes: ["image/tiff"], description: "TIFF image"),
        .init(identifier: "com.compuserve.gif", conformsTo: ["public.image"], extensions: ["gif"],
              mimeTypes: ["image/gif"], description: "GIF image"),
        .init(identifier: "com.microsoft.bmp", conformsTo: ["public.image"], extensions: ["bmp", "dib"],
              mimeTypes: ["image/bmp", "image/x-bmp"], description: "Windows BMP image"),
        .init(identifier: "com.microsoft.ico", conformsTo: ["public.image"], extensions: ["ico"],
              mimeTypes: ["image/vnd.microsoft.icon", "image/x-icon"], description: "Windows icon image"),
        .init(identifier: "public.heif-standard", conformsTo: ["public.image"], description: "HEIF image"),
        .init(identifier: "public.heic", conformsTo: ["public.heif-standard"], extensions: ["heic"],
              mimeTypes: ["image/heic"], description: "HEIC image"),
        .init(identifier: "public.heif", conformsTo: ["public.heif-standard"], extensions: ["heif"],
              mimeTypes: ["image/heif"], description: "HEIF image"),
        .init(identifier: "org.webmproject.webp", conformsTo: ["public.image"], extensions: ["webp"],
              mimeTypes: ["image/webp"], description: "WebP image"),
        .init(identifier: "public.svg-image", conformsTo: ["public.image"], extensions: ["svg", "svgz"],
              mimeTypes: ["image/svg+xml"], description: "SVG image"),
        // Audiovisual content.
        .init(identifier: "public.audiovisual-content", conformsTo: ["public.data", "public.content"],
              description: "audiovisual content"),
        .init(identifier: "public.movie", conformsTo: ["public.audiovisual-content"], description: "movie"),
        .init(identifier: "public.video", conformsTo: ["public.movie"], description: "video"),
        .init(identifier: "public.audio", conformsTo: ["public.audiovisual-content"], description: "audio"),
        .init(identifier: "com.apple.quicktime-movie", conformsTo: ["public.movie"], extensions: ["mov", "qt"],
              mimeTypes: ["video/quicktime"], description: "QuickTime movie"),
        .init(identifier: "public.mpeg-4", conformsTo: ["public.movie"], extensions: ["mp4", "mpg4"],
              mimeTypes: ["video/mp4", "video/mp4v"], description: "MPEG-4 movie"),
        .init(identifier: "com.apple.m4v-video", conformsTo: ["public.mpeg-4"], extensions: ["m4v"],
              mimeTypes: ["video/x-m4v"], description: "MPEG-4 video"),
        .init(identifier: "public.mpeg-4-audio", conformsTo: ["public.mpeg-4", "public.audio"], extensions: ["m4a"],
              mimeTypes: ["audio/mp4", "audio/x-m4a", "audio/mp4a-latm"], description: "MPEG-4 audio"),
        .init(identifier: "com.apple.protected-mpeg-4-audio", conformsTo: ["public.audio"], extensions: ["m4p"],
              mimeTypes: ["audio/x-m4p"], description: "protected MPEG-4 audio"),
        .init(identifier: "public.mp3", conformsTo: ["public.audio"], extensions: ["mp3"],
              mimeTypes: ["audio/mpeg", "audio/mpeg3", "audio/mp3", "audio/x-mp3"], description: "MP3 audio"),
        .init(identifier: "com.microsoft.waveform-audio", conformsTo: ["public.audio"], extensions: ["wav", "wave"],
              mimeTypes: ["audio/vnd.wave", "audio/wav", "audio/wave", "audio/x-wav"], description: "Waveform audio"),
        .init(identifier: "public.aiff-audio", conformsTo: ["public.audio"], extensions: ["aiff", "aif"],
              mimeTypes: ["audio/aiff", "audio/x-aiff"], description: "AIFF audio"),
        .init(identifier: "public.aifc-audio", conformsTo: ["public.audio"], extensions: ["aifc", "cdda"],
              mimeTypes: ["audio/x-aifc"], description: "AIFF-C audio"),
        .init(identifier: "com.apple.coreaudio-format", conformsTo: ["public.audio"], extensions: ["caf"],
              mimeTypes: ["audio/x-caf"], description: "Core Audio format"),
        .init(identifier: "public.mpeg-2-transport-stream", conformsTo: ["public.movie"], extensions: ["ts"],
              mimeTypes: ["video/mp2t"], description: "MPEG-2 transport stream"),
        .init(identifier: "public.mpeg-2-video", conformsTo: ["public.movie"], extensions: ["m2v"],
              mimeTypes: ["video/mpeg2"], description: "MPEG-2 video"),
        .init(identifier: "public.mpeg", conformsTo: ["public.movie"], extensions: ["mpg", "mpeg", "mpe", "m75", "m15"],
              mimeTypes: ["video/mpeg", "video/mpg", "video/x-mpeg", "video/x-mpg"], description: "MPEG movie"),
        .init(identifier: "public.avi", conformsTo: ["public.movie"], extensions: ["avi", "vfw"],
              mimeTypes: ["video/avi", "video/msvideo", "video/x-msvideo"], description: "AVI movie"),
        .init(identifier: "com.apple.protected-mpeg-4-video", conformsTo: ["com.apple.m4v-video"],
              description: "protected MPEG-4 video"),
        .init(identifier: "public.midi-audio", conformsTo: ["public.audio"], extensions: ["mid", "midi", "smf", "kar"],
              mimeTypes: ["audio/midi", "audio/x-midi"], description: "MIDI audio"),
        .init(identifier: "public.playlist", conformsTo: ["public.data"], description: "playlist"),
        .init(identifier: "public.m3u-playlist", conformsTo: ["public.text", "public.playlist"], extensions: ["m3u", "m3u8"],
              mimeTypes: ["audio/mpegurl", "audio/x-mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl"],
              description: "M3U playlist"),
        .init(identifier: "public.3gpp", conformsTo: ["public.movie"], extensions: ["3gp", "3gpp", "sdv"],
              mimeTypes: ["video/3gpp", "audio/3gpp"], description: "3GPP multimedia"),
        // Text and documents.
        .init(identifier: "public.text", conformsTo: ["public.data", "public.content"], description: "text"),
        .init(identifier: "public.plain-text", conformsTo: ["public.text"], extensions: ["txt", "text"],
              mimeTypes: ["text/plain"], description: "plain text"),
        .init(identifier: "public.utf8-plain-text", conformsTo: ["public.plain-text"], description: "Unicode text"),
        .init(identifier: "public.json", conformsTo: ["public.text"], extensions: ["json"],
              mimeTypes: ["application/json"], description: "JSON"),
        .init(identifier: "public.xml", conformsTo: ["public.text"], extensions: ["xml"],
              mimeTypes: ["application/xml", "text/xml"], description: "XML"),
        .init(identifier: "public.html", conformsTo: ["public.text"], extensions: ["html", "htm", "shtml", "shtm"],
              mimeTypes: ["text/html"], description: "HTML text"),
        .init(identifier: "com.adobe.pdf", conformsTo: ["public.data", "public.composite-content"], extensions: ["pdf"],
              mimeTypes: ["application/pdf"], description: "PDF document"),
    ]
}
