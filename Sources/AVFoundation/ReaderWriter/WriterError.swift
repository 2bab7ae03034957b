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

    /// What Apple's configuration setters check before storing: a value not satisfying
    /// `requirement` raises, so does any change once the object's `status` is not 0 (writing
    /// started).
    static func checkSetter(_ className: String, _ selector: String, status: Int, valid: Bool = true,
                            requirement: @autoclosure () -> String = "") {
        if !valid { raise(className, selector, "invalid parameter not satisfying: \(requirement())") }
        if status != 0 { raise(className, selector, "Cannot call method when status is \(status)") }
    }

    /// Stops the program with Apple's exception text: `*** -[Class selector] reason`.
    static func raise(_ className: String, _ selector: String, _ reason: String, file: StaticString = #fileID,
                      line: UInt = #line) -> Never {
        preconditionFailure("*** -[\(className) \(selector)] \(reason)", file: file, line: line)
    }
}

/// An asset writer object (the writer, its inputs) whose settable fields are one struct behind a
/// lock, configured as Apple's setters are: read under the lock; set after `WriterError.checkSetter`.
protocol WriterConfigurable: AnyObject {
    associatedtype Fields: Sendable
    /// The class named in exception texts.
    static var exceptionClassName: String { get }
    /// Apple's status number in exception texts (0 while configurable).
    var configurationStatus: Int { get }
    /// Runs `body` on the fields under the object's lock.
    func withFields<R: Sendable>(_ body: (inout Fields) -> R) -> R
}

extension WriterConfigurable {
    /// One field, read under the lock.
    subscript<Value: Sendable>(_ field: KeyPath<Fields, Value>) -> Value { withFields { $0[keyPath: field] } }

    /// A configuration setter as Apple's (see `WriterError.checkSetter`), then `field` set under the lock.
    func configure<Value: Sendable>(_ field: WritableKeyPath<Fields, Value>, _ value: Value, _ selector: String,
                                    valid: Bool = true, requirement: @autoclosure () -> String = "") {
        WriterError.checkSetter(Self.exceptionClassName, selector, status: configurationStatus, valid: valid, requirement: requirement())
        withFields { $0[keyPath: field] = value }
    }
}
