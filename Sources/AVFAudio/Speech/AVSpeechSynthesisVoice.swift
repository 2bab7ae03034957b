// AVSpeechSynthesisVoice: a voice speech is synthesized with — on Linux, one of espeak-ng's voices.
import CoreAudioTypes
import Foundation

/// How good a voice sounds.
public enum AVSpeechSynthesisVoiceQuality: Int, Sendable {
    /// The basic quality (every espeak-ng voice).
    case `default` = 1
    /// A higher quality.
    case enhanced = 2
    /// The highest quality.
    case premium = 3
}

/// The gender of a voice.
public enum AVSpeechSynthesisVoiceGender: Int, Sendable {
    case unspecified = 0
    case male = 1
    case female = 2
}

/// The identifier of macOS's Alex voice. No Apple voice exists on Linux:
/// `AVSpeechSynthesisVoice(identifier: AVSpeechSynthesisVoiceIdentifierAlex)` is nil.
public let AVSpeechSynthesisVoiceIdentifierAlex: String = "com.apple.speech.synthesis.voice.Alex"

/// A distinct voice for use in speech synthesis.
///
/// On Linux the voices are espeak-ng's (`speechVoices()` lists them). Identifiers are
/// `org.espeak-ng.voice.` followed by the voice's file under espeak-ng-data/voices with `/` as `.`
/// (`org.espeak-ng.voice.gmw.en-US`): stable across runs and machines with the same espeak-ng
/// data. `language` is the voice's first language as a BCP 47 code (`en-US`, `en-GB`, `fr-FR`, `de`).
open class AVSpeechSynthesisVoice: NSObject {
    /// The prefix of every voice identifier.
    static let identifierPrefix = "org.espeak-ng.voice."

    let engineVoice: EspeakVoice

    init(engineVoice: EspeakVoice) {
        self.engineVoice = engineVoice
        super.init()
    }

