// AVCaptureDevice.DiscoverySession: the connected devices of some types, media type and position.
import Foundation
import Synchronization
internal import MediaEngine

extension AVCaptureDevice {
    /// Finds the connected devices matching device types, a media type and a position.
    ///
    /// `devices` is evaluated when read (so it follows devices coming and going); it is
    /// observable: when a device watcher reports a change (`DeviceDirectory`), observers of
    /// `\.devices` are told if this session's list changed.
    open class DiscoverySession: NSObject, @unchecked Sendable {
        private let deviceTypes: [AVCaptureDevice.DeviceType]
        private let mediaType: AVMediaType?
        private let position: AVCaptureDevice.Position
        /// The unique IDs of `devices` when last evaluated.
        private let lastIDs = Mutex<[String]>([])

        /// A discovery session for devices of any of `deviceTypes` with `mediaType` (nil: any)
        /// at `position` (`.unspecified`: any).
        public init(deviceTypes: [AVCaptureDevice.DeviceType], mediaType: AVMediaType?, position: AVCaptureDevice.Position) {
            self.deviceTypes = deviceTypes
            self.mediaType = mediaType
            self.position = position
            super.init()
            let ids = devices.map(\.uniqueID)
            lastIDs.withLock { $0 = ids }
            Self.register(self)
        }

        /// The matching connected devices, in the order of `deviceTypes`, then the backends' order.
        open var devices: [AVCaptureDevice] {
            let all = DeviceDirectory.shared.connectedDevices()
            var result: [AVCaptureDevice] = []
            for type in deviceTypes {
                for device in all where type.matches(device.deviceType) && !result.contains(device) {
                    if let mediaType, !device.hasMediaType(mediaType) { continue }
                    if position != .unspecified, device.position != position { continue }
                    result.append(device)
                }
            }
            return result
        }

        // MARK: Re-evaluation on hot-plug

        private struct WeakSession { weak var session: DiscoverySession? }
        private static let sessions = Mutex<[WeakSession]>([])

        private static func register(_ session: DiscoverySession) {
            sessions.withLock { sessions in
                sessions.removeAll { $0.session == nil }
                sessions.append(WeakSession(session: session))
            }
        }

        /// Re-evaluates every live discovery session and tells observers of those whose list changed.
        static func devicesMayHaveChanged() {
            let live = sessions.withLock { $0.compactMap(\.session) }
            for session in live {
                let now = session.devices
                let ids = now.map(\.uniqueID)
                let old: [String] = session.lastIDs.withLock { lastIDs in
                    defer { lastIDs = ids }
                    return lastIDs
                }
                guard old != ids else { continue }
                let oldDevices = old.compactMap { DeviceDirectory.shared.existingCore(uniqueID: $0)?.primary }
                KVORegistry.shared.didChange(session, \DiscoverySession.devices, old: oldDevices)
            }
        }
    }
}
