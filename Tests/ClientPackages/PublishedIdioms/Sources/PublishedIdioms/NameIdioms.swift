// Names published media code uses that come from Apple's SDK beyond AV Foundation's classes:
// string-backed types cast to CFString/NSString (an image destination created with
// `AVFileType.jpg as CFString`), Core Audio format constants, the screen-capture access check,
// manual key-value change notification, process activities, Dispatch's time constants and the
// Objective-C integer names. Foundation, Dispatch and the C library are imported too, as app code
// does: none of them may declare these names a second time (an ambiguity would not compile).
import Foundation
import Synchronization
import AVFoundation
import CoreAudioTypes
import CoreGraphics
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A model object that announces its own changes, as Objective-C-era code does.
final class Recording: NSObject {
    var title = "untitled"
    private(set) var seconds = 0

    func rename(_ name: String) {
        willChangeValue(forKey: "title")
        title = name
        didChangeValue(forKey: "title")
    }

    func tick() {
        willChangeValue(for: \.seconds)
        seconds += 1
        didChangeValue(for: \.seconds)
    }
}

final class ChangeLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

func fourCC(_ code: AudioFormatID) -> String {
    String(decoding: [24, 16, 8, 0].map { UInt8((code >> $0) & 0xFF) }, as: UTF8.self)
}

enum NameIdioms {
    static func bridging() {
        let heic = AVFileType.heic as CFString
        let video = AVMediaType.video as NSString
        let codec = AVVideoCodecType.h264 as NSString as String
        let keys = [AVMetadataKey.commonKeyTitle, AVMetadataKey.commonKeyArtist] as NSArray
        let space = AVMetadataKeySpace.common as CFString
        let identifier = AVMetadataIdentifier.commonIdentifierTitle as NSString
        let format = AVMetadataFormat.quickTimeMetadata as CFString
        let preset = AVCaptureSession.Preset.high as NSString
        let gravity = AVLayerVideoGravity.resizeAspect as CFString
        let pitch = AVAudioTimePitchAlgorithm.spectral as NSString
        let output = AVOutputSettingsPreset.preset1920x1080 as NSString
        let back = (video as AnyObject as? AVMediaType) == .video
        let anyObject = AVFileType.mov as AnyObject
        print("bridge heic=\(heic) video=\(video) codec=\(codec) keys=\(keys.count) space=\(space)"
              + " identifier=\(identifier) format=\(format) preset=\(preset) gravity=\(gravity) pitch=\(pitch)"
              + " output=\(output) back=\(back) object=\(anyObject is NSString) raw=\(String(AVFileType.mov.rawValue))")

        // An image destination typed the way thumbnail and HEIC tools write it.
        let context = CGContext(data: nil, width: 8, height: 8, bitsPerComponent: 8, bytesPerRow: 0,
                                space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
        context?.setFillColor(CGColor(red: 1, green: 0, blue: 0, alpha: 1))
        context?.fill(CGRect(x: 0, y: 0, width: 8, height: 8))
        var written = 0
        for type in [AVFileType.jpg as CFString, UTType.png.identifier as CFString, kUTTypeJPEG] {
            let data = NSMutableData()
            if let image = context?.makeImage(),
               let destination = CGImageDestinationCreateWithData(data as CFMutableData, type, 1, nil) {
                CGImageDestinationAddImage(destination, image, nil)
                if CGImageDestinationFinalize(destination), data.length > 0 { written += 1 }
            }
        }
        print("destination written=\(written) jpeg=\(kUTTypeJPEG as String)")
    }

    static func audioFormats() {
        let formats: [AudioFormatID] = [kAudioFormatAPAC, kAudioFormatMPEGD_USAC, kAudioFormatFLAC, kAudioFormatOpus,
                                        kAudioFormatAC3, kAudioFormatEnhancedAC3, kAudioFormatiLBC, kAudioFormatAMR]
        let layouts: [AudioChannelLayoutTag] = [kAudioChannelLayoutTag_Atmos_7_1_4, kAudioChannelLayoutTag_DVD_10,
                                                kAudioChannelLayoutTag_CICP_13, kAudioChannelLayoutTag_WAVE_5_1_B]
        let channels = layouts.map { AudioChannelLayoutTag_GetNumberOfChannels($0) }
        print("formats \(formats.map(fourCC).joined(separator: ",")) channels=\(channels) param=\(kAudio_ParamError)")
    }

    static func system() {
        let access = CGPreflightScreenCaptureAccess()
        let requested = CGRequestScreenCaptureAccess()
        let activity = ProcessInfo.processInfo.beginActivity(options: [.userInitiated, .idleDisplaySleepDisabled],
                                                             reason: "Exporting")
        ProcessInfo.processInfo.endActivity(activity)
        var ran = false
        ProcessInfo.processInfo.performActivity(options: .background, reason: "Indexing") { ran = true }
        let halfSecond = DispatchTime.now() + Double(Int64(0.5 * Double(NSEC_PER_SEC))) / Double(NSEC_PER_SEC)
        let later = halfSecond > DispatchTime.now()
        let time = CMTimeMake(value: Int64(1.5 * Double(NSEC_PER_SEC)), timescale: Int32(NSEC_PER_SEC))
        let count: NSInteger = 3
        let index: NSUInteger = 4
        print("system access=\(access == requested) activity=\(ran) later=\(later) seconds=\(CMTimeGetSeconds(time))"
              + " msec=\(NSEC_PER_MSEC) usec=\(USEC_PER_SEC / NSEC_PER_USEC) ints=\(count + Int(index))")
    }

    static func manualChanges() {
        let recording = Recording()
        let log = ChangeLog()
        let titles = recording.observe(\.title, options: [.old, .new]) { _, change in
            log.append("title:\(change.oldValue ?? "-")>\(change.newValue ?? "-")")
        }
        let seconds = recording.observe(\.seconds, options: [.new]) { _, change in
            log.append("seconds:\(change.newValue ?? -1)")
        }
        recording.rename("Interview")
        recording.tick()
        recording.rename("Interview")  // unchanged: no notification
        titles.invalidate()
        seconds.invalidate()
        recording.rename("Ignored")
        print("manual \(log.all.joined(separator: " "))")
    }

    /// Observers registered under the older names hear posts made under the class properties.
    static func notificationNames() {
        let center = NotificationCenter.default
        let log = ChangeLog()
        let pairs: [(NSNotification.Name, NSNotification.Name)] = [
            (.AVPlayerItemDidPlayToEndTime, AVPlayerItem.didPlayToEndTimeNotification),
            (.AVCaptureSessionRuntimeError, AVCaptureSession.runtimeErrorNotification),
            (.AVSampleBufferDisplayLayerFailedToDecode, AVSampleBufferDisplayLayer.failedToDecodeNotification),
            (.AVAssetDurationDidChange, .AVAssetDurationDidChange),
        ]
        for (observed, posted) in pairs {
            let token = center.addObserver(forName: observed, object: nil, queue: nil) { note in log.append(note.name.rawValue) }
            center.post(name: posted, object: nil)
            center.removeObserver(token)
        }
        print("notifications heard=\(log.all.count)")
    }

    static func run() {
        notificationNames()
        bridging()
        audioFormats()
        system()
        manualChanges()
    }
}