    /// Traits that describe a voice.
    public struct Traits: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// A novelty voice (a character's voice in a game).
        public static let isNoveltyVoice = Traits(rawValue: 1 << 0)
        /// A personal voice.
        public static let isPersonalVoice = Traits(rawValue: 1 << 1)
    }

    /// Every voice available (empty when espeak-ng cannot start).
    open class func speechVoices() -> [AVSpeechSynthesisVoice] {
        ((try? EspeakEngine.shared.voices()) ?? []).map { AVSpeechSynthesisVoice(engineVoice: $0) }
    }

    /// The BCP 47 code of the user's language and region, from the POSIX locale (`LC_ALL`,
    /// `LC_MESSAGES`, `LANG`): `en_GB.UTF-8` gives `en-GB`; `C`, `POSIX` or nothing give `en-US`.
    open class func currentLanguageCode() -> String {
        let environment = ProcessInfo.processInfo.environment
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[key], !value.isEmpty else { continue }
            let base = value.split(separator: ".").first.map(String.init) ?? value
            let code = base.split(separator: "@").first.map(String.init) ?? base
            if code == "C" || code == "POSIX" { break }
            let canonical = Self.bcp47(code)
            if canonical.first?.isLetter == true { return canonical }
        }
        return "en-US"
    }

    /// The voice for a BCP 47 language code (`en-US`, `fr-FR`; `_` accepted for `-`): a voice with
    /// that exact language, the one espeak-ng ranks first; else one for the language alone
    /// (`de-AT` → German). nil when no voice speaks the language. A nil code means
    /// `currentLanguageCode()`, falling back to `en-US`.
    public convenience init?(language languageCode: String?) {
        let voices = (try? EspeakEngine.shared.voices()) ?? []
        var found: EspeakVoice?
        if let languageCode {
            found = Self.bestVoice(for: languageCode, in: voices)
        } else {
            found = Self.bestVoice(for: Self.currentLanguageCode(), in: voices) ?? Self.bestVoice(for: "en-US", in: voices)
        }
        guard let found else { return nil }
        self.init(engineVoice: found)
    }

    /// The voice with `identifier` (see the class's discussion); nil when there is none.
    public convenience init?(identifier: String) {
        guard identifier.hasPrefix(Self.identifierPrefix),
              let found = ((try? EspeakEngine.shared.voices()) ?? []).first(where: { Self.identifier(of: $0) == identifier })
        else { return nil }
        self.init(engineVoice: found)
    }

    /// The voice's BCP 47 language code.
    open var language: String { Self.bcp47(engineVoice.languages[0]) }
    /// The voice's unique identifier.
    open var identifier: String { Self.identifier(of: engineVoice) }
    /// The voice's name ("English (America)").
    open var name: String { engineVoice.name }
    /// The voice's quality: `.default` for every espeak-ng voice.
    open var quality: AVSpeechSynthesisVoiceQuality { .default }
    /// The voice's gender, as espeak-ng lists it.
    open var gender: AVSpeechSynthesisVoiceGender {
        switch engineVoice.gender {
        case 1: return .male
        case 2: return .female
        default: return .unspecified
        }
    }
    /// The voice's traits: none for espeak-ng's voices.
    open var voiceTraits: Traits { [] }

    /// The format of the buffers `AVSpeechSynthesizer.write(_:toBufferCallback:)` delivers for this
    /// voice, as AVAudioFile settings: 32-bit float, non-interleaved, one channel, 22 050 Hz.
    open var audioFileSettings: [String: Any] {
        let rate = (try? EspeakEngine.shared.sampleRate()) ?? 22050
        return [AVFormatIDKey: Int(kAudioFormatLinearPCM), AVSampleRateKey: Double(rate), AVNumberOfChannelsKey: 1,
                AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true, AVLinearPCMIsBigEndianKey: false,
                AVLinearPCMIsNonInterleaved: true]
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVSpeechSynthesisVoice else { return false }
        return other.engineVoice == engineVoice
    }

    open override var hash: Int { engineVoice.file.hashValue }

    open override var description: String {
        "[AVSpeechSynthesisVoice] Language: \(language), Name: \(name), Quality: Default [\(identifier)]"
    }

    // MARK: Codes

    static func identifier(of voice: EspeakVoice) -> String {
        identifierPrefix + voice.file.replacingOccurrences(of: "/", with: ".")
    }

    /// `en-us` → `en-US`, `en-gb-x-rp` → `en-GB-x-rp`, `cmn-latn-pinyin` → `cmn-Latn-pinyin`.
    static func bcp47(_ code: String) -> String {
        var parts: [String] = []
        var privateUse = false
        for (index, part) in code.replacingOccurrences(of: "_", with: "-").split(separator: "-").enumerated() {
            let lower = part.lowercased()
            if index == 0 || privateUse {
                parts.append(lower)
            } else if lower == "x" {
                privateUse = true
                parts.append(lower)
            } else if part.count == 2, part.allSatisfy(\.isLetter) {
                parts.append(lower.uppercased())
            } else if part.count == 4, part.allSatisfy(\.isLetter) {
                parts.append(lower.prefix(1).uppercased() + lower.dropFirst())
            } else {
                parts.append(lower)
            }
        }
        return parts.joined(separator: "-")
    }

    /// The voice espeak-ng ranks best for `code`: an exact language match, else the language alone.
    static func bestVoice(for code: String, in voices: [EspeakVoice]) -> EspeakVoice? {
        let wanted = code.lowercased().replacingOccurrences(of: "_", with: "-")
        guard !wanted.isEmpty else { return nil }
        func best(_ language: String) -> EspeakVoice? {
            var choice: (voice: EspeakVoice, priority: Int)?
            for voice in voices {
                guard let index = voice.languages.firstIndex(of: language) else { continue }
                let priority = voice.priorities[index]
                if choice == nil || priority < choice!.priority { choice = (voice, priority) }
            }
            return choice?.voice
        }
        if let exact = best(wanted) { return exact }
        guard let primary = wanted.split(separator: "-").first.map(String.init), primary != wanted else { return nil }
        return best(primary)
    }
}
