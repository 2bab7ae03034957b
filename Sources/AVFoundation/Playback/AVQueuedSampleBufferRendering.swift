// AVQueuedSampleBufferRendering: what Apple's queued renderers (the sample-buffer audio renderer
// and display layer) share — a timebase, enqueue/flush, readiness and a request-when-ready block
// (over AVFAudio's RendererQueue, the one bounded queue behind every renderer here and AVPlayer's).
import CoreMedia
import Dispatch
import Foundation
import Synchronization

/// The status of a queued sample-buffer renderer.
public enum AVQueuedSampleBufferRenderingStatus: Int, Sendable {
    /// No sample buffer has been enqueued yet (or since a flush that removed the image).
    case unknown = 0
    /// Sample buffers have been enqueued and are being rendered.
    case rendering = 1
    /// The renderer failed; see its `error`.
    case failed = 2
}

/// A renderer that takes sample buffers in order and renders them at the times of its timebase.
public protocol AVQueuedSampleBufferRendering: AnyObject, Sendable {
    /// The timebase that controls when sample buffers are rendered.
    var timebase: CMTimebase { get }
    /// Sends a sample buffer to be rendered at its presentation time.
    func enqueue(_ sampleBuffer: CMSampleBuffer)
    /// Drops every sample buffer enqueued and not yet rendered.
    func flush()
    /// Whether the renderer can take more sample buffers without holding too much.
    var isReadyForMoreMediaData: Bool { get }
    /// Calls `block` on `queue` whenever the renderer is ready for more sample buffers, until
    /// `stopRequestingMediaData()`.
    func requestMediaDataWhenReady(on queue: DispatchQueue, using block: @escaping @Sendable () -> Void)
    /// Stops the calls `requestMediaDataWhenReady(on:using:)` asked for.
    func stopRequestingMediaData()
    /// Whether enough is queued for playback to start without stalling at once.
    var hasSufficientMediaDataForReliablePlaybackStart: Bool { get }
}
