// AVCaptureConnection: links input ports to an output, with the per-connection settings outputs
// apply (enabled, rotation, mirroring, frame-rate limits).
import CoreGraphics
import CoreMedia
import Foundation

/// A link from input ports to an output. Sessions make connections greedily when inputs and
/// outputs are added; `addConnection(_:)` adds ones made with `init(inputPorts:output:)`.
///
/// Settings apply at once, also while the session runs: video data outputs turn their pictures
/// by `videoRotationAngle`, mirror them when `isVideoMirrored`, and deliver at most one frame
/// per `videoMinFrameDuration`.
open class AVCaptureConnection: NSObject, @unchecked Sendable {
    private let ports: [AVCaptureInput.Port]
    private weak var _output: AVCaptureOutput?
    private let lock = NSLock()
    private var enabled = true
    private var rotationAngle: CGFloat = 0
    private var mirrored = false
    private var autoMirroring = true
    private var minFrameDuration = CMTime.invalid
    private var maxFrameDuration = CMTime.invalid
    private var scaleAndCrop: CGFloat = 1
    private var preferredStabilization = AVCaptureVideoStabilizationMode.off
    private var channels: [AVCaptureAudioChannel] = []
    /// The session the connection is in, if any.
    weak var session: AVCaptureSession?
    /// The PTS of the last frame passed to the output (frame-rate limiting).
    var lastDeliveredPTS = CMTime.invalid

    /// A connection from `ports` to `output`, to add with `AVCaptureSession.addConnection(_:)`.
    public init(inputPorts ports: [AVCaptureInput.Port], output: AVCaptureOutput) {
        self.ports = ports
        _output = output
        super.init()
        // One channel per source channel (the audio port's format; stereo when it has none).
        channels = (0..<Self.audioChannelCount(of: ports)).map { _ in AVCaptureAudioChannel() }
    }

    /// The ports feeding the connection.
    open var inputPorts: [AVCaptureInput.Port] { ports }
    /// The output the connection feeds.
    open var output: AVCaptureOutput? { _output }

    /// Whether the connection delivers (default true).
    open var isEnabled: Bool {
        get { lock.withLock { enabled } }
        set { lock.withLock { enabled = newValue } }
    }

    /// Whether the connection is enabled, its ports are enabled and it is in a session.
    open var isActive: Bool { isEnabled && ports.allSatisfy(\.isEnabled) && session != nil }

    /// The audio channels of an audio connection (empty for video).
    open var audioChannels: [AVCaptureAudioChannel] { lock.withLock { channels } }

    var isVideo: Bool { ports.contains { $0.mediaType == .video } }

    /// Whether the running graph passes frames through: the connection and its ports enabled
    /// (membership changes reach the graph at commit, not through this).
    var passesMedia: Bool { isEnabled && ports.allSatisfy(\.isEnabled) }

    // MARK: Rotation

    /// Whether `videoOrientation` may be set (video connections).
    @available(*, deprecated, message: "Use isVideoRotationAngleSupported(_:) instead")
    open var isVideoOrientationSupported: Bool { isVideo }

    /// The orientation of delivered pictures; the same setting as `videoRotationAngle`.
    @available(*, deprecated, message: "Use videoRotationAngle instead")
    open var videoOrientation: AVCaptureVideoOrientation {
        get { AVCaptureVideoOrientation(rotationAngle: Int(videoRotationAngle)) }
        set {
            guard isVideo else {
                CaptureException.raise("AVCaptureConnection", "setVideoOrientation:", "videoOrientation is not supported for this connection")
            }
            lock.withLock { rotationAngle = CGFloat(newValue.rotationAngle) }
        }
    }

    /// Whether pictures may be turned by `videoRotationAngle` (multiples of 90° in 0…360 on
    /// video connections).
    open func isVideoRotationAngleSupported(_ videoRotationAngle: CGFloat) -> Bool {
        guard isVideo, videoRotationAngle >= 0, videoRotationAngle <= 360 else { return false }
        return videoRotationAngle.truncatingRemainder(dividingBy: 90) == 0
    }

    /// The clockwise angle delivered pictures are turned by, degrees (default 0). Setting an
    /// unsupported angle raises.
    open var videoRotationAngle: CGFloat {
        get { lock.withLock { rotationAngle } }
        set {
            guard isVideoRotationAngleSupported(newValue) else {
                CaptureException.raise("AVCaptureConnection", "setVideoRotationAngle:", "Unsupported videoRotationAngle \(newValue)")
            }
            lock.withLock { rotationAngle = newValue.truncatingRemainder(dividingBy: 360) }
        }
    }

    // MARK: Mirroring

    /// Whether pictures may be mirrored (video connections).
    open var isVideoMirroringSupported: Bool { isVideo }

