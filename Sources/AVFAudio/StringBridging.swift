// AVFAudio's string-backed types bridge to NSString and CFString as on Apple platforms
// (`AVAudioTimePitchAlgorithm.spectral as NSString`): see CoreFoundationCompat/StringBridging.swift.
import CoreFoundationCompat

extension AVAudioTimePitchAlgorithm: _NSStringBridgedNewtype {}
extension AVAudioSession.Category: _NSStringBridgedNewtype {}
extension AVAudioSession.Mode: _NSStringBridgedNewtype {}
extension AVAudioSession.Port: _NSStringBridgedNewtype {}
extension AVAudioSession.Location: _NSStringBridgedNewtype {}
extension AVAudioSession.Orientation: _NSStringBridgedNewtype {}
extension AVAudioSession.PolarPattern: _NSStringBridgedNewtype {}
