// FFmpegError: a negative FFmpeg return code with its message.
internal import CFFmpeg

/// An error returned by an FFmpeg call: the negative `AVERROR` code and FFmpeg's description.
package struct FFmpegError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The negative FFmpeg error code (`AVERROR(...)` or one of the `AVERROR_*` tags).
    package let code: Int32

    /// Wraps an FFmpeg return code (expected to be negative).
    package init(code: Int32) {
        self.code = code
    }

    /// `AVERROR(ENOMEM)`.
    package static var outOfMemory: FFmpegError { FFmpegError(code: cffmpeg_averror(ENOMEM)) }
    /// `AVERROR(EINVAL)`.
    package static var invalidArgument: FFmpegError { FFmpegError(code: cffmpeg_averror(EINVAL)) }
    /// `AVERROR_EOF`.
    package static var endOfFile: FFmpegError { FFmpegError(code: cffmpeg_averror_eof()) }
    /// `AVERROR(EAGAIN)`.
    package static var tryAgain: FFmpegError { FFmpegError(code: cffmpeg_averror_eagain()) }

    /// FFmpeg's message for the code (`av_strerror`).
    package var message: String {
        var buffer = [CChar](repeating: 0, count: 128)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "FFmpeg error \(code)" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    package var description: String { "FFmpegError(\(code)): \(message)" }

    /// Throws when `result` is negative; returns it otherwise.
    @discardableResult
    package static func check(_ result: Int32) throws(FFmpegError) -> Int32 {
        if result < 0 { throw FFmpegError(code: result) }
        return result
    }
}
