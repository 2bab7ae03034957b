// The V4L2 control → Apple capture-concept mapping over recorded control lists: what a
// Logitech C920 (uvcvideo) reports, what a fixed-focus laptop camera reports, and a sensor with
// one-shot autofocus and a torch LED (ov5640 + LED flash on a board camera), as
// `v4l2-ctl --list-ctrls-menus` shows them, written out as data.
@testable import MediaEngine
import Testing

/// Recorded control lists.
enum V4L2ControlFixtures {
    static let inactive: UInt32 = 0x0010, readOnly: UInt32 = 0x0004, volatile: UInt32 = 0x0080, disabled: UInt32 = 0x0001

    /// HD Pro Webcam C920 (046d:082d), uvcvideo, kernel 6.1.
    static let c920: [V4L2Control] = [
        V4L2Control(id: 0x0098_0900, name: "Brightness", kind: .integer, minimum: 0, maximum: 255, defaultValue: 128),
        V4L2Control(id: 0x0098_0901, name: "Contrast", kind: .integer, minimum: 0, maximum: 255, defaultValue: 128),
        V4L2Control(id: 0x0098_0902, name: "Saturation", kind: .integer, minimum: 0, maximum: 255, defaultValue: 128),
        V4L2Control(id: 0x0098_090C, name: "White Balance, Automatic", kind: .boolean, minimum: 0, maximum: 1, defaultValue: 1),
        V4L2Control(id: 0x0098_0913, name: "Gain", kind: .integer, minimum: 0, maximum: 255, defaultValue: 0),
        V4L2Control(id: 0x0098_0918, name: "Power Line Frequency", kind: .menu, minimum: 0, maximum: 2, defaultValue: 2,
                    menu: [.init(index: 0, name: "Disabled"), .init(index: 1, name: "50 Hz"), .init(index: 2, name: "60 Hz")]),
        V4L2Control(id: 0x0098_091A, name: "White Balance Temperature", kind: .integer, minimum: 2000, maximum: 6500,
                    defaultValue: 4000, flags: inactive),
        V4L2Control(id: 0x0098_091B, name: "Sharpness", kind: .integer, minimum: 0, maximum: 255, defaultValue: 128),
        V4L2Control(id: 0x0098_091C, name: "Backlight Compensation", kind: .integer, minimum: 0, maximum: 1, defaultValue: 0),
        V4L2Control(id: 0x009A_0901, name: "Auto Exposure", kind: .menu, minimum: 0, maximum: 3, defaultValue: 3,
                    menu: [.init(index: 1, name: "Manual Mode"), .init(index: 3, name: "Aperture Priority Mode")]),
        V4L2Control(id: 0x009A_0902, name: "Exposure Time, Absolute", kind: .integer, minimum: 3, maximum: 2047,
                    defaultValue: 250, flags: inactive),
        V4L2Control(id: 0x009A_0903, name: "Exposure, Dynamic Framerate", kind: .boolean, minimum: 0, maximum: 1, defaultValue: 0),
        V4L2Control(id: 0x009A_0908, name: "Pan, Absolute", kind: .integer, minimum: -36000, maximum: 36000, step: 3600, defaultValue: 0),
        V4L2Control(id: 0x009A_0909, name: "Tilt, Absolute", kind: .integer, minimum: -36000, maximum: 36000, step: 3600, defaultValue: 0),
        V4L2Control(id: 0x009A_090A, name: "Focus, Absolute", kind: .integer, minimum: 0, maximum: 250, step: 5, defaultValue: 0,
                    flags: inactive),
        V4L2Control(id: 0x009A_090C, name: "Focus, Automatic Continuous", kind: .boolean, minimum: 0, maximum: 1, defaultValue: 1),
        V4L2Control(id: 0x009A_090D, name: "Zoom, Absolute", kind: .integer, minimum: 100, maximum: 500, defaultValue: 100),
    ]

    /// An integrated laptop camera (fixed focus): no focus or zoom controls.
    static let laptop: [V4L2Control] = [
        V4L2Control(id: 0x0098_0900, name: "Brightness", kind: .integer, minimum: -64, maximum: 64, defaultValue: 0),
        V4L2Control(id: 0x0098_090C, name: "White Balance, Automatic", kind: .boolean, minimum: 0, maximum: 1, defaultValue: 1),
        V4L2Control(id: 0x0098_0918, name: "Power Line Frequency", kind: .menu, minimum: 0, maximum: 2, defaultValue: 1,
                    menu: [.init(index: 0, name: "Disabled"), .init(index: 1, name: "50 Hz"), .init(index: 2, name: "60 Hz")]),
        V4L2Control(id: 0x0098_091A, name: "White Balance Temperature", kind: .integer, minimum: 2800, maximum: 6500,
                    step: 10, defaultValue: 4600, flags: inactive),
        V4L2Control(id: 0x009A_0901, name: "Auto Exposure", kind: .menu, minimum: 0, maximum: 3, defaultValue: 3,
                    menu: [.init(index: 1, name: "Manual Mode"), .init(index: 3, name: "Aperture Priority Mode")]),
        V4L2Control(id: 0x009A_0902, name: "Exposure Time, Absolute", kind: .integer, minimum: 1, maximum: 5000,
                    defaultValue: 156, flags: inactive),
        V4L2Control(id: 0x009A_0903, name: "Exposure, Dynamic Framerate", kind: .boolean, minimum: 0, maximum: 1, defaultValue: 0),
    ]

