// The sample-buffer renderers' notifications under the names Apple's SDK declares on
// `NSNotification.Name` (`.AVSampleBufferDisplayLayerFailedToDecode`, …) beside the class
// properties: the same names, so an observer of one hears a post of the other.
import Foundation

extension NSNotification.Name {
    /// `AVSampleBufferDisplayLayer.failedToDecodeNotification`.
    public static let AVSampleBufferDisplayLayerFailedToDecode = AVSampleBufferDisplayLayer.failedToDecodeNotification
    /// `AVSampleBufferDisplayLayer.requiresFlushToResumeDecodingDidChangeNotification`.
    public static let AVSampleBufferDisplayLayerRequiresFlushToResumeDecodingDidChange =
        AVSampleBufferDisplayLayer.requiresFlushToResumeDecodingDidChangeNotification
    /// `AVSampleBufferAudioRenderer.wasFlushedAutomaticallyNotification`.
    public static let AVSampleBufferAudioRendererWasFlushedAutomatically = AVSampleBufferAudioRenderer.wasFlushedAutomaticallyNotification
    /// `AVSampleBufferAudioRenderer.outputConfigurationDidChangeNotification`.
    public static let AVSampleBufferAudioRendererOutputConfigurationDidChange =
        AVSampleBufferAudioRenderer.outputConfigurationDidChangeNotification
}
