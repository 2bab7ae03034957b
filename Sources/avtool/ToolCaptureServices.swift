// The X display and PulseAudio server `avtool demo` and `avtool bench --only capture` record
// from: the desktop's (DISPLAY set; sound from its PulseAudio server), else the project's private test
// services (scripts/capture-services.sh: Xvfb and a PulseAudio daemon with a null sink), started
// for the run and stopped after it.
import Foundation

final class ToolCaptureServices {
    private var script: URL?

    /// Starts the test services when there is no X display (DISPLAY unset: a server or CI machine)
    /// and the script is in the current directory (a checkout); returns why there are none
    /// otherwise (nil: ready). With a display, its own sound server (if any) is used.
    func start() -> String? {
        if ProcessInfo.processInfo.environment["DISPLAY"] != nil { return nil }
        let script = URL(fileURLWithPath: "scripts/capture-services.sh")
        guard FileManager.default.fileExists(atPath: script.path) else {
            return "DISPLAY or PULSE_SERVER is not set and scripts/capture-services.sh is not here (run from the checkout)"
        }
        do {
            _ = try measuredRun(["bash", script.path, "start"])
        } catch {
            return "the capture services did not start: \(error)"
        }
        self.script = script
        guard let text = try? String(contentsOf: URL(fileURLWithPath: ".build/capture-services.env"), encoding: .utf8) else {
            return "the capture services wrote no .build/capture-services.env"
        }
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).replacingOccurrences(of: "export ", with: "")
            var value = String(line[line.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") { value = String(value.dropFirst().dropLast()) }
            if ["DISPLAY", "PULSE_SERVER", "PULSE_CLIENTCONFIG"].contains(key) { setenv(key, value, 1) }
        }
        return nil
    }

    /// Stops the services this started (by the PIDs the script recorded).
    func stop() {
        if let script { _ = try? measuredRun(["bash", script.path, "stop"]) }
        script = nil
    }
}
