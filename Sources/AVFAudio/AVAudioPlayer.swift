// AVAudioPlayer: plays a sound file or data — loops, volume with fades, pan, rate keeping pitch,
// metering, a start at a device time — through the process's shared sound output. The work is
// AudioPlayerEngine's; this is Apple's API over it.
import CoreAudioTypes
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

/// What an audio player tells its delegate, on the main queue.
public protocol AVAudioPlayerDelegate: NSObjectProtocol {
    /// The sound played to its end (after its loops); `flag` is false when decoding failed.
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)
    /// The file could not be decoded while playing.
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?)
}

extension AVAudioPlayerDelegate {
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}
    public func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {}
}

/// Plays sound from a file or from memory.
///
/// Every player of a process plays into one sound-server stream per sample rate, so players
/// started with `play(atTime:)` at one `deviceCurrentTime`-based time start on the same sample.
/// `deviceCurrentTime` is the host clock in seconds. Metering reports the file's sound before
/// volume and pan, per file channel (stereo for files of more channels): `averagePower` is the
/// RMS level of the latest block heard, `peakPower` the largest sample of the last 0.1 s, both in
/// dBFS (−160 for silence). `stop()` keeps `currentTime`; a player that plays to its end stands
/// at 0 again.
open class AVAudioPlayer: NSObject {
    private struct Settings {
        var enableRate = false
        var rate: Float = 1
        var meters: [AudioChannelLevel] = []
        var currentDevice: String?
    }

    private let engine: AudioPlayerEngine
    private let settingsState = Mutex(Settings())
    /// The copy of `data` the player reads (removed with the player).
    private let temporaryFile: URL?

    /// The file played (nil for a player of data).
    public let url: URL?
    /// The data played (nil for a player of a file).
    public let data: Data?
    /// Told when the sound finishes or cannot be decoded, on the main queue.
    open weak var delegate: (any AVAudioPlayerDelegate)?

    /// A player of the sound file at `url`.
    public convenience init(contentsOf url: URL) throws {
        try self.init(contentsOf: url, fileTypeHint: nil)
    }

    /// A player of the sound file at `url`; the hint is not needed (the content decides).
    public init(contentsOf url: URL, fileTypeHint utiString: String?) throws {
        self.url = url
        data = nil
        temporaryFile = nil
        engine = try Self.makeEngine(url, reference: url)
        super.init()
        connectEvents()
    }

    /// A player of sound file bytes in memory.
    public convenience init(data: Data) throws {
        try self.init(data: data, fileTypeHint: nil)
    }

    /// A player of sound file bytes in memory; the hint is not needed (the content decides).
    public init(data: Data, fileTypeHint utiString: String?) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("avaudioplayer-\(UUID().uuidString)")
        do {
            try data.write(to: file)
        } catch {
            throw Self.error(kAudioFileUnspecifiedError, "The data could not be staged for reading (\(error)).", url: nil)
        }
        do {
            engine = try Self.makeEngine(file, reference: nil)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        url = nil
        self.data = data
        temporaryFile = file
        super.init()
        connectEvents()
    }

