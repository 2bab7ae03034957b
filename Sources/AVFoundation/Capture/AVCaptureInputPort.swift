// AVCaptureInput.Port: one stream of an input (a camera's video, a microphone's audio).
import CoreMedia
import Foundation
import Synchronization

extension AVCaptureInput {
    /// One stream an input provides; connections link ports to outputs.
    open class Port: NSObject, @unchecked Sendable {
        /// Held strongly: a connection may outlive its input's place in a session, and
        /// `input` is not optional (the input–port cycle lasts as long as the input is used).
        private let owner: AVCaptureInput
        private let type: AVMediaType
        private let enabled = Mutex(true)
        private let format: @Sendable () -> CMFormatDescription?
        private let deviceType: AVCaptureDevice.DeviceType?
        private let devicePosition: AVCaptureDevice.Position

        init(input: AVCaptureInput, mediaType: AVMediaType, deviceType: AVCaptureDevice.DeviceType?,
             position: AVCaptureDevice.Position, format: @escaping @Sendable () -> CMFormatDescription?) {
            owner = input
            type = mediaType
            self.format = format
            self.deviceType = deviceType
            devicePosition = position
            super.init()
        }

        /// The input the port belongs to.
        open var input: AVCaptureInput { owner }
        /// The port's media type.
        open var mediaType: AVMediaType { type }
        /// The format the port delivers (the device's active format before the session's
        /// scaling), or nil when unknown.
        open var formatDescription: CMFormatDescription? { format() }
        /// Whether the port delivers to its connections (default true).
        open var isEnabled: Bool {
            get { enabled.withLock { $0 } }
            set { enabled.withLock { $0 = newValue } }
        }
        /// The clock the port's timestamps are on: the host time clock.
        open var clock: CMClock? { CMClockGetHostTimeClock() }
        /// The type of the device the port belongs to.
        open var sourceDeviceType: AVCaptureDevice.DeviceType? { deviceType }
        /// The position of the device the port belongs to.
        open var sourceDevicePosition: AVCaptureDevice.Position { devicePosition }

        /// Posted when a port's format description changes (object: the port).
        public static let formatDescriptionDidChangeNotification =
            NSNotification.Name("AVCaptureInputPortFormatDescriptionDidChangeNotification")
    }
}
