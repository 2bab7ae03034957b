// AVCaptureScreenInput over the services' Xvfb screen (1920×1080): whole-screen and cropped
// frames through a video data output; no display, no input.
@testable import AVFoundation
import CoreGraphics
import Foundation
import Testing
import TestSupport

extension CaptureTests {
    @Suite("AVCaptureScreenInput", .enabled(if: CaptureServices.shouldRun,
                                            "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
    struct ScreenInputTests {
        /// Runs `input` into a BGRA video data output for `seconds`; the frames delivered.
        private func capture(_ input: AVCaptureScreenInput, seconds: Double) throws -> [DeliveredFrame] {
            let session = AVCaptureSession()
            try #require(session.canAddInput(input))
            session.addInput(input)
            let output = AVCaptureVideoDataOutput()
            output.videoSettings = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_32BGRA)]
            let recorder = FrameRecorder()
            output.setSampleBufferDelegate(recorder, queue: recorder.queue)
            try #require(session.canAddOutput(output))
            session.addOutput(output)
            try #require(output.connection(with: .video) != nil)
            session.startRunning()
            #expect(session.isRunning)
            Thread.sleep(forTimeInterval: seconds)
            session.stopRunning()
            return recorder.frames
        }

        @Test func theMainDisplayDeliversScreenSizedFramesWithRisingTimes() throws {
            guard CaptureServicesEnvironment.install() != nil else { return }
            let input = try #require(AVCaptureScreenInput(displayID: CGMainDisplayID()))
            #expect(input.ports.map(\.mediaType) == [.video])
            #expect(input.cropRect.isNull && input.capturesCursor && !input.capturesMouseClicks && input.scaleFactor == 1)
            #expect(input.minFrameDuration == CMTime(value: 1, timescale: 60))
            let frames = try capture(input, seconds: 1)
            try #require(frames.count >= 5, "\(frames.count) frames")
            #expect(frames.allSatisfy { $0.width == 1920 && $0.height == 1080 && $0.pixelFormat == kCVPixelFormatType_32BGRA },
                    "\(frames.first.map { "\($0.width)×\($0.height)" } ?? "")")
            for (previous, next) in zip(frames, frames.dropFirst()) { #expect(next.pts > previous.pts) }
            // On the host clock: the last frame was captured no later than now.
            #expect(frames.last!.pts.seconds <= CMClockGetTime(CMClockGetHostTimeClock()).seconds)
        }

        @Test func aCropRectangleGivesFramesOfItsSize() throws {
            guard CaptureServicesEnvironment.install() != nil else { return }
            let input = try #require(AVCaptureScreenInput(displayID: CGMainDisplayID()))
            input.cropRect = CGRect(x: 0, y: 0, width: 640, height: 480)
            input.minFrameDuration = CMTime(value: 1, timescale: 30)
            let frames = try capture(input, seconds: 0.7)
            try #require(frames.count >= 3, "\(frames.count) frames")
            #expect(frames.allSatisfy { $0.width == 640 && $0.height == 480 })
            // At most one frame per 1/30 s (counted: a grab delayed by a busy machine moves its
            // time closer to the next one's).
            let span = (frames.last!.pts - frames.first!.pts).seconds
            #expect(Double(frames.count - 1) <= span * 30 + 1.5, "\(frames.count) frames in \(span) s")
            for (previous, next) in zip(frames, frames.dropFirst()) { #expect(next.pts > previous.pts) }
            input.scaleFactor = 0.5
            let halved = try capture(input, seconds: 0.5)
            try #require(!halved.isEmpty)
            #expect(halved.allSatisfy { $0.width == 320 && $0.height == 240 })
        }

        @Test func withoutADisplayThereIsNoScreenInput() async {
            #expect(AVCaptureScreenInput(displayID: 1, display: nil) == nil)
            #expect(AVCaptureScreenInput(displayID: 1, display: ":9999") == nil)
            await #expect(processExitsWith: .success) {
                unsetenv("DISPLAY")
                exit(AVCaptureScreenInput(displayID: CGMainDisplayID()) == nil ? 0 : 1)
            }
        }

        @Test func aDisplayIDWithoutAScreenGivesNoInput() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            #expect(AVCaptureScreenInput(displayID: 2, display: services.display) == nil)
            #expect(AVCaptureScreenInput(displayID: 1, display: services.display) != nil)
        }
    }
}
