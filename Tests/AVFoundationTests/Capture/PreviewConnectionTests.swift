// The preview layer's connection without a display: formed greedily by `init(session:)` and
// `session =` (also later, when the video input comes, and again after a camera switch), none
// with `init(sessionWithNoConnection:)` until `addConnection` adds a manual one, removed with the
// input, with `session = nil` and when the layer is released; a front camera's preview mirrored
// by itself; the connection's turn and mirror in the layer's conversions; and a running session with AVFOUNDATION_PREVIEW=off: frames reach
// the layer (isPreviewing, observable) with no window and nothing failing.
@testable import AVFoundation
import Foundation
import Testing

extension CaptureTests {
    @Suite("AVCaptureVideoPreviewLayer connection")
    struct PreviewConnectionTests {
        func input(_ uniqueID: String) throws -> AVCaptureDeviceInput {
            CaptureCameras.install()
            return try AVCaptureDeviceInput(device: try #require(AVCaptureDevice(uniqueID: uniqueID)))
        }

        func videoPort(_ input: AVCaptureInput) throws -> AVCaptureInput.Port {
            try #require(input.ports.first { $0.mediaType == .video })
        }

        @Test func theSessionConnectsALayerToItsFirstVideoPort() throws {
            let session = AVCaptureSession()
            let camera = try input(CaptureCameras.vga)
            session.addInput(camera)
            let layer = AVCaptureVideoPreviewLayer(session: session)
            let connection = try #require(layer.connection)
            #expect(connection.videoPreviewLayer === layer && connection.output == nil)
            let port = try videoPort(camera)
            #expect(connection.inputPorts.count == 1 && connection.inputPorts.first === port)
            #expect(session.connections.count == 1 && session.connections.first === connection)
            #expect(connection.isEnabled && connection.isActive)
            // The camera has no position (not .front): the automatic mirroring leaves it as is.
            #expect(connection.automaticallyAdjustsVideoMirroring && connection.isVideoMirroringSupported && !connection.isVideoMirrored)
            #expect(connection.isVideoRotationAngleSupported(90) && connection.videoRotationAngle == 0)
            // Setting the same session again (as a view updating itself does) keeps the
            // connection and its settings.
            connection.videoRotationAngle = 180
            layer.session = session
            #expect(layer.connection === connection && connection.isActive && connection.videoRotationAngle == 180)
            #expect(session.connections.count == 1)

            // An output added later gets its own connection to the same port; the layer keeps its own.
            let output = AVCaptureVideoDataOutput()
            session.addOutput(output)
            let outputConnection = try #require(output.connection(with: .video))
            #expect(outputConnection !== connection && outputConnection.videoPreviewLayer == nil)
            #expect(layer.connection === connection && session.connections.count == 2)
            // A second layer: a connection of its own.
            let second = AVCaptureVideoPreviewLayer(session: session)
            let secondConnection = try #require(second.connection)
            #expect(secondConnection !== connection && secondConnection.videoPreviewLayer === second)
            #expect(session.connections.count == 3)
        }

        @Test func aLayerWithoutAVideoInputIsConnectedWhenOneIsAddedAndFollowsACameraSwitch() throws {
            let session = AVCaptureSession()
            let layer = AVCaptureVideoPreviewLayer()
            layer.session = session
            #expect(layer.session === session && layer.connection == nil && session.connections.isEmpty)
            let vga = try input(CaptureCameras.vga)
            session.addInput(vga)
            let first = try #require(layer.connection)
            #expect(first.inputPorts.first?.input === vga && first.isActive)

            // Switching cameras the usual way: out with one input, in with the other, one transaction.
            session.beginConfiguration()
            session.removeInput(vga)
            let hd = try input(CaptureCameras.hd)
            session.addInput(hd)
            session.commitConfiguration()
            let second = try #require(layer.connection)
            #expect(second !== first && second.inputPorts.first?.input === hd)
            #expect(!first.isActive && session.connections.count == 1 && session.connections.first === second)
        }

        @Test func aLayerWithNoConnectionTakesOneAddedByHand() throws {
            let session = AVCaptureSession()
            let vga = try input(CaptureCameras.vga)
            session.addInput(vga)
            let layer = AVCaptureVideoPreviewLayer(sessionWithNoConnection: session)
            #expect(layer.session === session && layer.connection == nil && session.connections.isEmpty)

            let port = try videoPort(vga)
            let manual = AVCaptureConnection(inputPort: port, videoPreviewLayer: layer)
            #expect(manual.videoPreviewLayer === layer && manual.output == nil && manual.inputPorts.first === port)
            #expect(!manual.isActive)
            #expect(session.canAddConnection(manual))
            session.addConnection(manual)
            #expect(layer.connection === manual && manual.isActive && session.connections.first === manual)
            // The same connection twice, a second one for the layer, a layer of no session and a
            // port of an input outside the session are refused.
            #expect(!session.canAddConnection(manual))
            #expect(!session.canAddConnection(AVCaptureConnection(inputPort: port, videoPreviewLayer: layer)))
            let stranger = AVCaptureVideoPreviewLayer()
            #expect(!session.canAddConnection(AVCaptureConnection(inputPort: port, videoPreviewLayer: stranger)))
            let outside = try input(CaptureCameras.hd)
            session.removeConnection(manual)
            #expect(layer.connection == nil && !manual.isActive && session.connections.isEmpty)
            #expect(!session.canAddConnection(AVCaptureConnection(inputPort: try videoPort(outside), videoPreviewLayer: layer)))

            // A layer set with no connection is not connected to inputs added later either.
            session.removeInput(vga)
            session.addInput(outside)
            #expect(layer.connection == nil && session.connections.isEmpty)

            // setSessionWithNoConnection on a connected layer takes its connection away.
            let connected = AVCaptureVideoPreviewLayer(session: session)
            #expect(connected.connection != nil)
            connected.setSessionWithNoConnection(session)
            #expect(connected.connection == nil && session.connections.isEmpty)
        }

        @Test func removingTheInputTheSessionOrTheLayerRemovesTheConnection() throws {
            let session = AVCaptureSession()
            let vga = try input(CaptureCameras.vga)
            session.addInput(vga)
            let layer = AVCaptureVideoPreviewLayer(session: session)
            let connection = try #require(layer.connection)
            session.removeInput(vga)
            #expect(layer.connection == nil && session.connections.isEmpty && !connection.isActive)
            // The layer still previews the session: the next video input connects it again.
            session.addInput(vga)
            #expect(layer.connection != nil && layer.connection !== connection)

            layer.session = nil
            #expect(layer.session == nil && layer.connection == nil && session.connections.isEmpty)

            // Another session: connected there, not here.
            let other = AVCaptureSession()
            let hd = try input(CaptureCameras.hd)
            other.addInput(hd)
            layer.session = session
            #expect(session.connections.count == 1)
            layer.session = other
            #expect(session.connections.isEmpty && other.connections.count == 1 && layer.connection?.inputPorts.first?.input === hd)

            // A released layer leaves no connection behind (the session holds layers weakly).
            weak var released: AVCaptureVideoPreviewLayer?
            do {
                let temporary = AVCaptureVideoPreviewLayer(session: session)
                released = temporary
                #expect(session.connections.count == 1 && session.connections.first?.videoPreviewLayer === temporary)
            }
            // (An announcement queued on the layers' event queue may hold it for a moment.)
            #expect(waitUntil(timeout: 2) { released == nil })
            #expect(session.connections.isEmpty)
        }

        @Test func theConnectionsTurnAndMirrorAreInTheLayersConversions() throws {
            let session = AVCaptureSession()
            session.addInput(try input(CaptureCameras.vga))
            session.sessionPreset = .vga640x480
            let layer = AVCaptureVideoPreviewLayer(session: session)
            layer.frame = CGRect(x: 0, y: 0, width: 640, height: 480)
            let connection = try #require(layer.connection)
            #expect(layer.layerPointConverted(fromCaptureDevicePoint: CGPoint(x: 0.25, y: 0.5)) == CGPoint(x: 160, y: 240))

            connection.automaticallyAdjustsVideoMirroring = false
            connection.isVideoMirrored = true
            // Mirrored: the device's left quarter is the layer's right quarter.
            #expect(layer.layerPointConverted(fromCaptureDevicePoint: CGPoint(x: 0.25, y: 0.5)) == CGPoint(x: 480, y: 240))
            let back = layer.captureDevicePointConverted(fromLayerPoint: CGPoint(x: 480, y: 240))
            #expect(abs(back.x - 0.25) < 1e-9 && abs(back.y - 0.5) < 1e-9)

            // A quarter turn clockwise in a portrait layer: the device's top-left corner is the
            // layer's top-right.
            connection.isVideoMirrored = false
            connection.videoRotationAngle = 90
            layer.frame = CGRect(x: 0, y: 0, width: 480, height: 640)
            #expect(layer.layerPointConverted(fromCaptureDevicePoint: CGPoint(x: 0, y: 0)) == CGPoint(x: 480, y: 0))
            #expect(layer.layerRectConverted(fromMetadataOutputRect: CGRect(x: 0, y: 0, width: 1, height: 1))
                    == CGRect(x: 0, y: 0, width: 480, height: 640))
        }

