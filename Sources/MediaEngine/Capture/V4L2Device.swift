// V4L2Device: Video4Linux2 cameras found and described — /dev/video* nodes that capture video
// with streaming I/O, their formats (fourcc, size, frame intervals) as LiveVideoFormat, stable
// unique IDs from the bus, and the raw ioctls the camera source and the controls use. Raw ioctls
// through CV4L2 (no libv4l2). No C type leaves MediaEngine.
internal import CV4L2
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CoreMedia
import CoreVideo
import Foundation

/// The V4L2 constants the backend uses, as the kernel defines them (re-exported by the CV4L2
/// shim, whose macros Swift cannot import).
package enum V4L2Constant {
    package static let queryCapabilities = AVF_VIDIOC_QUERYCAP
    package static let enumerateFormats = AVF_VIDIOC_ENUM_FMT
    package static let setFormat = AVF_VIDIOC_S_FMT
    package static let requestBuffers = AVF_VIDIOC_REQBUFS
    package static let queueBuffer = AVF_VIDIOC_QBUF
    package static let dequeueBuffer = AVF_VIDIOC_DQBUF
    package static let streamOn = AVF_VIDIOC_STREAMON
    package static let queryExtendedControl = AVF_VIDIOC_QUERY_EXT_CTRL
    package static let setControl = AVF_VIDIOC_S_CTRL
    package static let setParameters = AVF_VIDIOC_S_PARM
    package static let fourCCYUYV = AVF_V4L2_PIX_FMT_YUYV
    package static let fourCCMJPEG = AVF_V4L2_PIX_FMT_MJPEG
    package static let fourCCNV12 = AVF_V4L2_PIX_FMT_NV12
}

/// A V4L2 fourcc code (`v4l2_fourcc(a, b, c, d)`: `a` in the low byte).
package struct V4L2FourCC: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    /// From four ASCII characters, as `v4l2_fourcc` builds it.
    package init(_ code: String) {
        let bytes = Array(code.utf8.prefix(4)) + Array(repeating: UInt8(ascii: " "), count: max(0, 4 - code.utf8.count))
        rawValue = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }
    package var description: String {
        String(decoding: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: rawValue >> $0) }, as: UTF8.self)
    }

    package static let yuyv = V4L2FourCC(rawValue: AVF_V4L2_PIX_FMT_YUYV)
    package static let uyvy = V4L2FourCC(rawValue: AVF_V4L2_PIX_FMT_UYVY)
    package static let nv12 = V4L2FourCC(rawValue: AVF_V4L2_PIX_FMT_NV12)
    package static let yu12 = V4L2FourCC(rawValue: AVF_V4L2_PIX_FMT_YUV420)
    package static let grey = V4L2FourCC(rawValue: AVF_V4L2_PIX_FMT_GREY)
    package static let mjpeg = V4L2FourCC(rawValue: AVF_V4L2_PIX_FMT_MJPEG)
    package static let jpeg = V4L2FourCC(rawValue: AVF_V4L2_PIX_FMT_JPEG)
    package static let h264 = V4L2FourCC(rawValue: AVF_V4L2_PIX_FMT_H264)

    /// How frames of this format are delivered: the Core Video pixel format of the buffers
    /// (the format's own byte order where Core Video has it — YUYV is `'yuvs'`, UYVY `'2vuy'`,
    /// NV12 `'420v'`, planar 4:2:0 `'y420'`, GREY `'L008'` — and `'420v'` for MJPEG, which is
    /// decoded), and whether the camera's buffers are wrapped without a copy. nil for formats
    /// not delivered (H.264 and other compressed formats, multi-planar).
    package var delivery: (pixelFormat: OSType, zeroCopy: Bool)? {
        switch self {
        case .yuyv: return (OSType(fourCC: "yuvs"), true)
        case .uyvy: return (OSType(fourCC: "2vuy"), true)
        case .nv12: return (OSType(fourCC: "420v"), true)
        case .yu12: return (OSType(fourCC: "y420"), true)
        case .grey: return (OSType(fourCC: "L008"), true)
        case .mjpeg, .jpeg: return (OSType(fourCC: "420v"), false)
        default: return nil
        }
    }

    /// The V4L2 format a Core Video pixel format comes from without conversion (MJPEG excluded).
    package static func native(for pixelFormat: OSType) -> V4L2FourCC? {
        [.yuyv, .uyvy, .nv12, .yu12, .grey].first { $0.delivery?.pixelFormat == pixelFormat }
    }
}