    /// ov5640 sensor with one-shot autofocus and an LED flash (board camera, media-ctl subdevice
    /// controls merged into the video node).
    static let boardCamera: [V4L2Control] = [
        V4L2Control(id: 0x0098_090C, name: "White Balance, Automatic", kind: .boolean, minimum: 0, maximum: 1, defaultValue: 1),
        V4L2Control(id: 0x0098_090D, name: "Do White Balance", kind: .button, minimum: 0, maximum: 0, step: 0, defaultValue: 0),
        V4L2Control(id: 0x009A_0901, name: "Auto Exposure", kind: .menu, minimum: 0, maximum: 1, defaultValue: 0,
                    menu: [.init(index: 0, name: "Auto Mode"), .init(index: 1, name: "Manual Mode")]),
        V4L2Control(id: 0x009A_091C, name: "Auto Focus, Start", kind: .button, minimum: 0, maximum: 0, step: 0, defaultValue: 0),
        V4L2Control(id: 0x009A_091D, name: "Auto Focus, Stop", kind: .button, minimum: 0, maximum: 0, step: 0, defaultValue: 0),
        V4L2Control(id: 0x009A_091E, name: "Auto Focus, Status", kind: .bitmask, minimum: 0, maximum: 7, step: 0, defaultValue: 0,
                    flags: readOnly | volatile),
        V4L2Control(id: 0x009A_0922, name: "Camera Orientation", kind: .menu, minimum: 0, maximum: 2, defaultValue: 1,
                    flags: readOnly, menu: [.init(index: 0, name: "Front"), .init(index: 1, name: "Back"), .init(index: 2, name: "External")]),
        V4L2Control(id: 0x009C_0901, name: "LED Mode", kind: .menu, minimum: 0, maximum: 2, defaultValue: 0,
                    menu: [.init(index: 0, name: "Off"), .init(index: 1, name: "Flash"), .init(index: 2, name: "Torch")]),
        V4L2Control(id: 0x009C_0908, name: "Torch Intensity", kind: .integer, minimum: 0, maximum: 100, defaultValue: 50),
    ]
}

@Suite("V4L2 controls → Apple capture concepts")
struct V4L2ControlMappingTests {
    typealias ID = V4L2ControlID

    private func pairs(_ writes: [(id: UInt32, value: Int64)]) -> [String] { writes.map { "\(String($0.id, radix: 16))=\($0.value)" } }

    @Test("C920: continuous/locked focus, exposure (aperture priority) and white balance; 5× optical zoom; no torch")
    func c920() {
        let mapping = V4L2ControlMapping(controls: V4L2ControlFixtures.c920)
        #expect(mapping.focusModes == [.locked, .continuousAutoFocus])
        #expect(mapping.exposureModes == [.locked, .continuousAutoExposure])
        #expect(mapping.whiteBalanceModes == [.locked, .continuousAutoWhiteBalance])
        #expect(!mapping.reportsFocusActivity)
        #expect(mapping.maxOpticalZoomFactor == 5)
        #expect(mapping.zoomValue(factor: 2.5) == 250 && mapping.zoomValue(factor: 9) == 500 && mapping.zoomValue(factor: 0.5) == 100)
        #expect(!mapping.hasTorch && mapping.position == .unspecified && mapping.controlsLowLightFrameRate)
        #expect(pairs(mapping.writes(focus: .continuousAutoFocus)) == ["9a090c=1"])
        #expect(pairs(mapping.writes(focus: .locked)) == ["9a090c=0"])
        #expect(mapping.writes(focus: .autoFocus).isEmpty)
        #expect(pairs(mapping.writes(exposure: .continuousAutoExposure)) == ["9a0901=3"])
        #expect(pairs(mapping.writes(exposure: .locked)) == ["9a0901=1"])
        #expect(mapping.writes(exposure: .autoExpose).isEmpty)
        #expect(pairs(mapping.writes(whiteBalance: .locked)) == ["98090c=0"])
        #expect(pairs(mapping.writes(whiteBalance: .continuousAutoWhiteBalance)) == ["98090c=1"])
        #expect(mapping.writes(whiteBalance: .autoWhiteBalance).isEmpty)
    }

