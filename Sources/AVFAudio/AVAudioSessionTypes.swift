// The audio session's value types as Apple's AVAudioSessionTypes.h declares them: categories,
// modes, ports (strings), category and activation options, route-change reasons, interruption
// types and options, record permission, route-sharing policy, error codes, and the notification
// names and userInfo keys (with the older NSNotification.Name spellings Apple still compiles).
import Foundation

extension AVAudioSession {
    /// Audio session category identifiers.
    public struct Category: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Sound that mixes with other audio and is silenced by the Ring/Silent switch.
        public static let ambient = Category("AVAudioSessionCategoryAmbient")
        /// The default category: playback that silences other audio.
        public static let soloAmbient = Category("AVAudioSessionCategorySoloAmbient")
        /// Playback that is central to the app.
        public static let playback = Category("AVAudioSessionCategoryPlayback")
        /// Recording.
        public static let record = Category("AVAudioSessionCategoryRecord")
        /// Recording and playback, as for VoIP.
        public static let playAndRecord = Category("AVAudioSessionCategoryPlayAndRecord")
        /// Offline audio processing (deprecated by Apple; still declared).
        public static let audioProcessing = Category("AVAudioSessionCategoryAudioProcessing")
        /// Separate streams to several outputs.
        public static let multiRoute = Category("AVAudioSessionCategoryMultiRoute")
    }

    /// Audio session mode identifiers.
    public struct Mode: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public static let `default` = Mode("AVAudioSessionModeDefault")
        public static let voiceChat = Mode("AVAudioSessionModeVoiceChat")
        public static let gameChat = Mode("AVAudioSessionModeGameChat")
        public static let videoRecording = Mode("AVAudioSessionModeVideoRecording")
        public static let measurement = Mode("AVAudioSessionModeMeasurement")
        public static let moviePlayback = Mode("AVAudioSessionModeMoviePlayback")
        public static let videoChat = Mode("AVAudioSessionModeVideoChat")
        public static let spokenAudio = Mode("AVAudioSessionModeSpokenAudio")
        public static let voicePrompt = Mode("AVAudioSessionModeVoicePrompt")
        public static let shortFormVideo = Mode("AVAudioSessionModeShortFormVideo")
        public static let dualRoute = Mode("AVAudioSessionModeDualRoute")
    }

    /// Audio port types.
    public struct Port: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        // Inputs.
        public static let lineIn = Port("LineIn")
        public static let builtInMic = Port("MicrophoneBuiltIn")
        public static let headsetMic = Port("MicrophoneWired")
        public static let continuityMicrophone = Port("ContinuityMicrophone")
        // Outputs.
        public static let lineOut = Port("LineOut")
        public static let headphones = Port("Headphones")
        public static let bluetoothA2DP = Port("BluetoothA2DPOutput")
        public static let builtInReceiver = Port("Receiver")
        public static let builtInSpeaker = Port("Speaker")
        public static let HDMI = Port("HDMI")
        public static let airPlay = Port("AirPlay")
        public static let bluetoothLE = Port("BluetoothLE")
        // Inputs and outputs.
        public static let bluetoothHFP = Port("BluetoothHFP")
        public static let usbAudio = Port("USBAudio")
        public static let carAudio = Port("CarAudio")
        public static let virtual = Port("Virtual")
        public static let PCI = Port("PCI")
        public static let fireWire = Port("FireWire")
        public static let displayPort = Port("DisplayPort")
        public static let AVB = Port("AVB")
        public static let thunderbolt = Port("Thunderbolt")
    }

    /// Optional audio behaviours of a category.
    public struct CategoryOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        @available(*, deprecated, renamed: "allowBluetoothHFP")
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        public static let allowBluetoothHFP = CategoryOptions(rawValue: 0x4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)
        public static let farFieldInput = CategoryOptions(rawValue: 0x40000)
        public static let bluetoothHighQualityRecording = CategoryOptions(rawValue: 0x80000)
    }

    /// Options for `setActive(_:options:)`.
    public struct SetActiveOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// Options of an ended interruption.
    public struct InterruptionOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }

    /// Whether an interruption began or ended.
    public enum InterruptionType: UInt, Sendable {
        case began = 1
        case ended = 0
    }

    /// Why the route changed.
    public enum RouteChangeReason: UInt, Sendable {
        case unknown = 0
        case newDeviceAvailable = 1
        case oldDeviceUnavailable = 2
        case categoryChange = 3
        case override = 4
        case wakeFromSleep = 6
        case noSuitableRouteForCategory = 7
        case routeConfigurationChange = 8
    }

    /// Whether secondary audio should be silenced (`silenceSecondaryAudioHintNotification`).
    public enum SilenceSecondaryAudioHintType: UInt, Sendable {
        case begin = 1
        case end = 0
    }

    /// Output port overrides.
    public enum PortOverride: UInt, Sendable {
        case none = 0
        /// 'spkr'
        case speaker = 0x7370_6B72
    }

    /// The app's permission to record.
    public enum RecordPermission: UInt, Sendable {
        /// 'undt'
        case undetermined = 0x756E_6474
        /// 'deny'
        case denied = 0x6465_6E79
        /// 'grnt'
        case granted = 0x6772_6E74
    }

    /// Route-sharing policies.
    public enum RouteSharingPolicy: UInt, Sendable {
        case `default` = 0
        case longFormAudio = 1
        case independent = 2
        case longFormVideo = 3
        @available(*, deprecated, renamed: "longFormAudio")
        public static var longForm: RouteSharingPolicy { .longFormAudio }
    }

    /// The session's error codes (in `NSOSStatusErrorDomain`).
    public enum ErrorCode: Int, Sendable {
        case none = 0
        /// 'msrv'
        case mediaServicesFailed = 0x6D73_7276
        /// '!act'
        case isBusy = 0x2161_6374
        /// '!cat'
        case incompatibleCategory = 0x2163_6174
        /// '!int'
        case cannotInterruptOthers = 0x2169_6E74
        /// 'ent?'
        case missingEntitlement = 0x656E_743F
        /// 'siri'
        case siriIsRecording = 0x7369_7269
        /// '!pla'
        case cannotStartPlaying = 0x2170_6C61
        /// '!rec'
        case cannotStartRecording = 0x2172_6563
        case badParam = -50
        /// '!pri'
        case insufficientPriority = 0x2170_7269
        /// '!res'
        case resourceNotAvailable = 0x2172_6573
        /// 'what'
        case unspecified = 0x7768_6174
        /// '!ses'
        case expiredSession = 0x2173_6573
        /// 'inac'
        case sessionNotActive = 0x696E_6163
    }

    /// Posted when an audio interruption begins or ends (object: the session).
    public static let interruptionNotification = AudioSessionCenter.watched(NSNotification.Name("AVAudioSessionInterruptionNotification"))
    /// Posted when the audio route changes (object: the session).
    public static let routeChangeNotification = AudioSessionCenter.watched(NSNotification.Name("AVAudioSessionRouteChangeNotification"))
    /// Posted when the sound server went away.
    public static let mediaServicesWereLostNotification = AudioSessionCenter.watched(NSNotification.Name("AVAudioSessionMediaServicesWereLostNotification"))
    /// Posted when a sound server is back after one went away.
    public static let mediaServicesWereResetNotification = AudioSessionCenter.watched(NSNotification.Name("AVAudioSessionMediaServicesWereResetNotification"))
    /// Posted when other audio starts or stops playing.
    public static let silenceSecondaryAudioHintNotification = AudioSessionCenter.watched(NSNotification.Name("AVAudioSessionSilenceSecondaryAudioHintNotification"))
}

