// V4L2Controls: a camera's controls (VIDIOC_QUERY_EXT_CTRL walked with NEXT_CTRL, QUERYCTRL as
// fallback, menus with QUERYMENU), reading and setting them, and the mapping from the controls
// a camera has to Apple's focus, exposure, white balance, zoom and torch concepts — a pure
// function over the control list, so it is tested on recorded lists.
internal import CV4L2
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CoreGraphics
import Foundation
import Synchronization

/// The control IDs the mapping uses (the kernel's `V4L2_CID_*`).
package enum V4L2ControlID {
    package static let brightness = AVF_V4L2_CID_BRIGHTNESS
    package static let autoWhiteBalance = AVF_V4L2_CID_AUTO_WHITE_BALANCE
    package static let doWhiteBalance = AVF_V4L2_CID_DO_WHITE_BALANCE
    package static let whiteBalanceTemperature = AVF_V4L2_CID_WHITE_BALANCE_TEMPERATURE
    package static let powerLineFrequency = AVF_V4L2_CID_POWER_LINE_FREQUENCY
    package static let exposureAuto = AVF_V4L2_CID_EXPOSURE_AUTO
    package static let exposureAbsolute = AVF_V4L2_CID_EXPOSURE_ABSOLUTE
    package static let exposureAutoPriority = AVF_V4L2_CID_EXPOSURE_AUTO_PRIORITY
    package static let focusAbsolute = AVF_V4L2_CID_FOCUS_ABSOLUTE
    package static let focusAuto = AVF_V4L2_CID_FOCUS_AUTO
    package static let zoomAbsolute = AVF_V4L2_CID_ZOOM_ABSOLUTE
    package static let autoFocusStart = AVF_V4L2_CID_AUTO_FOCUS_START
    package static let autoFocusStatus = AVF_V4L2_CID_AUTO_FOCUS_STATUS
    package static let threeALock = AVF_V4L2_CID_3A_LOCK
    package static let cameraOrientation = AVF_V4L2_CID_CAMERA_ORIENTATION
    package static let flashLEDMode = AVF_V4L2_CID_FLASH_LED_MODE
    package static let flashTorchIntensity = AVF_V4L2_CID_FLASH_TORCH_INTENSITY

    /// `V4L2_CID_EXPOSURE_AUTO` menu values.
    package static let exposureAutoMode = Int64(AVF_V4L2_EXPOSURE_AUTO)
    package static let exposureManual = Int64(AVF_V4L2_EXPOSURE_MANUAL)
    package static let exposureShutterPriority = Int64(AVF_V4L2_EXPOSURE_SHUTTER_PRIORITY)
    package static let exposureAperturePriority = Int64(AVF_V4L2_EXPOSURE_APERTURE_PRIORITY)
    /// `V4L2_CID_FLASH_LED_MODE` menu values.
    package static let flashModeNone = Int64(AVF_V4L2_FLASH_LED_MODE_NONE)
    package static let flashModeTorch = Int64(AVF_V4L2_FLASH_LED_MODE_TORCH)
    /// `V4L2_CID_AUTO_FOCUS_STATUS` busy bit.
    package static let autoFocusBusy = Int64(AVF_V4L2_AUTO_FOCUS_STATUS_BUSY)
}

