// AVError: AV Foundation's errors in AVFoundationErrorDomain, with Apple's codes and userInfo keys.
import CoreMedia
import Foundation

/// The error domain of AV Foundation errors.
public let AVFoundationErrorDomain: String = "AVFoundationErrorDomain"
/// userInfo key: the capture device involved.
public let AVErrorDeviceKey: String = "AVErrorDeviceKey"
/// userInfo key: the media time involved (an `NSValue` holding a CMTime).
public let AVErrorTimeKey: String = "AVErrorTimeKey"
/// userInfo key: the file size involved (NSNumber).
public let AVErrorFileSizeKey: String = "AVErrorFileSizeKey"
/// userInfo key: the process ID involved (NSNumber).
public let AVErrorPIDKey: String = "AVErrorPIDKey"
/// userInfo key: whether a recording finished successfully despite the error (NSNumber Bool).
public let AVErrorRecordingSuccessfullyFinishedKey: String = "AVErrorRecordingSuccessfullyFinishedKey"
/// userInfo key: the media type involved (String).
public let AVErrorMediaTypeKey: String = "AVErrorMediaTypeKey"
/// userInfo key: the media subtypes involved ([NSNumber]).
public let AVErrorMediaSubTypeKey: String = "AVErrorMediaSubTypeKey"
/// userInfo key: the presentation time stamp involved (NSValue holding a CMTime).
public let AVErrorPresentationTimeStampKey: String = "AVErrorPresentationTimeStampKey"
/// userInfo key: the persistent track ID involved (NSNumber).
public let AVErrorPersistentTrackIDKey: String = "AVErrorPersistentTrackIDKey"
/// userInfo key: the file type involved (String).
public let AVErrorFileTypeKey: String = "AVErrorFileTypeKey"
/// userInfo key: media discontinuity flags (NSNumber).
public let AVErrorDiscontinuityFlagsKey: String = "AVErrorDiscontinuityFlagsKey"

