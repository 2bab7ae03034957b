internal import CFFmpeg
import CoreVideo

/// The engine's process-wide set-up and facts.
package enum MediaEngine {
    /// The FFmpeg version string (e.g. "5.1.9-0+deb12u1").
    package static var ffmpegVersion: String { String(cString: av_version_info()) }

    /// FFmpeg's libraries print diagnostics to stderr; Apple's frameworks print nothing and
    /// report problems through return codes and errors, so the engine silences FFmpeg's log by
    /// default. Set AVFOUNDATION_FFMPEG_LOG to quiet, panic, fatal, error, warning, info, verbose
    /// or debug to see FFmpeg's own messages.
    private static let configured: Void = {
        let levels: [String: Int32] = ["quiet": AV_LOG_QUIET, "panic": AV_LOG_PANIC, "fatal": AV_LOG_FATAL,
                                       "error": AV_LOG_ERROR, "warning": AV_LOG_WARNING, "info": AV_LOG_INFO,
                                       "verbose": AV_LOG_VERBOSE, "debug": AV_LOG_DEBUG]
        let requested = ProcessInfo.processInfo.environment["AVFOUNDATION_FFMPEG_LOG"]?.lowercased()
        av_log_set_level(requested.flatMap { levels[$0] } ?? AV_LOG_QUIET)
    }()

    /// Applies the engine's one-time FFmpeg configuration. Every entry point into FFmpeg calls it;
    /// calling it again costs nothing.
    package static func configure() { _ = configured }

    /// The FFmpeg log level now in force.
    package static var logLevel: Int32 { av_log_get_level() }
}