/// One control as `VIDIOC_QUERY_EXT_CTRL` (or `QUERYCTRL`) describes it.
package struct V4L2Control: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case integer, boolean, menu, button, integer64, integerMenu, bitmask, other(UInt32)

        init(_ type: UInt32) {
            switch type {
            case AVF_V4L2_CTRL_TYPE_INTEGER: self = .integer
            case AVF_V4L2_CTRL_TYPE_BOOLEAN: self = .boolean
            case AVF_V4L2_CTRL_TYPE_MENU: self = .menu
            case AVF_V4L2_CTRL_TYPE_BUTTON: self = .button
            case AVF_V4L2_CTRL_TYPE_INTEGER64: self = .integer64
            case AVF_V4L2_CTRL_TYPE_INTEGER_MENU: self = .integerMenu
            case AVF_V4L2_CTRL_TYPE_BITMASK: self = .bitmask
            default: self = .other(type)
            }
        }
    }

    /// A menu entry: its index (the control's value) and its name (or number, integer menus).
    package struct MenuItem: Sendable, Hashable {
        package let index: Int64
        package let name: String
        package init(index: Int64, name: String) {
            self.index = index
            self.name = name
        }
    }

    package let id: UInt32
    package let name: String
    package let kind: Kind
    package let minimum: Int64
    package let maximum: Int64
    package let step: UInt64
    package let defaultValue: Int64
    package let flags: UInt32
    /// The entries of a menu control (the indices the driver accepts); empty otherwise.
    package let menu: [MenuItem]

    package init(id: UInt32, name: String, kind: Kind, minimum: Int64, maximum: Int64, step: UInt64 = 1,
                 defaultValue: Int64, flags: UInt32 = 0, menu: [MenuItem] = []) {
        self.id = id
        self.name = name
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.flags = flags
        self.menu = menu
    }

    package var isReadOnly: Bool { flags & AVF_V4L2_CTRL_FLAG_READ_ONLY != 0 }
    package var isInactive: Bool { flags & AVF_V4L2_CTRL_FLAG_INACTIVE != 0 }
    package var isDisabled: Bool { flags & AVF_V4L2_CTRL_FLAG_DISABLED != 0 }
    package var isWritable: Bool { !isReadOnly && !isDisabled }
    package var menuIndices: Set<Int64> { Set(menu.map(\.index)) }
}