        @Test func automaticMirroringMirrorsAFrontCamerasPreviewOnly() throws {
            let camera = try input(CaptureCameras.vga)
            // No camera here reports a position: a port as a front camera's would be.
            let front = AVCaptureInput.Port(input: camera, mediaType: .video, deviceType: .builtInWideAngleCamera,
                                            position: .front, format: { nil })
            let layer = AVCaptureVideoPreviewLayer()
            let preview = AVCaptureConnection(inputPort: front, videoPreviewLayer: layer)
            #expect(preview.automaticallyAdjustsVideoMirroring && preview.isVideoMirrored)
            #expect(preview.videoSettingsSnapshot.mirrored)
            // Taken over by hand, it is what is set.
            preview.automaticallyAdjustsVideoMirroring = false
            #expect(!preview.isVideoMirrored)
            // An output's connection from the same port is not mirrored by itself; nor is a
            // preview of a camera without a front position.
            let output = AVCaptureConnection(inputPorts: [front], output: AVCaptureVideoDataOutput())
            #expect(output.automaticallyAdjustsVideoMirroring && !output.isVideoMirrored)
            let unspecified = AVCaptureConnection(inputPort: try videoPort(camera), videoPreviewLayer: layer)
            #expect(!unspecified.isVideoMirrored)
        }

