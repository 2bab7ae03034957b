// Quartz Display Services, the part screen capture needs: display IDs. On Linux a display is a
// screen of the X server named by the DISPLAY variable; its ID is the screen number + 1, so that
// 0 stays kCGNullDirectDisplay as on Apple platforms.
import Foundation

/// A unique identifier for an attached display (on Linux: a screen of the X display, number + 1).
public typealias CGDirectDisplayID = UInt32

/// A value that will never correspond to actual hardware.
public let kCGNullDirectDisplay: CGDirectDisplayID = 0

/// Returns the display ID of the main display.
///
/// On Linux the main display is the screen the `DISPLAY` variable names (`:0` → screen 0,
/// `:0.1` → screen 1), so this returns that screen's number + 1; with `DISPLAY` unset it returns
/// 1 (screen 0), which then names no display: `AVCaptureScreenInput(displayID:)` returns nil for it.
/// No connection to the X server is made.
public func CGMainDisplayID() -> CGDirectDisplayID {
    guard let display = ProcessInfo.processInfo.environment["DISPLAY"],
          let colon = display.lastIndex(of: ":") else { return 1 }
    let rest = display[display.index(after: colon)...]
    guard let dot = rest.firstIndex(of: "."), let screen = UInt32(rest[rest.index(after: dot)...]),
          screen < UInt32.max else { return 1 }
    return screen + 1
}