/// What a camera's controls offer in Apple's terms, and which control writes make each mode.
///
/// | Apple | V4L2 |
/// |---|---|
/// | focus continuous / locked | `FOCUS_AUTO` 1 / 0 |
/// | focus autoFocus (one scan) | `AUTO_FOCUS_START` button |
/// | isAdjustingFocus | `AUTO_FOCUS_STATUS` & BUSY |
/// | exposure continuous / locked | `EXPOSURE_AUTO` = APERTURE_PRIORITY (else AUTO) / MANUAL |
/// | exposure autoExpose (one shot) | not offered (no V4L2 control for it) |
/// | white balance continuous / locked | `AUTO_WHITE_BALANCE` 1 / 0 |
/// | white balance auto (one shot) | `DO_WHITE_BALANCE` button |
/// | zoom (optical) | `ZOOM_ABSOLUTE`: max factor = max / min (min > 0) |
/// | torch | `FLASH_LED_MODE` with TORCH in its menu; level from `FLASH_TORCH_INTENSITY` |
/// | position | `CAMERA_ORIENTATION` 0 front, 1 back, 2 external (→ unspecified) |
/// | low-light frame-rate drop | `EXPOSURE_AUTO_PRIORITY` |
package struct V4L2ControlMapping: Sendable, Equatable {
    package let focusModes: Set<CameraFocusMode>
    package let exposureModes: Set<CameraExposureMode>
    package let whiteBalanceModes: Set<CameraWhiteBalanceMode>
    /// Whether focus activity can be read (`AUTO_FOCUS_STATUS`).
    package let reportsFocusActivity: Bool
    /// The optical zoom range as (minimum control value, maximum control value), when the camera
    /// has a usable `ZOOM_ABSOLUTE`.
    package let opticalZoom: (minimum: Int64, maximum: Int64)?
    package let hasTorch: Bool
    package let position: CameraPosition
    /// Whether auto exposure may lower the frame rate (`EXPOSURE_AUTO_PRIORITY` writable).
    package let controlsLowLightFrameRate: Bool
    /// The `EXPOSURE_AUTO` value continuous auto exposure writes.
    let continuousExposureValue: Int64?

    package static func == (a: V4L2ControlMapping, b: V4L2ControlMapping) -> Bool {
        a.focusModes == b.focusModes && a.exposureModes == b.exposureModes && a.whiteBalanceModes == b.whiteBalanceModes
            && a.reportsFocusActivity == b.reportsFocusActivity && a.opticalZoom?.minimum == b.opticalZoom?.minimum
            && a.opticalZoom?.maximum == b.opticalZoom?.maximum && a.hasTorch == b.hasTorch && a.position == b.position
            && a.controlsLowLightFrameRate == b.controlsLowLightFrameRate
    }

    /// The largest zoom factor the optical zoom reaches (max / min), nil without one.
    package var maxOpticalZoomFactor: Double? {
        opticalZoom.map { Double($0.maximum) / Double($0.minimum) }
    }

    /// Maps `controls` (disabled ones ignored; read-only ones give no mode), with the current
    /// value of `CAMERA_ORIENTATION` when the camera has it.
    package init(controls: [V4L2Control], orientation: Int64? = nil) {
        var byID: [UInt32: V4L2Control] = [:]
        for control in controls where !control.isDisabled { byID[control.id] = control }
        func writable(_ id: UInt32) -> V4L2Control? { byID[id].flatMap { $0.isWritable ? $0 : nil } }

        var focus: Set<CameraFocusMode> = []
        if writable(V4L2ControlID.focusAuto) != nil { focus.formUnion([.locked, .continuousAutoFocus]) }
        if writable(V4L2ControlID.autoFocusStart) != nil { focus.formUnion([.locked, .autoFocus]) }
        if focus.isEmpty { focus = [.locked] }    // a fixed-focus camera is locked
        focusModes = focus
        reportsFocusActivity = byID[V4L2ControlID.autoFocusStatus] != nil

        var exposure: Set<CameraExposureMode> = []
        var continuous: Int64?
        if let control = writable(V4L2ControlID.exposureAuto) {
            let items = control.kind == .menu ? control.menuIndices
                : Set((control.minimum...control.maximum).map { $0 })
            if items.contains(V4L2ControlID.exposureAperturePriority) {
                continuous = V4L2ControlID.exposureAperturePriority
            } else if items.contains(V4L2ControlID.exposureAutoMode) {
                continuous = V4L2ControlID.exposureAutoMode
            }
            if continuous != nil { exposure.insert(.continuousAutoExposure) }
            if items.contains(V4L2ControlID.exposureManual) { exposure.insert(.locked) }
        }
        if exposure.isEmpty { exposure = [.continuousAutoExposure] }    // the camera exposes on its own
        exposureModes = exposure
        continuousExposureValue = continuous

        var whiteBalance: Set<CameraWhiteBalanceMode> = []
        if writable(V4L2ControlID.autoWhiteBalance) != nil { whiteBalance.formUnion([.locked, .continuousAutoWhiteBalance]) }
        if writable(V4L2ControlID.doWhiteBalance) != nil { whiteBalance.formUnion([.autoWhiteBalance]) }
        if whiteBalance.isEmpty { whiteBalance = [.continuousAutoWhiteBalance] }
        whiteBalanceModes = whiteBalance

        if let zoom = writable(V4L2ControlID.zoomAbsolute), zoom.minimum > 0, zoom.maximum > zoom.minimum {
            opticalZoom = (zoom.minimum, zoom.maximum)
        } else {
            opticalZoom = nil
        }
        if let flash = writable(V4L2ControlID.flashLEDMode), flash.menuIndices.contains(V4L2ControlID.flashModeTorch) {
            hasTorch = true
        } else {
            hasTorch = false
        }
        switch orientation {
        case 0: position = .front
        case 1: position = .back
        default: position = .unspecified
        }
        controlsLowLightFrameRate = writable(V4L2ControlID.exposureAutoPriority) != nil
    }

    /// The control writes that make focus mode `mode` (empty when unsupported).
    package func writes(focus mode: CameraFocusMode) -> [(id: UInt32, value: Int64)] {
        guard focusModes.contains(mode) else { return [] }
        switch mode {
        case .continuousAutoFocus: return [(V4L2ControlID.focusAuto, 1)]
        case .locked: return focusModes.contains(.continuousAutoFocus) ? [(V4L2ControlID.focusAuto, Int64(0))] : []
        case .autoFocus:
            let stop = focusModes.contains(.continuousAutoFocus) ? [(id: V4L2ControlID.focusAuto, value: Int64(0))] : []
            return stop + [(V4L2ControlID.autoFocusStart, 1)]
        }
    }

    /// The control writes that make exposure mode `mode` (empty when unsupported).
    package func writes(exposure mode: CameraExposureMode) -> [(id: UInt32, value: Int64)] {
        guard exposureModes.contains(mode) else { return [] }
        switch mode {
        case .continuousAutoExposure: return continuousExposureValue.map { [(V4L2ControlID.exposureAuto, $0)] } ?? []
        case .locked: return [(V4L2ControlID.exposureAuto, V4L2ControlID.exposureManual)]
        case .autoExpose: return []
        }
    }

    /// The control writes that make white balance mode `mode` (empty when unsupported).
    package func writes(whiteBalance mode: CameraWhiteBalanceMode) -> [(id: UInt32, value: Int64)] {
        guard whiteBalanceModes.contains(mode) else { return [] }
        switch mode {
        case .continuousAutoWhiteBalance:
            return whiteBalanceModes.contains(.locked) ? [(V4L2ControlID.autoWhiteBalance, Int64(1))] : []
        case .locked: return [(V4L2ControlID.autoWhiteBalance, 0)]
        case .autoWhiteBalance:
            let stop = whiteBalanceModes.contains(.locked) ? [(id: V4L2ControlID.autoWhiteBalance, value: Int64(0))] : []
            return stop + [(V4L2ControlID.doWhiteBalance, 1)]
        }
    }

    /// What the camera offers in Apple's terms, and the modes it is in given the current
    /// values of its controls (`values`, by control ID): focus continuous while `FOCUS_AUTO` is
    /// 1, exposure locked while `EXPOSURE_AUTO` is MANUAL, white balance continuous while
    /// `AUTO_WHITE_BALANCE` is 1; a mode the camera cannot leave is the one it is in. No point of
    /// interest (`AUTO_FOCUS_AREA` rectangles are not mapped) and no flash for stills.
    package func capabilities(values: [UInt32: Int64]) -> LiveCameraCapabilities {
        var c = LiveCameraCapabilities()
        c.focusModes = focusModes
        c.exposureModes = exposureModes
        c.whiteBalanceModes = whiteBalanceModes
        c.hasTorch = hasTorch
        c.position = position
        if focusModes.contains(.continuousAutoFocus) {
            c.focusMode = values[V4L2ControlID.focusAuto] == 0 ? .locked : .continuousAutoFocus
        } else {
            c.focusMode = .locked
        }
        if exposureModes.contains(.locked), exposureModes.contains(.continuousAutoExposure) {
            c.exposureMode = values[V4L2ControlID.exposureAuto] == V4L2ControlID.exposureManual ? .locked : .continuousAutoExposure
        } else {
            c.exposureMode = exposureModes.contains(.continuousAutoExposure) ? .continuousAutoExposure : .locked
        }
        if whiteBalanceModes.contains(.locked), whiteBalanceModes.contains(.continuousAutoWhiteBalance) {
            c.whiteBalanceMode = values[V4L2ControlID.autoWhiteBalance] == 0 ? .locked : .continuousAutoWhiteBalance
        } else {
            c.whiteBalanceMode = whiteBalanceModes.contains(.continuousAutoWhiteBalance) ? .continuousAutoWhiteBalance : .locked
        }
        return c
    }

    /// The `ZOOM_ABSOLUTE` value for zoom factor `factor` (clamped to the optical range).
    package func zoomValue(factor: Double) -> Int64? {
        guard let zoom = opticalZoom else { return nil }
        let value = (Double(zoom.minimum) * factor).rounded()
        return min(zoom.maximum, max(zoom.minimum, Int64(value)))
    }
}

