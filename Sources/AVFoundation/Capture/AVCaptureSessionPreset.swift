// AVCaptureSession.Preset: Apple's session presets, and how a preset picks a camera format and
// the size outputs deliver.
import Foundation
internal import MediaEngine

extension AVCaptureSession {
    /// A quality level or size for a session's outputs.
    public struct Preset: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The highest quality: the camera's largest size at 30 fps or more (else its largest).
        public static let high = Preset("AVCaptureSessionPresetHigh")
        /// 480×360.
        public static let medium = Preset("AVCaptureSessionPresetMedium")
        /// 192×144.
        public static let low = Preset("AVCaptureSessionPresetLow")
        /// The camera's largest size.
        public static let photo = Preset("AVCaptureSessionPresetPhoto")
        public static let qvga320x240 = Preset("AVCaptureSessionPreset320x240")
        public static let cif352x288 = Preset("AVCaptureSessionPreset352x288")
        public static let vga640x480 = Preset("AVCaptureSessionPreset640x480")
        public static let qHD960x540 = Preset("AVCaptureSessionPreset960x540")
        public static let hd1280x720 = Preset("AVCaptureSessionPreset1280x720")
        public static let hd1920x1080 = Preset("AVCaptureSessionPreset1920x1080")
        public static let hd4K3840x2160 = Preset("AVCaptureSessionPreset3840x2160")
        public static let iFrame960x540 = Preset("AVCaptureSessionPresetiFrame960x540")
        public static let iFrame1280x720 = Preset("AVCaptureSessionPresetiFrame1280x720")
        /// Leave the devices' active formats as they are (set them yourself).
        public static let inputPriority = Preset("AVCaptureSessionPresetInputPriority")

        /// The output size of a sized preset.
        var fixedSize: (width: Int, height: Int)? {
            switch self {
            case .medium: return (480, 360)
            case .low: return (192, 144)
            case .qvga320x240: return (320, 240)
            case .cif352x288: return (352, 288)
            case .vga640x480: return (640, 480)
            case .qHD960x540, .iFrame960x540: return (960, 540)
            case .hd1280x720, .iFrame1280x720: return (1280, 720)
            case .hd1920x1080: return (1920, 1080)
            case .hd4K3840x2160: return (3840, 2160)
            default: return nil
            }
        }

        /// Whether the preset names one of Apple's presets.
        var isKnown: Bool {
            fixedSize != nil || [.high, .photo, .inputPriority].contains(self)
        }

        /// The camera format the preset uses and the size outputs deliver, or nil when no format
        /// reaches the preset's size (or the preset is unknown).
        ///
        /// Sized presets take the smallest format whose sides both reach the preset's (ties:
        /// higher frame rate, then `'420v'`); pictures are centre-cropped to the preset's aspect
        /// and scaled to its size. `.high` takes the largest format offering 30 fps or more
        /// (else the largest), `.photo` the largest, both at the format's own size.
        /// `.inputPriority` takes the first format (sessions keep the device's active format).
        func choose(from formats: [LiveVideoFormat]) -> (format: LiveVideoFormat, width: Int, height: Int)? {
            guard !formats.isEmpty else { return nil }
            func area(_ f: LiveVideoFormat) -> Int { f.width * f.height }
            let preferred = kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
            if let size = fixedSize {
                let fitting = formats.filter { $0.width >= size.width && $0.height >= size.height }
                let best = fitting.min { a, b in
                    if area(a) != area(b) { return area(a) < area(b) }
                    if a.maxFrameRate != b.maxFrameRate { return a.maxFrameRate > b.maxFrameRate }
                    return a.pixelFormat == preferred && b.pixelFormat != preferred
                }
                return best.map { ($0, size.width, size.height) }
            }
            switch self {
            case .high:
                let fast = formats.filter { $0.maxFrameRate >= 29.97 }
                let pool = fast.isEmpty ? formats : fast
                let best = pool.max { a, b in area(a) != area(b) ? area(a) < area(b) : a.maxFrameRate < b.maxFrameRate }!
                return (best, best.width, best.height)
            case .photo:
                let best = formats.max { area($0) < area($1) }!
                return (best, best.width, best.height)
            case .inputPriority:
                return (formats[0], formats[0].width, formats[0].height)
            default:
                return nil
            }
        }
    }
}
