// FramePresenter: the video half of every renderer here — a thread that shows each queued frame
// when its timebase reaches the frame's presentation time, drops frames whose time has passed,
// and hands what it shows to the renderer's targets (a window, a layer's image, video outputs).
import CoreMedia
import Dispatch
import Foundation
import Synchronization

/// Presents queued video sample buffers on a timebase.
///
/// Rule: at any moment the frame shown is the latest queued frame whose presentation time is at
/// or before the timebase's time (or, after a flush and before the time reaches any frame, the
/// first frame once it is within one frame duration — a paused seek shows its picture). Frames
/// passed over (a later frame is already due) are dropped without being shown and counted. With
/// the rate positive the thread sleeps until the next frame is due (the timebase's time converted
/// to the host clock's); any enqueue, flush, rate or time change wakes it. Negative rates show
/// frames backwards in the same way (the queue then holds frames in decreasing time).
///
/// Frames marked `kCMSampleAttachmentKey_DoNotDisplay` are consumed without being shown.
final class FramePresenter: Sendable {
    typealias Present = @Sendable (CMSampleBuffer) -> Void

    private struct State {
        var timebase: CMTimebase
        var shown: CMSampleBuffer?
        var shownSinceFlush = false
        var stopped = false
        var presented = 0
        var dropped = 0
        var targets: [ObjectIdentifier: Present] = [:]
        /// The timebase's rate-changed and time-jumped observations.
        var observations: [any NSObjectProtocol] = []
    }

    let queue: RendererQueue
    private let state: Mutex<State>
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(timebase: CMTimebase, capacity: RendererQueue.Capacity = .init(count: 6, seconds: 0.5)) {
        queue = RendererQueue(capacity: capacity)
        state = Mutex(State(timebase: timebase))
        let thread = Thread { [weak self] in
            while let presenter = self {
                let wait = presenter.step()
                if wait == nil { break }
                // Drop the strong reference while sleeping so the presenter can go away.
                let semaphore = presenter.wake
                _ = presenter
                if let seconds = wait! {
                    _ = semaphore.wait(timeout: .now() + seconds)
                } else {
                    semaphore.wait()
                }
            }
        }
        thread.name = "AVFoundation.FramePresenter"
        thread.qualityOfService = .userInteractive
        thread.start()
        observe(timebase)
    }

    deinit {
        let observations = state.withLock { s -> [any NSObjectProtocol] in
            s.stopped = true
            defer { s.observations = [] }
            return s.observations
        }
        for observation in observations { NotificationCenter.default.removeObserver(observation) }
        wake.signal()
    }

    var timebase: CMTimebase {
        get { state.withLock { $0.timebase } }
        set {
            state.withLock { $0.timebase = newValue }
            observe(newValue)
            poke()
        }
    }

    /// Looks again whenever `timebase` changes rate or jumps (whoever changes it: a synchronizer,
    /// or an app driving a display layer's control timebase itself).
    private func observe(_ timebase: CMTimebase) {
        let old = state.withLock { s -> [any NSObjectProtocol] in
            defer {
                s.observations = [CMTimebase.effectiveRateChanged, CMTimebase.timeJumped].map { name in
                    NotificationCenter.default.addObserver(forName: name, object: timebase, queue: nil) { [weak self] _ in self?.poke() }
                }
            }
            return s.observations
        }
        for observation in old { NotificationCenter.default.removeObserver(observation) }
    }

    /// Frames shown and frames dropped (passed over) since the presenter started.
    var counts: (presented: Int, dropped: Int) { state.withLock { ($0.presented, $0.dropped) } }

    /// The frame last shown (kept across a flush unless `removingImage`).
    var shownFrame: CMSampleBuffer? { state.withLock { $0.shown } }

    /// Adds a target told of every frame shown, keyed by `owner`.
    func setTarget(_ owner: AnyObject, _ present: Present?) {
        state.withLock { $0.targets[ObjectIdentifier(owner)] = present }
        if let present, let shown = shownFrame { present(shown) }
    }

    func enqueue(_ buffer: CMSampleBuffer, generation: Int? = nil) -> Bool {
        let added = queue.enqueue(buffer, generation: generation)
        if added { poke() }
        return added
    }

    func flush(removingImage: Bool = false) {
        queue.flush()
        state.withLock { s in
            s.shownSinceFlush = false
            if removingImage { s.shown = nil }
        }
        poke()
    }

    func stop() {
        state.withLock { $0.stopped = true }
        queue.close()
        wake.signal()
    }

    /// The timebase's rate or time changed, or something was queued: look again.
    func poke() { wake.signal() }

    /// One pass: shows what is due. Returns nil to end the thread, `.some(nil)` to wait for a
    /// poke, `.some(seconds)` to wait at most that long.
    private func step() -> Double?? {
        let (timebase, stopped, shownSinceFlush) = state.withLock { ($0.timebase, $0.stopped, $0.shownSinceFlush) }
        if stopped { return nil }
        let (now, rate) = timebase.timeAndRate
        let frames = queue.snapshot
        guard !frames.isEmpty else { return .some(nil) }
        let forward = rate >= 0
        // The last frame that is due.
        var due = -1
        for (i, frame) in frames.enumerated() {
            let pts = frame.presentationTimeStamp
            guard pts.isNumeric else { due = i; continue }
            if forward ? pts <= now : pts >= now { due = i } else { break }
        }
        if due < 0, !shownSinceFlush {
            // Nothing due yet after a flush: show the first frame when `now` is inside it (a
            // paused seek's picture), else wait for it.
            let first = frames[0]
            let pts = first.presentationTimeStamp
            let length = first.duration.isNumeric && first.duration > .zero ? first.duration : CMTime(value: 1, timescale: 30)
            if pts.isNumeric, forward ? (now >= pts - length) && rate == 0 : false { due = 0 }
        }
        if due >= 0 {
            var shown: CMSampleBuffer?
            for i in 0...due where !frames[i].doesNotDisplay {
                shown = frames[i]
            }
            queue.removeFirst(due + 1)
            let skipped = frames[0...due].filter { !$0.doesNotDisplay }.count - (shown == nil ? 0 : 1)
            let targets = state.withLock { s -> [Present] in
                s.dropped += max(0, skipped)
                guard let shown else { return [] }
                s.presented += 1
                s.shown = shown
                s.shownSinceFlush = true
                return Array(s.targets.values)
            }
            if let shown { for target in targets { target(shown) } }
        }
        // When is the next frame due?
        guard rate != 0, let next = queue.first else { return .some(nil) }
        let pts = next.presentationTimeStamp
        guard pts.isNumeric else { return .some(0) }
        let wait = (pts - now).seconds / rate
        return .some(min(max(wait, 0), 0.25))
    }
}

extension CMSampleBuffer {
    /// Whether the sample carries `kCMSampleAttachmentKey_DoNotDisplay`.
    var doesNotDisplay: Bool {
        guard numSamples > 0 else { return false }
        let attachments = sampleAttachments
        guard let first = attachments.first else { return false }
        return (first[.doNotDisplay] as? Bool) == true
    }
}