/// userInfo key: the interruption type (`AVAudioSession.InterruptionType` raw value).
public let AVAudioSessionInterruptionTypeKey = "AVAudioSessionInterruptionTypeKey"
/// userInfo key: the options of an ended interruption (`AVAudioSession.InterruptionOptions` raw value).
public let AVAudioSessionInterruptionOptionKey = "AVAudioSessionInterruptionOptionKey"
/// userInfo key: whether the interruption is because the app was suspended (deprecated by Apple).
public let AVAudioSessionInterruptionWasSuspendedKey = "AVAudioSessionInterruptionWasSuspendedKey"
/// userInfo key: the reason of a route change (`AVAudioSession.RouteChangeReason` raw value).
public let AVAudioSessionRouteChangeReasonKey = "AVAudioSessionRouteChangeReasonKey"
/// userInfo key: the route before the change (`AVAudioSessionRouteDescription`).
public let AVAudioSessionRouteChangePreviousRouteKey = "AVAudioSessionRouteChangePreviousRouteKey"
/// userInfo key: the hint type (`AVAudioSession.SilenceSecondaryAudioHintType` raw value).
public let AVAudioSessionSilenceSecondaryAudioHintTypeKey = "AVAudioSessionSilenceSecondaryAudioHintTypeKey"

// The names as Objective-C code and older Swift spell them.
extension NSNotification.Name {
    /// `AVAudioSession.interruptionNotification`.
    public static let AVAudioSessionInterruption = AVAudioSession.interruptionNotification
    /// `AVAudioSession.routeChangeNotification`.
    public static let AVAudioSessionRouteChange = AVAudioSession.routeChangeNotification
    /// `AVAudioSession.mediaServicesWereLostNotification`.
    public static let AVAudioSessionMediaServicesWereLost = AVAudioSession.mediaServicesWereLostNotification
    /// `AVAudioSession.mediaServicesWereResetNotification`.
    public static let AVAudioSessionMediaServicesWereReset = AVAudioSession.mediaServicesWereResetNotification
    /// `AVAudioSession.silenceSecondaryAudioHintNotification`.
    public static let AVAudioSessionSilenceSecondaryAudioHint = AVAudioSession.silenceSecondaryAudioHintNotification
}
