// The string-backed types bridge to NSString/CFString by their raw value, both ways, as Apple's
// Swift-newtype wrappers do.
import AVFoundation
import Foundation
import Testing

@Suite struct StringBridgingTests {
    @Test func castsToCFStringAndNSStringGiveTheRawValue() {
        #expect((AVFileType.heic as CFString) as String == "public.heic")
        #expect((AVMediaType.audio as NSString) as String == "soun")
        #expect((AVVideoCodecType.hevc as NSString) as String == AVVideoCodecType.hevc.rawValue)
        #expect((AVMetadataKey.commonKeyTitle as CFString) as String == "title")
        #expect((AVLayerVideoGravity.resize as NSString) as String == AVLayerVideoGravity.resize.rawValue)
        #expect((AVCaptureSession.Preset.photo as NSString) as String == AVCaptureSession.Preset.photo.rawValue)
        #expect((CAMediaTimingFillMode.forwards as NSString) as String == "forwards")
        #expect((AVAudioTimePitchAlgorithm.varispeed as NSString) as String == "Varispeed")
        #expect((AVAudioSession.Category.playAndRecord as NSString) as String == "AVAudioSessionCategoryPlayAndRecord")
        #expect((AVAudioSession.Port.builtInSpeaker as CFString) as String == "Speaker")
    }

    @Test func objectsCastBack() {
        let object: AnyObject = AVFileType.mp4 as AnyObject
        #expect(object is NSString)
        #expect((object as? AVFileType) == .mp4)
        let array = [AVMediaType.video, .audio] as NSArray
        #expect((array as? [String]) == ["vide", "soun"])
        let any: Any = NSString(string: "com.apple.quicktime-movie")
        #expect((any as? AVFileType) == .mov)
    }
}