extension V4L2Handle {
    /// Every enabled control: QUERY_EXT_CTRL with NEXT_CTRL (falling back to QUERYCTRL with
    /// NEXT_CTRL on drivers without it), menus read with QUERYMENU; class headers skipped.
    package func controls() -> [V4L2Control] {
        var result: [V4L2Control] = []
        var id = AVF_V4L2_CTRL_FLAG_NEXT_CTRL
        var extended = true
        for _ in 0..<1024 {
            var control: V4L2Control?
            if extended {
                var q = v4l2_query_ext_ctrl()
                q.id = id
                if let e = ioctl(AVF_VIDIOC_QUERY_EXT_CTRL, &q) {
                    if e == ENOTTY && result.isEmpty { extended = false; continue }
                    break
                }
                id = q.id | AVF_V4L2_CTRL_FLAG_NEXT_CTRL
                control = V4L2Control(id: q.id, name: cString(q.name), kind: .init(q.type), minimum: q.minimum,
                                      maximum: q.maximum, step: q.step, defaultValue: q.default_value, flags: q.flags)
            } else {
                var q = v4l2_queryctrl()
                q.id = id
                guard ioctl(AVF_VIDIOC_QUERYCTRL, &q) == nil else { break }
                id = q.id | AVF_V4L2_CTRL_FLAG_NEXT_CTRL
                control = V4L2Control(id: q.id, name: cString(q.name), kind: .init(q.type), minimum: Int64(q.minimum),
                                      maximum: Int64(q.maximum), step: UInt64(max(0, q.step)),
                                      defaultValue: Int64(q.default_value), flags: q.flags)
            }
            guard var found = control, !found.isDisabled, found.kind != .other(AVF_V4L2_CTRL_TYPE_CTRL_CLASS) else { continue }
            if found.kind == .menu || found.kind == .integerMenu {
                found = V4L2Control(id: found.id, name: found.name, kind: found.kind, minimum: found.minimum,
                                    maximum: found.maximum, step: found.step, defaultValue: found.defaultValue,
                                    flags: found.flags, menu: menu(of: found))
            }
            result.append(found)
        }
        return result
    }

