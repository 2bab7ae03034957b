// AVAudioTime: a moment as a host time (CLOCK_MONOTONIC nanoseconds, as CMClock's host clock)
// and/or a sample time at a rate.
import CoreAudioTypes
import CoreMedia
import Foundation

/// A moment in audio: a host time, a sample time at a sample rate, or both.
open class AVAudioTime: NSObject {
    /// The time stamp (its flags say which times are valid).
    public let audioTimeStamp: AudioTimeStamp
    /// The rate of `sampleTime` (0 when there is none).
    public let sampleRate: Double

    /// A time from a time stamp whose sample time is at `sampleRate`.
    public init(audioTimeStamp ts: UnsafePointer<AudioTimeStamp>, sampleRate: Double) {
        audioTimeStamp = ts.pointee
        self.sampleRate = sampleRate
        super.init()
    }

    /// A host time (nanoseconds of the host clock).
    public convenience init(hostTime: UInt64) {
        var ts = AudioTimeStamp()
        ts.mHostTime = hostTime
        ts.mFlags = .hostTimeValid
        self.init(audioTimeStamp: &ts, sampleRate: 0)
    }

    /// A sample time at `sampleRate`.
    public convenience init(sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        var ts = AudioTimeStamp()
        ts.mSampleTime = Float64(sampleTime)
        ts.mFlags = .sampleTimeValid
        self.init(audioTimeStamp: &ts, sampleRate: sampleRate)
    }

    /// A host time and the sample time at `sampleRate` that match.
    public convenience init(hostTime: UInt64, sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        var ts = AudioTimeStamp()
        ts.mHostTime = hostTime
        ts.mSampleTime = Float64(sampleTime)
        ts.mFlags = .sampleHostTimeValid
        self.init(audioTimeStamp: &ts, sampleRate: sampleRate)
    }

    open var isHostTimeValid: Bool { audioTimeStamp.mFlags.contains(.hostTimeValid) }
    open var hostTime: UInt64 { audioTimeStamp.mHostTime }
    open var isSampleTimeValid: Bool { audioTimeStamp.mFlags.contains(.sampleTimeValid) }
    open var sampleTime: AVAudioFramePosition { AVAudioFramePosition(audioTimeStamp.mSampleTime) }

    /// This time with the times it lacks filled from `anchor` (which has both): a sample time
    /// from a host time or the reverse, at the anchor's rate converted to this time's. Nil when
    /// the anchor lacks either time.
    open func extrapolateTime(fromAnchor anchor: AVAudioTime) -> AVAudioTime? {
        guard anchor.isHostTimeValid, anchor.isSampleTimeValid, anchor.sampleRate > 0 else { return nil }
        let rate = sampleRate > 0 ? sampleRate : anchor.sampleRate
        let anchorSamples = Double(anchor.sampleTime) * rate / anchor.sampleRate
        switch (isHostTimeValid, isSampleTimeValid) {
        case (true, true):
            return self
        case (true, false):
            let seconds = (Double(hostTime) - Double(anchor.hostTime)) / 1e9
            return AVAudioTime(hostTime: hostTime, sampleTime: AVAudioFramePosition((anchorSamples + seconds * rate).rounded()), atRate: rate)
        case (false, true):
            let seconds = (Double(sampleTime) - anchorSamples) / rate
            let host = Double(anchor.hostTime) + seconds * 1e9
            return AVAudioTime(hostTime: UInt64(max(0, host.rounded())), sampleTime: sampleTime, atRate: rate)
        case (false, false):
            return nil
        }
    }

    /// Host time units (nanoseconds) for `seconds`.
    open class func hostTime(forSeconds seconds: TimeInterval) -> UInt64 {
        seconds <= 0 ? 0 : UInt64((seconds * 1e9).rounded())
    }

    /// Seconds for `hostTime` units (nanoseconds).
    open class func seconds(forHostTime hostTime: UInt64) -> TimeInterval { Double(hostTime) / 1e9 }

    open override var description: String {
        "<AVAudioTime: host \(isHostTimeValid ? String(hostTime) : "invalid"), sample \(isSampleTimeValid ? String(sampleTime) : "invalid") @ \(sampleRate) Hz>"
    }
}
