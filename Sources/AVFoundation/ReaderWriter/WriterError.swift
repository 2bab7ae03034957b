// The errors the asset writer reports, with Apple's codes and texts, and the exception texts it
// fails with where Apple's AVFoundation raises an NSException.
import Foundation
internal import MediaEngine

enum WriterError {
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
