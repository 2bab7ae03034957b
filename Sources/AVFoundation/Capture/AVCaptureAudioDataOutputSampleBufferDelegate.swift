// AVCaptureAudioDataOutputSampleBufferDelegate: what an audio data output tells its delegate.
import CoreMedia
import Foundation

/// The method an audio data output calls on its delegate, on the delegate's queue, one buffer at
/// a time and in capture order.
///
/// The method is optional on Apple platforms; Swift on Linux has no `@objc optional`, so it has a
/// default implementation (doing nothing) in an extension. A class that is the delegate of both
/// a video and an audio data output implements the one `captureOutput(_:didOutput:from:)` for
/// both, as on Apple platforms.
public protocol AVCaptureAudioDataOutputSampleBufferDelegate: NSObjectProtocol {
    /// New sound: a sample buffer of linear PCM (32-bit float, interleaved, the device's sample
    /// rate and channel count), one sample per frame, stamped with the capture time of its first
    /// frame on the session's clock (the host time clock).
    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection)
}

extension AVCaptureAudioDataOutputSampleBufferDelegate {
    public func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {}
}
