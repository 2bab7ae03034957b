// The exceptions capture classes raise where Apple's raise an NSException (the project's
// convention: the program stops with Apple's text, see WriterError.raise).

enum CaptureException {
    /// Stops the program with `*** -[Class selector] reason`.
    static func raise(_ className: String, _ selector: String, _ reason: String, file: StaticString = #fileID,
                      line: UInt = #line) -> Never {
        WriterError.raise(className, selector, reason, file: file, line: line)
    }

    /// Apple's text for a device setter called without the configuration lock.
    static func notLocked(_ selector: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        raise("AVCaptureDevice", selector, "May not be called without first successfully calling lockForConfiguration:",
              file: file, line: line)
    }
}
