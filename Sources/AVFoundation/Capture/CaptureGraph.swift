// CaptureGraph: a running capture session's sources and routes — for each device with connected
// ports, one live source (MediaEngine) whose frames or sound go to the connections' outputs and
// preview layers.
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// How an output shapes one video route's pictures before its own settings (rotation, mirroring,
/// pixel format): the size the session's preset asks for, and the part of the source picture
/// that fills it (the centre crop to the preset's aspect; the device's zoom crops further).
struct CaptureVideoGeometry: Sendable {
    let sourceWidth: Int
    let sourceHeight: Int
    let width: Int
    let height: Int
    let crop: PixelConverter.Rect
    let device: CaptureDeviceCore?

    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int, device: CaptureDeviceCore?) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        self.device = device
        // Centre crop to the output's aspect, on even coordinates.
        var cw = sourceWidth, ch = sourceHeight
        if sourceWidth * height > sourceHeight * width {
            cw = min(sourceWidth, (sourceHeight * width / height) & ~1)
        } else if sourceWidth * height < sourceHeight * width {
            ch = min(sourceHeight, (sourceWidth * height / width) & ~1)
        }
        crop = PixelConverter.Rect(x: ((sourceWidth - cw) / 2) & ~1, y: ((sourceHeight - ch) / 2) & ~1, width: cw, height: ch)
    }

    /// The crop for the device's current zoom factor: the preset crop narrowed around its centre.
    var zoomedCrop: PixelConverter.Rect {
        let zoom = device?.withControls { $0.zoomFactor } ?? 1
        guard zoom > 1 else { return crop }
        let w = max(2, Int((Double(crop.width) / Double(zoom)).rounded()) & ~1)
        let h = max(2, Int((Double(crop.height) / Double(zoom)).rounded()) & ~1)
        return PixelConverter.Rect(x: (crop.x + (crop.width - w) / 2) & ~1, y: (crop.y + (crop.height - h) / 2) & ~1,
                                   width: w, height: h)
    }
}

/// Why a graph could not start a source.
struct CaptureGraphError: Error {
    let device: AVCaptureDevice
    let error: LiveSourceError
}

// Invariant: the routes and outputs are changed only by the owning session, under its run lock.
final class CaptureGraph: @unchecked Sendable {
    /// What identifies a running video source: restarting is needed only when it changes.
    struct SourceKey: Equatable {
        let uniqueID: String
        let format: LiveVideoFormat
        let frameDuration: CMTime
    }

    /// One connection a route feeds, and what consumes its media: an output, or a preview
    /// layer's sink (one more consumer of the same source's frames).
    struct Target {
        let connection: AVCaptureConnection
        let output: any CaptureSink
    }

    /// A running camera and the connections it feeds (swapped as a whole on reconfiguration).
    final class VideoRoute: Sendable {
        let key: SourceKey
        let source: any LiveSource
        /// The connections fed, the geometry, and whether a frame came.
        private struct State {
            var targets: [Target] = []
            var geometry: CaptureVideoGeometry
            var sawFrame = false
        }
        private let state: Mutex<State>

        init(key: SourceKey, source: any LiveSource, geometry: CaptureVideoGeometry) {
            self.key = key
            self.source = source
            state = Mutex(State(geometry: geometry))
        }

        func update(targets newTargets: [Target], geometry newGeometry: CaptureVideoGeometry) {
            state.withLock {
                $0.targets = newTargets
                $0.geometry = newGeometry
            }
        }

        /// Signalled by the first frame.
        private let firstFrame = DispatchSemaphore(value: 0)

        /// Waits until the first frame arrived, or `deadline`; true when it did.
        func waitForFirstFrame(until deadline: DispatchTime) -> Bool {
            guard firstFrame.wait(timeout: deadline) == .success else { return false }
            firstFrame.signal()
            return true
        }

