// AVCaptureDevice zoom: every camera zooms by cropping the centre of its pictures (software
// zoom up to AVCaptureDevice.Format.videoMaxZoomFactor); ramps change the factor smoothly.
import CoreGraphics
import Foundation

extension AVCaptureDevice {
    /// The smallest zoom factor (1).
    public var minAvailableVideoZoomFactor: CGFloat { 1 }

    /// The largest zoom factor: the active format's `videoMaxZoomFactor` (1 for microphones).
    public var maxAvailableVideoZoomFactor: CGFloat {
        hasMediaType(.video) ? core.activeFormat()?.videoMaxZoomFactor ?? 1 : 1
    }

    /// The zoom factor: outputs deliver the centre 1/factor of the picture scaled to their
    /// size. Default 1. Setting needs `lockForConfiguration()`, cancels a running ramp, and a
    /// value outside `minAvailableVideoZoomFactor…maxAvailableVideoZoomFactor` raises. Observable.
    public var videoZoomFactor: CGFloat {
        get { core.withControls { $0.zoomFactor } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setVideoZoomFactor:") }
            checkZoomFactor(newValue, "setVideoZoomFactor:")
            let (old, wasRamping) = core.withControls { c -> (CGFloat, Bool) in
                defer {
                    c.zoomFactor = newValue
                    c.rampGeneration &+= 1
                    c.isRamping = false
                }
                return (c.zoomFactor, c.isRamping)
            }
            if old != newValue { core.notify(\.videoZoomFactor, old: old) }
            if wasRamping { core.notify(\.isRampingVideoZoom, old: true) }
        }
    }

    /// Whether a ramp is changing `videoZoomFactor` now. Observable.
    public var isRampingVideoZoom: Bool { core.withControls { $0.isRamping } }

    /// Moves `videoZoomFactor` smoothly to `factor`: it changes by `rate` powers of two per
    /// second (rate 1 doubles or halves it each second), in steps of 1/60 s, and stops at
    /// `factor`. Needs the lock; a factor out of range raises; a rate ≤ 0 sets the factor at once.
    public func ramp(toVideoZoomFactor factor: CGFloat, withRate rate: Float) {
        guard core.isLocked else { CaptureException.notLocked("rampToVideoZoomFactor:withRate:") }
        checkZoomFactor(factor, "rampToVideoZoomFactor:withRate:")
        guard rate > 0, rate.isFinite else {
            videoZoomFactor = factor
            return
        }
        let (start, generation, wasRamping) = core.withControls { c -> (CGFloat, UInt64, Bool) in
            c.rampGeneration &+= 1
            let was = c.isRamping
            c.isRamping = true
            return (c.zoomFactor, c.rampGeneration, was)
        }
        if !wasRamping { core.notify(\.isRampingVideoZoom, old: false) }
        let began = DispatchTime.now().uptimeNanoseconds
        let direction: Double = factor >= start ? 1 : -1
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .userInitiated))
        let core = self.core
        timer.schedule(deadline: .now() + .milliseconds(16), repeating: .nanoseconds(1_000_000_000 / 60))
        timer.setEventHandler {
            let t = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
            var value = Double(start) * pow(2, direction * Double(rate) * t)
            let done = direction > 0 ? value >= Double(factor) : value <= Double(factor)
            if done { value = Double(factor) }
            let step: (old: CGFloat, ended: Bool)? = core.withControls { c in
                guard c.rampGeneration == generation else { return nil }
                let old = c.zoomFactor
                c.zoomFactor = CGFloat(value)
                if done { c.isRamping = false }
                return (old, done)
            }
            guard let step else {
                timer.cancel()
                return
            }
            if step.old != CGFloat(value) { core.notify(\.videoZoomFactor, old: step.old) }
            if step.ended {
                core.notify(\.isRampingVideoZoom, old: true)
                timer.cancel()
            }
        }
        timer.resume()
    }

    /// Stops a running ramp where it is. Needs the lock.
    public func cancelVideoZoomRamp() {
        guard core.isLocked else { CaptureException.notLocked("cancelVideoZoomRamp") }
        let wasRamping = core.withControls { c -> Bool in
            defer {
                c.rampGeneration &+= 1
                c.isRamping = false
            }
            return c.isRamping
        }
        if wasRamping { core.notify(\.isRampingVideoZoom, old: true) }
    }

    private func checkZoomFactor(_ factor: CGFloat, _ selector: String) {
        guard factor >= minAvailableVideoZoomFactor, factor <= maxAvailableVideoZoomFactor else {
            CaptureException.raise("AVCaptureDevice", selector,
                                   "videoZoomFactor \(factor) is out of range [\(minAvailableVideoZoomFactor), \(maxAvailableVideoZoomFactor)]")
        }
    }
}