/// The frame intervals a camera offers at one size (`VIDIOC_ENUM_FRAMEINTERVALS`).
package enum V4L2FrameIntervals: Sendable, Hashable {
    /// A list of intervals, each `numerator/denominator` seconds.
    case discrete([(numerator: UInt32, denominator: UInt32)])
    /// Any interval from `min` to `max` (in steps of `step`; continuous: step 1/∞).
    case stepwise(min: (numerator: UInt32, denominator: UInt32), max: (numerator: UInt32, denominator: UInt32))

    package static func == (a: V4L2FrameIntervals, b: V4L2FrameIntervals) -> Bool {
        switch (a, b) {
        case (.discrete(let x), .discrete(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.numerator == $1.numerator && $0.denominator == $1.denominator }
        case (.stepwise(let a0, let a1), .stepwise(let b0, let b1)):
            return a0 == b0 && a1 == b1
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        for d in durations { hasher.combine(d.value); hasher.combine(d.timescale) }
    }

    /// Every interval as an exact `CMTime`, shortest first (a stepwise range: its two ends).
    package var durations: [CMTime] {
        let fractions: [(numerator: UInt32, denominator: UInt32)]
        switch self {
        case .discrete(let list): fractions = list
        case .stepwise(let min, let max): fractions = [min, max]
        }
        return fractions.filter { $0.numerator > 0 && $0.denominator > 0 && $0.denominator <= UInt32(Int32.max) }
            .map { CMTime(value: CMTimeValue($0.numerator), timescale: CMTimeScale($0.denominator)) }
            .sorted()
    }

    /// The frame-duration range (shortest, longest); nil when there is no valid interval.
    package var durationRange: (min: CMTime, max: CMTime)? {
        let all = durations
        guard let first = all.first, let last = all.last else { return nil }
        return (first, last)
    }
}

/// The frame sizes a camera offers for one format (`VIDIOC_ENUM_FRAMESIZES`).
package enum V4L2FrameSizes: Sendable, Hashable {
    case discrete([V4L2Size])
    case stepwise(min: V4L2Size, max: V4L2Size, step: V4L2Size)

    /// The sizes offered as formats: the discrete list, or — for a stepwise or continuous range —
    /// the standard sizes inside it that the steps reach, plus the largest.
    package var sizes: [V4L2Size] {
        switch self {
        case .discrete(let list): return list
        case .stepwise(let min, let max, let step):
            func reaches(_ v: Int, _ lo: Int, _ hi: Int, _ s: Int) -> Bool { v >= lo && v <= hi && (s <= 1 || (v - lo) % s == 0) }
            var result = V4L2Size.standard.filter {
                reaches($0.width, min.width, max.width, step.width) && reaches($0.height, min.height, max.height, step.height)
            }
            if !result.contains(max) { result.append(max) }
            return result
        }
    }
}

/// A frame size in pixels.
package struct V4L2Size: Sendable, Hashable {
    package var width: Int
    package var height: Int
    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Sizes offered inside stepwise ranges: Apple's presets and common webcam sizes.
    package static let standard: [V4L2Size] = [
        (160, 120), (176, 144), (320, 240), (352, 288), (640, 360), (640, 480), (800, 600), (960, 540), (1024, 768),
        (1280, 720), (1280, 960), (1600, 1200), (1920, 1080), (2560, 1440), (3840, 2160),
    ].map { V4L2Size(width: $0.0, height: $0.1) }
}

/// One format a camera captures in: fourcc, size and frame intervals, and what it is delivered as.
package struct V4L2CameraFormat: Sendable, Hashable {
    package let fourCC: V4L2FourCC
    package let size: V4L2Size
    package let intervals: V4L2FrameIntervals

    package init(fourCC: V4L2FourCC, size: V4L2Size, intervals: V4L2FrameIntervals) {
        self.fourCC = fourCC
        self.size = size
        self.intervals = intervals
    }

    /// The format as live sources describe it (nil when not delivered, or without intervals):
    /// from the shortest to the longest interval, and — for a driver listing discrete intervals
    /// — exactly those (`discreteFrameDurations`), as macOS lists a UVC camera's rates.
    package var liveFormat: LiveVideoFormat? {
        guard let delivery = fourCC.delivery, let range = intervals.durationRange else { return nil }
        var discrete: [CMTime] = []
        if case .discrete = intervals {
            for duration in intervals.durations where !discrete.contains(where: { CMTimeCompare($0, duration) == 0 }) {
                discrete.append(duration)
            }
        }
        return LiveVideoFormat(pixelFormat: delivery.pixelFormat, width: size.width, height: size.height,
                               minFrameDuration: range.min, maxFrameDuration: range.max,
                               discreteFrameDurations: discrete.count > 1 ? discrete : [])
    }
}

/// What `VIDIOC_QUERYCAP` says of a node.
package struct V4L2Capabilities: Sendable, Hashable {
    package let driver: String
    package let card: String
    package let busInfo: String
    /// The node's own capabilities (`device_caps` when the driver sets `V4L2_CAP_DEVICE_CAPS`).
    package let deviceCaps: UInt32

    package init(driver: String, card: String, busInfo: String, deviceCaps: UInt32) {
        self.driver = driver
        self.card = card
        self.busInfo = busInfo
        self.deviceCaps = deviceCaps
    }

    /// A camera node: single-planar video capture with streaming I/O, not a memory-to-memory
    /// codec (metadata-only nodes — uvcvideo makes one per camera — lack VIDEO_CAPTURE).
    package var isCamera: Bool {
        deviceCaps & AVF_V4L2_CAP_VIDEO_CAPTURE != 0 && deviceCaps & AVF_V4L2_CAP_STREAMING != 0
            && deviceCaps & (AVF_V4L2_CAP_VIDEO_M2M | AVF_V4L2_CAP_VIDEO_M2M_MPLANE) == 0
    }

    /// Whether the camera is on USB (`bus_info` "usb-…"): external.
    package var isUSB: Bool { busInfo.hasPrefix("usb-") }

    /// `v4l2:<bus_info>` — stable across runs and reboots while the camera stays on its port —
    /// with the card name for drivers that give no bus (`platform:` buses name the driver only).
    package var uniqueID: String {
        if busInfo.isEmpty || busInfo.hasPrefix("platform:") { return "v4l2:\(busInfo):\(card)" }
        return "v4l2:\(busInfo)"
    }
}

/// An open V4L2 node: ioctls that retry on EINTR and report errno.
// Invariant: owns the file descriptor, immutable after `init`; the kernel serialises the ioctls.
package final class V4L2Handle: @unchecked Sendable {
    package let path: String
    let fd: Int32

    /// Opens `path` read-write, non-blocking, close-on-exec.
    package init(path: String) throws(LiveSourceError) {
        let fd = avf_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw V4L2Handle.error(errno, "cannot open \(path)") }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// `ioctl(fd, request, &value)`; the errno on failure.
    func ioctl<T>(_ request: UInt, _ value: inout T) -> Int32? {
        let result = withUnsafeMutablePointer(to: &value) { avf_xioctl(fd, request, UnsafeMutableRawPointer($0)) }
        return result == 0 ? nil : avf_errno()
    }

    /// The error for an errno: ENODEV/EIO/ENOENT/ENXIO → `.disconnected`, EBUSY → a clear
    /// "in use" failure, EACCES → permission.
    static func error(_ code: Int32, _ what: String) -> LiveSourceError {
        switch code {
        case ENODEV, EIO, ENOENT, ENXIO: return .disconnected("\(what): \(String(cString: strerror(code)))")
        case EBUSY: return .failed("\(what): the camera is in use by another application (EBUSY)")
        case EACCES, EPERM: return .failed("\(what): permission denied (is the user in the video group?)")
        default: return .failed("\(what): \(String(cString: strerror(code)))")
        }
    }

    /// QUERYCAP.
    package func capabilities() throws(LiveSourceError) -> V4L2Capabilities {
        var cap = v4l2_capability()
        if let e = ioctl(AVF_VIDIOC_QUERYCAP, &cap) { throw Self.error(e, "VIDIOC_QUERYCAP on \(path)") }
        let caps = cap.capabilities & AVF_V4L2_CAP_DEVICE_CAPS != 0 ? cap.device_caps : cap.capabilities
        return V4L2Capabilities(driver: cString(cap.driver), card: cString(cap.card), busInfo: cString(cap.bus_info),
                                deviceCaps: caps)
    }

    /// ENUM_FMT → ENUM_FRAMESIZES → ENUM_FRAMEINTERVALS: every (format, size) with its intervals.
    package func formats() -> [V4L2CameraFormat] {
        var result: [V4L2CameraFormat] = []
        var index: UInt32 = 0
        while index < 64 {
            var desc = v4l2_fmtdesc()
            desc.index = index
            desc.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
            guard ioctl(AVF_VIDIOC_ENUM_FMT, &desc) == nil else { break }
            index += 1
            let fourCC = V4L2FourCC(rawValue: desc.pixelformat)
            for size in frameSizes(fourCC).sizes {
                let intervals = frameIntervals(fourCC, size)
                result.append(V4L2CameraFormat(fourCC: fourCC, size: size, intervals: intervals))
            }
        }
        return result
    }

    private func frameSizes(_ fourCC: V4L2FourCC) -> V4L2FrameSizes {
        var list: [V4L2Size] = []
        var index: UInt32 = 0
        while index < 256 {
            var e = v4l2_frmsizeenum()
            e.index = index
            e.pixel_format = fourCC.rawValue
            guard ioctl(AVF_VIDIOC_ENUM_FRAMESIZES, &e) == nil else { break }
            if e.type == AVF_V4L2_FRMSIZE_TYPE_DISCRETE {
                list.append(V4L2Size(width: Int(e.discrete.width), height: Int(e.discrete.height)))
            } else {
                let s = e.stepwise
                let continuous = e.type == AVF_V4L2_FRMSIZE_TYPE_CONTINUOUS
                return .stepwise(min: V4L2Size(width: Int(s.min_width), height: Int(s.min_height)),
                                 max: V4L2Size(width: Int(s.max_width), height: Int(s.max_height)),
                                 step: continuous ? V4L2Size(width: 1, height: 1)
                                     : V4L2Size(width: Int(s.step_width), height: Int(s.step_height)))
            }
            index += 1
        }
        return .discrete(list)
    }

    private func frameIntervals(_ fourCC: V4L2FourCC, _ size: V4L2Size) -> V4L2FrameIntervals {
        var list: [(numerator: UInt32, denominator: UInt32)] = []
        var index: UInt32 = 0
        while index < 256 {
            var e = v4l2_frmivalenum()
            e.index = index
            e.pixel_format = fourCC.rawValue
            e.width = UInt32(size.width)
            e.height = UInt32(size.height)
            guard ioctl(AVF_VIDIOC_ENUM_FRAMEINTERVALS, &e) == nil else { break }
            if e.type == AVF_V4L2_FRMIVAL_TYPE_DISCRETE {
                list.append((e.discrete.numerator, e.discrete.denominator))
            } else {
                let s = e.stepwise
                return .stepwise(min: (s.min.numerator, s.min.denominator), max: (s.max.numerator, s.max.denominator))
            }
            index += 1
        }
        // Drivers without ENUM_FRAMEINTERVALS: the current interval from G_PARM, else 1/30.
        if list.isEmpty {
            var parm = v4l2_streamparm()
            parm.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
            if ioctl(AVF_VIDIOC_G_PARM, &parm) == nil, parm.parm.capture.timeperframe.denominator > 0 {
                list.append((parm.parm.capture.timeperframe.numerator, parm.parm.capture.timeperframe.denominator))
            } else {
                list.append((1, 30))
            }
        }
        return .discrete(list)
    }
}

/// The C string in a fixed-size byte array field.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A V4L2 camera as a device: its node, what QUERYCAP said, its formats and controls.
package struct V4L2CameraDevice: LiveDeviceDescriptor, Hashable {
    /// The node (`/dev/video0`); may change across reboots — `uniqueID` does not.
    package let path: String
    package let capabilities: V4L2Capabilities
    /// Every format the camera offers, delivered or not.
    package let cameraFormats: [V4L2CameraFormat]
    /// USB vendor and product (`usb:VVVV:PPPP`) from sysfs, when the camera is on USB.
    package let usbModel: String?
    /// The manufacturer string from sysfs, when there is one.
    package let sysfsManufacturer: String?

    /// `v4l2:<bus_info>` (see `V4L2Capabilities.uniqueID`); for a camera sharing its bus with
    /// another capture node (an IR and a colour sensor on one USB device) the card name is
    /// added, then the position among those still alike (`#2`).
    package let uniqueID: String

    package init(path: String, capabilities: V4L2Capabilities, cameraFormats: [V4L2CameraFormat],
                 usbModel: String? = nil, sysfsManufacturer: String? = nil, uniqueID: String? = nil) {
        self.path = path
        self.capabilities = capabilities
        self.cameraFormats = cameraFormats
        self.usbModel = usbModel
        self.sysfsManufacturer = sysfsManufacturer
        self.uniqueID = uniqueID ?? capabilities.uniqueID
    }

    /// `cameras` with unique IDs told apart: duplicates get `:<card>`, and those still alike
    /// `#2`, `#3`… in node order.
    package static func disambiguated(_ cameras: [V4L2CameraDevice]) -> [V4L2CameraDevice] {
        func with(_ camera: V4L2CameraDevice, _ id: String) -> V4L2CameraDevice {
            V4L2CameraDevice(path: camera.path, capabilities: camera.capabilities, cameraFormats: camera.cameraFormats,
                             usbModel: camera.usbModel, sysfsManufacturer: camera.sysfsManufacturer, uniqueID: id)
        }
        func counts(_ list: [V4L2CameraDevice]) -> [String: Int] { list.reduce(into: [:]) { $0[$1.uniqueID, default: 0] += 1 } }
        var result = cameras
        let first = counts(result)
        result = result.map { first[$0.uniqueID, default: 0] > 1 && !$0.uniqueID.hasSuffix(":\($0.capabilities.card)")
                                ? with($0, "\($0.uniqueID):\($0.capabilities.card)") : $0 }
        let second = counts(result)
        var seen: [String: Int] = [:]
        result = result.map { camera in
            guard second[camera.uniqueID, default: 0] > 1 else { return camera }
            seen[camera.uniqueID, default: 0] += 1
            let n = seen[camera.uniqueID]!
            return n == 1 ? camera : with(camera, "\(camera.uniqueID)#\(n)")
        }
        return result
    }

    package var modelID: String { usbModel ?? "v4l2:\(capabilities.driver)" }
    package var localizedName: String { capabilities.card.isEmpty ? capabilities.driver : capabilities.card }
    package var manufacturer: String { sysfsManufacturer ?? capabilities.driver }
    package var deviceKind: LiveDeviceKind { .camera }
    package var isExternal: Bool { capabilities.isUSB }
    /// The delivered formats, one per (pixel format, size), native formats before MJPEG (a size
    /// offered both raw and as MJPEG keeps the raw one only when its rates reach as high).
    package var videoFormats: [LiveVideoFormat] {
        var result: [LiveVideoFormat] = []
        for format in cameraFormats {
            guard let live = format.liveFormat else { continue }
            if let i = result.firstIndex(where: {
                $0.pixelFormat == live.pixelFormat && $0.width == live.width && $0.height == live.height
            }) {
                // Same delivered format from two camera formats (NV12 and MJPEG both give '420v'):
                // keep the faster one.
                if live.minFrameDuration < result[i].minFrameDuration { result[i] = live }
                continue
            }
            result.append(live)
        }
        return result
    }
    package var audioFormats: [LiveAudioFormat] { [] }
    package var isConnected: Bool { FileManager.default.fileExists(atPath: path) }
    package func makeVideoSource() -> (any LiveSource)? { V4L2CameraSource(device: self) }
    package func makeAudioSource() -> (any LiveAudioSource)? { nil }
    /// The camera's controls, read from a node of their own (nil when it cannot be opened).
    package func makeCameraControls() -> (any LiveCameraControls)? { try? V4L2CameraControls(path: path) }

    /// The camera format that delivers `format` (fastest first, native before MJPEG).
    func cameraFormat(for format: LiveVideoFormat) -> V4L2CameraFormat? {
        cameraFormats.filter { $0.liveFormat == format }
            .sorted { ($0.fourCC.delivery?.zeroCopy ?? false) && !($1.fourCC.delivery?.zeroCopy ?? false) }.first
            ?? cameraFormats.first {
                $0.fourCC.delivery?.pixelFormat == format.pixelFormat && $0.size == V4L2Size(width: format.width, height: format.height)
            }
    }

    /// The camera nodes under `/dev` (`video0`, `video1`, … in numeric order): those that
    /// capture video with streaming I/O; metadata and memory-to-memory nodes are left out, and
    /// so are nodes that cannot be opened.
    package static func cameras(directory: String = "/dev") -> [V4L2CameraDevice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let nodes = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("video"), let n = Int(name.dropFirst(5)) else { return nil }
            return (n, "\(directory)/\(name)")
        }.sorted { $0.0 < $1.0 }
        return disambiguated(nodes.compactMap { _, path in
            guard let handle = try? V4L2Handle(path: path), let caps = try? handle.capabilities(), caps.isCamera else { return nil }
            let sysfs = sysfsInfo(node: (path as NSString).lastPathComponent)
            return V4L2CameraDevice(path: path, capabilities: caps, cameraFormats: handle.formats(),
                                    usbModel: sysfs.model, sysfsManufacturer: sysfs.manufacturer)
        })
    }

    /// USB vendor/product and manufacturer from `/sys/class/video4linux/<node>/device/..`.
    private static func sysfsInfo(node: String) -> (model: String?, manufacturer: String?) {
        let usb = "/sys/class/video4linux/\(node)/device/.."
        func read(_ name: String) -> String? {
            (try? String(contentsOfFile: "\(usb)/\(name)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let model = read("idVendor").flatMap { vendor in read("idProduct").map { "usb:\(vendor):\($0)" } }
        return (model, read("manufacturer"))
    }
}
