// AVCaptureDeviceInput: a capture device as a session input.
import CoreMedia
import Foundation

/// Feeds a session from a capture device: one port per media type the device has.
open class AVCaptureDeviceInput: AVCaptureInput, @unchecked Sendable {
    /// The device.
    public let device: AVCaptureDevice

    /// An input for `device`. Throws `AVError(.deviceNotConnected)` when the device is gone.
    public init(device: AVCaptureDevice) throws {
        guard device.isConnected else {
            throw AVError(.deviceNotConnected, userInfo: [
                NSLocalizedDescriptionKey: "Cannot Use \(device.localizedName)",
                NSLocalizedFailureReasonErrorKey: "The device is not connected.",
                AVErrorDeviceKey: device,
            ])
        }
        self.device = device
        super.init()
        var ports: [AVCaptureInput.Port] = []
        for type in [AVMediaType.video, .audio] where device.hasMediaType(type) {
            let core = device.core
            ports.append(AVCaptureInput.Port(input: self, mediaType: type, deviceType: device.deviceType,
                                             position: device.position) { core.activeFormat()?.formatDescription })
        }
        portList.withLock { $0 = ports }
    }

    open override var description: String { "<AVCaptureDeviceInput: [\(device.localizedName)]>" }
}