    deinit {
        engine.stop()
        if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) }
    }

    private static func makeEngine(_ file: URL, reference: URL?) throws -> AudioPlayerEngine {
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw error(kAudioFileFileNotFoundError, "The file does not exist.", url: reference)
        }
        do {
            return try AudioPlayerEngine(url: file)
        } catch {
            throw Self.error(kAudioFileUnsupportedFileTypeError, "The content is not sound this system can decode (\(error)).", url: reference)
        }
    }

    /// The engine's events reach the delegate on the main queue.
    private func connectEvents() {
        nonisolated(unsafe) weak var player = self
        engine.setEventHandler { event in
            DispatchQueue.main.async {
                guard let player else { return }
                switch event {
                case .finished:
                    player.delegate?.audioPlayerDidFinishPlaying(player, successfully: true)
                case .decodeError(let reason):
                    player.delegate?.audioPlayerDecodeErrorDidOccur(player, error: Self.error(kAudioFileInvalidFileError, reason, url: player.url))
                }
            }
        }
    }

    static func error(_ code: OSStatus, _ reason: String, url: URL?) -> NSError {
        var info: [String: Any] = [NSLocalizedFailureReasonErrorKey: reason]
        if let url {
            info[NSURLErrorKey] = url
            info[NSFilePathErrorKey] = url.path
        }
        return NSError(domain: NSOSStatusErrorDomain, code: Int(code), userInfo: info)
    }

    // MARK: Playing

    /// Opens the output and decodes the first second, so `play()` starts at once.
    @discardableResult
    open func prepareToPlay() -> Bool {
        engine.prepare()
        return true
    }

    /// Plays (or resumes) from `currentTime`.
    @discardableResult
    open func play() -> Bool {
        engine.play(atHostTime: nil)
        return true
    }

    /// Starts playing when the output device's clock (`deviceCurrentTime`) reaches `time`; a time
    /// already past plays now.
    @discardableResult
    open func play(atTime time: TimeInterval) -> Bool {
        engine.play(atHostTime: time > deviceCurrentTime ? time : nil)
        return true
    }

    /// Pauses; `play()` resumes where it stood.
    open func pause() { engine.pause() }

    /// Stops and lets go of what `prepareToPlay()` set up; `currentTime` stays.
    open func stop() { engine.stop() }

    open var isPlaying: Bool { engine.isPlaying }

    // MARK: The sound

    open var duration: TimeInterval { Double(engine.length) / Double(engine.sampleRate) }
    open var numberOfChannels: Int { engine.channelCount }
    /// The file's format.
    open var format: AVAudioFormat { engine.fileFormat }
    /// The file's format as a settings dictionary.
    open var settings: [String: Any] { engine.fileFormat.settings }

    /// The position in the sound, in seconds (within the current loop); settable while playing.
    open var currentTime: TimeInterval {
        get { engine.position }
        set { engine.seek(to: newValue) }
    }

    /// The output device's clock, in seconds: the host clock, never reset.
    open var deviceCurrentTime: TimeInterval { CMClockGetTime(CMClockGetHostTimeClock()).seconds }

    /// How many times the sound starts again after its end: 0 plays it once, −1 loops until stopped.
    open var numberOfLoops: Int {
        get { engine.numberOfLoops }
        set { engine.numberOfLoops = newValue }
    }

    // MARK: Volume, pan, rate

    /// 0 (silent) … 1 (the file's level).
    open var volume: Float {
        get { engine.controls.volume }
        set { engine.controls.setVolume(min(1, max(0, newValue))) }
    }

    /// Moves the volume to `volume` linearly over `duration` seconds.
    open func setVolume(_ volume: Float, fadeDuration duration: TimeInterval) {
        engine.controls.fade(to: min(1, max(0, volume)), over: duration)
    }

    /// −1 (left) … 0 (centre) … 1 (right).
    open var pan: Float {
        get { engine.controls.pan }
        set { engine.controls.pan = newValue }
    }

    /// Whether `rate` applies (set it before `prepareToPlay()`).
    open var enableRate: Bool {
        get { settingsState.withLock { $0.enableRate } }
        set {
            let rate = settingsState.withLock { s -> Float in
                s.enableRate = newValue
                return newValue ? s.rate : 1
            }
            engine.setRate(Double(rate))
        }
    }

    /// 0.5 (half speed) … 2 (double), the pitch kept; only with `enableRate`.
    open var rate: Float {
        get { settingsState.withLock { $0.rate } }
        set {
            let (rate, enabled) = settingsState.withLock { s -> (Float, Bool) in
                s.rate = min(2, max(0.5, newValue))
                return (s.rate, s.enableRate)
            }
            if enabled { engine.setRate(Double(rate)) }
        }
    }

    /// The output device's unique ID (a sound-server sink name); nil: the default device.
    open var currentDevice: String? {
        get { settingsState.withLock { $0.currentDevice } }
        set {
            settingsState.withLock { $0.currentDevice = newValue }
            engine.setDevice(newValue)
        }
    }

    // MARK: Metering

    open var isMeteringEnabled: Bool {
        get { engine.controls.isMetering }
        set { engine.controls.isMetering = newValue }
    }

    /// Takes the levels of the sound heard last, for `peakPower`/`averagePower` to report.
    open func updateMeters() {
        let levels = engine.controls.isMetering ? engine.controls.levels ?? [] : []
        settingsState.withLock { $0.meters = levels }
    }

    /// The peak level of a channel at the last `updateMeters()`, in dBFS (−160 … 0).
    open func peakPower(forChannel channelNumber: Int) -> Float {
        settingsState.withLock { $0.meters.indices.contains(channelNumber) ? $0.meters[channelNumber].peakHoldLevel : AudioLevelMeter.floor }
    }

    /// The average (RMS) level of a channel at the last `updateMeters()`, in dBFS (−160 … 0).
    open func averagePower(forChannel channelNumber: Int) -> Float {
        settingsState.withLock { $0.meters.indices.contains(channelNumber) ? $0.meters[channelNumber].averagePowerLevel : AudioLevelMeter.floor }
    }
}
