// VirtualCameraControls: the pretend controls of a `testsrc:…?focus&exposure&…` virtual camera —
// focus, exposure and white balance that "adjust" for a short while when asked to, like a real
// camera's, and a torch — so code driving camera controls (tap to focus, torch buttons) can be
// tested without a camera.
import CoreGraphics
import Foundation
import Synchronization

/// Emulated camera controls: a scan (auto focus, auto exposure, auto white balance, or a
/// continuous mode being set or re-aimed) reports `adjusting(…, true)`, then after
/// `scanDuration` `adjusting(…, false)` — and, for one-shot modes, `oneShotFinished`. Setting
/// `.locked` ends a scan at once. Reports come in order on a serial queue of the controls' own.
package final class VirtualCameraControls: LiveCameraControls, Sendable {
    package let capabilities: LiveCameraCapabilities
    /// How long a scan lasts.
    package let scanDuration: TimeInterval

    private let queue = DispatchQueue(label: "AVFoundation.VirtualCameraControls")
    private struct State {
        var handler: (@Sendable (CameraControlEvent) -> Void)?
        /// Per activity: the running scan's number (a new setting bumps it), and whether it reported `adjusting(true)`.
        var generation: [CameraActivity: UInt64] = [:]
        var adjusting: Set<CameraActivity> = []
        var torchLevel: Float = 0
    }
    private let state = Mutex(State())

    /// The camera whose pattern the torch lights (`VirtualCameraLight`), if any.
    private let lightKey: String?

    package init(capabilities: LiveCameraCapabilities, scanDuration: TimeInterval = 0.2, lightKey: String? = nil) {
        self.capabilities = capabilities
        self.scanDuration = scanDuration
        self.lightKey = lightKey
    }

    /// The torch level last set (0: off).
    package var torchLevel: Float { state.withLock { $0.torchLevel } }

    package func setEventHandler(_ handler: @escaping @Sendable (CameraControlEvent) -> Void) {
        state.withLock { $0.handler = handler }
    }

    package func setFocus(_ mode: CameraFocusMode, pointOfInterest: CGPoint) throws(LiveSourceError) {
        guard capabilities.focusModes.contains(mode) else { throw .failed("focus mode \(mode) is not offered") }
        scan(.focus, run: mode != .locked, oneShot: mode == .autoFocus)
    }

    package func setExposure(_ mode: CameraExposureMode, pointOfInterest: CGPoint) throws(LiveSourceError) {
        guard capabilities.exposureModes.contains(mode) else { throw .failed("exposure mode \(mode) is not offered") }
        scan(.exposure, run: mode != .locked, oneShot: mode == .autoExpose)
    }

    package func setWhiteBalance(_ mode: CameraWhiteBalanceMode) throws(LiveSourceError) {
        guard capabilities.whiteBalanceModes.contains(mode) else { throw .failed("white balance mode \(mode) is not offered") }
        scan(.whiteBalance, run: mode != .locked, oneShot: mode == .autoWhiteBalance)
    }

    package func setTorch(level: Float) throws(LiveSourceError) {
        guard capabilities.hasTorch || level == 0 else { throw .failed("the camera has no torch") }
        let level = max(0, min(1, level))
        state.withLock { $0.torchLevel = level }
        if let lightKey { VirtualCameraLight.set(level, for: lightKey) }
    }

    /// Starts a scan of `activity` (ending the one running), or only ends the running one.
    private func scan(_ activity: CameraActivity, run: Bool, oneShot: Bool) {
        let number = state.withLock { state -> UInt64 in
            state.generation[activity, default: 0] &+= 1
            return state.generation[activity]!
        }
        queue.async { [self] in
            // Still the newest setting when this runs: report the start (or the end, for `.locked`).
            guard isCurrent(activity, number) else { return }
            if run { report(activity, adjusting: true) } else { report(activity, adjusting: false) }
        }
        guard run else { return }
        queue.asyncAfter(deadline: .now() + scanDuration) { [self] in
            guard isCurrent(activity, number) else { return }
            report(activity, adjusting: false)
            if oneShot, let handler = state.withLock({ $0.handler }) { handler(.oneShotFinished(activity)) }
        }
    }

    private func isCurrent(_ activity: CameraActivity, _ number: UInt64) -> Bool {
        state.withLock { $0.generation[activity] == number }
    }

    /// Reports a change of `activity`'s adjusting state (nothing when it is unchanged). On `queue`.
    private func report(_ activity: CameraActivity, adjusting now: Bool) {
        let (changed, handler) = state.withLock { state -> (Bool, (@Sendable (CameraControlEvent) -> Void)?) in
            let was = state.adjusting.contains(activity)
            if now { state.adjusting.insert(activity) } else { state.adjusting.remove(activity) }
            return (was != now, state.handler)
        }
        if changed { handler?(.adjusting(activity, now)) }
    }
}

/// The torch levels of virtual cameras, by unique ID: set by their controls, read by their test
/// pattern sources for every frame (a lit torch brightens the picture, so code watching for it —
/// a Morse-code torch app — can be tested).
package enum VirtualCameraLight {
    private static let levels = Mutex<[String: Float]>([:])

    package static func set(_ level: Float, for uniqueID: String) {
        levels.withLock { $0[uniqueID] = level }
    }

    package static func level(for uniqueID: String) -> Float {
        levels.withLock { $0[uniqueID] ?? 0 }
    }
}
