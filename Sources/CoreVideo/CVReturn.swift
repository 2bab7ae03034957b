// Core Video result codes, with the values of Apple's CVReturn.h.

/// A Core Video result code: `kCVReturnSuccess` (0) or one of the negative `kCVReturn*` errors.
public typealias CVReturn = Int32

/// Core Video option bits (CVBase.h's `CVOptionFlags`), as passed to the `flags` parameters.
public typealias CVOptionFlags = UInt64

/// The operation succeeded.
public let kCVReturnSuccess: CVReturn = 0
/// The first Core Video error code (-6660).
public let kCVReturnFirst: CVReturn = -6660
/// An otherwise undefined error occurred (same value as `kCVReturnFirst`).
public let kCVReturnError: CVReturn = -6660
/// An argument was invalid (for example a non-positive size).
public let kCVReturnInvalidArgument: CVReturn = -6661
/// Memory allocation failed.
public let kCVReturnAllocationFailed: CVReturn = -6662
/// The operation is not supported.
public let kCVReturnUnsupported: CVReturn = -6663
/// The display specified when creating a display link is invalid.
public let kCVReturnInvalidDisplay: CVReturn = -6670
/// The display link is already running.
public let kCVReturnDisplayLinkAlreadyRunning: CVReturn = -6671
/// The display link is not running.
public let kCVReturnDisplayLinkNotRunning: CVReturn = -6672
/// The output callback of a display link is not set.
public let kCVReturnDisplayLinkCallbacksNotSet: CVReturn = -6673
/// The buffer does not support the pixel format, or the format has no layout here.
public let kCVReturnInvalidPixelFormat: CVReturn = -6680
/// The buffer cannot support the requested size.
public let kCVReturnInvalidSize: CVReturn = -6681
/// A pixel buffer attribute was invalid or missing.
public let kCVReturnInvalidPixelBufferAttributes: CVReturn = -6682
/// The pixel buffer is not compatible with OpenGL.
public let kCVReturnPixelBufferNotOpenGLCompatible: CVReturn = -6683
/// The pixel buffer is not compatible with Metal.
public let kCVReturnPixelBufferNotMetalCompatible: CVReturn = -6684
/// Allocating a buffer would exceed the pool's `kCVPixelBufferPoolAllocationThresholdKey`.
public let kCVReturnWouldExceedAllocationThreshold: CVReturn = -6689
/// The pool failed to allocate a buffer.
public let kCVReturnPoolAllocationFailed: CVReturn = -6690
/// A pool attribute was invalid.
public let kCVReturnInvalidPoolAttributes: CVReturn = -6691
/// A scan was not completed; try again.
public let kCVReturnRetry: CVReturn = -6692
/// The last Core Video error code (-6699).
public let kCVReturnLast: CVReturn = -6699
