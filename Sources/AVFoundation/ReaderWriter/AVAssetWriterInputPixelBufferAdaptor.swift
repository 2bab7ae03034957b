// AVAssetWriterInputPixelBufferAdaptor: appends pixel buffers with presentation times to a video
// input, and vends a pool of buffers laid out for it.
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// Appends pixel buffers to an `AVAssetWriterInput` that encodes video.
///
/// `pixelBufferPool` is nil until the writer starts writing; then it is a `CVPixelBufferPool`
/// with `sourcePixelBufferAttributes` (the pixel format, width and height given there, else
/// '420v' — which the H.264 encoder reads without a copy — and the input's output size).
open class AVAssetWriterInputPixelBufferAdaptor: NSObject, @unchecked Sendable {
    /// The input the adaptor appends to.
    public let assetWriterInput: AVAssetWriterInput
    /// The attributes of the pixel buffers that will be appended (also the pool's attributes).
    public let sourcePixelBufferAttributes: [String: Any]?

    private let pool = Mutex<CVPixelBufferPool?>(nil)

    /// Creates an adaptor for `input`, which must not have started writing or have an adaptor.
    public init(assetWriterInput input: AVAssetWriterInput, sourcePixelBufferAttributes: [String: Any]? = nil) {
        let selector = "initWithAssetWriterInput:sourcePixelBufferAttributes:"
        if input.hasStartedWriting {
            WriterError.raise("AVAssetWriterInputPixelBufferAdaptor", selector,
                              "Cannot create a new pixel buffer adaptor with an asset writer input that has already started writing")
        }
        if input.hasAdaptor {
            WriterError.raise("AVAssetWriterInputPixelBufferAdaptor", selector,
                              "Cannot create a new pixel buffer adaptor with an asset writer input that is already attached to another pixel buffer adaptor")
        }
        if input.mediaType != .video {
            WriterError.raise("AVAssetWriterInputPixelBufferAdaptor", selector, "Media type of input must be AVMediaTypeVideo")
        }
        input.hasAdaptor = true
        assetWriterInput = input
        self.sourcePixelBufferAttributes = sourcePixelBufferAttributes
        super.init()
    }

    /// A pool of pixel buffers for appending; nil before writing starts (or when writing failed).
    open var pixelBufferPool: CVPixelBufferPool? {
        guard assetWriterInput.hasStartedWriting else { return nil }
        return pool.withLock { pool -> CVPixelBufferPool? in
            if let pool { return pool }
            var attributes = sourcePixelBufferAttributes ?? [:]
            if attributes[kCVPixelBufferPixelFormatTypeKey as String] == nil {
                attributes[kCVPixelBufferPixelFormatTypeKey as String] = NSNumber(value: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            }
            let size = assetWriterInput.outputDimensions
            if attributes[kCVPixelBufferWidthKey as String] == nil, let width = size?.width {
                attributes[kCVPixelBufferWidthKey as String] = NSNumber(value: width)
            }
            if attributes[kCVPixelBufferHeightKey as String] == nil, let height = size?.height {
                attributes[kCVPixelBufferHeightKey as String] = NSNumber(value: height)
            }
            var created: CVPixelBufferPool?
            let status = CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &created)
            if status == kCVReturnInvalidPixelBufferAttributes {
                WriterError.raise("AVAssetWriterInputPixelBufferAdaptor", "pixelBufferPool",
                                  "A pixel buffer pool cannot be created with the receiver's sourcePixelBufferAttributes. The pixel buffer attributes must specify a width, height, and either a pixel format or a pixel format description.")
            }
            pool = created
            return created
        }
    }

    /// Appends `pixelBuffer`, shown at `presentationTime`. Pictures must come in increasing
    /// presentation time order. Returns false when the writer has failed or been cancelled.
    @discardableResult
    open func append(_ pixelBuffer: CVPixelBuffer, withPresentationTime presentationTime: CMTime) -> Bool {
        assetWriterInput.appendPixelBuffer(pixelBuffer, presentationTime: presentationTime)
    }
}
