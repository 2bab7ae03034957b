// The notification names published code uses in both spellings: Apple's older
// `NSNotification.Name.AVCaptureSessionRuntimeError` style beside the class properties, the same
// names, so an observer registered with one hears posts made with the other.
import AVFoundation
import Foundation
import Synchronization
import Testing

@Suite struct NotificationNameTests {
    @Test func olderNamesAreTheClassProperties() {
        let pairs: [(NSNotification.Name, NSNotification.Name, String)] = [
            (.AVCaptureSessionRuntimeError, AVCaptureSession.runtimeErrorNotification, "AVCaptureSessionRuntimeErrorNotification"),
            (.AVCaptureSessionDidStartRunning, AVCaptureSession.didStartRunningNotification, "AVCaptureSessionDidStartRunningNotification"),
            (.AVCaptureSessionDidStopRunning, AVCaptureSession.didStopRunningNotification, "AVCaptureSessionDidStopRunningNotification"),
            (.AVCaptureSessionWasInterrupted, AVCaptureSession.wasInterruptedNotification, "AVCaptureSessionWasInterruptedNotification"),
            (.AVCaptureSessionInterruptionEnded, AVCaptureSession.interruptionEndedNotification, "AVCaptureSessionInterruptionEndedNotification"),
            (.AVCaptureDeviceWasConnected, AVCaptureDevice.wasConnectedNotification, "AVCaptureDeviceWasConnectedNotification"),
            (.AVCaptureDeviceWasDisconnected, AVCaptureDevice.wasDisconnectedNotification, "AVCaptureDeviceWasDisconnectedNotification"),
            (.AVCaptureDeviceSubjectAreaDidChange, AVCaptureDevice.subjectAreaDidChangeNotification, "AVCaptureDeviceSubjectAreaDidChangeNotification"),
            (.AVCaptureInputPortFormatDescriptionDidChange, AVCaptureInput.Port.formatDescriptionDidChangeNotification,
             "AVCaptureInputPortFormatDescriptionDidChangeNotification"),
            (.AVPlayerItemDidPlayToEndTime, AVPlayerItem.didPlayToEndTimeNotification, "AVPlayerItemDidPlayToEndTimeNotification"),
            (.AVPlayerItemFailedToPlayToEndTime, AVPlayerItem.failedToPlayToEndTimeNotification,
             "AVPlayerItemFailedToPlayToEndTimeNotification"),
            (.AVPlayerItemPlaybackStalled, AVPlayerItem.playbackStalledNotification, "AVPlayerItemPlaybackStalledNotification"),
            (.AVPlayerItemTimeJumped, AVPlayerItem.timeJumpedNotification, "AVPlayerItemTimeJumpedNotification"),
            (.AVPlayerItemNewAccessLogEntry, AVPlayerItem.newAccessLogEntryNotification, "AVPlayerItemNewAccessLogEntry"),
            (.AVPlayerItemNewErrorLogEntry, AVPlayerItem.newErrorLogEntryNotification, "AVPlayerItemNewErrorLogEntry"),
            (.AVSampleBufferDisplayLayerFailedToDecode, AVSampleBufferDisplayLayer.failedToDecodeNotification,
             "AVSampleBufferDisplayLayerFailedToDecodeNotification"),
            (.AVSampleBufferDisplayLayerRequiresFlushToResumeDecodingDidChange,
             AVSampleBufferDisplayLayer.requiresFlushToResumeDecodingDidChangeNotification,
             "AVSampleBufferDisplayLayerRequiresFlushToResumeDecodingDidChangeNotification"),
            (.AVSampleBufferAudioRendererWasFlushedAutomatically, AVSampleBufferAudioRenderer.wasFlushedAutomaticallyNotification,
             "AVSampleBufferAudioRendererWasFlushedAutomaticallyNotification"),
            (.AVSampleBufferAudioRendererOutputConfigurationDidChange, AVSampleBufferAudioRenderer.outputConfigurationDidChangeNotification,
             "AVSampleBufferAudioRendererOutputConfigurationDidChangeNotification"),
        ]
        for (old, new, raw) in pairs {
            #expect(old == new && old.rawValue == raw, "\(raw)")
        }
    }

    @Test func anObserverOfTheOlderNameHearsAPostOfTheNewer() {
        let heard = NotificationCenter.default
        let session = AVCaptureSession()
        let count = Mutex(0)
        let token = heard.addObserver(forName: .AVCaptureSessionRuntimeError, object: session, queue: nil) { _ in count.withLock { $0 += 1 } }
        heard.post(name: AVCaptureSession.runtimeErrorNotification, object: session)
        heard.removeObserver(token)
        #expect(count.withLock { $0 } == 1)
    }

    @Test func anObserverOfTheClassPropertyHearsAPostOfTheOlderName() {
        let center = NotificationCenter.default
        let count = Mutex(0)
        let pairs: [(NSNotification.Name, NSNotification.Name)] = [
            (AVPlayerItem.didPlayToEndTimeNotification, .AVPlayerItemDidPlayToEndTime),
            (AVPlayerItem.failedToPlayToEndTimeNotification, .AVPlayerItemFailedToPlayToEndTime),
            (AVSampleBufferDisplayLayer.failedToDecodeNotification, .AVSampleBufferDisplayLayerFailedToDecode),
            (AVSampleBufferAudioRenderer.wasFlushedAutomaticallyNotification, .AVSampleBufferAudioRendererWasFlushedAutomatically),
        ]
        let sender = NSObject()
        for (observed, posted) in pairs {
            let token = center.addObserver(forName: observed, object: sender, queue: nil) { _ in count.withLock { $0 += 1 } }
            center.post(name: posted, object: sender)
            center.removeObserver(token)
        }
        #expect(count.withLock { $0 } == pairs.count)
    }

    @Test func assetNotificationNamesAreApples() {
        let names: [NSNotification.Name] = [.AVAssetDurationDidChange, .AVAssetContainsFragmentsDidChange, .AVAssetWasDefragmented,
                                            .AVAssetChapterMetadataGroupsDidChange, .AVAssetMediaSelectionGroupsDidChange,
                                            .AVAssetTrackTimeRangeDidChange, .AVAssetTrackSegmentsDidChange,
                                            .AVAssetTrackTrackAssociationsDidChange]
        #expect(names.map(\.rawValue) == [
            "AVAssetDurationDidChangeNotification", "AVAssetContainsFragmentsDidChangeNotification",
            "AVAssetWasDefragmentedNotification", "AVAssetChapterMetadataGroupsDidChangeNotification",
            "AVAssetMediaSelectionGroupsDidChangeNotification", "AVAssetTrackTimeRangeDidChangeNotification",
            "AVAssetTrackSegmentsDidChangeNotification", "AVAssetTrackTrackAssociationsDidChangeNotification",
        ])
    }
}
