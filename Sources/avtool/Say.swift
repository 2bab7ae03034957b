// `avtool say`: macOS's `say` on AV Foundation for Linux — speaks text aloud through
// AVSpeechSynthesizer, or renders it to an audio file with write(_:toBufferCallback:) and
// AVAudioFile. Voices are espeak-ng's.
import ArgumentParser
import AVFoundation
import Foundation
import Synchronization

struct Say: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Speak text aloud, or write it to an audio file, as macOS's say does.",
        discussion: """
            Text comes from the arguments, else from -f FILE (- for standard input), else from standard input.
            -v '?' lists the voices. With -o the speech is written to a file whose type comes from its extension
            (.wav, .aif/.aiff, .aifc, .caf, .m4a); --data-format picks the encoding, as say's does: LEI16, BEI16,
            LEI24, LEI32, LEF32, LEF64 (BE for big-endian), aac or alac, with an optional @RATE (say's LEF32@22050).
            The default is 16-bit integers (AAC for .m4a) at the voice's 22050 Hz.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("The voice: a name, identifier, espeak-ng voice file or language code; '?' lists them.",
                                                    valueName: "voice"))
    var voice: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Speech rate in words per minute (80–450; default 175).", valueName: "rate"))
    var rate: Double?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the speech to this audio file instead of speaking it.", valueName: "out"))
    var output: String?

    @Option(name: .customShort("f"), help: ArgumentHelp("Read the text from this file ('-': standard input).", valueName: "file"))
    var inputFile: String?

    @Option(help: ArgumentHelp("The output's data format (with -o): LEI16, BEF32, aac, alac…, optionally @RATE.", valueName: "format"))
    var dataFormat: String?

    @Flag(help: "Show a progress meter on standard error.")
    var progress = false

    @Argument(help: "The text to speak.")
    var text: [String] = []

    func validate() throws {
        if let rate, !(rate.isFinite && rate > 0) { throw ValidationError("-r must be a positive number of words per minute") }
        if let dataFormat, SayDataFormat(dataFormat) == nil {
            throw ValidationError("--data-format \(dataFormat): expected e.g. LEI16, BEI16, LEF32, LEF32@22050, aac or alac")
        }
        if dataFormat != nil, output == nil { throw ValidationError("--data-format needs -o") }
        if inputFile != nil, !text.isEmpty { throw ValidationError("give the text as arguments or with -f, not both") }
    }

    func run() throws {
        if voice == "?" {
            listVoices()
            return
        }
        let voices = AVSpeechSynthesisVoice.speechVoices()
        guard !voices.isEmpty else { fail("no speech voices: espeak-ng could not start (is espeak-ng-data installed?)") }
        var chosen: AVSpeechSynthesisVoice?
        if let voice {
            chosen = Self.findVoice(voice, in: voices)
            guard chosen != nil else { fail("Voice `\(voice)' not found (avtool say -v '?' lists them).") }
        }
        let words = try readText()
        let utterance = AVSpeechUtterance(string: words)
        utterance.voice = chosen
        if let rate { utterance.rate = Self.utteranceRate(wordsPerMinute: rate) }
        if let output {
            try write(utterance, to: URL(fileURLWithPath: output))
        } else {
            speakAloud(utterance)
        }
    }

    /// Apple's utterance rate for `wordsPerMinute` (AVSpeechUtterance's mapping, inverted: 80 wpm
    /// is the minimum rate, 175 the default, 450 the maximum).
    static func utteranceRate(wordsPerMinute w: Double) -> Float {
        let clamped = min(max(w, 80), 450)
        if clamped <= 175 { return Float((clamped - 80) / 95 * 0.5) }
        return Float(0.5 + (clamped - 175) / 275 * 0.5)
    }

    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("avtool: say: \(message)\n".utf8))
        Foundation.exit(1)
    }

    // MARK: Voices

    /// As macOS prints them: name, language (with an underscore), and a sample sentence.
    private func listVoices() {
        let voices = AVSpeechSynthesisVoice.speechVoices()
        guard !voices.isEmpty else { fail("no speech voices: espeak-ng could not start (is espeak-ng-data installed?)") }
        var lines = ""
        for voice in voices {
            let name = voice.name.count < 20 ? voice.name.padding(toLength: 20, withPad: " ", startingAt: 0) : voice.name + " "
            let language = voice.language.replacingOccurrences(of: "-", with: "_")
            let column = language.count < 9 ? language.padding(toLength: 9, withPad: " ", startingAt: 0) : language + " "
            lines += "\(name)\(column)# Hello! My name is \(voice.name).\n"
        }
        FileHandle.standardOutput.write(Data(lines.utf8))
    }

    /// A voice by name, identifier, espeak-ng file (`gmw/en-US`) or language code.
    static func findVoice(_ wanted: String, in voices: [AVSpeechSynthesisVoice]) -> AVSpeechSynthesisVoice? {
        if let byName = voices.first(where: { $0.name.caseInsensitiveCompare(wanted) == .orderedSame }) { return byName }
        if let byIdentifier = AVSpeechSynthesisVoice(identifier: wanted) { return byIdentifier }
        let asIdentifier = "org.espeak-ng.voice." + wanted.replacingOccurrences(of: "/", with: ".")
        if let byFile = voices.first(where: { $0.identifier.caseInsensitiveCompare(asIdentifier) == .orderedSame }) { return byFile }
        return AVSpeechSynthesisVoice(language: wanted)
    }

    // MARK: Text

    private func readText() throws -> String {
        if !text.isEmpty { return text.joined(separator: " ") }
        let data: Data
        if let inputFile, inputFile != "-" {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: inputFile))
            } catch {
                fail("\(inputFile): \((error as NSError).localizedDescription)")
            }
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        guard let string = String(data: data, encoding: .utf8) else { fail("the text is not UTF-8") }
        return string
    }

    // MARK: Speaking aloud

    private func speakAloud(_ utterance: AVSpeechUtterance) {
        let synthesizer = AVSpeechSynthesizer()
        let watcher = SayProgress(length: (utterance.speechString as NSString).length, show: progress)
        synthesizer.delegate = watcher
        synthesizer.speak(utterance)
        while !watcher.isDone { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.05)) }
        if progress { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    // MARK: Writing a file

    private func write(_ utterance: AVSpeechUtterance, to url: URL) throws {
        let container = url.pathExtension.lowercased()
        let format = dataFormat.flatMap(SayDataFormat.init) ?? SayDataFormat.default(forExtension: container)
        let speechRate = Double(utterance.voice?.audioFileSettings[AVSampleRateKey] as? Double ?? 22050)
        let fileRate = format.sampleRate ?? speechRate
        let file: AVAudioFile
        do {
            file = try AVAudioFile(forWriting: url, settings: format.settings(sampleRate: fileRate))
        } catch {
            fail("\(url.path): \(errorText(error))")
        }
        let synthesizer = AVSpeechSynthesizer()
        let done = DispatchSemaphore(value: 0)
        let sink = SaySink(file: file, resample: fileRate != speechRate)
        synthesizer.write(utterance) { buffer in
            sink.take(buffer)
            if let pcm = buffer as? AVAudioPCMBuffer, pcm.frameLength == 0 { done.signal() }
        }
        done.wait()
        if sink.resample { sink.convertAndWrite() }
        file.close()
        if let error = sink.error { fail("\(url.path): \(errorText(error))") }
        if progress { FileHandle.standardError.write(Data("Progress: 100%\n".utf8)) }
    }
}

/// Where rendered buffers go: straight into the file, or kept to be resampled at the end.
private final class SaySink {
    let file: AVAudioFile
    let resample: Bool
    var kept: [AVAudioPCMBuffer] = []
    var error: (any Error)?

    init(file: AVAudioFile, resample: Bool) {
        self.file = file
        self.resample = resample
    }

    func take(_ buffer: AVAudioBuffer) {
        guard error == nil, let pcm = buffer as? AVAudioPCMBuffer, pcm.frameLength > 0 else { return }
        if resample {
            kept.append(pcm)
            return
        }
        do { try file.write(from: pcm) } catch { self.error = error }
    }

    /// Converts the kept buffers to the file's rate and writes them.
    func convertAndWrite() {
        guard error == nil, let first = kept.first,
              let converter = AVAudioConverter(from: first.format, to: file.processingFormat) else { return }
        var index = 0
        while true {
            guard let out = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 8192) else { return }
            var conversionError: NSError?
            let status = converter.convert(to: out, error: &conversionError) { _, status in
                guard index < self.kept.count else {
                    status.pointee = .endOfStream
                    return nil
                }
                status.pointee = .haveData
                index += 1
                return self.kept[index - 1]
            }
            if status == .error {
                error = conversionError
                return
            }
            if out.frameLength > 0 {
                do { try file.write(from: out) } catch {
                    self.error = error
                    return
                }
            }
            if status == .endOfStream || (status == .inputRanDry && out.frameLength == 0) { return }
        }
    }
}

/// Follows a spoken utterance for `say`: done when it finished or was cancelled; prints progress.
private final class SayProgress: NSObject, AVSpeechSynthesizerDelegate, Sendable {
    private let done = Mutex(false)
    private let length: Int
    private let show: Bool

    init(length: Int, show: Bool) {
        self.length = length
        self.show = show
    }

    var isDone: Bool { done.withLock { $0 } }

    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, willSpeakRangeOfSpeechString characterRange: NSRange,
                           utterance: AVSpeechUtterance) {
        guard show, length > 0 else { return }
        let percent = min(100, characterRange.location * 100 / length)
        FileHandle.standardError.write(Data("\rProgress: \(percent)%".utf8))
    }

    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didFinish utterance: AVSpeechUtterance) {
        if show { FileHandle.standardError.write(Data("\rProgress: 100%".utf8)) }
        done.withLock { $0 = true }
    }

    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didCancel utterance: AVSpeechUtterance) {
        done.withLock { $0 = true }
    }
}

/// say's --data-format: LPCM as [BE|LE](I|UI|F)bits, or aac / alac, with an optional @rate.
struct SayDataFormat {
    var formatID: AudioFormatID
    var bits = 16
    var isFloat = false
    var isBigEndian = false
    var sampleRate: Double?

    init(formatID: AudioFormatID, bits: Int = 16, isFloat: Bool = false, isBigEndian: Bool = false) {
        self.formatID = formatID
        self.bits = bits
        self.isFloat = isFloat
        self.isBigEndian = isBigEndian
    }

    init?(_ text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        var body = parts[0].uppercased()[...]
        if parts.count == 2 {
            guard let rate = Double(parts[1]), rate.isFinite, rate >= 1000, rate <= 384_000 else { return nil }
            sampleRate = rate
        }
        switch body {
        case "AAC":
            formatID = kAudioFormatMPEG4AAC
            return
        case "ALAC":
            formatID = kAudioFormatAppleLossless
            return
        default:
            formatID = kAudioFormatLinearPCM
        }
        if body.hasPrefix("BE") { isBigEndian = true; body = body.dropFirst(2) } else if body.hasPrefix("LE") { body = body.dropFirst(2) }
        if body.hasPrefix("F") {
            isFloat = true
            body = body.dropFirst()
        } else if body.hasPrefix("UI") {
            body = body.dropFirst(2)
        } else if body.hasPrefix("I") {
            body = body.dropFirst()
        } else {
            return nil
        }
        guard let bits = Int(body), isFloat ? [32, 64].contains(bits) : [8, 16, 24, 32].contains(bits) else { return nil }
        self.bits = bits
    }

    /// What macOS's say writes by default for a file extension: 16-bit integers (big-endian in
    /// AIFF), AAC in MPEG-4.
    static func `default`(forExtension ext: String) -> SayDataFormat {
        switch ext {
        case "aif", "aiff", "aifc": return SayDataFormat(formatID: kAudioFormatLinearPCM, isBigEndian: true)
        case "m4a", "mp4", "m4b", "mov": return SayDataFormat(formatID: kAudioFormatMPEG4AAC)
        default: return SayDataFormat(formatID: kAudioFormatLinearPCM)
        }
    }

    func settings(sampleRate: Double) -> [String: Any] {
        var settings: [String: Any] = [AVFormatIDKey: Int(formatID), AVSampleRateKey: sampleRate, AVNumberOfChannelsKey: 1]
        if formatID == kAudioFormatLinearPCM {
            settings[AVLinearPCMBitDepthKey] = bits
            settings[AVLinearPCMIsFloatKey] = isFloat
            settings[AVLinearPCMIsBigEndianKey] = isBigEndian
            settings[AVLinearPCMIsNonInterleaved] = false
        }
        return settings
    }
}
