// The services capture tests talk to — a private PulseAudio daemon with a null sink and an Xvfb
// X server — as scripts/capture-services.sh started them (scripts/test.sh does, around the whole
// suite). The script writes a services file of shell assignments; this reads it.
import Foundation

package struct CaptureServices: Sendable {
    /// The X display of the Xvfb server (":N"), 1920×1080×24 with MIT-SHM and XFIXES.
    package let display: String
    /// The PulseAudio server's address ("unix:<runtime>/pulse/native").
    package let pulseServer: String
    /// The PulseAudio client configuration to use with it (no autospawn; the cookie kept in the
    /// runtime directory), when the file names one.
    package let pulseClientConfig: String?
    /// The null sink's name ("avf_null"); what is played into it comes out of `monitorSource`.
    package let sink: String
    /// The null sink's monitor source ("avf_null.monitor").
    package let monitorSource: String
    /// The services' private runtime directory (sockets, configuration, logs).
    package let runtimeDirectory: URL
    /// The services file this was read from.
    package let file: URL

    /// Why there are no services.
    package struct Unavailable: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    /// Set by scripts/test.sh to the services file: the run needs the services, so their absence
    /// is a failure rather than a reason to skip.
    package static let fileVariable = "AVFOUNDATION_CAPTURE_SERVICES"

    /// Where the services file is: `$AVFOUNDATION_CAPTURE_SERVICES`, else the script's default
    /// (.build/capture-services.env, left by a `scripts/capture-services.sh start` by hand).
    package static var fileURL: URL {
        if let path = ProcessInfo.processInfo.environment[fileVariable], !path.isEmpty { return URL(fileURLWithPath: path) }
        return TestTools.root.appendingPathComponent(".build/capture-services.env")
    }

    /// Whether this test run was started by scripts/test.sh (which starts the services).
    package static var areRequired: Bool { ProcessInfo.processInfo.environment[fileVariable]?.isEmpty == false }

    /// The running services, or why there are none.
    package static let current: Result<CaptureServices, Unavailable> = read(fileURL)

    /// Whether the services are there.
    package static var areAvailable: Bool { (try? current.get()) != nil }

    /// Whether tests that need the services should run: they are there, or the run needs them
    /// (then a test that finds them missing fails with the reason instead of being skipped).
    package static var shouldRun: Bool { areAvailable || areRequired }

    /// Reads a services file.
    package static func read(_ file: URL) -> Result<CaptureServices, Unavailable> {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            return .failure(Unavailable(description: "no capture services file at \(file.path): start them with "
                                        + "scripts/capture-services.sh start, or run the suite through scripts/test.sh"))
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            var value = line[line.index(after: equals)...]
            if value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 { value = value.dropFirst().dropLast() }
            values[String(line[..<equals])] = String(value)
        }
        guard let display = values["DISPLAY"], let server = values["PULSE_SERVER"], let runtime = values["AVF_CAPTURE_RUNTIME"] else {
            return .failure(Unavailable(description: "the capture services file \(file.path) is incomplete (the services did not "
                                        + "come up): \(text.replacingOccurrences(of: "\n", with: " "))"))
        }
        return .success(CaptureServices(display: display, pulseServer: server, pulseClientConfig: values["PULSE_CLIENTCONFIG"],
                                        sink: values["AVF_PULSE_SINK"] ?? "avf_null",
                                        monitorSource: values["AVF_PULSE_MONITOR"] ?? "avf_null.monitor",
                                        runtimeDirectory: URL(fileURLWithPath: runtime), file: file))
    }

    /// This process's environment with the services' variables (DISPLAY, PULSE_SERVER,
    /// PULSE_CLIENTCONFIG): what a child process — pactl, paplay, xdpyinfo, avtool — is given.
    package var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment["PULSE_SERVER"] = pulseServer
        if let pulseClientConfig { environment["PULSE_CLIENTCONFIG"] = pulseClientConfig }
        return environment
    }

    /// Runs a tool (looked up on PATH) against the services; returns its exit status and
    /// standard output and error as text. Gives up (terminating it) after `seconds`.
    package func run(_ tool: String, _ arguments: [String], deadline seconds: TimeInterval = 30) throws
        -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both streams are drained while the tool runs (a full pipe would stall it).
        let collected = CollectedOutput()
        let group = DispatchGroup()
        for (index, pipe) in [output, errors].enumerated() {
            DispatchQueue.global().async(group: group) {
                collected.set(index, pipe.fileHandleForReading.readDataToEndOfFile())
            }
        }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        group.wait()
        return (process.terminationStatus, collected.text(0), collected.text(1))
    }
}

/// The two output streams of a tool, filled from the threads that drain them.
private final class CollectedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var data = [Data(), Data()]
    func set(_ index: Int, _ value: Data) { lock.withLock { data[index] = value } }
    func text(_ index: Int) -> String { lock.withLock { String(decoding: data[index], as: UTF8.self) } }
}
