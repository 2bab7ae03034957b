// AVCaptureVideoDataOutputSampleBufferDelegate: what a video data output tells its delegate.
import CoreMedia
import Foundation

/// The methods a video data output calls on its delegate, on the delegate's queue, one at a
/// time and in capture order.
///
/// Both methods are optional on Apple platforms; Swift on Linux has no `@objc optional`, so
/// they have default implementations (doing nothing) in an extension, and a delegate
/// implements the ones it needs exactly as on Apple platforms.
public protocol AVCaptureVideoDataOutputSampleBufferDelegate: NSObjectProtocol {
    /// A new frame: an image buffer (the output's pixel format and size) with its capture time
    /// on the session's clock, its duration and an `{Exif}` attachment. Return quickly: with
    /// `alwaysDiscardsLateVideoFrames` frames arriving meanwhile are dropped; buffers held
    /// after returning come from a small pool, and holding them all stops delivery.
    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection)

    /// A frame was dropped: the sample buffer has its time and no image; its
    /// `kCMSampleBufferAttachmentKey_DroppedFrameReason` attachment says why
    /// (`kCMSampleBufferDroppedFrameReason_FrameWasLate`, `…_OutOfBuffers`).
    func captureOutput(_ output: AVCaptureOutput, didDrop sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection)
}

extension AVCaptureVideoDataOutputSampleBufferDelegate {
    public func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {}
    public func captureOutput(_ output: AVCaptureOutput, didDrop sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {}
}
