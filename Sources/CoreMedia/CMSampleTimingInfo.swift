// The timing of one sample (or a run of samples) in a sample buffer.

/// Duration, presentation time and decode time of a sample.
public struct CMSampleTimingInfo: Sendable {
    /// How long the sample lasts.
    public var duration: CMTime
    /// When the sample is presented.
    public var presentationTimeStamp: CMTime
    /// When the sample is decoded (invalid when it equals the presentation time).
    public var decodeTimeStamp: CMTime

    /// The zero-initialised timing, as in C: all three times are the all-zero (invalid) time.
    public init() {
        duration = CMTime()
        presentationTimeStamp = CMTime()
        decodeTimeStamp = CMTime()
    }

    /// Creates a timing from its three times.
    public init(duration: CMTime, presentationTimeStamp: CMTime, decodeTimeStamp: CMTime) {
        self.duration = duration
        self.presentationTimeStamp = presentationTimeStamp
        self.decodeTimeStamp = decodeTimeStamp
    }
}

/// A timing whose three times are all `kCMTimeInvalid`.
public let kCMTimingInfoInvalid = CMSampleTimingInfo(duration: kCMTimeInvalid, presentationTimeStamp: kCMTimeInvalid,
                                                     decodeTimeStamp: kCMTimeInvalid)

extension CMSampleTimingInfo {
    /// A timing whose three times are all invalid (`kCMTimingInfoInvalid`).
    public static let invalid = kCMTimingInfoInvalid
}

extension CMSampleTimingInfo: Equatable {
    /// Whether the three times are pairwise equal by `CMTimeCompare`.
    public static func == (lhs: CMSampleTimingInfo, rhs: CMSampleTimingInfo) -> Bool {
        lhs.duration == rhs.duration && lhs.presentationTimeStamp == rhs.presentationTimeStamp
            && lhs.decodeTimeStamp == rhs.decodeTimeStamp
    }
}

extension CMSampleTimingInfo: Hashable {
    /// Hashes the three times, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(duration)
        hasher.combine(presentationTimeStamp)
        hasher.combine(decodeTimeStamp)
    }
}
