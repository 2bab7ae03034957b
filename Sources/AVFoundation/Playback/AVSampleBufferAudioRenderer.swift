// AVSampleBufferAudioRenderer: plays linear PCM sample buffers at the times of its synchronizer's
// timebase through the sound server — the renderer under AVPlayer's sound too.
import CoreAudioTypes
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

/// The key of the flush time in `wasFlushedAutomaticallyNotification`'s user info (an NSValue
/// holding a CMTime).
public let AVSampleBufferAudioRendererFlushTimeKey = "AVSampleBufferAudioRendererFlushTimeKey"

/// An object that renders audio sample buffers in time with a synchronizer's timebase.
///
/// Sound is rendered only while the renderer is added to an `AVSampleBufferRenderSynchronizer`
/// whose rate is not zero; its `timebase` is then the synchronizer's. Enqueue linear PCM sample
/// buffers (any rate, sample type, channel count and interleaving: they are converted to 32-bit
/// float at the first buffer's rate, one or two channels) in increasing presentation time.
///
/// Timing: the sound server pulls frames as it needs them; each pull plays the frames whose
/// time is the timebase's time at the moment they will be heard (now + the stream's latency, which
/// the server reports), so sound and pictures shown at the timebase's time line up. When the
/// frames queued drift more than 40 ms from that time (a jump, an underrun), the renderer
/// re-aligns: frames before the time are dropped, silence fills a gap before the next frames.
/// At rates other than 1 sound is time-stretched keeping its pitch (Rubber Band) unless
/// `audioTimePitchAlgorithm` is `.varispeed`, which plays faster or slower as a tape would.
///
/// Without a sound server the frames are consumed at the same pace and dropped. When the server
/// goes away while playing, everything queued is flushed, `status` becomes `.failed` with an
/// error, and `wasFlushedAutomaticallyNotification` is posted; nothing crashes or blocks.
open class AVSampleBufferAudioRenderer: NSObject, AVQueuedSampleBufferRendering, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose mutable state is all in `state` (a Mutex) and `core`.
    /// Posted when the renderer flushed its queue by itself (the output went away).
    public static let wasFlushedAutomaticallyNotification = NSNotification.Name("AVSampleBufferAudioRendererWasFlushedAutomaticallyNotification")
    /// Posted when the output's configuration changed (a new device).
    public static let outputConfigurationDidChangeNotification = NSNotification.Name("AVSampleBufferAudioRendererOutputConfigurationDidChangeNotification")

    private struct State {
        var status = AVQueuedSampleBufferRenderingStatus.unknown
        var error: (any Error)?
        var deviceUID: String?
        var algorithm = AVAudioTimePitchAlgorithm.timeDomain
        var volume: Float = 1
        var muted = false
    }

    private let state = Mutex(State())
    let core: AudioRenderCore

    public override init() {
        var timebase: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: CMClockGetHostTimeClock(), timebaseOut: &timebase)
        core = AudioRenderCore(timebase: timebase!)
        super.init()
        core.onFailure = { [weak self] error in self?.outputFailed(error) }
    }

    deinit { core.close() }

    /// The timebase the renderer follows: its synchronizer's once added to one.
    open var timebase: CMTimebase { core.timebase }

    open var status: AVQueuedSampleBufferRenderingStatus { state.withLock { $0.status } }
    open var error: (any Error)? { state.withLock { $0.error } }

    /// The unique ID of the output device (a PulseAudio sink name, as `AVAudioSession` and
    /// capture list them); nil: the system's default output.
    open var audioOutputDeviceUniqueID: String? {
        get { state.withLock { $0.deviceUID } }
        set {
            state.withLock { $0.deviceUID = newValue }
            core.setDevice(newValue)
        }
    }

    /// How sound is processed at rates other than 1 (default `.timeDomain`).
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { state.withLock { $0.algorithm } }
        set {
            state.withLock { $0.algorithm = newValue }
            core.setAlgorithm(newValue)
        }
    }

    /// The renderer's volume, 0 (silent) to 1 (default).
    open var volume: Float {
        get { state.withLock { $0.volume } }
        set {
            let v = min(max(newValue, 0), 1)
            state.withLock { $0.volume = v }
            core.setVolume(v)
        }
    }

    /// Whether the renderer is muted (default false).
    open var isMuted: Bool {
        get { state.withLock { $0.muted } }
        set {
            state.withLock { $0.muted = newValue }
            core.setMuted(newValue)
        }
    }

    open func enqueue(_ sampleBuffer: CMSampleBuffer) {
        guard status != .failed else { return }
        if core.enqueue(sampleBuffer) {
            state.withLock { if $0.status == .unknown { $0.status = .rendering } }
        }
    }

    /// Drops what is queued; a renderer that failed (its sound output went away) is reset to
    /// `.unknown` and renders again from the next buffer.
    open func flush() {
        core.flush()
        state.withLock { s in
            guard s.status == .failed else { return }
            s.status = .unknown
            s.error = nil
        }
    }

    /// Drops what is queued from `time` on, keeping what plays before it; the handler is told
    /// whether the flush happened (false when `time` is already being heard).
    open func flush(fromSourceTime time: CMTime, completionHandler: @escaping @Sendable (Bool) -> Void) {
        let done = core.flush(from: time)
        DispatchQueue.global().async { completionHandler(done) }
    }

    open var isReadyForMoreMediaData: Bool { core.queue.isReady }

    open func requestMediaDataWhenReady(on queue: DispatchQueue, using block: @escaping @Sendable () -> Void) {
        core.queue.requestWhenReady(on: queue, using: block)
    }

    open func stopRequestingMediaData() { core.queue.stopRequesting() }

    /// True once a quarter of a second is queued (or the queue is full).
    open var hasSufficientMediaDataForReliablePlaybackStart: Bool {
        core.queue.queuedSeconds >= 0.25 || !core.queue.isReady
    }

    private func outputFailed(_ lost: any Error) {
        let error: any Error = (lost as? AudioOutputLost).map {
            AVError(.mediaServicesWereReset, userInfo: [NSLocalizedFailureReasonErrorKey: $0.reason])
        } ?? lost
        let flushTime = core.timebase.time
        state.withLock { s in
            s.status = .failed
            s.error = error
        }
        NotificationCenter.default.post(name: Self.wasFlushedAutomaticallyNotification, object: self,
                                        userInfo: [AVSampleBufferAudioRendererFlushTimeKey: NSValue(time: flushTime)])
        outputLossHandler.withLock { $0 }?(error)
    }

    /// Told when the sound output went away (the player fails its item then).
    let outputLossHandler = Mutex<(@Sendable (any Error) -> Void)?>(nil)
}
