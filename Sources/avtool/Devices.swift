// `avtool devices [--json]`: the capture devices AV Foundation sees — cameras (V4L2 and virtual),
// microphones (PulseAudio sources) and screens (X11) — with their formats and controls, through
// the public capture API only (what `v4l2-ctl --list-devices` and `ffmpeg -list_devices` show,
// in Apple's terms).
//
// JSON keys (stable): devices[]: uniqueID, localizedName, modelID, manufacturer, deviceType,
// position ("unspecified" | "back" | "front"), mediaTypes[] ("vide" | "soun"), connected,
// default (the default device of its media type), formats[]: mediaType, pixelFormat (FourCC) or
// audio (sampleRate, channels), width, height, frameRates[] (minFrameRate, maxFrameRate),
// active; controls: focusModes[], exposureModes[], whiteBalanceModes[], focusPointOfInterest,
// exposurePointOfInterest, maxZoomFactor, hasTorch, hasFlash, focusMode, exposureMode,
// whiteBalanceMode (the modes now). screens[]: displayID, width,
// height. problems[]: why a kind of device could not be listed (no X display, …).
import ArgumentParser
import AVFoundation
import Foundation

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List capture devices (cameras, microphones, screens) with their formats and controls.")

    @Flag(help: "Print JSON (stable keys, documented in the source).")
    var json = false

    func run() throws {
        let cameraTypes: [AVCaptureDevice.DeviceType] = [.builtInWideAngleCamera, .external]
        let cameras = AVCaptureDevice.DiscoverySession(deviceTypes: cameraTypes, mediaType: .video, position: .unspecified).devices
        let microphones = AVCaptureDevice.DiscoverySession(deviceTypes: [.microphone, .external], mediaType: .audio,
                                                            position: .unspecified).devices
        let defaults = Set([AVCaptureDevice.default(for: .video), AVCaptureDevice.default(for: .audio)].compactMap { $0?.uniqueID })
        let devices = (cameras + microphones).map { describe($0, isDefault: defaults.contains($0.uniqueID)) }
        var screens: [[String: Any]] = []
        var problems: [String] = []
        if let screen = Self.mainScreen() {
            screens.append(screen)
        } else {
            problems.append("no X display (DISPLAY is \(ProcessInfo.processInfo.environment["DISPLAY"].map { "\"\($0)\"" } ?? "unset")): no screens")
        }
        if cameras.isEmpty {
            problems.append("no camera: no /dev/video* capture node and AVFOUNDATION_VIRTUAL_CAMERAS names none")
        }
        if microphones.isEmpty { problems.append("no sound source: no PulseAudio server answered, or it has no sources") }

        if json {
            let report: [String: Any] = ["devices": devices, "screens": screens, "problems": problems]
            let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        for device in devices { printText(device) }
        for screen in screens {
            print("Screen \(screen["displayID"] ?? "?"): \(screen["width"] ?? "?")x\(screen["height"] ?? "?") (AVCaptureScreenInput(displayID:))")
        }
        for problem in problems { print("note: \(problem)") }
    }

    /// The main display as `AVCaptureScreenInput` sees it, or nil without one.
    static func mainScreen() -> [String: Any]? {
        let id = CGMainDisplayID()
        guard id != kCGNullDirectDisplay, let input = AVCaptureScreenInput(displayID: id) else { return nil }
        guard let port = input.ports.first(where: { $0.mediaType == .video }), let description = port.formatDescription else {
            return ["displayID": Int(id)]
        }
        let size = CMVideoFormatDescriptionGetDimensions(description)
        return ["displayID": Int(id), "width": Int(size.width), "height": Int(size.height)]
    }

    func describe(_ device: AVCaptureDevice, isDefault: Bool) -> [String: Any] {
        var entry: [String: Any] = [
            "uniqueID": device.uniqueID,
            "localizedName": device.localizedName,
            "modelID": device.modelID,
            "manufacturer": device.manufacturer,
            "deviceType": device.deviceType.rawValue,
            "position": ["unspecified", "back", "front"][max(0, min(2, device.position.rawValue))],
            "mediaTypes": [AVMediaType.video, .audio].filter(device.hasMediaType).map(\.rawValue),
            "connected": device.isConnected,
            "default": isDefault,
        ]
        let active = device.activeFormat
        entry["formats"] = device.formats.map { format -> [String: Any] in
            var f: [String: Any] = ["mediaType": format.mediaType.rawValue, "active": format === active]
            let description = format.formatDescription
            if format.mediaType == .video {
                let size = CMVideoFormatDescriptionGetDimensions(description)
                f["pixelFormat"] = fourCC(CMFormatDescriptionGetMediaSubType(description))
                f["width"] = Int(size.width)
                f["height"] = Int(size.height)
                f["frameRates"] = format.videoSupportedFrameRateRanges.map {
                    ["minFrameRate": $0.minFrameRate, "maxFrameRate": $0.maxFrameRate]
                }
            } else if let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee {
                f["sampleRate"] = asbd.mSampleRate
                f["channels"] = Int(asbd.mChannelsPerFrame)
            }
            return f
        }
        if device.hasMediaType(.video) {
            let focus: [(String, AVCaptureDevice.FocusMode)] = [("locked", .locked), ("autoFocus", .autoFocus),
                                                                ("continuousAutoFocus", .continuousAutoFocus)]
            let exposure: [(String, AVCaptureDevice.ExposureMode)] = [("locked", .locked), ("autoExpose", .autoExpose),
                                                                      ("continuousAutoExposure", .continuousAutoExposure)]
            let whiteBalance: [(String, AVCaptureDevice.WhiteBalanceMode)] = [
                ("locked", .locked), ("autoWhiteBalance", .autoWhiteBalance), ("continuousAutoWhiteBalance", .continuousAutoWhiteBalance),
            ]
            entry["controls"] = [
                "focusModes": focus.filter { device.isFocusModeSupported($0.1) }.map(\.0),
                "exposureModes": exposure.filter { device.isExposureModeSupported($0.1) }.map(\.0),
                "whiteBalanceModes": whiteBalance.filter { device.isWhiteBalanceModeSupported($0.1) }.map(\.0),
                "focusPointOfInterest": device.isFocusPointOfInterestSupported,
                "exposurePointOfInterest": device.isExposurePointOfInterestSupported,
                "maxZoomFactor": Double(device.maxAvailableVideoZoomFactor),
                "hasTorch": device.hasTorch,
                "hasFlash": device.hasFlash,
                "focusMode": focus.first { $0.1 == device.focusMode }?.0 ?? "locked",
                "exposureMode": exposure.first { $0.1 == device.exposureMode }?.0 ?? "locked",
                "whiteBalanceMode": whiteBalance.first { $0.1 == device.whiteBalanceMode }?.0 ?? "locked",
            ] as [String: Any]
        }
        return entry
    }

    func printText(_ device: [String: Any]) {
        let media = (device["mediaTypes"] as? [String] ?? []).map { $0 == AVMediaType.video.rawValue ? "video" : "audio" }
        var flags: [String] = []
        if device["default"] as? Bool == true { flags.append("default") }
        if device["connected"] as? Bool == false { flags.append("disconnected") }
        print("\(device["localizedName"] ?? "?") [\(media.joined(separator: "+"))]\(flags.isEmpty ? "" : " (" + flags.joined(separator: ", ") + ")")")
        print("  uniqueID: \(device["uniqueID"] ?? "?")   model: \(device["modelID"] ?? "?")   type: \(device["deviceType"] ?? "?")"
              + (device["position"].map { "   position: \($0)" } ?? ""))
        for format in device["formats"] as? [[String: Any]] ?? [] {
            let mark = format["active"] as? Bool == true ? "*" : " "
            if let width = format["width"], let height = format["height"] {
                let rates = (format["frameRates"] as? [[String: Double]] ?? []).map {
                    let low = $0["minFrameRate"] ?? 0, high = $0["maxFrameRate"] ?? 0
                    return low == high ? rateText(high) : "\(rateText(low))-\(rateText(high))"
                }
                print("  \(mark) '\(format["pixelFormat"] ?? "?")' \(width)x\(height) @ \(rates.joined(separator: ", ")) fps")
            } else if let rate = format["sampleRate"] as? Double, let channels = format["channels"] {
                print("  \(mark) \(Int(rate)) Hz, \(channels) ch")
            }
        }
        if let controls = device["controls"] as? [String: Any] {
            func list(_ key: String) -> String { (controls[key] as? [String]).map { $0.joined(separator: ",") } ?? "" }
            print("  focus: \(list("focusModes"))  exposure: \(list("exposureModes"))  white balance: \(list("whiteBalanceModes"))")
            print("  zoom up to \(controls["maxZoomFactor"] ?? 1)x  torch: \(controls["hasTorch"] as? Bool == true ? "yes" : "no")"
                  + "  flash: \(controls["hasFlash"] as? Bool == true ? "yes" : "no")")
        }
    }

    func rateText(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(format: "%.3f", rate)
    }

    func fourCC(_ code: FourCharCode) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8((code >> UInt32($0)) & 0xFF) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
