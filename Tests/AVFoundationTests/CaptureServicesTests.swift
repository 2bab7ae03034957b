// The services capture tests rely on (scripts/capture-services.sh, started by scripts/test.sh)
// are up and reachable: the PulseAudio daemon has the null sink and its monitor, and the Xvfb
// server is 1920×1080 with the extensions screen capture uses. Outside scripts/test.sh, without a
// services file, these tests are skipped with the reason; inside it, missing services fail them.
import Foundation
import Testing
import TestSupport

@Suite("Capture test services", .enabled(if: CaptureServices.shouldRun,
                                         "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
struct CaptureServicesTests {
    /// The services, or nil after recording why they are missing (the run needs them).
    private func services() -> CaptureServices? {
        switch CaptureServices.current {
        case .success(let services): return services
        case .failure(let reason):
            Issue.record("scripts/test.sh started this run, but: \(reason)")
            return nil
        }
    }

    @Test("PulseAudio answers on the private socket with the null sink avf_null and its monitor")
    func pulseAudio() throws {
        guard let services = services() else { return }
        #expect(services.pulseServer.hasPrefix("unix:\(services.runtimeDirectory.path)/"))
        let sinks = try services.run("pactl", ["list", "short", "sinks"])
        #expect(sinks.status == 0, "\(sinks.errors)")
        #expect(sinks.output.split(separator: "\n").contains { $0.split(separator: "\t").dropFirst().first == "avf_null" },
                "\(sinks.output)")
        let sources = try services.run("pactl", ["list", "short", "sources"])
        #expect(sources.output.split(separator: "\n").contains { $0.split(separator: "\t").dropFirst().first == "avf_null.monitor" },
                "\(sources.output)")
        let info = try services.run("pactl", ["info"])
        #expect(info.output.contains("Default Sink: avf_null"), "\(info.output)")
        #expect(info.output.contains("Default Source: avf_null.monitor"), "\(info.output)")
    }

    @Test("Xvfb serves a 1920×1080 24-bit screen with MIT-SHM and XFIXES")
    func xServer() throws {
        guard let services = services() else { return }
        let info = try services.run("xdpyinfo", ["-display", services.display])
        #expect(info.status == 0, "\(info.errors)")
        #expect(info.output.contains("dimensions:    1920x1080 pixels"), "\(info.output.prefix(2000))")
        #expect(info.output.contains("depth of root window:    24 planes"))
        for extensionName in ["MIT-SHM", "XFIXES"] {
            #expect(info.output.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == extensionName },
                    "\(extensionName)")
        }
    }
}
