// The errors the asset writer reports, with Apple's codes and texts, and the exception texts it
// fails with where Apple's AVFoundation raises an NSException.
import Foundation
import MediaEngine

enum WriterError {
    /// The error for a writing failure of the engine: a full disk or file-size limit is
    /// `AVError.diskFull`, an existing file `.fileAlreadyExists`, an unwritable destination
    /// `.unknown` (as Apple reports it) — each with the POSIX error underneath; encoder failures
    /// are `.encodeFailed`; the rest go through `AVError.from(_:url:)`.
    static func from(_ error: MediaError, url: URL, encoding: Bool = false) -> any Error {
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
                return fileAlreadyExists(url: url)
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
        return AVError.from(error, url: url)
    }

    /// Apple's error for writing over an existing file (-11823 "Cannot Save").
    static func fileAlreadyExists(url: URL) -> AVError {
        AVError(.fileAlreadyExists, userInfo: [
            NSLocalizedDescriptionKey: "Cannot Save",
            NSLocalizedFailureReasonErrorKey: "A file already exists at \(url.path).",
            NSLocalizedRecoverySuggestionErrorKey: "Try saving again.",
            NSURLErrorKey: url, NSFilePathErrorKey: url.path,
            NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EEXIST),
                                          userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(EEXIST))]),
        ])
    }

    /// An error for media the writer cannot take (format changes, unsupported conversions).
    static func unsupported(_ reason: String, url: URL) -> AVError {
        AVError(.unsupportedOutputSettings, userInfo: [
            NSLocalizedDescriptionKey: "Cannot Encode",
            NSLocalizedFailureReasonErrorKey: reason,
            NSURLErrorKey: url,
        ])
    }

    /// An error for samples that break the writer's rules (timestamps out of order…).
    static func invalidMedia(_ reason: String, url: URL) -> AVError {
        AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: reason, NSURLErrorKey: url])
    }

    /// Stops the program with Apple's exception text: `*** -[Class selector] reason`.
    static func raise(_ className: String, _ selector: String, _ reason: String, file: StaticString = #fileID,
                      line: UInt = #line) -> Never {
        preconditionFailure("*** -[\(className) \(selector)] \(reason)", file: file, line: line)
    }
}