    private func menu(of control: V4L2Control) -> [V4L2Control.MenuItem] {
        guard control.minimum >= 0, control.maximum >= control.minimum, control.maximum - control.minimum < 256 else { return [] }
        return (control.minimum...control.maximum).compactMap { index in
            var q = v4l2_querymenu()
            q.id = control.id
            q.index = UInt32(index)
            guard ioctl(AVF_VIDIOC_QUERYMENU, &q) == nil else { return nil }    // EINVAL: a gap in the menu
            let name = control.kind == .integerMenu ? String(q.value) : cString(q.name)
            return V4L2Control.MenuItem(index: index, name: name)
        }
    }

    /// The current value of control `id`.
    package func value(of id: UInt32) throws(LiveSourceError) -> Int64 {
        var c = v4l2_control()
        c.id = id
        if let e = ioctl(AVF_VIDIOC_G_CTRL, &c) { throw Self.error(e, "VIDIOC_G_CTRL \(String(id, radix: 16)) on \(path)") }
        return Int64(c.value)
    }

    /// Sets control `id` to `value` (the driver may clamp or round it: read it back to know).
    package func setValue(_ value: Int64, of id: UInt32) throws(LiveSourceError) {
        var c = v4l2_control()
        c.id = id
        c.value = Int32(clamping: value)
        if let e = ioctl(AVF_VIDIOC_S_CTRL, &c) { throw Self.error(e, "VIDIOC_S_CTRL \(String(id, radix: 16)) on \(path)") }
    }

    /// Applies `writes` in order (a mapping's mode writes).
    package func apply(_ writes: [(id: UInt32, value: Int64)]) throws(LiveSourceError) {
        for write in writes { try setValue(write.value, of: write.id) }
    }

    /// Takes (`true`, `V4L2_PRIORITY_RECORD`) or gives back the exclusive right to change the
    /// camera's settings — `lockForConfiguration`'s V4L2 side.
    package func setRecordPriority(_ on: Bool) throws(LiveSourceError) {
        var priority = on ? AVF_V4L2_PRIORITY_RECORD : AVF_V4L2_PRIORITY_DEFAULT
        if let e = ioctl(AVF_VIDIOC_S_PRIORITY, &priority) { throw Self.error(e, "VIDIOC_S_PRIORITY on \(path)") }
    }
}

