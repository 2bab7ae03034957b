// CaptureBackends: the backends whose devices the device directory lists (virtual cameras, V4L2
// cameras, PulseAudio sources) and the hot-plug watcher that tells the directory about devices
// coming and going — started lazily, at the first device query.
import Foundation
import Synchronization
internal import MediaEngine

/// The shared directory's backends and its device watcher.
enum CaptureBackends {
    /// The enumerators of `DeviceDirectory.shared`, in listing order: virtual cameras (so a test
    /// pattern named in `AVFOUNDATION_VIRTUAL_CAMERAS` is the default camera), V4L2 cameras, then
    /// PulseAudio sources (the server's default source first: `AVCaptureDevice.default(for: .audio)`).
    static let enumerators: [DeviceDirectory.Enumerator] = [
        { VirtualDevices.fromEnvironment() },
        { V4L2Cameras.shared.cameras() },
        { PulseDirectory.shared.devices() },
    ]

    /// Called before each query of the shared directory: makes sure the watcher runs.
    static func willQuery() {
        HotPlug.shared.ensureRunning()
    }
}

/// The V4L2 cameras, enumerated on demand. Enumerating opens every `/dev/video*` node, so the
/// list is kept while the device watcher runs (it invalidates it when nodes come or go) and read
/// again at each query otherwise. Remembers each node's unique ID, so that a node that went away
/// can be named.
final class V4L2Cameras: Sendable {
    static let shared = V4L2Cameras()

    private struct State {
        var cached: [V4L2CameraDevice]?
        var idByPath: [String: String] = [:]
        var watched = false
    }
    private let state = Mutex(State())

    /// Whether a watcher invalidates the cache (else every query enumerates).
    var isWatched: Bool {
        get { state.withLock { $0.watched } }
        set { state.withLock { $0.watched = newValue; if !newValue { $0.cached = nil } } }
    }

    /// The camera nodes now.
    func cameras() -> [V4L2CameraDevice] {
        if let cached = state.withLock({ $0.watched ? $0.cached : nil }) { return cached }
        let found = V4L2CameraDevice.cameras()
        state.withLock { state in
            state.cached = found
            for camera in found { state.idByPath[camera.path] = camera.uniqueID }
        }
        return found
    }

    /// A node appeared or went away: forget the list; returns the unique ID of the camera at
    /// `path` (for a node that went away, the ID it had; for a new one, after enumerating again),
    /// or nil when the node is not a camera.
    func nodeChanged(path: String, connected: Bool) -> String? {
        let known = state.withLock { state -> String? in
            state.cached = nil
            return state.idByPath[path]
        }
        if connected {
            return cameras().first { $0.path == path }?.uniqueID
        }
        return known
    }
}

/// The directory's device watcher (file virtual cameras, V4L2 nodes, PulseAudio sources). Runs
/// from the first query of the shared directory on; made again when the file cameras named in
/// `AVFOUNDATION_VIRTUAL_CAMERAS` change (a program may set the variable between queries).
/// Changes become `DeviceDirectory.deviceConnectionChanged` calls on the watcher's queue.
final class HotPlug: Sendable {
    static let shared = HotPlug()

    private struct State {
        var watcher: DeviceWatcher?
        var watchedFiles: [String] = []
        var failedOnce = false
    }
    private let state = Mutex(State())

    /// Starts the watcher on another thread (from the notification names' initializers, which
    /// must not wait for a watcher's handler that may be using the names).
    static func startSoon() {
        // A query makes the devices' objects, then starts the watcher.
        DispatchQueue.global().async { _ = DeviceDirectory.shared.allDevices() }
    }

    /// Starts the watcher unless it runs for the current file cameras (cheap when it does).
    func ensureRunning() {
        let cameras = VirtualDevices.fromEnvironment()
        // The file cameras, each with whether its directory exists (a directory made later
        // needs a new watch: the watcher is made again).
        let files = cameras.compactMap { camera -> String? in
            guard case .file(let url) = camera.kind else { return nil }
            var isDirectory: ObjCBool = false
            let watchable = FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path, isDirectory: &isDirectory)
                && isDirectory.boolValue
            return camera.uniqueID + (watchable ? "" : " (no directory)")
        }
        let (old, new) = state.withLock { state -> (DeviceWatcher?, DeviceWatcher?) in
            if state.watcher != nil, state.watchedFiles == files { return (nil, nil) }
            if state.watcher == nil, state.failedOnce, state.watchedFiles == files { return (nil, nil) }
            let made = DeviceWatcher(virtualCameras: cameras) { change in HotPlug.handle(change) }
            let previous = state.watcher
            state.watcher = made
            state.watchedFiles = files
            return (previous, made)
        }
        // Outside the lock: stopping waits for a handler call in progress, which may query.
        old?.stop()
        guard let new else { return }
        do {
            try new.start()
            V4L2Cameras.shared.isWatched = true
            // A file camera's file made or removed while no watcher watched it (before the first
            // watcher, or between the one stopped and this one) is reported now: the new watcher
            // only reports changes from the states it starts with.
            for camera in cameras {
                guard case .file = camera.kind else { continue }
                DeviceDirectory.shared.deviceConnectionChanged(uniqueID: camera.uniqueID, connected: camera.isConnected)
            }
        } catch {
            state.withLock { state in
                if state.watcher === new { state.watcher = nil }
                state.failedOnce = true
            }
            V4L2Cameras.shared.isWatched = false
        }
    }

    /// One change seen by the watcher (on its queue).
    private static func handle(_ change: DeviceChange) {
        switch change.origin {
        case .virtualCamera, .pulseAudio:
            DeviceDirectory.shared.deviceConnectionChanged(uniqueID: change.uniqueID, connected: change.connected)
        case .videoNode:
            guard let id = V4L2Cameras.shared.nodeChanged(path: change.uniqueID, connected: change.connected) else { return }
            DeviceDirectory.shared.deviceConnectionChanged(uniqueID: id, connected: change.connected)
        }
    }
}