        func deliver(_ frame: LiveFrame) {
            let (targets, geometry, first) = state.withLock { state -> ([Target], CaptureVideoGeometry, Bool) in
                defer { state.sawFrame = true }
                return (state.targets, state.geometry, !state.sawFrame)
            }
            if first { firstFrame.signal() }
            for target in targets where target.connection.passesMedia {
                guard target.connection.admitsFrame(at: frame.pts, sourceDuration: frame.duration) else { continue }
                target.output.receive(video: frame, from: target.connection, geometry: geometry)
            }
        }
    }

    /// A running sound source and the connections it feeds.
    final class AudioRoute: Sendable {
        let uniqueID: String
        let source: any LiveAudioSource
        /// The connections fed.
        private let targets = Mutex<[Target]>([])

        init(uniqueID: String, source: any LiveAudioSource) {
            self.uniqueID = uniqueID
            self.source = source
        }

        func update(targets newTargets: [Target]) { targets.withLock { $0 = newTargets } }

        private let meter = CaptureAudioMeter()

        func deliver(_ chunk: LiveAudioChunk) {
            let targets = targets.withLock { $0 }
            let levels = meter.levels(after: chunk)
            for target in targets where target.connection.passesMedia {
                target.connection.setAudioLevels(levels)
                target.output.receive(audio: chunk, from: target.connection)
            }
        }
    }

    private let clock: CMClock
    private let failed: @Sendable (LiveSourceError, AVCaptureDevice) -> Void
    private var videoRoutes: [String: VideoRoute] = [:]
    private var audioRoutes: [String: AudioRoute] = [:]
    private var activeOutputs: [any CaptureSink] = []

    /// A graph stamping on `clock`; `failed` is told (on the source's thread) when a source stops
    /// on its own.
    init(clock: CMClock, failed: @escaping @Sendable (LiveSourceError, AVCaptureDevice) -> Void) {
        self.clock = clock
        self.failed = failed
    }

    /// The format and output size a device input runs with under `preset` (the device's active
    /// format for `.inputPriority`), or nil when the device has no usable format.
    static func videoChoice(for device: AVCaptureDevice, preset: AVCaptureSession.Preset)
        -> (format: LiveVideoFormat, width: Int, height: Int)? {
        // A screen's frames are the captured area's size whatever the preset.
        if preset == .inputPriority || device.core.descriptor.deviceKind == .screen {
            guard let active = device.core.activeFormat(), active.audio == nil else { return nil }
            return (active.live, active.live.width, active.live.height)
        }
        return preset.choose(from: device.core.liveFormats())
    }