    @Test("Fixed-focus laptop camera: focus locked only, no zoom, no torch")
    func laptop() {
        let mapping = V4L2ControlMapping(controls: V4L2ControlFixtures.laptop)
        #expect(mapping.focusModes == [.locked])
        #expect(mapping.writes(focus: .locked).isEmpty, "nothing to write: it is always locked")
        #expect(mapping.exposureModes == [.locked, .continuousAutoExposure])
        #expect(mapping.opticalZoom == nil && mapping.maxOpticalZoomFactor == nil && mapping.zoomValue(factor: 2) == nil)
        #expect(!mapping.hasTorch)
    }

    @Test("Board camera: one-shot autofocus with status, auto exposure mode, one-shot white balance, torch, back position")
    func boardCamera() {
        let mapping = V4L2ControlMapping(controls: V4L2ControlFixtures.boardCamera, orientation: 1)
        #expect(mapping.focusModes == [.locked, .autoFocus])
        #expect(mapping.reportsFocusActivity)
        #expect(pairs(mapping.writes(focus: .autoFocus)) == ["9a091c=1"])
        #expect(mapping.exposureModes == [.locked, .continuousAutoExposure])
        #expect(pairs(mapping.writes(exposure: .continuousAutoExposure)) == ["9a0901=0"], "AUTO: the menu has no aperture priority")
        #expect(mapping.whiteBalanceModes == [.locked, .autoWhiteBalance, .continuousAutoWhiteBalance])
        #expect(pairs(mapping.writes(whiteBalance: .autoWhiteBalance)) == ["98090c=0", "98090d=1"])
        #expect(mapping.hasTorch && mapping.position == .back && !mapping.controlsLowLightFrameRate)
        #expect(V4L2ControlMapping(controls: V4L2ControlFixtures.boardCamera, orientation: 0).position == .front)
        #expect(V4L2ControlMapping(controls: V4L2ControlFixtures.boardCamera, orientation: 2).position == .unspecified)
    }

    @Test("The modes a camera is in come from its current control values")
    func currentModes() {
        let c920 = V4L2ControlMapping(controls: V4L2ControlFixtures.c920)
        let auto = c920.capabilities(values: [ID.focusAuto: 1, ID.exposureAuto: 3, ID.autoWhiteBalance: 1])
        #expect(auto.focusMode == .continuousAutoFocus && auto.exposureMode == .continuousAutoExposure
                && auto.whiteBalanceMode == .continuousAutoWhiteBalance)
        #expect(auto.focusModes == c920.focusModes && !auto.focusPointOfInterest && !auto.hasTorch && !auto.hasFlash)
        let manual = c920.capabilities(values: [ID.focusAuto: 0, ID.exposureAuto: 1, ID.autoWhiteBalance: 0])
        #expect(manual.focusMode == .locked && manual.exposureMode == .locked && manual.whiteBalanceMode == .locked)
        // A fixed-focus camera is locked; one that exposes on its own without a control is continuous.
        let laptop = V4L2ControlMapping(controls: V4L2ControlFixtures.laptop).capabilities(values: [:])
        #expect(laptop.focusMode == .locked && laptop.exposureMode == .continuousAutoExposure)
        let board = V4L2ControlMapping(controls: V4L2ControlFixtures.boardCamera, orientation: 1).capabilities(values: [:])
        #expect(board.hasTorch && board.position == .back && board.focusMode == .locked)
    }

    @Test("Disabled and read-only controls give no modes")
    func disabledAndReadOnly() {
        let f = V4L2ControlFixtures.self
        let controls = [
            V4L2Control(id: ID.focusAuto, name: "Focus, Automatic Continuous", kind: .boolean, minimum: 0, maximum: 1,
                        defaultValue: 1, flags: f.disabled),
            V4L2Control(id: ID.autoWhiteBalance, name: "White Balance, Automatic", kind: .boolean, minimum: 0, maximum: 1,
                        defaultValue: 1, flags: f.readOnly),
            V4L2Control(id: ID.flashLEDMode, name: "LED Mode", kind: .menu, minimum: 0, maximum: 1, defaultValue: 0,
                        menu: [.init(index: 0, name: "Off"), .init(index: 1, name: "Flash")]),
            V4L2Control(id: ID.zoomAbsolute, name: "Zoom, Absolute", kind: .integer, minimum: 0, maximum: 10, defaultValue: 0),
        ]
        let mapping = V4L2ControlMapping(controls: controls)
        #expect(mapping.focusModes == [.locked])
        #expect(mapping.whiteBalanceModes == [.continuousAutoWhiteBalance], "read-only: the camera decides")
        #expect(!mapping.hasTorch, "a flash without torch mode is no torch")
        #expect(mapping.opticalZoom == nil, "a zoom range starting at 0 has no factor")
    }
}
