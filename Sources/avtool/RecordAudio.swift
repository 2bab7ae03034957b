// `avtool record-audio`: records the sound server's default input with AVAudioRecorder — the
// format from the file's extension (or --format), for a duration or until Ctrl-C, with a live
// level meter (the recorder's metering). Ctrl-C finishes the file cleanly.
import ArgumentParser
import AVFoundation
import Foundation

struct RecordAudio: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-audio",
        abstract: "Record the default sound input with AVAudioRecorder (Ctrl-C stops).")

    @Option(name: .shortAndLong, help: "The file to write: .wav, .aif, .caf, .m4a.")
    var output: String

    @Option(help: "Seconds to record (default: until Ctrl-C).")
    var duration: Double?

    @Option(help: "lpcm, aac, alac, ima4, ulaw or alaw (default: lpcm, aac for .m4a).")
    var format: String?

    @Option(help: "Sample rate.")
    var rate: Double = 44_100

    @Option(help: "Channels.")
    var channels: Int = 2

    @Flag(help: "Show a live level meter.")
    var meter = false

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be more than 0") }
        guard (1...8).contains(channels) else { throw ValidationError("--channels must be 1 to 8") }
        guard (8_000...192_000).contains(rate) else { throw ValidationError("--rate must be 8000 to 192000") }
    }

    func formatID() throws -> AudioFormatID {
        let ext = URL(fileURLWithPath: output).pathExtension.lowercased()
        switch format?.lowercased() ?? (ext == "m4a" ? "aac" : "lpcm") {
        case "lpcm", "pcm": return kAudioFormatLinearPCM
        case "aac": return kAudioFormatMPEG4AAC
        case "alac": return kAudioFormatAppleLossless
        case "ima4": return kAudioFormatAppleIMA4
        case "ulaw": return kAudioFormatULaw
        case "alaw": return kAudioFormatALaw
        default: throw ValidationError("--format must be lpcm, aac, alac, ima4, ulaw or alaw")
        }
    }

    func run() throws {
        var settings: [String: Any] = [AVFormatIDKey: try formatID(), AVSampleRateKey: rate, AVNumberOfChannelsKey: channels]
        if try formatID() == kAudioFormatLinearPCM { settings[AVLinearPCMBitDepthKey] = 16 }
        let url = URL(fileURLWithPath: output)
        let recorder: AVAudioRecorder
        do {
            recorder = try AVAudioRecorder(url: url, settings: settings)
        } catch {
            FileHandle.standardError.write(Data("avtool: \(output): \(errorText(error))\n".utf8))
            throw ExitCode(1)
        }
        let status = MainActor.assumeIsolated { AudioRecording(recorder: recorder, options: self).run() }
        if status != 0 { throw ExitCode(status) }
    }
}

/// Notes the end of the recording, on the main queue.
private final class RecorderFinish: NSObject, AVAudioRecorderDelegate {
    var finished: Bool?
    var failure: String?

    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) { finished = flag }

    func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: (any Error)?) {
        failure = error.map(errorText) ?? "encoding failed"
        finished = false
    }
}

@MainActor
private final class AudioRecording {
    private let recorder: AVAudioRecorder
    private let options: RecordAudio
    private var interrupted = false

    init(recorder: AVAudioRecorder, options: RecordAudio) {
        self.recorder = recorder
        self.options = options
    }

    func run() -> Int32 {
        let end = RecorderFinish()
        recorder.delegate = end
        recorder.isMeteringEnabled = options.meter
        let signals = stopSignals { [weak self] in self?.interrupted = true }
        defer { signals.forEach { $0.cancel() } }
        let started = options.duration.map { recorder.record(forDuration: $0) } ?? recorder.record()
        guard started else {
            FileHandle.standardError.write(Data("avtool: cannot record: no sound server input answered\n".utf8))
            return 1
        }
        if !options.quiet { say("recording \(options.output)" + (options.duration.map { " for \($0) s" } ?? " (Ctrl-C stops)")) }
        var lastMeter = Date.distantPast
        var seconds = 0.0
        while end.finished == nil {
            if interrupted {
                seconds = recorder.currentTime
                recorder.stop()
                interrupted = false
            }
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.05))
            if recorder.isRecording { seconds = recorder.currentTime }
            if !options.quiet, Date().timeIntervalSince(lastMeter) >= 0.1 {
                lastMeter = Date()
                var line = String(format: "\r%6.1f s", seconds)
                if options.meter {
                    recorder.updateMeters()
                    let peak = recorder.peakPower(forChannel: 0), average = recorder.averagePower(forChannel: 0)
                    let lit = max(0, min(20, Int(((peak + 60) / 3).rounded())))
                    line += "  " + String(repeating: "▮", count: lit) + String(repeating: "▯", count: 20 - lit)
                        + String(format: " %5.1f/%5.1f dB", max(peak, -99), max(average, -99))
                }
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
        if !options.quiet { FileHandle.standardError.write(Data("\n".utf8)) }
        if let failure = end.failure {
            FileHandle.standardError.write(Data("avtool: \(failure)\n".utf8))
            return 1
        }
        if end.finished == false {
            FileHandle.standardError.write(Data("avtool: the sound input went away; \(options.output) holds what was recorded\n".utf8))
            return 1
        }
        if !options.quiet { say("wrote \(options.output)") }
        return 0
    }

    private func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
}