    /// Makes the sources and routes match `configuration` (the caller serialises calls): routes
    /// whose device, format and frame duration are unchanged keep running and get their new
    /// connections in one swap; others are stopped, then new ones started. Outputs new to the
    /// graph are told the capture starts; outputs that left are told it stopped. Returns the
    /// error of a source that could not start (the caller stops the graph).
    @discardableResult
    func apply(_ configuration: SessionConfiguration) -> CaptureGraphError? {
        var wantedVideo: [String: (device: AVCaptureDevice, key: SourceKey, geometry: CaptureVideoGeometry, targets: [Target])] = [:]
        var wantedAudio: [String: (device: AVCaptureDevice, targets: [Target])] = [:]
        for (input, device) in configuration.sourceInputs {
            for port in input.ports where port.isEnabled {
                let targets = configuration.connections.compactMap { connection -> Target? in
                    guard connection.inputPorts.contains(where: { $0 === port }), let output = connection.sink else { return nil }
                    return Target(connection: connection, output: output)
                }
                guard !targets.isEmpty else { continue }
                if port.mediaType == .video {
                    guard let choice = Self.videoChoice(for: device, preset: configuration.preset) else { continue }
                    let duration = device.core.frameDurations().min
                    let frameDuration = duration.isNumeric ? duration : choice.format.minFrameDuration
                    let key = SourceKey(uniqueID: device.uniqueID, format: choice.format, frameDuration: frameDuration)
                    let geometry = CaptureVideoGeometry(sourceWidth: choice.format.width, sourceHeight: choice.format.height,
                                                        width: choice.width, height: choice.height, device: device.core)
                    wantedVideo[device.uniqueID] = (device, key, geometry, targets)
                } else if port.mediaType == .audio {
                    wantedAudio[device.uniqueID] = (device, targets)
                }
            }
        }

        // Outputs joining get ready before any frame reaches them.
        let outputs = Self.outputs(of: wantedVideo.values.flatMap(\.targets) + wantedAudio.values.flatMap(\.targets))
        for output in outputs where !activeOutputs.contains(where: { $0 === output }) {
            output.captureWillStart()
        }

        // Stop what goes away or changes.
        for (id, route) in videoRoutes where wantedVideo[id]?.key != route.key {
            route.source.stop()
            videoRoutes[id] = nil
        }
        for (id, route) in audioRoutes where wantedAudio[id] == nil {
            route.source.stop()
            audioRoutes[id] = nil
        }
        // Keep what stays, with its new connections.
        for (id, wanted) in wantedVideo {
            if let route = videoRoutes[id] { route.update(targets: wanted.targets, geometry: wanted.geometry) }
        }
        for (id, wanted) in wantedAudio {
            audioRoutes[id]?.update(targets: wanted.targets)
        }
        // Start what is new.
        for (id, wanted) in wantedVideo where videoRoutes[id] == nil {
            guard let source = wanted.device.core.descriptor.makeVideoSource() else { continue }
            let route = VideoRoute(key: wanted.key, source: source, geometry: wanted.geometry)
            route.update(targets: wanted.targets, geometry: wanted.geometry)
            for target in wanted.targets { target.connection.resetFrameLimit() }
            let device = wanted.device
            let failed = self.failed
            do {
                try source.start(format: wanted.key.format, frameDuration: wanted.key.frameDuration, clock: clock,
                                 deliver: { [weak route] frame in route?.deliver(frame) },
                                 failed: { error in failed(error, device) })
            } catch {
                return CaptureGraphError(device: device, error: error)
            }
            videoRoutes[id] = route
        }
        for (id, wanted) in wantedAudio where audioRoutes[id] == nil {
            guard let source = wanted.device.core.descriptor.makeAudioSource(), let format = source.formats.first else { continue }
            let route = AudioRoute(uniqueID: id, source: source)
            route.update(targets: wanted.targets)
            let device = wanted.device
            let failed = self.failed
            do {
                try source.start(format: format, clock: clock, deliver: { [weak route] chunk in route?.deliver(chunk) },
                                 failed: { error in failed(error, device) })
            } catch {
                return CaptureGraphError(device: device, error: error)
            }
            audioRoutes[id] = route
        }

        // Outputs that left: no frame reaches them any more.
        for output in activeOutputs where !outputs.contains(where: { $0 === output }) {
            output.captureDidStop()
        }
        activeOutputs = outputs
        return nil
    }

    /// Waits (up to `seconds`) until every running camera delivered its first frame; true when
    /// all did.
    func waitForFirstFrames(seconds: Double) -> Bool {
        let deadline = DispatchTime.now() + seconds
        return videoRoutes.values.allSatisfy { $0.waitForFirstFrame(until: deadline) }
    }

    /// Stops every source (no frame is delivered after this), then tells the outputs.
    func stop() {
        for route in videoRoutes.values { route.source.stop() }
        for route in audioRoutes.values { route.source.stop() }
        videoRoutes = [:]
        audioRoutes = [:]
        for output in activeOutputs { output.captureDidStop() }
        activeOutputs = []
    }

    private static func outputs(of targets: [Target]) -> [any CaptureSink] {
        var result: [any CaptureSink] = []
        for target in targets where !result.contains(where: { $0 === target.output }) { result.append(target.output) }
        return result
    }
}
