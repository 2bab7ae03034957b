// Video and sound in one session (the base of AT-S1, RosyWriter): a virtual camera and the
// default microphone through video and audio data outputs, stamped on one clock from the start.
@testable import AVFoundation
import Foundation
import Testing
import TestSupport

extension CaptureTests {
    @Suite("Capture A/V", .enabled(if: CaptureServices.shouldRun,
                                   "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
    struct AVSyncTests {
        @Test func firstVideoAndAudioTimesAgreeWithEachOtherAndTheStartOnTheHostClock() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            // The null sink renders in 2 s blocks while nothing plays into it, so its monitor's
            // first sound would come up to 2 s after recording starts (a real microphone delivers
            // within the 10 ms asked for): a low-latency player of silence keeps the sink rendering
            // in 10 ms blocks, as a live source does.
            let player = Process()
            player.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            player.arguments = ["pacat", "--playback", "-d", services.sink, "--latency-msec=10", "--raw", "/dev/zero"]
            player.environment = services.environment
            try player.run()
            // pacat drains on SIGTERM (forever, from /dev/zero): killed outright.
            defer { kill(player.processIdentifier, SIGKILL); player.waitUntilExit() }
            // The sink takes the player's latency at the end of the 2 s block it is rendering.
            Thread.sleep(forTimeInterval: 2.5)
            let camera = try CaptureCameras.vgaCamera()
            let microphone = try #require(AVCaptureDevice.default(for: .audio))
            let session = AVCaptureSession()
            session.beginConfiguration()
            for device in [camera, microphone] {
                let input = try AVCaptureDeviceInput(device: device)
                try #require(session.canAddInput(input))
                session.addInput(input)
            }
            session.sessionPreset = .vga640x480
            let video = AVCaptureVideoDataOutput()
            let frames = FrameRecorder()
            video.setSampleBufferDelegate(frames, queue: frames.queue)
            let audio = AVCaptureAudioDataOutput()
            let sound = AudioRecorder()
            audio.setSampleBufferDelegate(sound, queue: sound.queue)
            for output in [video, audio] as [AVCaptureOutput] {
                try #require(session.canAddOutput(output))
                session.addOutput(output)
            }
            session.commitConfiguration()
            let videoConnection = try #require(video.connection(with: .video))
            let audioConnection = try #require(audio.connection(with: .audio))
            #expect(video.connection(with: .audio) == nil && audio.connection(with: .video) == nil)
            // Both ports' timestamps are on the host time clock.
            let host = CMClockGetHostTimeClock()
            #expect(videoConnection.inputPorts.allSatisfy { $0.clock === host })
            #expect(audioConnection.inputPorts.allSatisfy { $0.clock === host })

            let start = CMClockGetTime(host).seconds
            session.startRunning()
            #expect(sound.firstBuffer.wait(timeout: .now() + 5) == .success)
            Thread.sleep(forTimeInterval: 1)
            session.stopRunning()
            let firstVideo = try #require(frames.frames.first).pts.seconds
            let firstAudio = try #require(sound.buffers.first).pts.seconds
            print("CaptureAVSyncTests: first video at +\(firstVideo - start) s, first audio at +\(firstAudio - start) s, "
                  + "apart \(abs(firstVideo - firstAudio)) s")
            // The two sources start one after the other; what keeps them in sync is that each
            // stamps its capture times on the host clock (below), not that they begin together.
            #expect(abs(firstVideo - firstAudio) <= 0.1, "video \(firstVideo - start) s, audio \(firstAudio - start) s after start")
            #expect(abs(firstVideo - start) <= 0.1)
            #expect(abs(firstAudio - start) <= 0.1)
            // Both stay on the host clock: nothing is stamped after the moment it was delivered.
            #expect(frames.frames.allSatisfy { $0.pts.seconds <= CMClockGetTime(host).seconds })
            #expect(sound.buffers.allSatisfy { $0.pts.seconds <= $0.host })
            #expect(frames.count >= 20 && sound.buffers.count >= 50, "\(frames.count) frames, \(sound.buffers.count) buffers")
        }
    }
}
