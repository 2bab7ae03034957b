// AVSpeechSynthesizerDelegate: what a speech synthesizer tells its delegate.
import Foundation

/// The methods a speech synthesizer calls on its delegate, on the main queue, in the order the
/// events happen: an utterance starts (after its `preUtteranceDelay`), each word is about to be
/// spoken, speech pauses or continues, and the utterance finishes or is cancelled.
///
/// The methods are optional on Apple platforms; Swift on Linux has no `@objc optional`, so each
/// has a default implementation (doing nothing) in an extension. The protocol is `Sendable`, as in
/// Apple's current SDK.
public protocol AVSpeechSynthesizerDelegate: NSObjectProtocol, Sendable {
    /// The synthesizer began speaking `utterance` (after its pre-utterance delay).
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didStart utterance: AVSpeechUtterance)
    /// The synthesizer finished speaking `utterance` (its speech; its post-utterance delay follows).
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didFinish utterance: AVSpeechUtterance)
    /// Speech paused in `utterance`.
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didPause utterance: AVSpeechUtterance)
    /// Speech continued in `utterance` after a pause.
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didContinue utterance: AVSpeechUtterance)
    /// `utterance` was stopped before its end (`stopSpeaking(at:)`).
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didCancel utterance: AVSpeechUtterance)
    /// The synthesizer is about to speak the word at `characterRange` (UTF-16 units) of the
    /// utterance's `speechString`; called once per word, in order.
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, willSpeakRangeOfSpeechString characterRange: NSRange,
                           utterance: AVSpeechUtterance)
}

extension AVSpeechSynthesizerDelegate {
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didStart utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didFinish utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didPause utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didContinue utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didCancel utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, willSpeakRangeOfSpeechString characterRange: NSRange,
                                  utterance: AVSpeechUtterance) {}
}
