// AVCaptureDevice.Format: one format a device offers — media type, format description (pixel
// format and size, or the sample format) and the frame-rate ranges.
import CoreMedia
import Foundation
internal import MediaEngine

extension AVCaptureDevice {
    /// A format of a capture device. Formats of one device are made once; compare with `==`.
    open class Format: NSObject, @unchecked Sendable {
        let live: LiveVideoFormat
        let audio: LiveAudioFormat?
        private let description_: CMFormatDescription

        init(live: LiveVideoFormat) {
            self.live = live
            audio = nil
            var format: CMVideoFormatDescription?
            CMVideoFormatDescriptionCreate(allocator: nil, codecType: live.pixelFormat, width: Int32(live.width),
                                           height: Int32(live.height), extensions: nil, formatDescriptionOut: &format)
            description_ = format!
            super.init()
        }

        init(audio: LiveAudioFormat) {
            self.audio = audio
            live = LiveVideoFormat(pixelFormat: 0, width: 0, height: 0, minFrameDuration: .invalid, maxFrameDuration: .invalid)
            var asbd = AudioStreamBasicDescription(mSampleRate: audio.sampleRate, mFormatID: kAudioFormatLinearPCM,
                                                   mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                                   mBytesPerPacket: UInt32(4 * audio.channelCount), mFramesPerPacket: 1,
                                                   mBytesPerFrame: UInt32(4 * audio.channelCount),
                                                   mChannelsPerFrame: UInt32(audio.channelCount), mBitsPerChannel: 32,
                                                   mReserved: 0)
            var format: CMAudioFormatDescription?
            CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                           magicCookie: nil, extensions: nil, formatDescriptionOut: &format)
            description_ = format!
            super.init()
        }

        /// `.video` or `.audio`.
        open var mediaType: AVMediaType { audio == nil ? .video : .audio }

        /// The format: a video description (pixel format as its media subtype, and the size)
        /// or an audio one (32-bit float LPCM at the source's rate and channel count).
        open var formatDescription: CMFormatDescription { description_ }

        /// The frame rates the format supports: one range, or — for a camera that offers only
        /// some rates (a V4L2 driver's discrete intervals) — one single-rate range per rate,
        /// fastest first, as macOS lists a UVC camera's; empty for audio.
        open var videoSupportedFrameRateRanges: [AVFrameRateRange] {
            guard audio == nil else { return [] }
            if !live.discreteFrameDurations.isEmpty {
                return live.discreteFrameDurations.map { AVFrameRateRange(minFrameDuration: $0, maxFrameDuration: $0) }
            }
            return [AVFrameRateRange(minFrameDuration: live.minFrameDuration, maxFrameDuration: live.maxFrameDuration)]
        }

        /// The horizontal field of view in degrees; 0: unknown (Linux cameras do not say).
        open var videoFieldOfView: Float { 0 }

        /// The largest `videoZoomFactor` (software crop: 16 for cameras; 1 for audio).
        open var videoMaxZoomFactor: CGFloat { audio == nil ? CaptureDeviceControls.softwareMaxZoomFactor : 1 }

        /// The zoom factor above which pictures are upscaled (the crop has fewer pixels than
        /// the output): 1, as every zoom here is a crop.
        open var videoZoomFactorUpscaleThreshold: CGFloat { 1 }

        /// The size of still images taken in this format: the format's size.
        @available(*, deprecated, message: "Use supportedMaxPhotoDimensions instead")
        open var highResolutionStillImageDimensions: CMVideoDimensions {
            CMVideoDimensions(width: Int32(live.width), height: Int32(live.height))
        }

        /// The photo sizes the format supports (its own size).
        open var supportedMaxPhotoDimensions: [CMVideoDimensions] {
            audio == nil ? [CMVideoDimensions(width: Int32(live.width), height: Int32(live.height))] : []
        }

        /// Whether the format offers `videoStabilizationMode`: only `.off` here.
        open func isVideoStabilizationModeSupported(_ videoStabilizationMode: AVCaptureVideoStabilizationMode) -> Bool {
            videoStabilizationMode == .off
        }

        /// Whether `frameDuration` is within one of the format's ranges.
        func supports(frameDuration: CMTime) -> Bool {
            audio == nil && live.supports(frameDuration: frameDuration)
        }

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? Format else { return false }
            return other.live == live && other.audio == audio
        }

        open override var hash: Int { live.hashValue ^ (audio?.hashValue ?? 0) }

        open override var description: String {
            if let audio { return "<AVCaptureDeviceFormat: 'soun'/'lpcm' \(audio)>" }
            return "<AVCaptureDeviceFormat: 'vide'/\(live)>"
        }
    }
}
