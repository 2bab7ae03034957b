// AVFAudio's string-backed types bridge to NSString and CFString as on Apple platforms
// (`AVAudioTimePitchAlgorithm.spectral as NSString`): see CoreFoundationCompat/StringBridging.swift.
import CoreFoundationCompat

extension AVAudioTimePitchAlgorithm: _NSStringBridgedNewtype {}
