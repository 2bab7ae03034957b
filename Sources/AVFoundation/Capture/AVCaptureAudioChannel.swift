// AVCaptureAudioChannel: one channel of an audio connection, with its levels.
import Foundation
import Synchronization

/// One channel of an audio connection: its levels (dBFS) and, on macOS, volume and enabling.
open class AVCaptureAudioChannel: NSObject, @unchecked Sendable {
    private struct State {
        var average: Float = -160
        var peak: Float = -160
        var volume: Float = 1
        var enabled = true
    }
    private let state = Mutex(State())

    override init() {
        super.init()
    }

    /// The average power of recent samples, dBFS (≤ 0; −160 for silence). Not observable: poll it.
    open var averagePowerLevel: Float { state.withLock { $0.average } }
    /// The peak of recent samples, held for a while, dBFS (≤ 0). Not observable: poll it.
    open var peakHoldLevel: Float { state.withLock { $0.peak } }
    /// The gain applied to the channel (macOS): 1 (the default) leaves the samples alone, 0.5
    /// lowers them by 6 dB, 0 silences them; as Apple's header says, values above 1 boost the
    /// gain in software (float samples may then exceed full scale; integer output clips). Negative
    /// and non-finite values are taken as 0. Applies to what the connection delivers to its output
    /// (audio data output buffers, movie file output recordings) from the next chunk of sound,
    /// and to the levels.
    open var volume: Float {
        get { state.withLock { $0.volume } }
        set { state.withLock { $0.volume = newValue.isFinite ? max(0, newValue) : 0 } }
    }
    /// Whether the channel's sound flows (macOS; default true): a disabled channel is delivered
    /// as silence (the buffers keep their channel count) and meters −160 dB.
    open var isEnabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    /// The gain the channel applies: `volume`, or 0 when disabled.
    var gain: Float { state.withLock { $0.enabled ? $0.volume : 0 } }

    /// Sets the levels (the audio metering stage calls it per delivered buffer).
    func setLevels(average newAverage: Float, peakHold newPeak: Float) {
        state.withLock {
            $0.average = newAverage
            $0.peak = newPeak
        }
    }
}
