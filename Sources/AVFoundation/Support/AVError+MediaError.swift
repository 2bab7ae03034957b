// Mapping the engine's MediaError onto the errors Apple's AV Foundation reports.
import Foundation
internal import MediaEngine

/// The domain of the underlying FFmpeg error attached as `NSUnderlyingErrorKey` when the code is
/// not a POSIX errno.
let FFmpegErrorDomain = "FFmpegErrorDomain"

extension AVError {
    /// The error Apple reports for a failure to open or read `url`.
    ///
    /// Missing and unreadable files are reported as Apple's URL loading reports them
    /// (`NSURLErrorDomain` `NSURLErrorFileDoesNotExist` (-1100) / `NSURLErrorNoPermissionsToReadFile`
    /// (-1102)) with the POSIX error underneath; everything else is an `AVError` in
    /// `AVFoundationErrorDomain` whose `NSUnderlyingErrorKey` carries the FFmpeg or POSIX error.
    static func from(_ error: MediaError, url: URL?) -> any Error {
        let underlying: NSError
        if let posix = error.posixErrorCode {
            underlying = NSError(domain: NSPOSIXErrorDomain, code: Int(posix),
                                 userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(posix))])
        } else {
            underlying = NSError(domain: FFmpegErrorDomain, code: Int(error.code),
                                 userInfo: [NSLocalizedDescriptionKey: error.message])
        }
        var info: [String: Any] = [NSUnderlyingErrorKey: underlying, NSLocalizedFailureReasonErrorKey: error.message]
        if let url { info[NSURLErrorKey] = url; info[NSFilePathErrorKey] = url.path }
        switch error {
        case .fileNotFound:
            info[NSLocalizedDescriptionKey] = "The requested URL was not found on this server."
            info[NSLocalizedFailureReasonErrorKey] = nil
            return NSError(domain: NSURLErrorDomain, code: NSURLErrorFileDoesNotExist, userInfo: info)
        case .permissionDenied:
            info[NSLocalizedDescriptionKey] = "You do not have permission to access the requested resource."
            info[NSLocalizedFailureReasonErrorKey] = nil
            return NSError(domain: NSURLErrorDomain, code: NSURLErrorNoPermissionsToReadFile, userInfo: info)
        case .formatNotRecognized:
            info[NSLocalizedFailureReasonErrorKey] = AVError.failureReason(for: .fileFormatNotRecognized)
            return AVError(.fileFormatNotRecognized, userInfo: info)
        case .failedToParse:
            info[NSLocalizedFailureReasonErrorKey] = AVError.failureReason(for: .fileFailedToParse)
            return AVError(.fileFailedToParse, userInfo: info)
        case .decoderNotFound:
            return AVError(.decoderNotFound, userInfo: info)
        case .cancelled:
            return AVError(.operationCancelled, userInfo: info)
        case .invalidArgument, .other:
            return AVError(.unknown, userInfo: info)
        }
    }

    /// The error Apple reports for a failure while writing `url`: a full disk or file-size limit
    /// is `.diskFull`, an existing file `.fileAlreadyExists`, an unwritable destination
    /// `.unknown` — each with the POSIX error underneath; encoder failures are `.encodeFailed`;
    /// everything else is reported as reading would report it (`from(_:url:)`).
    static func from(_ error: MediaError, writingTo url: URL, encoding: Bool = false) -> any Error {
        var info: [String: Any] = [NSURLErrorKey: url, NSFilePathErrorKey: url.path]
        if let posix = error.posixErrorCode {
            info[NSUnderlyingErrorKey] = NSError(domain: NSPOSIXErrorDomain, code: Int(posix),
                                                 userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(posix))])
            switch posix {
            case ENOSPC, EDQUOT, EFBIG:
                info[NSLocalizedDescriptionKey] = "Operation Stopped"
                info[NSLocalizedFailureReasonErrorKey] = "There is not enough available space to continue the file writing. (\(error.message))"
                info[NSLocalizedRecoverySuggestionErrorKey] = "Make room by deleting existing files."
                return AVError(.diskFull, userInfo: info)
            case EEXIST:
                return WriterError.fileAlreadyExists(url: url)
            case EACCES, EPERM, EROFS, ENOENT, ENOTDIR, EISDIR:
                info[NSLocalizedFailureReasonErrorKey] = "The file could not be written. (\(error.message))"
                return AVError(.unknown, userInfo: info)
            default:
                break
            }
        }
        if encoding {
            info[NSUnderlyingErrorKey] = NSError(domain: FFmpegErrorDomain, code: Int(error.code),
                                                 userInfo: [NSLocalizedDescriptionKey: error.message])
            info[NSLocalizedFailureReasonErrorKey] = "The media could not be encoded. (\(error.message))"
            return AVError(.encodeFailed, userInfo: info)
        }
        return from(error, url: url)
    }
}
