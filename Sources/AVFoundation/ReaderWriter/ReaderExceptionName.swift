// Misuse of the reader API: what Apple raises as an Objective-C exception (NSInvalidArgumentException,
// NSInternalInconsistencyException) stops the program here, with Apple's wording.

/// The exception names Apple raises for reader misuse.
enum ReaderExceptionName: String {
    case invalidArgument = "NSInvalidArgumentException"
    case internalInconsistency = "NSInternalInconsistencyException"
}

/// Stops the program the way an uncaught Objective-C exception does on Apple platforms, with the
/// exception's name and reason (Apple's wording, e.g. "*** -[AVAssetReader startReading] cannot be
/// called again after reading has already started"). Swift cannot catch these on either platform.
func raiseReaderException(_ name: ReaderExceptionName, _ reason: String) -> Never {
    fatalError("Terminating app due to uncaught exception '\(name.rawValue)', reason: '\(reason)'")
}
