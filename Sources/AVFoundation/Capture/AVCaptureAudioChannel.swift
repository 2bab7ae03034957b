// AVCaptureAudioChannel: one channel of an audio connection, with its levels.
import Foundation

/// One channel of an audio connection: its levels (dBFS) and, on macOS, volume and enabling.
open class AVCaptureAudioChannel: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var average: Float = -160
    private var peak: Float = -160
    private var _volume: Float = 1
    private var _enabled = true

    override init() {
        super.init()
    }

    /// The average power of recent samples, dBFS (≤ 0; −160 for silence). Not observable: poll it.
    open var averagePowerLevel: Float { lock.withLock { average } }
    /// The peak of recent samples, held for a while, dBFS (≤ 0). Not observable: poll it.
    open var peakHoldLevel: Float { lock.withLock { peak } }
    /// The gain applied to the channel, 0…1 (default 1).
    open var volume: Float {
        get { lock.withLock { _volume } }
        set { lock.withLock { _volume = max(0, min(1, newValue)) } }
    }
    /// Whether the channel is delivered (default true).
    open var isEnabled: Bool {
        get { lock.withLock { _enabled } }
        set { lock.withLock { _enabled = newValue } }
    }

    /// Sets the levels (the audio metering stage calls it per delivered buffer).
    func setLevels(average newAverage: Float, peakHold newPeak: Float) {
        lock.withLock {
            average = newAverage
            peak = newPeak
        }
    }
}