    /// Whether the connection decides mirroring itself (default true; cameras here have no
    /// position, so it leaves pictures unmirrored). Set it to false before `isVideoMirrored`.
    open var automaticallyAdjustsVideoMirroring: Bool {
        get { lock.withLock { autoMirroring } }
        set { lock.withLock { autoMirroring = newValue } }
    }

    /// Whether pictures are mirrored left to right (after turning). Setting it while
    /// `automaticallyAdjustsVideoMirroring` is true, or on a connection without video, raises.
    open var isVideoMirrored: Bool {
        get { lock.withLock { mirrored } }
        set {
            guard isVideoMirroringSupported else {
                CaptureException.raise("AVCaptureConnection", "setVideoMirrored:", "videoMirrored is not supported for this connection")
            }
            guard !automaticallyAdjustsVideoMirroring else {
                CaptureException.raise("AVCaptureConnection", "setVideoMirrored:",
                                       "Cannot be set when automaticallyAdjustsVideoMirroring is YES")
            }
            lock.withLock { mirrored = newValue }
        }
    }

    // MARK: Frame rate

    /// Whether `videoMinFrameDuration` may be set (video connections).
    open var isVideoMinFrameDurationSupported: Bool { isVideo }

    /// The shortest time between delivered frames: frames closer than this to the last one
    /// delivered are skipped. Default `.invalid` (every frame the device makes).
    open var videoMinFrameDuration: CMTime {
        get { lock.withLock { minFrameDuration } }
        set {
            guard isVideo else {
                CaptureException.raise("AVCaptureConnection", "setVideoMinFrameDuration:", "videoMinFrameDuration is not supported for this connection")
            }
            lock.withLock { minFrameDuration = newValue }
        }
    }

    /// Whether `videoMaxFrameDuration` may be set (video connections).
    open var isVideoMaxFrameDurationSupported: Bool { isVideo }

    /// The longest time between frames; default `.invalid`. Stored: sources here never slow
    /// down below their frame rate.
    open var videoMaxFrameDuration: CMTime {
        get { lock.withLock { maxFrameDuration } }
        set {
            guard isVideo else {
                CaptureException.raise("AVCaptureConnection", "setVideoMaxFrameDuration:", "videoMaxFrameDuration is not supported for this connection")
            }
            lock.withLock { maxFrameDuration = newValue }
        }
    }

    // MARK: Scale and crop

    /// The largest `videoScaleAndCropFactor` (1: still image outputs only crop by the device zoom).
    open var videoMaxScaleAndCropFactor: CGFloat { 1 }

    /// The still-image scale-and-crop factor (1…`videoMaxScaleAndCropFactor`; others raise).
    open var videoScaleAndCropFactor: CGFloat {
        get { lock.withLock { scaleAndCrop } }
        set {
            guard newValue >= 1, newValue <= videoMaxScaleAndCropFactor else {
                CaptureException.raise("AVCaptureConnection", "setVideoScaleAndCropFactor:",
                                       "videoScaleAndCropFactor \(newValue) is out of range [1, \(videoMaxScaleAndCropFactor)]")
            }
            lock.withLock { scaleAndCrop = newValue }
        }
    }

    /// Whether video stabilization is offered (never here).
    open var isVideoStabilizationSupported: Bool { false }

    /// The stabilization asked for (default `.off`); stored, as no camera here stabilizes.
    open var preferredVideoStabilizationMode: AVCaptureVideoStabilizationMode {
        get { lock.withLock { preferredStabilization } }
        set { lock.withLock { preferredStabilization = newValue } }
    }

    /// The stabilization applied: `.off`.
    open var activeVideoStabilizationMode: AVCaptureVideoStabilizationMode { .off }

    /// Decides whether a frame at `pts` passes the frame-rate limit (`videoMinFrameDuration`),
    /// `sourceDuration` being the source's frame interval; records it when it passes.
    func admitsFrame(at pts: CMTime, sourceDuration: CMTime) -> Bool {
        lock.withLock {
            if minFrameDuration.isNumeric, minFrameDuration > .zero, lastDeliveredPTS.isNumeric {
                let tolerance = sourceDuration.isNumeric ? CMTimeMultiplyByRatio(sourceDuration, multiplier: 1, divisor: 2) : .zero
                if pts - lastDeliveredPTS < minFrameDuration - tolerance { return false }
            }
            lastDeliveredPTS = pts
            return true
        }
    }

    /// Forgets the last delivered frame (a session starting).
    func resetFrameLimit() { lock.withLock { lastDeliveredPTS = .invalid } }

    /// The settings outputs apply to a picture, read once per frame.
    var videoSettingsSnapshot: (angle: Int, mirrored: Bool) {
        lock.withLock { (Int(rotationAngle), mirrored) }
    }
}
