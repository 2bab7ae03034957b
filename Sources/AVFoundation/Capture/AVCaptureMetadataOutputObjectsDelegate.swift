// AVCaptureMetadataOutputObjectsDelegate: what a metadata output tells its delegate.
import Foundation

/// The method a metadata output calls on its delegate, on the delegate's queue, one call at a
/// time and in capture order.
///
/// The method is optional on Apple platforms; Swift on Linux has no `@objc optional`, so it
/// has a default implementation (doing nothing) in an extension.
public protocol AVCaptureMetadataOutputObjectsDelegate: NSObjectProtocol {
    /// Objects found in a frame: every scanned frame with at least one object of the output's
    /// `metadataObjectTypes` inside its `rectOfInterest`, and one call with an empty array when
    /// the objects are gone.
    func metadataOutput(_ output: AVCaptureMetadataOutput, didOutput metadataObjects: [AVMetadataObject],
                        from connection: AVCaptureConnection)
}

extension AVCaptureMetadataOutputObjectsDelegate {
    public func metadataOutput(_ output: AVCaptureMetadataOutput, didOutput metadataObjects: [AVMetadataObject],
                               from connection: AVCaptureConnection) {}
}
