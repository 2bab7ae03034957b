// AVSpeechUtterance: the text to speak and how to speak it.
import Foundation

/// The slowest rate an utterance can have.
public let AVSpeechUtteranceMinimumSpeechRate: Float = 0.0
/// The fastest rate an utterance can have.
public let AVSpeechUtteranceMaximumSpeechRate: Float = 1.0
/// The rate an utterance has unless set.
public let AVSpeechUtteranceDefaultSpeechRate: Float = 0.5

/// The text for speech synthesis and the parameters that affect the speech.
///
/// Set the parameters before passing the utterance to a synthesizer: it reads them when the
/// utterance is enqueued (`speak(_:)`, `write(_:toBufferCallback:)`), so later changes have no
/// effect, as Apple documents.
///
/// On Linux (espeak-ng):
/// - `rate` maps to words per minute piecewise linearly: 0 → 80, 0.5 (the default) → 175
///   (espeak-ng's normal rate), 1 → 450 (its fastest), so a higher rate always speaks faster.
/// - `pitchMultiplier` (0.5–2) scales espeak-ng's base pitch (normally 50 of 0–100): 0.5 → 25,
///   1 → 50, 2 → 100.
/// - `volume` (0–1) is espeak-ng's amplitude 0–100.
/// - `preUtteranceDelay`/`postUtteranceDelay` are silence before and after the speech.
open class AVSpeechUtterance: NSObject, NSCopying {
    let text: SpeechText
    private var storedRate: Float = AVSpeechUtteranceDefaultSpeechRate
    private var storedPitch: Float = 1
    private var storedVolume: Float = 1

    private init(text: SpeechText) {
        self.text = text
        super.init()
    }

    /// An utterance that speaks `string`.
    public convenience init(string: String) {
        self.init(text: SpeechText(plain: string))
    }

    /// An utterance that speaks the characters of `string` (its attributes are not read).
    public convenience init(attributedString string: NSAttributedString) {
        self.init(text: SpeechText(plain: string.string))
    }

    /// An utterance that speaks an SSML document (root element `speak`), which espeak-ng reads:
    /// `break`, `prosody`, `emphasis`, `say-as`, `audio`… nil when `string` is not well-formed SSML.
    public convenience init?(ssmlRepresentation string: String) {
        guard let text = SpeechText(ssml: string) else { return nil }
        self.init(text: text)
    }

    /// The text to speak (for SSML, its character data).
    open var speechString: String { text.speechString }

    /// The text to speak, as an attributed string.
    open var attributedSpeechString: NSAttributedString { NSAttributedString(string: text.speechString) }

    /// The voice to speak with; nil: the voice for `AVSpeechSynthesisVoice.currentLanguageCode()`.
    open var voice: AVSpeechSynthesisVoice?

    /// The speaking rate, from `AVSpeechUtteranceMinimumSpeechRate` to
    /// `AVSpeechUtteranceMaximumSpeechRate` (values outside are pinned to them).
    open var rate: Float {
        get { storedRate }
        set { storedRate = newValue.isNaN ? AVSpeechUtteranceDefaultSpeechRate
                : min(max(newValue, AVSpeechUtteranceMinimumSpeechRate), AVSpeechUtteranceMaximumSpeechRate) }
    }

    /// The baseline pitch, 0.5 (lower) to 2 (higher); default 1 (values outside are pinned).
    open var pitchMultiplier: Float {
        get { storedPitch }
        set { storedPitch = newValue.isNaN ? 1 : min(max(newValue, 0.5), 2) }
    }

    /// The volume, 0 (silent) to 1 (loudest, the default; values outside are pinned).
    open var volume: Float {
        get { storedVolume }
        set { storedVolume = newValue.isNaN ? 1 : min(max(newValue, 0), 1) }
    }

    /// Seconds of silence before the speech (default 0).
    open var preUtteranceDelay: TimeInterval = 0

    /// Seconds of silence after the speech, before the next utterance (default 0).
    open var postUtteranceDelay: TimeInterval = 0

    /// Whether to use the assistive technology's settings instead (no such settings on Linux: no effect).
    open var prefersAssistiveTechnologySettings = false

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVSpeechUtterance(text: text)
        copy.voice = voice
        copy.storedRate = storedRate
        copy.storedPitch = storedPitch
        copy.storedVolume = storedVolume
        copy.preUtteranceDelay = preUtteranceDelay
        copy.postUtteranceDelay = postUtteranceDelay
        copy.prefersAssistiveTechnologySettings = prefersAssistiveTechnologySettings
        return copy
    }

    open override var description: String { "AVSpeechUtterance(\"\(speechString)\")" }

    // MARK: Engine units

    /// espeak-ng's words per minute for `rate`: 0 → 80, 0.5 → 175, 1 → 450, linear between.
    static func wordsPerMinute(forRate rate: Float) -> Int {
        let r = Double(min(max(rate, 0), 1))
        let wpm: Double
        if r <= 0.5 {
            wpm = 80.0 + 95.0 * (r / 0.5)
        } else {
            wpm = 175.0 + 275.0 * ((r - 0.5) / 0.5)
        }
        return Int(wpm.rounded())
    }

    /// The rate that gives `wordsPerMinute` (80–450; outside, the nearest end).
    static func rate(forWordsPerMinute wordsPerMinute: Double) -> Float {
        let w: Double = min(max(wordsPerMinute.isNaN ? 175 : wordsPerMinute, 80), 450)
        if w <= 175 { return Float((w - 80) / 95 * 0.5) }
        return Float(0.5 + (w - 175) / 275 * 0.5)
    }

    /// The longest delay honoured (a day); longer, negative or non-finite delays are clamped.
    private static func delay(_ seconds: TimeInterval) -> TimeInterval {
        seconds.isFinite ? min(max(seconds, 0), 86_400) : 0
    }

    /// What the synthesizer needs, read now (later changes have no effect). Throws when no voice
    /// can be found (espeak-ng cannot start).
    func snapshot() throws(SpeechEngineError) -> SpeechJob {
        let chosen = voice ?? AVSpeechSynthesisVoice(language: nil) ?? AVSpeechSynthesisVoice.speechVoices().first
        guard let chosen else { throw SpeechEngineError(description: "no speech voice is available (espeak-ng could not start)") }
        let request = SpeechRequest(text: text.engineText, isSSML: text.isSSML, voiceFile: chosen.engineVoice.file,
                                    wordsPerMinute: Self.wordsPerMinute(forRate: rate),
                                    pitch: Int((50 * pitchMultiplier).rounded()), volume: Int((100 * volume).rounded()))
        return SpeechJob(text: text, request: request, preDelay: Self.delay(preUtteranceDelay), postDelay: Self.delay(postUtteranceDelay))
    }
}

/// An utterance as the synthesizer reads it when enqueued.
struct SpeechJob: Sendable {
    let text: SpeechText
    let request: SpeechRequest
    let preDelay: TimeInterval
    let postDelay: TimeInterval
}
