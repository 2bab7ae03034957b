// AVSampleBufferDisplayLayer: a layer that shows video sample buffers at the times of a
// timebase (its control timebase, or its synchronizer's), in a window through the window sink.
import CoreGraphics
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
import QuartzCore
import Synchronization

/// The key of the error in `failedToDecodeNotification`'s user info.
public let AVSampleBufferDisplayLayerFailedToDecodeNotificationErrorKey = "AVSampleBufferDisplayLayerFailedToDecodeNotificationErrorKey"

/// A layer that displays video sample buffers.
///
/// Enqueue sample buffers holding decoded pictures (`CVPixelBuffer`s) in presentation order.
/// Timing: with a `controlTimebase`, or once added to an `AVSampleBufferRenderSynchronizer`, each
/// picture is shown when that timebase reaches its presentation time and pictures whose time has
/// passed are dropped (`FramePresenter`); with neither, pictures are shown as they arrive. The
/// picture shown is `displayedPixelBuffer` here and goes to a desktop window (the layer's frame
/// and `videoGravity`, as `AVPlayerLayer`'s) when a display is there.
///
/// Differs from Apple: compressed sample buffers are not decoded here — such a buffer fails the
/// layer (`status` `.failed`, `error`, and `failedToDecodeNotification`); decode with
/// `AVAssetReaderTrackOutput` output settings first.
open class AVSampleBufferDisplayLayer: CALayer, AVQueuedSampleBufferRendering, @unchecked Sendable {
    // @unchecked Sendable: owns its window (a C handle through WindowSink); its values are in `state` (a Mutex) and CALayer's.
    /// Posted when a sample buffer could not be decoded.
    public static let failedToDecodeNotification = NSNotification.Name("AVSampleBufferDisplayLayerFailedToDecodeNotification")
    /// Posted when `requiresFlushToResumeDecoding` changes.
    public static let requiresFlushToResumeDecodingDidChangeNotification =
        NSNotification.Name("AVSampleBufferDisplayLayerRequiresFlushToResumeDecodingDidChangeNotification")

    private struct State {
        var controlTimebase: CMTimebase?
        var synchronizerTimebase: CMTimebase?
        var status = AVQueuedSampleBufferRenderingStatus.unknown
        var error: (any Error)?
        var gravity = AVLayerVideoGravity.resizeAspect
        var readyForDisplay = false
    }

    private let state = Mutex(State())
    /// Shows pictures as they arrive: a timebase far ahead, so every queued picture is due.
    private let immediate: CMTimebase
    let presenter: FramePresenter
    let window = LayerVideoWindow()

    public override init() {
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: CMClockGetHostTimeClock(), timebaseOut: &made)
        immediate = made!
        _ = CMTimebaseSetTime(immediate, time: CMTime(value: Int64.max / 4, timescale: 1))
        presenter = FramePresenter(timebase: immediate)
        super.init()
        hostsLiveRendering = true
        window.setLayer(self)
        let window = self.window
        presenter.setTarget(self) { [weak self] frame in
            if let image = frame.imageBuffer { window.show(image) }
            self?.pictureShown()
        }
    }

    public override init(layer: Any) {
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: CMClockGetHostTimeClock(), timebaseOut: &made)
        immediate = made!
        presenter = FramePresenter(timebase: immediate)
        super.init(layer: layer)
    }

    public required init?(coder: NSCoder) { return nil }

    deinit {
        presenter.stop()
        window.close(forGood: true)
    }

    /// The timebase that controls presentation (default nil: pictures show as they arrive).
    open var controlTimebase: CMTimebase? {
        get { state.withLock { $0.controlTimebase } }
        set {
            state.withLock { $0.controlTimebase = newValue }
            updateTimebase()
        }
    }

    /// The timebase the layer follows: its synchronizer's, its control timebase, or its own.
    open var timebase: CMTimebase { state.withLock { $0.synchronizerTimebase ?? $0.controlTimebase } ?? immediate }

    private func updateTimebase() { presenter.timebase = timebase }

    /// How the picture fits the layer's bounds (default `.resizeAspect`).
    open var videoGravity: AVLayerVideoGravity {
        get { state.withLock { $0.gravity } }
        set {
            state.withLock { $0.gravity = newValue }
            window.gravity = newValue
        }
    }

    open var status: AVQueuedSampleBufferRenderingStatus { state.withLock { $0.status } }
    open var error: (any Error)? { state.withLock { $0.error } }

    /// Whether a picture has been shown since the layer was made or last flushed its image.
    open var isReadyForDisplay: Bool { state.withLock { $0.readyForDisplay } }

    /// Decoding never stops for want of a flush here.
    open var requiresFlushToResumeDecoding: Bool { false }

    /// The picture shown now (nil before the first, and after `flushAndRemoveImage()`).
    var displayedPixelBuffer: CVPixelBuffer? { presenter.shownFrame?.imageBuffer }

    open func enqueue(_ sampleBuffer: CMSampleBuffer) {
        guard status != .failed else { return }
        guard sampleBuffer.imageBuffer != nil else {
            if sampleBuffer.numSamples == 0 { return }
            let error = AVError(.decoderNotFound, userInfo: [
                NSLocalizedDescriptionKey: "Cannot Decode",
                NSLocalizedFailureReasonErrorKey: "AVSampleBufferDisplayLayer shows decoded pictures (CVPixelBuffer) only on Linux.",
            ])
            state.withLock { s in
                s.status = .failed
                s.error = error
            }
            NotificationCenter.default.post(name: Self.failedToDecodeNotification, object: self,
                                            userInfo: [AVSampleBufferDisplayLayerFailedToDecodeNotificationErrorKey: error])
            return
        }
        if presenter.enqueue(sampleBuffer) {
            state.withLock { if $0.status == .unknown { $0.status = .rendering } }
        }
    }

    /// Drops the queued pictures; the one shown stays.
    open func flush() { presenter.flush() }

    /// Drops the queued pictures and removes the one shown.
    open func flushAndRemoveImage() {
        presenter.flush(removingImage: true)
        state.withLock { s in
            s.readyForDisplay = false
            s.status = .unknown
        }
    }

    open var isReadyForMoreMediaData: Bool { presenter.queue.isReady }

    open func requestMediaDataWhenReady(on queue: DispatchQueue, using block: @escaping @Sendable () -> Void) {
        presenter.queue.requestWhenReady(on: queue, using: block)
    }

    open func stopRequestingMediaData() { presenter.queue.stopRequesting() }

    open var hasSufficientMediaDataForReliablePlaybackStart: Bool { presenter.queue.count >= 2 || !presenter.queue.isReady }

    open override var bounds: CGRect {
        didSet { window.layerChanged() }
    }

    open override var position: CGPoint {
        didSet { window.layerChanged() }
    }

    private func pictureShown() {
        let changed = state.withLock { s -> Bool in
            defer { s.readyForDisplay = true }
            return !s.readyForDisplay
        }
        if changed { KVORegistry.shared.didChange(self, \AVSampleBufferDisplayLayer.isReadyForDisplay, old: false) }
    }
}

extension AVSampleBufferDisplayLayer: SynchronizedRendering {
    func synchronizerAttached(timebase: CMTimebase) {
        state.withLock { $0.synchronizerTimebase = timebase }
        updateTimebase()
    }

    func synchronizerDetached() {
        state.withLock { $0.synchronizerTimebase = nil }
        updateTimebase()
    }

    func synchronizerTimebaseChanged(jumped: Bool) { presenter.poke() }

    var hasSufficientDataToStart: Bool { hasSufficientMediaDataForReliablePlaybackStart }
}
