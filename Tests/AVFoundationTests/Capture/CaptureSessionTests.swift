// AVCaptureSession: presets, greedy connections, nested configuration applied at the outermost
// commit, running state (KVO, notifications), and a source failing while running.
import AVFoundation
import Foundation
import Synchronization
import Testing

extension CaptureTests {
    @Suite("AVCaptureSession")
    struct SessionTests {
        @Test func presetsFollowTheCameraFormats() throws {
            let camera = try CaptureCameras.vgaCamera()
            let session = AVCaptureSession()
            #expect(session.sessionPreset == .high)
            let input = try AVCaptureDeviceInput(device: camera)
            session.addInput(input)
            #expect(session.canSetSessionPreset(.medium))
            #expect(session.canSetSessionPreset(.vga640x480))
            #expect(session.canSetSessionPreset(.low))
            #expect(!session.canSetSessionPreset(.hd1920x1080))
            #expect(!session.canSetSessionPreset(.hd1280x720))
            #expect(!session.canSetSessionPreset(AVCaptureSession.Preset(rawValue: "NoSuchPreset")))
            session.sessionPreset = .medium
            #expect(session.sessionPreset == .medium)
            let active = CMVideoFormatDescriptionGetDimensions(camera.activeFormat.formatDescription)
            #expect((active.width, active.height) == (480, 360))
            session.sessionPreset = .high
            let high = CMVideoFormatDescriptionGetDimensions(camera.activeFormat.formatDescription)
            #expect((high.width, high.height) == (640, 480))
            // The port describes the device's active format and stamps on the host clock.
            let port = try #require(input.ports.first)
            #expect(input.ports.count == 1)
            #expect(port.mediaType == .video)
            #expect(port.input === input)
            #expect(port.clock === CMClockGetHostTimeClock())
            #expect(port.formatDescription.map(CMVideoFormatDescriptionGetDimensions)?.width == 640)
            #expect(session.synchronizationClock === CMClockGetHostTimeClock())
        }

        @Test func connectionsAreMadeGreedilyOrByHand() throws {
            let camera = try CaptureCameras.vgaCamera()
            let session = AVCaptureSession()
            let input = try AVCaptureDeviceInput(device: camera)
            let first = AVCaptureVideoDataOutput()
            session.addOutput(first)
            #expect(first.connections.isEmpty)
            session.addInput(input)
            // The input's video port went to the output that had room.
            let connection = try #require(first.connection(with: .video))
            #expect(connection.inputPorts.first === input.ports.first)
            #expect(connection.output === first)
            #expect(connection.isEnabled && connection.isActive)
            #expect(connection.audioChannels.isEmpty)
            #expect(first.connection(with: .audio) == nil)
            #expect(session.connections.count == 1)
            // A second input of the same device is refused; a second output gets its own connection.
            #expect(!session.canAddInput(try AVCaptureDeviceInput(device: camera)))
            #expect(!session.canAddInput(input))
            let second = AVCaptureVideoDataOutput()
            session.addOutput(second)
            #expect(second.connections.count == 1)
            #expect(!session.canAddOutput(second))
            // Without connections, then by hand.
            let third = AVCaptureVideoDataOutput()
            session.addOutputWithNoConnections(third)
            #expect(third.connections.isEmpty)
            let manual = AVCaptureConnection(inputPorts: input.ports, output: third)
            #expect(session.canAddConnection(manual))
            session.addConnection(manual)
            #expect(third.connections.first === manual)
            #expect(!session.canAddConnection(AVCaptureConnection(inputPorts: input.ports, output: third)))
            session.removeConnection(manual)
            #expect(third.connections.isEmpty)
            // Removing the input removes its connections.
            session.removeInput(input)
            #expect(session.inputs.isEmpty)
            #expect(session.connections.isEmpty)
            #expect(first.connections.isEmpty && second.connections.isEmpty)
            session.removeOutput(first)
            #expect(session.outputs.count == 2)
        }

        @Test func runningIsObservableAndNotifiedOnceEach() throws {
            let camera = try CaptureCameras.vgaCamera()
            let recorder = FrameRecorder()
            let (session, _) = try makeSession(camera: camera, preset: .vga640x480, recorder: recorder)
            let values = Mutex<[Bool]>([])
            let token = session.observe(\.isRunning, options: [.initial, .new]) { _, change in
                if let value = change.newValue { values.withLock { $0.append(value) } }
            }
            let posted = Mutex<[String]>([])
            let center = NotificationCenter.default
            let observers = [
                center.addObserver(forName: AVCaptureSession.didStartRunningNotification, object: session, queue: nil) { _ in
                    posted.withLock { $0.append("start") }
                },
                center.addObserver(forName: AVCaptureSession.didStopRunningNotification, object: session, queue: nil) { _ in
                    posted.withLock { $0.append("stop") }
                },
            ]
            defer { observers.forEach(center.removeObserver) }
            session.startRunning()
            #expect(session.isRunning)
            session.startRunning()
            #expect(waitUntil(10) { recorder.count > 0 })
            session.stopRunning()
            session.stopRunning()
            #expect(!session.isRunning)
            #expect(values.withLock { $0 } == [false, true, false])
            #expect(posted.withLock { $0 } == ["start", "stop"])
            #expect(!session.isInterrupted)
            token.invalidate()
        }

