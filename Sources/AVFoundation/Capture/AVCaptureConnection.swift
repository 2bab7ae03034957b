// AVCaptureConnection: links input ports to an output or a video preview layer, with the
// per-connection settings outputs and the preview apply (enabled, rotation, mirroring, frame-rate
// limits).
import CoreGraphics
import CoreMedia
import Foundation
import Synchronization

/// A link from input ports to an output, or from one video port to an
/// `AVCaptureVideoPreviewLayer`. Sessions make connections greedily when inputs and outputs are
/// added and when a layer's `session` is set; `addConnection(_:)` adds ones made with
/// `init(inputPorts:output:)` or `init(inputPort:videoPreviewLayer:)`.
///
/// Settings apply at once, also while the session runs: video data outputs turn their pictures
/// by `videoRotationAngle`, mirror them when `isVideoMirrored`, and deliver at most one frame
/// per `videoMinFrameDuration`; a preview layer draws the picture turned and mirrored the same
/// way from the next frame on. A preview connection mirrors by itself
/// (`automaticallyAdjustsVideoMirroring`) when its camera faces the user (`.front`), as Apple's.
open class AVCaptureConnection: NSObject, @unchecked Sendable {
    private let ports: [AVCaptureInput.Port]
    private weak var _output: AVCaptureOutput?
    /// The preview layer fed (held weakly: the layer holds its session, the session its connections).
    private weak var _videoPreviewLayer: AVCaptureVideoPreviewLayer?
    /// The settings, the channels, the session and the frame-rate limiting.
    private struct State {
        var enabled = true
        var rotationAngle: CGFloat = 0
        var mirrored = false
        var autoMirroring = true
        var minFrameDuration = CMTime.invalid
        var maxFrameDuration = CMTime.invalid
        var scaleAndCrop: CGFloat = 1
        var preferredStabilization = AVCaptureVideoStabilizationMode.off
        var channels: [AVCaptureAudioChannel] = []
        weak var session: AVCaptureSession?
        /// The PTS of the last frame passed to the output (frame-rate limiting).
        var lastDeliveredPTS = CMTime.invalid
    }
    private let state = Mutex(State())
    /// The session the connection is in, if any.
    var session: AVCaptureSession? {
        get { state.withLock { $0.session } }
        set { state.withLock { $0.session = newValue } }
    }

    /// A connection from `ports` to `output`, to add with `AVCaptureSession.addConnection(_:)`.
    public init(inputPorts ports: [AVCaptureInput.Port], output: AVCaptureOutput) {
        self.ports = ports
        _output = output
        super.init()
        // One channel per source channel (the audio port's format; stereo when it has none).
        let channels = (0..<Self.audioChannelCount(of: ports)).map { _ in AVCaptureAudioChannel() }
        state.withLock { $0.channels = channels }
    }

    /// A connection from the video port `port` to `layer`, to add with
    /// `AVCaptureSession.addConnection(_:)` (for a layer set up with
    /// `init(sessionWithNoConnection:)` or `setSessionWithNoConnection(_:)`).
    public init(inputPort port: AVCaptureInput.Port, videoPreviewLayer layer: AVCaptureVideoPreviewLayer) {
        ports = [port]
        _videoPreviewLayer = layer
        super.init()
    }

    /// The ports feeding the connection.
    open var inputPorts: [AVCaptureInput.Port] { ports }
    /// The output the connection feeds (nil for a preview layer's connection).
    open var output: AVCaptureOutput? { _output }
    /// The preview layer the connection feeds (nil for an output's connection).
    open var videoPreviewLayer: AVCaptureVideoPreviewLayer? { _videoPreviewLayer }

    /// What the session's graph hands the connection's frames to: its output or its preview
    /// layer's sink.
    var sink: (any CaptureSink)? { _output ?? _videoPreviewLayer?.previewSink }

    /// Whether the connection feeds a preview layer.
    var isPreview: Bool { _output == nil && _videoPreviewLayer != nil }

    /// Whether the connection delivers (default true). Observable; a preview layer's connection
    /// disabled while running stops the picture (`isPreviewing` becomes false).
    open var isEnabled: Bool {
        get { state.withLock { $0.enabled } }
        set {
            let old = state.withLock { state -> Bool in
                defer { state.enabled = newValue }
                return state.enabled
            }
            guard old != newValue else { return }
            KVORegistry.shared.didChange(self, \AVCaptureConnection.isEnabled, old: old)
            _videoPreviewLayer?.previewFlowChanged()
        }
    }

    /// Whether the connection is enabled, its ports are enabled and it is in a session.
    open var isActive: Bool { isEnabled && ports.allSatisfy(\.isEnabled) && session != nil }