/// A V4L2 camera's controls in Apple's terms: modes written through the mapping's control
/// writes on a node of its own (controls can be set while another descriptor streams), a
/// one-shot auto focus followed through `AUTO_FOCUS_STATUS` (polled every 30 ms, for at most
/// 5 s) as `isAdjustingFocus`, one-shot white balance finished at once, and the torch through
/// `FLASH_LED_MODE` and `FLASH_TORCH_INTENSITY`.
package final class V4L2CameraControls: LiveCameraControls, Sendable {
    package let capabilities: LiveCameraCapabilities
    package let mapping: V4L2ControlMapping
    private let handle: V4L2Handle
    private let torchIntensity: V4L2Control?
    private let queue = DispatchQueue(label: "AVFoundation.V4L2CameraControls")
    /// The event handler, and the number of the newest focus scan.
    private struct State {
        var handler: (@Sendable (CameraControlEvent) -> Void)?
        var focusScan: UInt64 = 0
    }
    private let state = Mutex(State())

    /// Opens `path` and reads its controls.
    package init(path: String) throws(LiveSourceError) {
        handle = try V4L2Handle(path: path)
        let controls = handle.controls()
        let ids = Set(controls.map(\.id))
        let orientation = ids.contains(V4L2ControlID.cameraOrientation) ? try? handle.value(of: V4L2ControlID.cameraOrientation) : nil
        mapping = V4L2ControlMapping(controls: controls, orientation: orientation)
        var values: [UInt32: Int64] = [:]
        for id in [V4L2ControlID.focusAuto, V4L2ControlID.exposureAuto, V4L2ControlID.autoWhiteBalance] where ids.contains(id) {
            values[id] = try? handle.value(of: id)
        }
        capabilities = mapping.capabilities(values: values)
        torchIntensity = controls.first { $0.id == V4L2ControlID.flashTorchIntensity && $0.isWritable }
    }

    package func setEventHandler(_ handler: @escaping @Sendable (CameraControlEvent) -> Void) {
        state.withLock { $0.handler = handler }
    }

    private func emit(_ event: CameraControlEvent) {
        let handler = state.withLock { $0.handler }
        queue.async { handler?(event) }
    }

    package func setFocus(_ mode: CameraFocusMode, pointOfInterest: CGPoint) throws(LiveSourceError) {
        let writes = mapping.writes(focus: mode)
        guard !writes.isEmpty || mode == .locked else { throw .failed("focus mode \(mode) is not offered by \(handle.path)") }
        let scan = state.withLock { state -> UInt64 in
            state.focusScan &+= 1
            return state.focusScan
        }
        try handle.apply(writes)
        guard mode == .autoFocus else { return }
        guard mapping.reportsFocusActivity else {
            emit(.oneShotFinished(.focus))
            return
        }
        emit(.adjusting(.focus, true))
        pollFocus(scan: scan, began: Date())
    }

    /// Reads `AUTO_FOCUS_STATUS` in 30 ms until the scan is over (or replaced, or 5 s passed).
    private func pollFocus(scan: UInt64, began: Date) {
        queue.asyncAfter(deadline: .now() + .milliseconds(30)) { [self] in
            guard state.withLock({ $0.focusScan == scan }) else {
                emit(.adjusting(.focus, false))
                return
            }
            let status = (try? handle.value(of: V4L2ControlID.autoFocusStatus)) ?? 0
            if status & V4L2ControlID.autoFocusBusy != 0, Date().timeIntervalSince(began) < 5 {
                pollFocus(scan: scan, began: began)
            } else {
                emit(.adjusting(.focus, false))
                emit(.oneShotFinished(.focus))
            }
        }
    }

    package func setExposure(_ mode: CameraExposureMode, pointOfInterest: CGPoint) throws(LiveSourceError) {
        let writes = mapping.writes(exposure: mode)
        guard !writes.isEmpty || mode == capabilities.exposureMode else {
            throw .failed("exposure mode \(mode) is not offered by \(handle.path)")
        }
        try handle.apply(writes)
    }

    package func setWhiteBalance(_ mode: CameraWhiteBalanceMode) throws(LiveSourceError) {
        let writes = mapping.writes(whiteBalance: mode)
        guard !writes.isEmpty || mode == capabilities.whiteBalanceMode else {
            throw .failed("white balance mode \(mode) is not offered by \(handle.path)")
        }
        try handle.apply(writes)
        if mode == .autoWhiteBalance { emit(.oneShotFinished(.whiteBalance)) }
    }

    package func setTorch(level: Float) throws(LiveSourceError) {
        guard mapping.hasTorch else {
            if level == 0 { return }
            throw .failed("\(handle.path) has no torch")
        }
        if level > 0, let intensity = torchIntensity {
            let span = Double(intensity.maximum - intensity.minimum)
            let value = intensity.minimum + Int64((span * Double(min(1, level))).rounded())
            try handle.setValue(max(intensity.minimum, min(intensity.maximum, value)), of: intensity.id)
        }
        try handle.setValue(level > 0 ? V4L2ControlID.flashModeTorch : V4L2ControlID.flashModeNone, of: V4L2ControlID.flashLEDMode)
    }
}
