import CFFmpeg
import CoreVideo

/// Namespace for the engine.
package enum MediaEngine {
    /// The FFmpeg libavformat version string.
    package static var ffmpegVersion: String { String(cString: av_version_info()) }
}