    /// The audio channels of an audio connection (empty for video).
    open var audioChannels: [AVCaptureAudioChannel] { state.withLock { $0.channels } }

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
            state.withLock { $0.rotationAngle = CGFloat(newValue.rotationAngle) }
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
        get { state.withLock { $0.rotationAngle } }
        set {
            guard isVideoRotationAngleSupported(newValue) else {
                CaptureException.raise("AVCaptureConnection", "setVideoRotationAngle:", "Unsupported videoRotationAngle \(newValue)")
            }
            state.withLock { $0.rotationAngle = newValue.truncatingRemainder(dividingBy: 360) }
        }
    }

    // MARK: Mirroring

    /// Whether pictures may be mirrored (video connections).
    open var isVideoMirroringSupported: Bool { isVideo }

    /// Whether the connection decides mirroring itself (default true): a preview layer's
    /// connection mirrors the picture of a camera at `.front` (what a user facing it expects);
    /// other connections, and cameras at other positions (every camera here reports
    /// `.unspecified`), are not mirrored. Set it to false before setting `isVideoMirrored`.
    open var automaticallyAdjustsVideoMirroring: Bool {
        get { state.withLock { $0.autoMirroring } }
        set { state.withLock { $0.autoMirroring = newValue } }
    }

    /// Whether pictures are mirrored left to right (after turning). Setting it while
    /// `automaticallyAdjustsVideoMirroring` is true, or on a connection without video, raises.
    open var isVideoMirrored: Bool {
        get { effectiveMirroring }
        set {
            guard isVideoMirroringSupported else {
                CaptureException.raise("AVCaptureConnection", "setVideoMirrored:", "videoMirrored is not supported for this connection")
            }
            guard !automaticallyAdjustsVideoMirroring else {
                CaptureException.raise("AVCaptureConnection", "setVideoMirrored:",
                                       "Cannot be set when automaticallyAdjustsVideoMirroring is YES")
            }
            state.withLock { $0.mirrored = newValue }
        }
    }

    // MARK: Frame rate

    /// Whether `videoMinFrameDuration` may be set (video connections).
    open var isVideoMinFrameDurationSupported: Bool { isVideo }

    /// The shortest time between delivered frames: frames closer than this to the last one
    /// delivered are skipped. Default `.invalid` (every frame the device makes).
    open var videoMinFrameDuration: CMTime {
        get { state.withLock { $0.minFrameDuration } }
        set {
            guard isVideo else {
                CaptureException.raise("AVCaptureConnection", "setVideoMinFrameDuration:", "videoMinFrameDuration is not supported for this connection")
            }
            state.withLock { $0.minFrameDuration = newValue }
        }
    }

    /// Whether `videoMaxFrameDuration` may be set (video connections).
    open var isVideoMaxFrameDurationSupported: Bool { isVideo }

    /// The longest time between frames; default `.invalid`. Stored: sources here never slow
    /// down below their frame rate.
    open var videoMaxFrameDuration: CMTime {
        get { state.withLock { $0.maxFrameDuration } }
        set {
            guard isVideo else {
                CaptureException.raise("AVCaptureConnection", "setVideoMaxFrameDuration:", "videoMaxFrameDuration is not supported for this connection")
            }
            state.withLock { $0.maxFrameDuration = newValue }
        }
    }

    // MARK: Scale and crop

    /// The largest `videoScaleAndCropFactor` (1: still image outputs only crop by the device zoom).
    open var videoMaxScaleAndCropFactor: CGFloat { 1 }

    /// The still-image scale-and-crop factor (1…`videoMaxScaleAndCropFactor`; others raise).
    open var videoScaleAndCropFactor: CGFloat {
        get { state.withLock { $0.scaleAndCrop } }
        set {
            guard newValue >= 1, newValue <= videoMaxScaleAndCropFactor else {
                CaptureException.raise("AVCaptureConnection", "setVideoScaleAndCropFactor:",
                                       "videoScaleAndCropFactor \(newValue) is out of range [1, \(videoMaxScaleAndCropFactor)]")
            }
            state.withLock { $0.scaleAndCrop = newValue }
        }
    }

    /// Whether video stabilization is offered (never here).
    open var isVideoStabilizationSupported: Bool { false }

    /// The stabilization asked for (default `.off`); stored, as no camera here stabilizes.
    open var preferredVideoStabilizationMode: AVCaptureVideoStabilizationMode {
        get { state.withLock { $0.preferredStabilization } }
        set { state.withLock { $0.preferredStabilization = newValue } }
    }

    /// The stabilization applied: `.off`.
    open var activeVideoStabilizationMode: AVCaptureVideoStabilizationMode { .off }

    /// Decides whether a frame at `pts` passes the frame-rate limit (`videoMinFrameDuration`),
    /// `sourceDuration` being the source's frame interval; records it when it passes.
    func admitsFrame(at pts: CMTime, sourceDuration: CMTime) -> Bool {
        state.withLock { state in
            if state.minFrameDuration.isNumeric, state.minFrameDuration > .zero, state.lastDeliveredPTS.isNumeric {
                let tolerance = sourceDuration.isNumeric ? CMTimeMultiplyByRatio(sourceDuration, multiplier: 1, divisor: 2) : .zero
                if pts - state.lastDeliveredPTS < state.minFrameDuration - tolerance { return false }
            }
            state.lastDeliveredPTS = pts
            return true
        }
    }

    /// Forgets the last delivered frame (a session starting).
    func resetFrameLimit() { state.withLock { $0.lastDeliveredPTS = .invalid } }

    /// The mirroring applied: the stored setting, or for a preview connection deciding by
    /// itself, whether its camera faces the user.
    private var effectiveMirroring: Bool {
        let (automatic, stored) = state.withLock { state in (state.autoMirroring, state.mirrored) }
        guard automatic, isPreview else { return stored }
        return ports.first?.sourceDevicePosition == .front
    }

    /// The settings outputs and the preview apply to a picture, read once per frame.
    var videoSettingsSnapshot: (angle: Int, mirrored: Bool) {
        (Int(state.withLock { state in state.rotationAngle }), effectiveMirroring)
    }
}
