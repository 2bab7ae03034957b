// Text, dictionary and Codable forms of CMTime.
import CoreFoundationCompat

// MARK: - Description

extension CMTime {
    /// The `CMTimeCopyDescription` text.
    ///
    /// Numeric times print as `{value/timescale = seconds}` with seconds to three decimals, e.g.
    /// `{1800/600 = 3.000}`; `, rounded` is appended when `hasBeenRounded` is set (Apple's output,
    /// e.g. `{2/10 = 0.200, rounded}` for `CMTimeMakeWithSeconds(0.234, 10)`) and `, epoch = N`
    /// when the epoch is not 0 (e.g. `{1/3 = 0.333, rounded, epoch = 2}`; Apple's epoch text is not
    /// documented). Special times print as `{INVALID}`, `{+INFINITY}`, `{-INFINITY}` and
    /// `{INDEFINITE}`; a valid time with a non-positive timescale prints as `{INVALID}`.
    var copyDescription: String {
        switch sortClass {
        case .invalid: return "{INVALID}"
        case .positiveInfinity: return "{+INFINITY}"
        case .negativeInfinity: return "{-INFINITY}"
        case .indefinite: return "{INDEFINITE}"
        case .numeric:
            var text = "{\(value)/\(timescale) = \(String(format: "%.3f", Double(value) / Double(timescale)))"
            if flags.rawValue & 0x2 != 0 { text += ", rounded" }
            if epoch != 0 { text += ", epoch = \(epoch)" }
            return text + "}"
        }
    }
}

// Apple's CMTime is an imported C struct with no description of its own, so `print(time)` and
// `"\(time)"` show its fields: `CMTime(value: 1, timescale: 2, flags: __C.CMTimeFlags(rawValue: 1),
// epoch: 0)`. This gives the same text. It is a debug description only, so an app's own
// `extension CMTime: CustomStringConvertible` (legal on Apple platforms) still takes precedence
// when it prints. CMTimeRange, CMTimeMapping and CMSampleTimingInfo need nothing: their default
// printing shows their fields and uses this text for each CMTime, as on Apple platforms (where
// nested values are module-qualified as `__C.CMTime(...)`; here a nested CMTime prints without a
// prefix and a nested CMTimeRange as `CoreMedia.CMTimeRange(...)`).
extension CMTime: CustomDebugStringConvertible {
    /// The fields, as Swift prints Apple's CMTime:
    /// `CMTime(value: 1, timescale: 2, flags: __C.CMTimeFlags(rawValue: 1), epoch: 0)`.
    public var debugDescription: String {
        "CMTime(value: \(value), timescale: \(timescale), flags: __C.CMTimeFlags(rawValue: \(flags.rawValue)), epoch: \(epoch))"
    }
}

/// A description of `time` (see `CMTime.copyDescription` for the format), e.g. `{1800/600 = 3.000}`.
/// The allocator is ignored.
@discardableResult
public func CMTimeCopyDescription(allocator: CFAllocator?, time: CMTime) -> CFString? {
    NSString(string: time.copyDescription)
}

/// Prints the description of `time` (as `CMTimeCopyDescription`) and a newline to standard output.
public func CMTimeShow(_ time: CMTime) {
    print(time.copyDescription)
}

// MARK: - Dictionary representation

/// The dictionary key of a CMTime's value (an `Int64` number).
nonisolated(unsafe) public let kCMTimeValueKey: CFString = "value"
/// The dictionary key of a CMTime's timescale (an `Int32` number).
nonisolated(unsafe) public let kCMTimeScaleKey: CFString = "timescale"
/// The dictionary key of a CMTime's epoch (an `Int64` number).
nonisolated(unsafe) public let kCMTimeEpochKey: CFString = "epoch"
/// The dictionary key of a CMTime's flags (a `UInt32` number).
nonisolated(unsafe) public let kCMTimeFlagsKey: CFString = "flags"

/// A dictionary holding every field of `time` under `kCMTimeValueKey`, `kCMTimeScaleKey`,
/// `kCMTimeEpochKey` and `kCMTimeFlagsKey`, as numbers. The allocator is ignored.
@discardableResult
public func CMTimeCopyAsDictionary(_ time: CMTime, allocator: CFAllocator?) -> CFDictionary? {
    NSDictionary(dictionary: [
        kCMTimeValueKey: NSNumber(value: time.value),
        kCMTimeScaleKey: NSNumber(value: time.timescale),
        kCMTimeEpochKey: NSNumber(value: time.epoch),
        kCMTimeFlagsKey: NSNumber(value: time.flags.rawValue),
    ])
}

/// The time a `CMTimeCopyAsDictionary` dictionary describes, fields (flags and epoch included)
/// restored exactly. A nil dictionary, or one whose value, timescale or flags is missing or not an
/// integer that fits its field, gives `kCMTimeInvalid`; a missing epoch means 0.
@discardableResult
public func CMTimeMakeFromDictionary(_ dictionaryRepresentation: CFDictionary?) -> CMTime {
    guard let dictionary = dictionaryRepresentation,
          let value = integerField(dictionary, (kCMTimeValueKey as String), as: Int64.self),
          let timescale = integerField(dictionary, (kCMTimeScaleKey as String), as: Int32.self),
          let flags = integerField(dictionary, (kCMTimeFlagsKey as String), as: UInt32.self)
    else { return kCMTimeInvalid }
    var epoch: Int64 = 0
    if dictionary.object(forKey: kCMTimeEpochKey) != nil {
        guard let stored = integerField(dictionary, (kCMTimeEpochKey as String), as: Int64.self) else { return kCMTimeInvalid }
        epoch = stored
    }
    return CMTime(value: value, timescale: timescale, flags: CMTimeFlags(rawValue: flags), epoch: epoch)
}

/// The integer stored under `key`, if it is an integral number that fits `T`.
func integerField<T: FixedWidthInteger>(_ dictionary: NSDictionary, _ key: String, as type: T.Type) -> T? {
    switch dictionary.object(forKey: key) {
    case let number as NSNumber:
        // Only integral numbers in Int64 range; int64Value is then exact.
        let double = number.doubleValue
        guard double.rounded() == double, double.magnitude <= 9.3e18 else { return nil }
        return T(exactly: number.int64Value)
    case let integer as Int: return T(exactly: integer)
    case let integer as Int64: return T(exactly: integer)
    case let integer as Int32: return T(exactly: integer)
    case let integer as UInt32: return T(exactly: integer)
    default: return nil
    }
}

/// The dictionary stored under `key`, if any.
func dictionaryField(_ dictionary: NSDictionary, _ key: String) -> NSDictionary? {
    switch dictionary.object(forKey: key) {
    case let nested as NSDictionary: return nested
    case let nested as [String: Any]: return NSDictionary(dictionary: nested)
    default: return nil
    }
}

// MARK: - Codable

extension CMTime: Codable {
    private enum CodingKeys: String, CodingKey { case value, timescale, flags, epoch }

    /// Decodes the four fields (`value`, `timescale`, `flags` as raw bits, `epoch`) exactly.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(value: try container.decode(CMTimeValue.self, forKey: .value),
                  timescale: try container.decode(CMTimeScale.self, forKey: .timescale),
                  flags: CMTimeFlags(rawValue: try container.decode(UInt32.self, forKey: .flags)),
                  epoch: try container.decode(CMTimeEpoch.self, forKey: .epoch))
    }

    /// Encodes the four fields (`value`, `timescale`, `flags` as raw bits, `epoch`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encode(timescale, forKey: .timescale)
        try container.encode(flags.rawValue, forKey: .flags)
        try container.encode(epoch, forKey: .epoch)
    }
}
