// The timing of one sample (or a run of samples) in a sample buffer.

/// Duration, presentation time and decode time of a sample.
public struct CMSampleTimingInfo: Sendable {
    public var duration: CMTime
    public var presentationTimeStamp: CMTime
    public var decodeTimeStamp: CMTime

    public init() {
        duration = CMTime()
        presentationTimeStamp = CMTime()
        decodeTimeStamp = CMTime()
    }

    public init(duration: CMTime, presentationTimeStamp: CMTime, decodeTimeStamp: CMTime) {
        self.duration = duration
        self.presentationTimeStamp = presentationTimeStamp
        self.decodeTimeStamp = decodeTimeStamp
    }
}
