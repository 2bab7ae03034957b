// NSErrorPointer: the out-parameter type of Objective-C style error reporting, which
import Foundation
// swift-corelibs-foundation does not declare (it has no AutoreleasingUnsafeMutablePointer).

/// A pointer to an optional `NSError` that receives an error (`&error` with `var error: NSError?`).
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