/// An AV Foundation error: an `AVError.Code` in `AVFoundationErrorDomain` with a userInfo
/// dictionary (`NSLocalizedDescriptionKey`, `NSLocalizedFailureReasonErrorKey`,
/// `NSUnderlyingErrorKey`, the `AVError*Key`s). Bridges to `NSError` as Apple's does.
public struct AVError: CustomNSError, Hashable, Sendable {
    /// AV Foundation's error codes, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// An unknown error occurred.
        case unknown = -11800
        /// The operation ran out of memory.
        case outOfMemory = -11801
        /// The capture session is not running.
        case sessionNotRunning = -11803
        /// The device is already used by another session.
        case deviceAlreadyUsedByAnotherSession = -11804
        /// No data was captured.
        case noDataCaptured = -11805
        /// The session configuration changed during recording.
        case sessionConfigurationChanged = -11806
        /// The disk is full.
        case diskFull = -11807
        /// The device was disconnected.
        case deviceWasDisconnected = -11808
        /// The media changed.
        case mediaChanged = -11809
        /// The maximum duration was reached.
        case maximumDurationReached = -11810
        /// The maximum file size was reached.
        case maximumFileSizeReached = -11811
        /// A media discontinuity occurred.
        case mediaDiscontinuity = -11812
        /// The maximum number of samples for the file format was reached.
        case maximumNumberOfSamplesForFileFormatReached = -11813
        /// The device is not connected.
        case deviceNotConnected = -11814
        /// The device is in use by another application.
        case deviceInUseByAnotherApplication = -11815
        /// The device is locked for configuration by another process.
        case deviceLockedForConfigurationByAnotherProcess = -11817
        /// The session was interrupted.
        case sessionWasInterrupted = -11818
        /// Media services were reset.
        case mediaServicesWereReset = -11819
        /// The export failed.
        case exportFailed = -11820
        /// Decoding failed.
        case decodeFailed = -11821
        /// The source media is invalid.
        case invalidSourceMedia = -11822
        /// A file already exists at the destination.
        case fileAlreadyExists = -11823
        /// Composition track segments are not contiguous.
        case compositionTrackSegmentsNotContiguous = -11824
        /// A composition track segment has an invalid duration.
        case invalidCompositionTrackSegmentDuration = -11825
        /// A composition track segment has an invalid source start time.
        case invalidCompositionTrackSegmentSourceStartTime = -11826
        /// A composition track segment has an invalid source duration.
        case invalidCompositionTrackSegmentSourceDuration = -11827
        /// The file format is not recognized.
        case fileFormatNotRecognized = -11828
        /// The file could not be parsed.
        case fileFailedToParse = -11829
        /// Too many still image capture requests.
        case maximumStillImageCaptureRequestsExceeded = -11830
        /// The content is protected.
        case contentIsProtected = -11831
        /// No image is available at the requested time.
        case noImageAtTime = -11832
        /// No decoder was found for the media.
        case decoderNotFound = -11833
        /// No encoder was found for the settings.
        case encoderNotFound = -11834
        /// The content is not authorized.
        case contentIsNotAuthorized = -11835
        /// The application is not authorized.
        case applicationIsNotAuthorized = -11836
        /// The device is not available in the background.
        case deviceIsNotAvailableInBackground = -11837
        /// The operation is not supported for this asset.
        case operationNotSupportedForAsset = -11838
        /// The decoder is temporarily unavailable.
        case decoderTemporarilyUnavailable = -11839
        /// The encoder is temporarily unavailable.
        case encoderTemporarilyUnavailable = -11840
        /// The video composition is invalid.
        case invalidVideoComposition = -11841
        /// A reference was forbidden by the reference policy.
        case referenceForbiddenByReferencePolicy = -11842
        /// The output URL's path extension does not match the file type.
        case invalidOutputURLPathExtension = -11843
        /// Screen capture failed.
        case screenCaptureFailed = -11844
        /// The display was disabled.
        case displayWasDisabled = -11845
        /// The torch level is unavailable.
        case torchLevelUnavailable = -11846
        /// The operation was interrupted.
        case operationInterrupted = -11847
        /// The asset is incompatible.
        case incompatibleAsset = -11848
        /// Media data failed to load.
        case failedToLoadMediaData = -11849
        /// The server is incorrectly configured.
        case serverIncorrectlyConfigured = -11850
        /// The application is not authorized to use the device.
        case applicationIsNotAuthorizedToUseDevice = -11852
        /// Parsing failed.
        case failedToParse = -11853
        /// The file type does not support sample references.
        case fileTypeDoesNotSupportSampleReferences = -11854
        /// The media data cannot be decoded.
        case undecodableMediaData = -11855
        /// The AirPlay controller requires internet access.
        case airPlayControllerRequiresInternet = -11856
        /// The AirPlay receiver requires internet access.
        case airPlayReceiverRequiresInternet = -11857
        /// The video compositor failed.
        case videoCompositorFailed = -11858
        /// A recording is already in progress.
        case recordingAlreadyInProgress = -11859
        /// The output settings are not supported.
        case unsupportedOutputSettings = -11861
        /// The operation is not allowed.
        case operationNotAllowed = -11862
        /// The content is unavailable.
        case contentIsUnavailable = -11863
        /// The format is not supported.
        case formatUnsupported = -11864
        /// Depth data is malformed.
        case malformedDepth = -11865
        /// The content was not updated.
        case contentNotUpdated = -11866
        /// The item is no longer playable.
        case noLongerPlayable = -11867
        /// No compatible alternates for the external display.
        case noCompatibleAlternatesForExternalDisplay = -11868
        /// No source track.
        case noSourceTrack = -11869
        /// External playback is not supported for the asset.
        case externalPlaybackNotSupportedForAsset = -11870
        /// The operation is not supported for the preset.
        case operationNotSupportedForPreset = -11871
        /// The session's hardware cost is too high.
        case sessionHardwareCostOverage = -11872
        /// The device's active format is unsupported.
        case unsupportedDeviceActiveFormat = -11873
        /// The object is incorrectly configured.
        case incorrectlyConfigured = -11875
        /// A segment started with a non-sync sample.
        case segmentStartedWithNonSyncSample = -11876
        /// Rosetta is not installed.
        case rosettaNotInstalled = -11877
        /// The operation was cancelled.
        case operationCancelled = -11878
        /// The content key request was cancelled.
        case contentKeyRequestCancelled = -11879
        /// The sample cursor is invalid.
        case invalidSampleCursor = -11880
        /// Sample data failed to load.
        case failedToLoadSampleData = -11881
        /// The AirPlay receiver is temporarily unavailable.
        case airPlayReceiverTemporarilyUnavailable = -11882
        /// Encoding failed.
        case encodeFailed = -11883
        /// A sandbox extension was denied.
        case sandboxExtensionDenied = -11884
        /// Tone mapping failed.
        case toneMappingFailed = -11885
        /// A media extension is disabled.
        case mediaExtensionDisabled = -11886
        /// Media extensions conflict.
        case mediaExtensionConflict = -11887
    }

    /// The error's code.
    public let code: Code
    /// The error's userInfo.
    public var userInfo: [String: Any] { storage.userInfo }
    private let storage: UserInfoBox

    private final class UserInfoBox: @unchecked Sendable {
        let userInfo: [String: Any]
        init(_ userInfo: [String: Any]) { self.userInfo = userInfo }
    }

    /// An error with `code` and `userInfo`; Apple's localized description and failure reason
    /// are filled in when `userInfo` does not give them.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        var info = userInfo
        if info[NSLocalizedDescriptionKey] == nil { info[NSLocalizedDescriptionKey] = AVError.description(for: code) }
        if info[NSLocalizedFailureReasonErrorKey] == nil, let reason = AVError.failureReason(for: code) {
            info[NSLocalizedFailureReasonErrorKey] = reason
        }
        if info[NSLocalizedRecoverySuggestionErrorKey] == nil, let suggestion = AVError.recoverySuggestion(for: code) {
            info[NSLocalizedRecoverySuggestionErrorKey] = suggestion
        }
        storage = UserInfoBox(info)
    }

    /// `AVFoundationErrorDomain`.
    public static var errorDomain: String { AVFoundationErrorDomain }
    /// The raw code.
    public var errorCode: Int { code.rawValue }
    /// The userInfo dictionary.
    public var errorUserInfo: [String: Any] { userInfo }
    /// The localized description (`NSLocalizedDescriptionKey`).
    public var localizedDescription: String { userInfo[NSLocalizedDescriptionKey] as? String ?? AVError.description(for: code) }

    /// The capture device involved, if any.
    public var device: AnyObject? { userInfo[AVErrorDeviceKey] as AnyObject? }
    /// The media time involved, if any.
    public var time: CMTime? { (userInfo[AVErrorTimeKey] as? NSValue)?.timeValue }
    /// The file size involved, if any.
    public var fileSize: Int64? { (userInfo[AVErrorFileSizeKey] as? NSNumber)?.int64Value }
    /// The process ID involved, if any.
    public var processID: Int? { (userInfo[AVErrorPIDKey] as? NSNumber)?.intValue }
    /// Whether the recording finished successfully despite the error, if known.
    public var recordingSuccessfullyFinished: Bool? { (userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? NSNumber)?.boolValue }
    /// The media type involved, if any.
    public var mediaType: AVMediaType? { (userInfo[AVErrorMediaTypeKey] as? String).map(AVMediaType.init(rawValue:)) }
    /// The media subtypes involved, if any.
    public var mediaSubtypes: [Int]? { (userInfo[AVErrorMediaSubTypeKey] as? [NSNumber])?.map(\.intValue) }
    /// The presentation time stamp involved, if any.
    public var presentationTimeStamp: CMTime? { (userInfo[AVErrorPresentationTimeStampKey] as? NSValue)?.timeValue }
    /// The persistent track ID involved, if any.
    public var persistentTrackID: CMPersistentTrackID? { (userInfo[AVErrorPersistentTrackIDKey] as? NSNumber)?.int32Value }
    /// The file type involved, if any.
    public var fileType: AVFileType? { (userInfo[AVErrorFileTypeKey] as? String).map(AVFileType.init(rawValue:)) }

    public static func == (lhs: AVError, rhs: AVError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    // Apple's static shorthands (`AVError.unknown`, `AVError.fileFormatNotRecognized`, …) for the
    // codes Apple code matches on most.
    /// `Code.unknown`.
    public static var unknown: Code { .unknown }
    /// `Code.outOfMemory`.
    public static var outOfMemory: Code { .outOfMemory }
    /// `Code.fileFormatNotRecognized`.
    public static var fileFormatNotRecognized: Code { .fileFormatNotRecognized }
    /// `Code.fileFailedToParse`.
    public static var fileFailedToParse: Code { .fileFailedToParse }
    /// `Code.decoderNotFound`.
    public static var decoderNotFound: Code { .decoderNotFound }
    /// `Code.decodeFailed`.
    public static var decodeFailed: Code { .decodeFailed }
    /// `Code.fileAlreadyExists`.
    public static var fileAlreadyExists: Code { .fileAlreadyExists }
    /// `Code.noImageAtTime`.
    public static var noImageAtTime: Code { .noImageAtTime }
    /// `Code.operationCancelled`.
    public static var operationCancelled: Code { .operationCancelled }
    /// `Code.failedToLoadMediaData`.
    public static var failedToLoadMediaData: Code { .failedToLoadMediaData }
    /// `Code.operationNotSupportedForAsset`.
    public static var operationNotSupportedForAsset: Code { .operationNotSupportedForAsset }
    /// `Code.exportFailed`.
    public static var exportFailed: Code { .exportFailed }
    /// `Code.invalidSourceMedia`.
    public static var invalidSourceMedia: Code { .invalidSourceMedia }
    /// `Code.contentIsUnavailable`.
    public static var contentIsUnavailable: Code { .contentIsUnavailable }
    /// `Code.diskFull`.
    public static var diskFull: Code { .diskFull }

    /// Apple's `NSLocalizedDescription` for `code` (the short title its alerts show).
    static func description(for code: Code) -> String {
        switch code {
        case .fileFormatNotRecognized, .fileFailedToParse, .failedToParse, .contentIsUnavailable, .invalidSourceMedia: return "Cannot Open"
        case .decoderNotFound, .decodeFailed, .undecodableMediaData, .decoderTemporarilyUnavailable: return "Cannot Decode"
        case .encoderNotFound, .encodeFailed, .encoderTemporarilyUnavailable, .unsupportedOutputSettings: return "Cannot Encode"
        case .noImageAtTime: return "Cannot Open"
        case .fileAlreadyExists: return "Cannot Save"
        case .outOfMemory: return "Out of Memory"
        case .diskFull, .operationCancelled, .operationNotSupportedForAsset, .invalidVideoComposition, .serverIncorrectlyConfigured:
            return "Operation Stopped"
        case .exportFailed: return "Cannot Complete Export"
        case .operationInterrupted: return "Operation Interrupted"
        case .mediaServicesWereReset: return "Cannot Complete Action"
        case .failedToLoadMediaData: return "Cannot Load Media Data"
        default: return "The operation could not be completed"
        }
    }

    /// Apple's `NSLocalizedFailureReason` for `code`, where it gives one.
    static func failureReason(for code: Code) -> String? {
        switch code {
        case .fileFormatNotRecognized: return "This media format is not supported."
        case .fileFailedToParse, .failedToParse, .invalidSourceMedia: return "This media may be damaged."
        case .decoderNotFound: return "The decoder required for this media is not available."
        case .decoderTemporarilyUnavailable: return "The decoder required for this media is busy."
        case .decodeFailed: return "The media data could not be decoded. It may be damaged."
        case .encoderNotFound: return "The encoder required for this media is not available."
        case .noImageAtTime: return "This media does not have an image at the requested time."
        case .fileAlreadyExists: return "A file already exists at the destination."
        case .diskFull: return "There is not enough available space to continue the file writing."
        case .outOfMemory: return "There is not enough memory."
        case .operationCancelled: return "The operation was cancelled."
        case .operationNotSupportedForAsset: return "The operation is not supported for this media."
        case .invalidVideoComposition: return "The video could not be composed."
        case .serverIncorrectlyConfigured: return "The server is not correctly configured."
        case .unknown: return "An unknown error occurred."
        default: return nil
        }
    }

    /// Apple's `NSLocalizedRecoverySuggestion` for `code`, where it gives one.
    static func recoverySuggestion(for code: Code) -> String? {
        switch code {
        case .exportFailed: return "Try exporting again."
        case .fileAlreadyExists: return "Try saving again."
        case .operationInterrupted: return "Stop other operations and try again."
        case .mediaServicesWereReset: return "Try again later."
        case .decoderTemporarilyUnavailable: return "Stop any other actions that decode media and try again."
        case .encoderTemporarilyUnavailable: return "Stop any other actions that encode media and try again."
        default: return nil
        }
    }

    /// What an `NSError` in Apple's Foundation prints for `domain`, `code` and `userInfo`:
    /// `Error Domain=D Code=N "description" UserInfo={Key=value, …}` — the quoted text is the
    /// `NSLocalizedDescription` ("(null)" without one), nested errors print the same way after
    /// their address, and the keys come in sorted order (Apple's order is its dictionary's).
    static func appleDescription(domain: String, code: Int, userInfo: [String: Any]) -> String {
        let title = (userInfo[NSLocalizedDescriptionKey] as? String).map { "\"\($0)\"" } ?? "\"(null)\""
        var text = "Error Domain=\(domain) Code=\(code) \(title)"
        guard !userInfo.isEmpty else { return text }
        let pairs = userInfo.keys.sorted().map { key in "\(key)=\(describeValue(userInfo[key]!))" }
        text += " UserInfo={\(pairs.joined(separator: ", "))}"
        return text
    }

    private static func describeValue(_ value: Any) -> String {
        switch value {
        case let error as AVError:
            return describeValue(error as NSError)
        case let error as NSError:
            let address = "0x" + String(UInt(bitPattern: Unmanaged.passUnretained(error).toOpaque()), radix: 16)
            return "\(address) {\(appleDescription(domain: error.domain, code: error.code, userInfo: error.userInfo))}"
        case let url as URL:
            return url.absoluteString
        case let url as NSURL:
            return url.absoluteString
        case let number as NSNumber:
            return number.stringValue
        case let value as NSValue where value.timeValue.isValid:
            let time = value.timeValue
            return "CMTime: {\(time.value)/\(time.timescale) = \(String(format: "%.3f", time.seconds))}"
        default:
            return "\(value)"
        }
    }
}

/// `print(error)`, `"\(error)"` and `String(describing: error)` show what Apple's show for an
/// AV Foundation error (which arrives as the NSError it bridges to):
/// `Error Domain=AVFoundationErrorDomain Code=-11838 "Operation Stopped" UserInfo={…}`.
extension AVError: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        AVError.appleDescription(domain: AVFoundationErrorDomain, code: code.rawValue, userInfo: userInfo)
    }

    public var debugDescription: String { description }
}

extension AVError.Code {
    /// Matches `catch AVError.fileFormatNotRecognized` style patterns against any error: an
    /// `AVError` or an `NSError` in `AVFoundationErrorDomain` with this code.
    public static func ~= (code: AVError.Code, error: any Error) -> Bool {
        if let e = error as? AVError { return e.code == code }
        let ns = error as NSError
        return ns.domain == AVFoundationErrorDomain && ns.code == code.rawValue
    }
}
