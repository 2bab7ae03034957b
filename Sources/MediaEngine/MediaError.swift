// MediaError: why the engine could not open, parse or read a media file, with the FFmpeg code.
internal import CFFmpeg

/// An error from the engine's demuxing and indexing: a kind Apple's frameworks distinguish,
/// the FFmpeg (negative `AVERROR`) code that caused it and a message. The AVFoundation layer
/// maps each case onto the error Apple reports.
package enum MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not exist (`AVERROR(ENOENT)`).
    case fileNotFound(code: Int32, message: String)
    /// The file exists but cannot be read (`AVERROR(EACCES)`/`EPERM`).
    case permissionDenied(code: Int32, message: String)
    /// No demuxer recognised the bytes (not a media file, or an empty one).
    case formatNotRecognized(code: Int32, message: String)
    /// The container was recognised but is damaged or inconsistent.
    case failedToParse(code: Int32, message: String)
    /// The stream's codec has no decoder in this FFmpeg build.
    case decoderNotFound(code: Int32, message: String)
    /// An argument was out of range (bad stream index, invalid time).
    case invalidArgument(message: String)
    /// The operation was cancelled or ran past its deadline (`AVERROR_EXIT`).
    case cancelled(code: Int32, message: String)
    /// Any other failure: an I/O error, memory exhaustion, …
    case other(code: Int32, message: String)

    /// The FFmpeg error code behind the failure (0 when none was involved).
    package var code: Int32 {
        switch self {
        case .fileNotFound(let c, _), .permissionDenied(let c, _), .formatNotRecognized(let c, _),
             .failedToParse(let c, _), .decoderNotFound(let c, _), .cancelled(let c, _), .other(let c, _):
            return c
        case .invalidArgument:
            return cffmpeg_averror(EINVAL)
        }
    }

    /// A human-readable explanation.
    package var message: String {
        switch self {
        case .fileNotFound(_, let m), .permissionDenied(_, let m), .formatNotRecognized(_, let m),
             .failedToParse(_, let m), .decoderNotFound(_, let m), .invalidArgument(let m), .cancelled(_, let m),
             .other(_, let m):
            return m
        }
    }

    /// The POSIX `errno` behind the code, when the code is `AVERROR(errno)`.
    package var posixErrorCode: Int32? {
        let c = code
        // FFmpeg's own error tags are large negative four-character codes; AVERROR(e) is -e.
        return c < 0 && c > -4096 ? -c : nil
    }

    package var description: String { "MediaError(\(code)): \(message)" }

    /// `AVERROR_INVALIDDATA` (FFERRTAG('I','N','D','A')).
    package static let invalidDataCode: Int32 = errorTag(0x49, 0x4E, 0x44, 0x41)
    /// `AVERROR_EXIT` (FFERRTAG('E','X','I','T')), returned when an interrupt callback stops I/O.
    package static let exitCode: Int32 = errorTag(0x45, 0x58, 0x49, 0x54)
    /// `AVERROR_DECODER_NOT_FOUND` (FFERRTAG(0xF8,'D','E','C')).
    package static let decoderNotFoundCode: Int32 = errorTag(0xF8, 0x44, 0x45, 0x43)
    /// `AVERROR_STREAM_NOT_FOUND` (FFERRTAG(0xF8,'S','T','R')).
    package static let streamNotFoundCode: Int32 = errorTag(0xF8, 0x53, 0x54, 0x52)

    private static func errorTag(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> Int32 {
        -Int32(bitPattern: a | b << 8 | c << 16 | d << 24)
    }

    /// FFmpeg's text for a code.
    package static func ffmpegMessage(_ code: Int32) -> String {
        FFmpegError(code: code).message
    }

    /// Classifies a failed `avformat_open_input`/`avformat_find_stream_info` return code.
    package static func opening(code: Int32, path: String) -> MediaError {
        let text = ffmpegMessage(code)
        switch code {
        case cffmpeg_averror(ENOENT), cffmpeg_averror(ENOTDIR):
            return .fileNotFound(code: code, message: "\(path): \(text)")
        case cffmpeg_averror(EACCES), cffmpeg_averror(EPERM):
            return .permissionDenied(code: code, message: "\(path): \(text)")
        case exitCode:
            return .cancelled(code: code, message: "\(path): opening was cancelled or timed out")
        case invalidDataCode, cffmpeg_averror_eof():
            return .formatNotRecognized(code: code, message: "\(path): not a recognised media format (\(text))")
        default:
            return .other(code: code, message: "\(path): \(text)")
        }
    }
}