        @Test func nestedConfigurationChangesNothingBeforeTheOutermostCommit() throws {
            let camera = try CaptureCameras.vgaCamera()
            let hd = try #require(AVCaptureDevice(uniqueID: CaptureCameras.hd))
            let recorder = FrameRecorder()
            let (session, _) = try makeSession(camera: camera, preset: .vga640x480, recorder: recorder)
            session.startRunning()
            defer { session.stopRunning() }
            #expect(waitUntil(10) { recorder.count >= 3 })

            session.beginConfiguration()
            session.beginConfiguration()
            let oldInput = try #require(session.inputs.first)
            session.removeInput(oldInput)
            let newInput = try AVCaptureDeviceInput(device: hd)
            #expect(session.canAddInput(newInput))
            session.addInput(newInput)
            #expect(session.canSetSessionPreset(.hd1280x720))
            session.sessionPreset = .hd1280x720
            session.commitConfiguration()
            // Inner commit: the running capture is untouched.
            let afterInner = recorder.count
            #expect(waitUntil(10) { recorder.count >= afterInner + 5 })
            #expect(recorder.frames.dropFirst(afterInner).allSatisfy { $0.width == 640 && $0.height == 480 })
            let hdActive = CMVideoFormatDescriptionGetDimensions(hd.activeFormat.formatDescription)
            #expect(hdActive.width == 1280)

            session.commitConfiguration()
            let afterOuter = recorder.count
            #expect(waitUntil(10) { recorder.frames.dropFirst(afterOuter).contains { $0.width == 1280 && $0.height == 720 } })
            // Once the new camera delivers, only its frames come.
            let firstHD = try #require(recorder.frames.lastIndex { $0.width == 640 })
            #expect(waitUntil(10) { recorder.count > firstHD + 5 })
            #expect(recorder.frames.dropFirst(firstHD + 1).allSatisfy { $0.width == 1280 && $0.height == 720 })
        }

        @Test func settingTheDeviceFormatWhileRunningSwitchesToInputPriority() throws {
            let camera = try CaptureCameras.vgaCamera()
            let recorder = FrameRecorder()
            let (session, _) = try makeSession(camera: camera, preset: .vga640x480, recorder: recorder)
            session.startRunning()
            defer {
                session.stopRunning()
                session.sessionPreset = .high
            }
            #expect(waitUntil(10) { recorder.count >= 2 })
            let small = try #require(camera.formats.first { CMVideoFormatDescriptionGetDimensions($0.formatDescription).width == 320 })
            try camera.lockForConfiguration()
            camera.activeFormat = small
            camera.activeVideoMinFrameDuration = CMTime(value: 1, timescale: 10)
            camera.unlockForConfiguration()
            #expect(session.sessionPreset == .inputPriority)
            let mark = recorder.count
            #expect(waitUntil(10) { recorder.frames.dropFirst(mark).contains { $0.width == 320 && $0.duration == CMTime(value: 1, timescale: 10) } })
        }

        @Test func removingAFileCamerasFilePostsARuntimeErrorAndStops() throws {
            CaptureCameras.install()
            try CaptureCameras.makeFileCameraClip()
            defer { try? FileManager.default.removeItem(at: CaptureCameras.fileCameraURL) }
            let camera = try #require(AVCaptureDevice(uniqueID: CaptureCameras.fileCameraID))
            let recorder = FrameRecorder()
            let (session, _) = try makeSession(camera: camera, preset: .high, recorder: recorder)
            let errors = Mutex<[AVError]>([])
            let stops = Mutex(0)
            let disconnections = Mutex(0)
            let center = NotificationCenter.default
            let observers = [
                center.addObserver(forName: AVCaptureSession.runtimeErrorNotification, object: session, queue: nil) { note in
                    if let error = note.userInfo?[AVCaptureSessionErrorKey] as? AVError { errors.withLock { $0.append(error) } }
                },
                center.addObserver(forName: AVCaptureSession.didStopRunningNotification, object: session, queue: nil) { _ in
                    stops.withLock { $0 += 1 }
                },
                // The notification's object is the device's shared object, equal to `camera`.
                center.addObserver(forName: AVCaptureDevice.wasDisconnectedNotification, object: nil, queue: nil) { note in
                    if (note.object as? AVCaptureDevice) == camera { disconnections.withLock { $0 += 1 } }
                },
            ]
            defer { observers.forEach(center.removeObserver) }
            session.startRunning()
            #expect(session.isRunning)
            #expect(waitUntil(10) { recorder.count >= 3 })
            #expect(recorder.frames.first.map { ($0.width, $0.height) } ?? (0, 0) == (320, 240))
            try FileManager.default.removeItem(at: CaptureCameras.fileCameraURL)
            #expect(waitUntil(30) { !session.isRunning })
            #expect(errors.withLock { $0.map(\.code) } == [.deviceWasDisconnected])
            #expect(stops.withLock { $0 } == 1)
            #expect(disconnections.withLock { $0 } == 1)
            #expect(!camera.isConnected)
            let count = recorder.count
            usleep(300_000)
            #expect(recorder.count == count)
        }
    }
}
