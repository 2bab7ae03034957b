// AVVideoCompositing: the protocol of custom video compositors.
import Foundation

/// A custom video compositor (none is used by exports here: `customVideoCompositor` is nil).
public protocol AVVideoCompositing: NSObjectProtocol, Sendable {}
