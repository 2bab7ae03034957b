// AVFOUNDATION_VIRTUAL_CAMERAS parsing: valid entries become devices with stable IDs and formats;
// invalid ones are skipped with a message, never a crash.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
@testable import MediaEngine
import Testing

@Suite struct VirtualDevicesTests {
    @Test func testPatternEntryBecomesADeviceWithStandardSizesBelowIt() throws {
        let parsed = VirtualDevices.parse("testsrc:1280x720@60")
        #expect(parsed.problems.isEmpty)
        let camera = try #require(parsed.cameras.first)
        #expect(camera.uniqueID == "virtual:testsrc:1280x720@60")
        #expect(camera.localizedName == "Test Pattern 1280x720 @ 60 fps")
        #expect(camera.modelID == "virtual")
        #expect(camera.isConnected)
        let sizes = camera.formats.map { "\($0.width)x\($0.height)" }
        #expect(sizes == ["1280x720", "960x540", "640x480", "480x360", "352x288", "320x240", "192x144"])
        for format in camera.formats {
            #expect(format.pixelFormat == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(format.maxFrameRate == 60 && format.minFrameRate == 1)
            #expect(format.minFrameDuration == CMTime(value: 1, timescale: 60))
            #expect(format.maxFrameDuration == CMTime(value: 1, timescale: 1))
        }
        // A 30 fps camera offers nothing above 30.
        #expect(VirtualDevices.parse("testsrc:640x480@30").cameras.first?.formats.map(\.maxFrameRate) == [30, 30, 30, 30, 30])
    }

    @Test func fileEntriesGetAbsolutePathIDs() throws {
        let parsed = VirtualDevices.parse("/tmp/a/../clip.mov, relative/cam.mp4", currentDirectory: "/work/here")
        #expect(parsed.problems.isEmpty)
        #expect(parsed.cameras.map(\.uniqueID) == ["virtual:/tmp/clip.mov", "virtual:/work/here/relative/cam.mp4"])
        #expect(parsed.cameras.map(\.localizedName) == ["clip", "cam"])
        #expect(parsed.cameras.first?.isConnected == false)     // no such file: disconnected, still listed
    }

    @Test func invalidEntriesAreSkippedWithAClearMessage() {
        let value = "testsrc:640x480@30,testsrc:640x480,testsrc:641x480@30,testsrc:640x480@0,testsrc:axb@30,"
            + " ,testsrc,testsrc:64x48@30,/tmp,testsrc:1280x720@30,testsrc:640x480@30"
        let parsed = VirtualDevices.parse(value)
        #expect(parsed.cameras.map(\.uniqueID) == ["virtual:testsrc:640x480@30", "virtual:testsrc:1280x720@30"])
        #expect(parsed.problems.count == 7)
        for problem in parsed.problems { #expect(problem.hasPrefix("AVFOUNDATION_VIRTUAL_CAMERAS: entry '")) }
        #expect(parsed.problems[0].contains("testsrc:640x480'") && parsed.problems[0].contains("expected testsrc:WIDTHxHEIGHT@FPS"))
        #expect(parsed.problems[1].contains("even sides"))
        #expect(parsed.problems[2].contains("1…240"))
        #expect(parsed.problems[6].contains("is a directory"))
    }

    @Test func sameIDsAcrossParsesAndFromTheEnvironment() {
        let value = "testsrc:320x240@15,/tmp/virtual-camera.mkv"
        let first = VirtualDevices.parse(value), second = VirtualDevices.parse(value)
        #expect(first == second)
        #expect(first.cameras.map(\.uniqueID) == ["virtual:testsrc:320x240@15", "virtual:/tmp/virtual-camera.mkv"])
        let fromEnvironment = VirtualDevices.fromEnvironment([VirtualDevices.environmentVariable: value + ",bogus-testsrc:1x1"])
        #expect(fromEnvironment.map(\.uniqueID) == first.cameras.map(\.uniqueID) + ["virtual:\(FileManager.default.currentDirectoryPath)/bogus-testsrc:1x1"])
        #expect(VirtualDevices.fromEnvironment([:]).isEmpty)
    }

    @Test func optionsGivePretendControlsAndAFixedOrderID() throws {
        let parsed = VirtualDevices.parse("testsrc:640x480@30?torch&FOCUS&position=front, testsrc:320x240@15?zoom")
        let camera = try #require(parsed.cameras.first)
        #expect(camera.uniqueID == "virtual:testsrc:640x480@30?focus&torch&position=front")
        #expect(camera.localizedName == "Test Pattern 640x480 @ 30 fps")
        #expect(camera.formats.first?.width == 640)
        let caps = try #require(camera.makeCameraControls()?.capabilities)
        #expect(caps.focusModes == Set(CameraFocusMode.allCases) && caps.focusPointOfInterest && caps.focusMode == .continuousAutoFocus)
        #expect(caps.exposureModes == [.locked] && !caps.exposurePointOfInterest)
        #expect(caps.hasTorch && !caps.hasFlash && caps.position == .front)
        #expect(parsed.cameras.count == 1)
        #expect(parsed.problems.count == 1 && parsed.problems[0].contains("unknown option 'zoom'"))
        // Without options: no controls, and the ID is the plain one.
        #expect(VirtualDevices.parse("testsrc:640x480@30").cameras.first?.makeCameraControls() == nil)
    }

    @Test func pretendScansReportAdjustingThenFinishOneShotModes() throws {
        var options = VirtualCamera.Options()
        options.focus = true
        options.whiteBalance = true
        let controls = VirtualCameraControls(capabilities: options.capabilities, scanDuration: 0.05)
        let events = EventLog()
        controls.setEventHandler { events.append($0) }
        try controls.setFocus(.autoFocus, pointOfInterest: CGPoint(x: 0.1, y: 0.9))
        #expect(events.wait(count: 3))
        #expect(events.all == [.adjusting(.focus, true), .adjusting(.focus, false), .oneShotFinished(.focus)])
        #expect(throws: LiveSourceError.self) { try controls.setExposure(.continuousAutoExposure, pointOfInterest: .zero) }
        #expect(throws: LiveSourceError.self) { try controls.setTorch(level: 1) }
        try controls.setTorch(level: 0)
    }

    private final class EventLog: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [CameraControlEvent] = []
        func append(_ event: CameraControlEvent) { lock.withLock { events.append(event) } }
        var all: [CameraControlEvent] { lock.withLock { events } }
        func wait(count: Int) -> Bool {
            for _ in 0..<500 where all.count < count { usleep(10_000) }
            return all.count >= count
        }
    }
}
