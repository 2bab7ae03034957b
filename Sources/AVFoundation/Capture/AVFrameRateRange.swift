// AVFrameRateRange: the frame rates a capture format supports.
import CoreMedia
import Foundation

/// A range of frame rates a capture device format supports.
open class AVFrameRateRange: NSObject, @unchecked Sendable {
    private let minDuration: CMTime
    private let maxDuration: CMTime

    init(minFrameDuration: CMTime, maxFrameDuration: CMTime) {
        minDuration = minFrameDuration
        maxDuration = maxFrameDuration
        super.init()
    }

    /// The lowest frame rate (frames per second).
    open var minFrameRate: Float64 { maxDuration.seconds > 0 ? 1 / maxDuration.seconds : 0 }
    /// The highest frame rate (frames per second).
    open var maxFrameRate: Float64 { minDuration.seconds > 0 ? 1 / minDuration.seconds : 0 }
    /// The shortest frame duration (1 / `maxFrameRate`), exact.
    open var minFrameDuration: CMTime { minDuration }
    /// The longest frame duration (1 / `minFrameRate`), exact.
    open var maxFrameDuration: CMTime { maxDuration }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVFrameRateRange else { return false }
        return other.minDuration == minDuration && other.maxDuration == maxDuration
    }

    open override var hash: Int { minDuration.hashValue ^ maxDuration.hashValue }

    open override var description: String { "<AVFrameRateRange: \(minFrameRate) - \(maxFrameRate)>" }
}
