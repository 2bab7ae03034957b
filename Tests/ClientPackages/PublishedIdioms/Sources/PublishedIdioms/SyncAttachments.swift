// Reading (and writing) a sample's sync attachment the ways published code does: through the Core
// Foundation calls on the attachments array, through the Swift overlay's bridged array, and
// through `sampleAttachments`.
import AVFoundation

extension CMSampleBuffer {
    /// The C way: the first attachments dictionary, looked up with the key's pointer.
    var isKeyframeByCFDictionary: Bool {
        guard let attachments = CMSampleBufferGetSampleAttachmentsArray(self, createIfNecessary: false),
              CFArrayGetCount(attachments) > 0 else {
            return true
        }
        let dict = unsafeBitCast(CFArrayGetValueAtIndex(attachments, 0), to: CFDictionary.self)
        let notSync = CFDictionaryGetValue(dict, Unmanaged.passUnretained(kCMSampleAttachmentKey_NotSync).toOpaque())
        if notSync == nil {
            return true
        }
        return CFBooleanGetValue(unsafeBitCast(notSync, to: CFBoolean.self)) == false
    }

    /// The bridged way.
    var isKeyframeByBridgedArray: Bool {
        let attachments = CMSampleBufferGetSampleAttachmentsArray(self, createIfNecessary: false) as? [[CFString: Any]]
        let notSync = attachments?.first?[kCMSampleAttachmentKey_NotSync] as? Bool ?? false
        return !notSync
    }

    /// The same through `String` keys.
    var isKeyframeByStringKeys: Bool {
        guard let attachments = CMSampleBufferGetSampleAttachmentsArray(self, createIfNecessary: false) as? [[String: Any]],
              let first = attachments.first else { return true }
        return !(first[kCMSampleAttachmentKey_NotSync as String] as? Bool ?? false)
    }

    /// The overlay's per-sample attachments.
    var isKeyframeBySampleAttachments: Bool {
        guard !sampleAttachments.isEmpty else { return true }
        return !(sampleAttachments[0][.notSync] as? Bool ?? false)
    }

    /// Marks the first sample (not) sync through CFDictionarySetValue, as streaming code does.
    func setNotSync(_ value: Bool) {
        guard let attachments: CFArray = CMSampleBufferGetSampleAttachmentsArray(self, createIfNecessary: true),
              0 < CFArrayGetCount(attachments) else {
            return
        }
        let attachment = unsafeBitCast(CFArrayGetValueAtIndex(attachments, 0), to: CFMutableDictionary.self)
        CFDictionarySetValue(attachment,
                             Unmanaged.passUnretained(kCMSampleAttachmentKey_NotSync).toOpaque(),
                             Unmanaged.passUnretained(value ? kCFBooleanTrue : kCFBooleanFalse).toOpaque())
    }
}

enum KeyframeScanner {
    /// Reads the first video track's compressed samples and prints one flag per sample
    /// (decode order) for each way of reading the attachment.
    static func run(_ url: URL) throws {
        let asset = AVAsset(url: url)
        guard let track = asset.tracks(withMediaType: .video).first else {
            print("error: no video track")
            return
        }
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        output.alwaysCopiesSampleData = false
        reader.add(output)
        guard reader.startReading() else {
            print("error: \(String(describing: reader.error))")
            return
        }
        var cf = "", bridged = "", strings = "", overlay = "", typeIDs = true
        while let sample = output.copyNextSampleBuffer() {
            if CMSampleBufferGetNumSamples(sample) == 0 { continue }
            typeIDs = typeIDs && CFGetTypeID(sample) == CMSampleBufferGetTypeID()
                && CFGetTypeID(CMSampleBufferGetFormatDescription(sample)) == CMFormatDescriptionGetTypeID()
            cf += sample.isKeyframeByCFDictionary ? "K" : "_"
            bridged += sample.isKeyframeByBridgedArray ? "K" : "_"
            strings += sample.isKeyframeByStringKeys ? "K" : "_"
            overlay += sample.isKeyframeBySampleAttachments ? "K" : "_"
        }
        print("keyframes-cf \(cf)")
        print("keyframes-bridged \(bridged)")
        print("keyframes-strings \(strings)")
        print("keyframes-overlay \(overlay)")
        print("keyframes-typeids \(typeIDs)")
        print("keyframes-status \(reader.status == .completed ? "completed" : "failed")")
    }

    /// Flips the sync attachment of a made-up sample through CFDictionarySetValue and reads it
    /// back every way.
    static func roundTrip() {
        var timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: .zero,
                                        decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        var format: CMFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: kCFAllocatorDefault, codecType: kCMVideoCodecType_H264,
                                       width: 16, height: 16, extensions: nil, formatDescriptionOut: &format)
        var size = 4
        CMSampleBufferCreate(allocator: kCFAllocatorDefault, dataBuffer: nil, dataReady: true, makeDataReadyCallback: nil,
                             refcon: nil, formatDescription: format, sampleCount: 1, sampleTimingEntryCount: 1,
                             sampleTimingArray: &timing, sampleSizeEntryCount: 1, sampleSizeArray: &size,
                             sampleBufferOut: &sample)
        guard let sample else {
            print("roundtrip error: no sample")
            return
        }
        let before = sample.isKeyframeByCFDictionary
        sample.setNotSync(true)
        let afterSet = [sample.isKeyframeByCFDictionary, sample.isKeyframeByBridgedArray,
                        sample.isKeyframeByStringKeys, sample.isKeyframeBySampleAttachments]
        sample.setNotSync(false)
        let afterClear = [sample.isKeyframeByCFDictionary, sample.isKeyframeByBridgedArray,
                          sample.isKeyframeByStringKeys, sample.isKeyframeBySampleAttachments]
        print("roundtrip before=\(before) set=\(afterSet) cleared=\(afterClear)")
    }
}
