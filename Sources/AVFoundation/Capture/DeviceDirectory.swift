// DeviceDirectory: the capture devices every backend describes (virtual cameras, V4L2 cameras,
// PulseAudio sources: CaptureBackends), merged into one list of AVCaptureDevice objects — one per
// unique ID for the life of the process.
import Foundation
import Synchronization
internal import MediaEngine

/// The devices of all backends, and the one `AVCaptureDevice` object per unique ID.
///
/// Each query asks every enumerator again (the virtual cameras are read from
/// `AVFOUNDATION_VIRTUAL_CAMERAS` at that moment, so a program or test may set the variable
/// before any query); a backend whose enumeration is costly caches on its side. A device seen
/// once keeps its object: when it is listed again its descriptor is refreshed, so `isConnected`
/// and `formats` follow the backend.
final class DeviceDirectory: Sendable {
    /// Lists the devices of one backend.
    typealias Enumerator = @Sendable () -> [any LiveDeviceDescriptor]

    /// The backends, in the order their devices are listed (and `default(for:)` prefers).
    /// Adding a backend is one line there.
    static let enumerators: [Enumerator] = CaptureBackends.enumerators

    /// The directory of every backend; its first query starts the device watcher.
    static let shared = DeviceDirectory(enumerators: enumerators, willQuery: CaptureBackends.willQuery)

    private let enumerators: [Enumerator]
    private let willQuery: (@Sendable () -> Void)?
    /// The device objects made, by unique ID.
    private let cores = Mutex<[String: CaptureDeviceCore]>([:])

    init(enumerators: [Enumerator], willQuery: (@Sendable () -> Void)? = nil) {
        self.enumerators = enumerators
        self.willQuery = willQuery
    }

    /// Every device the backends list now (connected or not), in backend order.
    func allDevices() -> [AVCaptureDevice] {
        let descriptors = enumerators.flatMap { $0() }
        var seen = Set<String>()
        var result: [AVCaptureDevice] = []
        for descriptor in descriptors where seen.insert(descriptor.uniqueID).inserted {
            result.append(core(for: descriptor).primary)
        }
        // After the devices have their objects: a watcher starting now reports the devices
        // already there as connected, which are then no change.
        willQuery?()
        return result
    }

    /// The connected devices, in backend order.
    func connectedDevices() -> [AVCaptureDevice] {
        allDevices().filter(\.isConnected)
    }

    /// The device with `uniqueID`, when a backend lists it.
    func device(uniqueID: String) -> AVCaptureDevice? {
        allDevices().first { $0.uniqueID == uniqueID }
    }

    /// The shared state of the device `descriptor` describes (made on first sight, refreshed after).
    private func core(for descriptor: any LiveDeviceDescriptor) -> CaptureDeviceCore {
        cores.withLock { cores in
            if let core = cores[descriptor.uniqueID] {
                core.update(descriptor)
                return core
            }
            let core = CaptureDeviceCore(descriptor: descriptor)
            cores[descriptor.uniqueID] = core
            return core
        }
    }

    /// The device object for `uniqueID` already made, if any.
    func existingCore(uniqueID: String) -> CaptureDeviceCore? {
        cores.withLock { $0[uniqueID] }
    }

    /// Entry point for device watchers (inotify on /dev and virtual camera files, PulseAudio
    /// subscriptions): the device `uniqueID` came or went. Refreshes the device, then — when its
    /// connection state changed — tells `isConnected` observers, posts
    /// `AVCaptureDevice.wasConnectedNotification` / `wasDisconnectedNotification` (object: the
    /// device) and tells discovery sessions to re-evaluate their `devices`.
    func deviceConnectionChanged(uniqueID: String, connected: Bool) {
        // A device first seen now (a source that just appeared) is new to clients: announced.
        let isNew = existingCore(uniqueID: uniqueID) == nil
        if isNew { _ = allDevices() }
        guard let core = existingCore(uniqueID: uniqueID) else { return }
        guard core.setConnected(connected) || (isNew && connected) else { return }
        let device = core.primary
        NotificationCenter.default.post(name: connected ? AVCaptureDevice.wasConnectedNotification
                                                        : AVCaptureDevice.wasDisconnectedNotification,
                                        object: device)
        AVCaptureDevice.DiscoverySession.devicesMayHaveChanged()
    }
}
