// The seam between the demuxer and the metadata readers: what FFmpeg's demuxer reports of a
// file's tags and chapters, for the formats whose metadata we do not parse from the bytes
// ourselves (Vorbis comments, FLAC, Matroska/WebM, WAV INFO, …), and as a fallback.
import CoreMedia

/// Tags and chapters as FFmpeg's demuxer reports them (its normalised dictionaries).
struct ContainerTags: Sendable {
    /// A chapter FFmpeg found (Matroska editions, Nero `chpl`, QuickTime chapter tracks, Ogg
    /// CHAPTERxx comments), with its times in the asset's timeline.
    struct Chapter: Sendable {
        var start: CMTime
        var end: CMTime
        /// The chapter's title, if the file gives one.
        var title: String?
        /// The chapter's other tags, in file order.
        var tags: [(key: String, value: String)]
    }

    /// The demuxer's short name list, e.g. "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "ogg",
    /// "flac", "mp3", "wav", "aiff".
    var formatName: String
    /// File-level tags, in file order, with keys as FFmpeg gives them ("title", "ARTIST", …).
    var tags: [(key: String, value: String)]
    /// Chapters, in time order.
    var chapters: [Chapter]
    /// Per-track tags ("language", "handler_name", "title", …), keyed by track ID.
    var trackTags: [CMPersistentTrackID: [(key: String, value: String)]]

    init(formatName: String, tags: [(key: String, value: String)] = [], chapters: [Chapter] = [],
         trackTags: [CMPersistentTrackID: [(key: String, value: String)]] = [:]) {
        self.formatName = formatName
        self.tags = tags
        self.chapters = chapters
        self.trackTags = trackTags
    }
}
