// Names media code uses from Apple's Foundation, Darwin and Dispatch that Linux's lack
// (checked against swift-corelibs-foundation, Glibc and Dispatch: none declares them, so
// declaring them here cannot make a client's use ambiguous).

/// A signed integer of the platform's word size (`NSInteger` of Objective-C).
public typealias NSInteger = Int
/// An unsigned integer of the platform's word size (`NSUInteger` of Objective-C).
public typealias NSUInteger = UInt

/// Nanoseconds per second (Dispatch's `NSEC_PER_SEC`).
public let NSEC_PER_SEC: UInt64 = 1_000_000_000
/// Nanoseconds per millisecond.
public let NSEC_PER_MSEC: UInt64 = 1_000_000
/// Microseconds per second.
public let USEC_PER_SEC: UInt64 = 1_000_000
/// Nanoseconds per microsecond.
public let NSEC_PER_USEC: UInt64 = 1_000

extension ProcessInfo {
    /// What an activity asks of the system (`beginActivity(options:reason:)`). The values are
    /// Apple's; on Linux none changes what the system does (see `beginActivity`).
    public struct ActivityOptions: OptionSet, Sendable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        /// Keep the display from sleeping while idle.
        public static let idleDisplaySleepDisabled = ActivityOptions(rawValue: 1 << 40)
        /// Keep the system from sleeping while idle.
        public static let idleSystemSleepDisabled = ActivityOptions(rawValue: 1 << 20)
        /// Keep the app from being terminated suddenly.
        public static let suddenTerminationDisabled = ActivityOptions(rawValue: 1 << 14)
        /// Keep the app from being terminated automatically.
        public static let automaticTerminationDisabled = ActivityOptions(rawValue: 1 << 15)
        /// Track the activity for animation (in Instruments).
        public static let animationTrackingEnabled = ActivityOptions(rawValue: 1 << 45)
        /// Track the activity (in Instruments).
        public static let trackingEnabled = ActivityOptions(rawValue: 1 << 46)
        /// Work the user asked for.
        public static let userInitiated = ActivityOptions(rawValue: 0x00FF_FFFF | (1 << 20))
        /// Work the user asked for, during which the system may sleep when idle.
        public static let userInitiatedAllowingIdleSystemSleep = ActivityOptions(rawValue: 0x00FF_FFFF)
        /// Maintenance or other work the app starts itself.
        public static let background = ActivityOptions(rawValue: 0x0000_00FF)
        /// Work that needs the lowest latency (media playback, for instance).
        public static let latencyCritical = ActivityOptions(rawValue: 0xFF_0000_0000)
        /// Work the user interacts with directly.
        public static let userInteractive = ActivityOptions(rawValue: 0x00FF_FFFF | (1 << 20) | 0xFF_0000_0000)
    }

    /// Begins an activity and returns its token, to pass to `endActivity(_:)`. On Linux the
    /// system is not told (no sleep or termination management applies to a process here): the
    /// token only pairs the calls, so code that brackets work with them runs unchanged.
    public func beginActivity(options: ActivityOptions = [], reason: String) -> any NSObjectProtocol {
        ProcessActivity(options: options, reason: reason)
    }

    /// Ends an activity begun by `beginActivity(options:reason:)`.
    public func endActivity(_ activity: any NSObjectProtocol) {}

    /// Runs `block` synchronously as an activity (between `beginActivity` and `endActivity`).
    public func performActivity(options: ActivityOptions = [], reason: String, using block: @escaping () -> Void) {
        let activity = beginActivity(options: options, reason: reason)
        defer { endActivity(activity) }
        block()
    }
}

/// The token of an activity: its options and reason, for `description`.
private final class ProcessActivity: NSObject, Sendable {
    let options: ProcessInfo.ActivityOptions
    let reason: String

    init(options: ProcessInfo.ActivityOptions, reason: String) {
        self.options = options
        self.reason = reason
    }

    override var description: String { "<activity options=0x\(String(options.rawValue, radix: 16)) reason=\(reason)>" }
}
