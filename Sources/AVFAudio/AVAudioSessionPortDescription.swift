// AVAudioSessionPortDescription, AVAudioSessionChannelDescription and
// AVAudioSessionDataSourceDescription: a port of the route (a PulseAudio sink or source), its
// channels and its data sources, as Apple's classes describe them.
import CoreAudioTypes
import Foundation

/// An input or output port of the audio route: on Linux a PulseAudio sink (output) or source
/// (input). `uid` is the sink's or source's name, `portName` its description.
public final class AVAudioSessionPortDescription: NSObject, Sendable {
    /// The port's type, from the device's bus, form factor and active port.
    public let portType: AVAudioSession.Port
    /// The port's human-readable name.
    public let portName: String
    /// The port's system-assigned unique identifier (the PulseAudio sink or source name).
    public let uid: String
    /// The port's channels.
    public let channels: [AVAudioSessionChannelDescription]?
    /// The port's data sources (nil: PulseAudio ports are not offered as data sources).
    public let dataSources: [AVAudioSessionDataSourceDescription]?
    /// The selected data source (nil: no data sources).
    public let selectedDataSource: AVAudioSessionDataSourceDescription?
    /// The preferred data source (nil: no data sources).
    public let preferredDataSource: AVAudioSessionDataSourceDescription?
    /// Whether the port processes voice calls in hardware (never on Linux).
    public let hasHardwareVoiceCallProcessing: Bool
    /// Whether spatial audio is enabled on the port (never on Linux).
    public let isSpatialAudioEnabled: Bool

    package init(portType: AVAudioSession.Port, portName: String, uid: String, channels: [AVAudioSessionChannelDescription]?) {
        self.portType = portType
        self.portName = portName
        self.uid = uid
        self.channels = channels
        dataSources = nil
        selectedDataSource = nil
        preferredDataSource = nil
        hasHardwareVoiceCallProcessing = false
        isSpatialAudioEnabled = false
    }

    /// Selects a data source of the port; a data source the port does not have is an error
    /// (`NSOSStatusErrorDomain`, `AVAudioSession.ErrorCode.badParam`).
    public func setPreferredDataSource(_ dataSource: AVAudioSessionDataSourceDescription?) throws {
        guard let dataSource else { return }
        guard dataSources?.contains(where: { $0.dataSourceID == dataSource.dataSourceID }) == true else {
            throw AVAudioSession.error(.badParam, "the port \(uid) has no data source \(dataSource.dataSourceName)")
        }
    }

    /// Ports are equal when they describe the same device as the same type.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionPortDescription else { return false }
        return other.uid == uid && other.portType == portType && other.portName == portName
    }

    public override var hash: Int { uid.hashValue }

    public override var description: String { "<AVAudioSessionPortDescription: type = \(portType.rawValue); name = \(portName); UID = \(uid)>" }
}

/// One channel of a port.
public final class AVAudioSessionChannelDescription: NSObject, Sendable {
    /// The channel's name ("ToneSink Front Left").
    public let channelName: String
    /// The `uid` of the port the channel belongs to.
    public let owningPortUID: String
    /// The channel's index in the port, from 1.
    public let channelNumber: Int
    /// The channel's role (`kAudioChannelLabel_Left`, …).
    public let channelLabel: AudioChannelLabel

    package init(channelName: String, owningPortUID: String, channelNumber: Int, channelLabel: AudioChannelLabel) {
        self.channelName = channelName
        self.owningPortUID = owningPortUID
        self.channelNumber = channelNumber
        self.channelLabel = channelLabel
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionChannelDescription else { return false }
        return other.owningPortUID == owningPortUID && other.channelNumber == channelNumber && other.channelLabel == channelLabel
    }

    public override var hash: Int { owningPortUID.hashValue ^ channelNumber }
}

/// A data source of a port (a microphone of several on one device, a speaker of several).
/// PulseAudio describes none this way; the class exists for code that inspects `dataSources`.
public final class AVAudioSessionDataSourceDescription: NSObject, Sendable {
    /// The data source's identifier.
    public let dataSourceID: NSNumber
    /// The data source's name.
    public let dataSourceName: String
    /// Where the data source is on the device (nil: unknown).
    public let location: AVAudioSession.Location?
    /// Which way the data source faces (nil: unknown).
    public let orientation: AVAudioSession.Orientation?
    /// The polar patterns the data source supports (nil: none).
    public let supportedPolarPatterns: [AVAudioSession.PolarPattern]?
    /// The selected polar pattern (nil: none).
    public let selectedPolarPattern: AVAudioSession.PolarPattern?
    /// The preferred polar pattern (nil: none).
    public let preferredPolarPattern: AVAudioSession.PolarPattern?

    package init(dataSourceID: NSNumber, dataSourceName: String) {
        self.dataSourceID = dataSourceID
        self.dataSourceName = dataSourceName
        location = nil
        orientation = nil
        supportedPolarPatterns = nil
        selectedPolarPattern = nil
        preferredPolarPattern = nil
    }

    /// Selects a polar pattern; one the data source does not support is an error (`badParam`).
    public func setPreferredPolarPattern(_ pattern: AVAudioSession.PolarPattern?) throws {
        guard let pattern else { return }
        guard supportedPolarPatterns?.contains(pattern) == true else {
            throw AVAudioSession.error(.badParam, "the data source \(dataSourceName) has no polar pattern \(pattern.rawValue)")
        }
    }
}

extension AVAudioSession {
    /// Where a data source is on the device.
    public struct Location: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let lower = Location("Lower")
        public static let upper = Location("Upper")
    }

    /// Which way a data source faces.
    public struct Orientation: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let top = Orientation("Top")
        public static let bottom = Orientation("Bottom")
        public static let front = Orientation("Front")
        public static let back = Orientation("Back")
        public static let left = Orientation("Left")
        public static let right = Orientation("Right")
    }

    /// A microphone's directivity.
    public struct PolarPattern: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let omnidirectional = PolarPattern("Omnidirectional")
        public static let cardioid = PolarPattern("Cardioid")
        public static let subcardioid = PolarPattern("Subcardioid")
        public static let stereo = PolarPattern("Stereo")
    }
}
