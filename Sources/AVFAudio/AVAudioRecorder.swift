// AVAudioRecorder: records the sound server's default input to a file in the format its
// settings ask for — start now or at a device time, for a duration, pause and append, metering —
// through the pipeline's encoder and muxer. The work is AudioRecorderEngine's.
import CoreAudioTypes
import CoreMedia
import Dispatch
import Foundation
internal import MediaEngine

/// What an audio recorder tells its delegate, on the main queue.
public protocol AVAudioRecorderDelegate: NSObjectProtocol {
    /// The file is finished (after `stop()`, or the duration asked for); `flag` is false when the
    /// recording ended because its input went away.
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool)
    /// Encoding or writing the file failed.
    func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: (any Error)?)
}

extension AVAudioRecorderDelegate {
    public func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {}
    public func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: (any Error)?) {}
}

/// Records sound to a file.
///
/// The input is the sound server's default source (PulseAudio's or PipeWire's), resampled by the
/// server to the settings' rate and channel count (44.1 kHz stereo when they give none). The
/// file's type comes from the URL's extension: LPCM in WAV, CAF and AIFF; AAC and ALAC in M4A and
/// CAF; IMA4 in CAF; µ-law and A-law in WAV, CAF and AIFF — settings a file type cannot hold fail
/// with 'fmt?'. The file is flushed to disk every half second, so a WAV or CAF recording cut by a
/// crash reads up to then; an M4A or AIFF one is readable only once finished (their headers hold
/// the index or the frame count), as on Apple's systems. Metering reports the recorded sound: `averagePower` the RMS level of the
/// latest chunk (10 ms), `peakPower` the largest sample of the last 0.1 s, in dBFS.
open class AVAudioRecorder: NSObject {
    private let engine: AudioRecorderEngine
    private let settingsGiven: [String: Any]
    private var meters: [AudioChannelLevel] = []

    /// The file recorded to.
    open var url: URL { engine.url }
    /// The settings the recorder was made with.
    open var settings: [String: Any] { settingsGiven }
    /// The file's format.
    open var format: AVAudioFormat { engine.fileFormat }
    /// Told when the file is finished or cannot be written, on the main queue.
    open weak var delegate: (any AVAudioRecorderDelegate)?

    /// A recorder to `url` in the format `settings` describe (Apple's audio settings keys).
    public init(url: URL, settings: [String: Any]) throws {
        engine = try AudioRecorderEngine(url: url, settings: settings)
        settingsGiven = settings
        super.init()
        connectEvents()
    }

    /// A recorder to `url` in `format`.
    public convenience init(url: URL, format: AVAudioFormat) throws {
        try self.init(url: url, settings: format.settings)
    }

    private func connectEvents() {
        nonisolated(unsafe) weak var recorder = self
        engine.setEventHandler { event in
            DispatchQueue.main.async {
                guard let recorder else { return }
                switch event {
                case .finished(let success):
                    recorder.delegate?.audioRecorderDidFinishRecording(recorder, successfully: success)
                case .encodeError(let reason):
                    recorder.delegate?.audioRecorderEncodeErrorDidOccur(recorder, error: AVAudioPlayer.error(kAudioFileUnspecifiedError, reason, url: recorder.url))
                }
            }
        }
    }

    /// Creates the file (replacing one at the URL); false when it cannot be written.
    @discardableResult
    open func prepareToRecord() -> Bool { (try? engine.prepare()) != nil }

    /// Records (or resumes, appending) until `stop()`.
    @discardableResult
    open func record() -> Bool { (try? engine.record(atHostTime: nil, duration: nil)) != nil }

    /// Records from the device time `time` on (`deviceCurrentTime`'s clock).
    @discardableResult
    open func record(atTime time: TimeInterval) -> Bool { (try? engine.record(atHostTime: time, duration: nil)) != nil }

    /// Records `duration` seconds, then finishes the file and tells the delegate.
    @discardableResult
    open func record(forDuration duration: TimeInterval) -> Bool { (try? engine.record(atHostTime: nil, duration: duration)) != nil }

    /// Records `duration` seconds from the device time `time`.
    @discardableResult
    open func record(atTime time: TimeInterval, forDuration duration: TimeInterval) -> Bool {
        (try? engine.record(atHostTime: time, duration: duration)) != nil
    }

    /// Stops taking sound; `record()` appends to the file.
    open func pause() { engine.pause() }

    /// Stops and finishes the file; the delegate hears of it.
    open func stop() { engine.stop() }

    /// Stops and removes the file.
    @discardableResult
    open func deleteRecording() -> Bool { engine.deleteRecording() }

    open var isRecording: Bool { engine.isRecording }

    /// Seconds recorded so far (0 once the file is finished).
    open var currentTime: TimeInterval { engine.currentTime }

    /// The host clock, in seconds: the time `record(atTime:)` takes.
    open var deviceCurrentTime: TimeInterval { CMClockGetTime(CMClockGetHostTimeClock()).seconds }

    // MARK: Metering

    open var isMeteringEnabled: Bool {
        get { engine.isMetering }
        set { engine.isMetering = newValue }
    }

    open func updateMeters() { meters = engine.levels }

    open func peakPower(forChannel channelNumber: Int) -> Float {
        meters.indices.contains(channelNumber) ? meters[channelNumber].peakHoldLevel : AudioLevelMeter.floor
    }

    open func averagePower(forChannel channelNumber: Int) -> Float {
        meters.indices.contains(channelNumber) ? meters[channelNumber].averagePowerLevel : AudioLevelMeter.floor
    }
}
