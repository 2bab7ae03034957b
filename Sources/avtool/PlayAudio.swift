// `avtool play-audio`: plays sound files with AVAudioPlayer — several at once, started together on
// one device time (`play(atTime:)`), looped, at a rate, panned, faded in — with a live level meter
// (the players' metering) and a clean Ctrl-C.
import ArgumentParser
import AVFoundation
import Foundation

struct PlayAudio: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play-audio",
        abstract: "Play sound files with AVAudioPlayer (several at once, started together).")

    @Argument(help: "The sound files (WAV, AIFF, CAF, M4A, MP3, FLAC, Ogg…).")
    var files: [String]

    @Option(help: "Times each file starts again after its end (-1: until Ctrl-C).")
    var loop: Int = 0

    @Option(help: "Playback rate, 0.5 to 2 (the pitch is kept).")
    var rate: Float = 1

    @Option(help: "Pan, -1 (left) to 1 (right).")
    var pan: Float = 0

    @Option(help: "Volume, 0 to 1.")
    var volume: Float = 1

    @Option(name: .customLong("fade-in"), help: "Seconds over which the volume rises from 0.")
    var fadeIn: Double = 0

    @Option(name: .customLong("start-at"), help: "Seconds into each file to start from.")
    var startAt: Double = 0

    @Flag(help: "Show a live level meter (peak and average dBFS per file).")
    var meter = false

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one file") }
        guard (0.5...2).contains(rate) else { throw ValidationError("--rate must be between 0.5 and 2") }
        guard (-1...1).contains(pan) else { throw ValidationError("--pan must be between -1 and 1") }
        guard (0...1).contains(volume) else { throw ValidationError("--volume must be between 0 and 1") }
        guard loop >= -1 else { throw ValidationError("--loop must be -1 or more") }
    }

    func run() throws {
        let status = MainActor.assumeIsolated { AudioPlayback(self).run() }
        if status != 0 { throw ExitCode(status) }
    }
}

/// Counts the players that finished, on the main queue.
private final class FinishCounter: NSObject, AVAudioPlayerDelegate {
    var finished = 0
    var failure: String?

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) { finished += 1 }

    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {
        failure = error.map(errorText) ?? "decoding failed"
        finished += 1
    }
}

@MainActor
private final class AudioPlayback {
    private let options: PlayAudio
    private var interrupted = false
    private var serverLost = false

    init(_ options: PlayAudio) { self.options = options }

    func run() -> Int32 {
        var players: [AVAudioPlayer] = []
        for file in options.files {
            do {
                players.append(try AVAudioPlayer(contentsOf: URL(fileURLWithPath: file)))
            } catch {
                FileHandle.standardError.write(Data("avtool: \(file): \(errorText(error))\n".utf8))
                return 1
            }
        }
        let counter = FinishCounter()
        for player in players {
            player.delegate = counter
            player.numberOfLoops = options.loop
            player.enableRate = options.rate != 1
            player.rate = options.rate
            player.pan = options.pan
            player.volume = options.fadeIn > 0 ? 0 : options.volume
            player.isMeteringEnabled = options.meter
            player.currentTime = options.startAt
            player.prepareToPlay()
        }
        let signals = stopSignals { [weak self] in self?.interrupted = true }
        defer { signals.forEach { $0.cancel() } }
        // The sound server going away interrupts the session (the players pause): say so and stop.
        let interruption = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification, object: nil,
                                                                  queue: .main) { note in
            let began = (note.userInfo?[AVAudioSessionInterruptionTypeKey] as? NSNumber)?.uintValue == AVAudioSession.InterruptionType.began.rawValue
            guard began else { return }
            MainActor.assumeIsolated { [weak self] in self?.serverLost = true }
        }
        defer { NotificationCenter.default.removeObserver(interruption) }
        if !options.quiet {
            for (file, player) in zip(options.files, players) {
                let loops = options.loop < 0 ? ", looping" : options.loop > 0 ? ", \(options.loop + 1) times" : ""
                say("\(file): \(String(format: "%.2f", player.duration)) s, \(player.numberOfChannels) ch, "
                    + "\(Int(player.format.sampleRate)) Hz\(loops)")
            }
        }
        // Together: every player starts on the same device time, so on the same sample (a lead
        // long enough to start them all); one player starts at once.
        let start = (players.first?.deviceCurrentTime ?? 0) + 0.05
        for player in players {
            if players.count == 1 { player.play() } else { player.play(atTime: start) }
            if options.fadeIn > 0 { player.setVolume(options.volume, fadeDuration: options.fadeIn) }
        }
        var lastMeter = Date.distantPast
        while counter.finished < players.count && !interrupted && !serverLost {
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.05))
            if options.meter, !options.quiet, Date().timeIntervalSince(lastMeter) >= 0.1 {
                lastMeter = Date()
                FileHandle.standardError.write(Data(("\r" + players.map(meterText).joined(separator: "  ")).utf8))
            }
        }
        players.forEach { $0.stop() }
        if options.meter, !options.quiet { FileHandle.standardError.write(Data("\n".utf8)) }
        if let failure = counter.failure {
            FileHandle.standardError.write(Data("avtool: \(failure)\n".utf8))
            return 1
        }
        if serverLost {
            FileHandle.standardError.write(Data("avtool: the sound server went away: playback was interrupted\n".utf8))
            return 1
        }
        if interrupted { return 130 }
        if !options.quiet { say("played \(players.count) file\(players.count == 1 ? "" : "s")") }
        return 0
    }

    /// "▮▮▮▮▮▯▯▯ -6.0/-9.0 dB" per channel: a bar of the peak, then peak and average in dBFS.
    private func meterText(_ player: AVAudioPlayer) -> String {
        player.updateMeters()
        return (0..<min(player.numberOfChannels, 2)).map { channel in
            let peak = player.peakPower(forChannel: channel), average = player.averagePower(forChannel: channel)
            let lit = max(0, min(12, Int(((peak + 60) / 5).rounded())))
            return String(repeating: "▮", count: lit) + String(repeating: "▯", count: 12 - lit)
                + String(format: " %5.1f/%5.1f", max(peak, -99), max(average, -99))
        }.joined(separator: " ") + " dB"
    }

    private func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
}

/// Ctrl-C and SIGTERM call `stop` on the main actor instead of killing the process, so files are
/// finished and players stopped; cancel the returned sources when done.
@MainActor
func stopSignals(_ stop: @escaping @MainActor () -> Void) -> [any DispatchSourceSignal] {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    return [SIGINT, SIGTERM].map { number in
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        source.setEventHandler { MainActor.assumeIsolated { stop() } }
        source.resume()
        return source
    }
}