        /// A running session without a display: frames reach the layer, no window, no failure.
        /// In a child process, for its own environment.
        @Test func withoutADisplayFramesStillReachTheLayer() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                setenv("AVFOUNDATION_PREVIEW", "off", 1)
                CaptureCameras.install()
                let session = AVCaptureSession()
                guard let device = AVCaptureDevice(uniqueID: CaptureCameras.vga), let input = try? AVCaptureDeviceInput(device: device) else {
                    fatalError("no virtual camera")
                }
                session.addInput(input)
                let layer = AVCaptureVideoPreviewLayer(session: session)
                let seen = PreviewingValues()
                let observation = layer.observe(\.isPreviewing, options: [.new]) { _, change in
                    if let value = change.newValue { seen.append(value) }
                }
                precondition(!layer.isPreviewing)
                session.startRunning()
                precondition(session.isRunning)
                precondition(waitUntil(5) { layer.isPreviewing }, "frames never reached the layer")
                precondition(!layer.hasWindow)
                guard let why = layer.windowProblem, why.contains("AVFOUNDATION_PREVIEW=off") else {
                    fatalError("window problem: \(layer.windowProblem ?? "none")")
                }
                // Disabling the connection stops the picture; enabling it starts it again.
                layer.connection?.isEnabled = false
                precondition(waitUntil(5) { !layer.isPreviewing })
                layer.connection?.isEnabled = true
                precondition(waitUntil(5) { layer.isPreviewing })
                session.stopRunning()
                precondition(waitUntil(5) { !layer.isPreviewing })
                precondition(waitUntil(5) { seen.values == [true, false, true, false] }, "observed \(seen.values)")
                observation.invalidate()
            }
            if let result, !result.standardErrorContent.isEmpty {
                Issue.record("the child said: \(String(decoding: result.standardErrorContent, as: UTF8.self).suffix(2000))")
            }
        }
    }
}

/// `isPreviewing` values an observer was told of.
final class PreviewingValues: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Bool] = []
    func append(_ value: Bool) { lock.withLock { list.append(value) } }
    var values: [Bool] { lock.withLock { list } }
}
