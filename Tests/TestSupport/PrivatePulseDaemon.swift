// A PulseAudio daemon of one test's own (null sink `tone_sink`, its monitor the default source),
// started the way scripts/capture-services.sh starts the suite's, for tests that must not share
// the suite's daemon: ones that kill the server, play sound whose level they measure, or add and
// remove sources.
import Foundation
import Glibc

package final class PrivatePulseDaemon: @unchecked Sendable {
    // @unchecked Sendable: the reaping state is guarded by `lock`; everything else is set once in init.
    package let directory: URL
    package let server: String
    package let sink = "tone_sink"
    package var monitor: String { sink + ".monitor" }
    /// The daemon's process ID.
    package let pid: pid_t
    private let lock = NSLock()
    private var reaped = false

    /// Whether the programs are installed (scripts/setup.sh installs them).
    package static var isAvailable: Bool {
        ["/usr/bin/pulseaudio", "/usr/bin/pactl", "/usr/bin/paplay"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    package init() throws {
        // sockaddr_un holds 108 bytes: a short directory under /tmp.
        directory = URL(fileURLWithPath: try Self.makeDirectory())
        for sub in ["pulse", "xdg", "home"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let dir = directory.path
        server = "unix:\(dir)/pulse/native"
        let script = """
            load-module module-native-protocol-unix auth-anonymous=1 socket=\(dir)/pulse/native
            load-module module-null-sink sink_name=\(sink) sink_properties=device.description=ToneSink rate=48000 channels=2
            set-default-sink \(sink)
            set-default-source \(sink).monitor

            """
        try script.write(toFile: dir + "/test.pa", atomically: true, encoding: .utf8)
        try "autospawn = no\ncookie-file = \(dir)/pulse/cookie\n".write(toFile: dir + "/client.conf", atomically: true, encoding: .utf8)
        // Spawned directly, not with Foundation's Process: swift-corelibs-foundation reaps its
        // children with a blocking wait4 on one thread, so a long-lived child it tracks stalls
        // waitUntilExit() of every later one (pactl, paplay).
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = dir + "/home"
        environment["XDG_RUNTIME_DIR"] = dir + "/xdg"
        environment["PULSE_RUNTIME_PATH"] = dir + "/pulse"
        environment["PULSE_STATE_PATH"] = dir + "/pulse"
        environment["XDG_CONFIG_HOME"] = dir + "/home"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
        let arguments = ["/usr/bin/pulseaudio", "-n", "-F", dir + "/test.pa", "--daemonize=no", "--exit-idle-time=-1",
                         "--disallow-exit", "--use-pid-file=no", "--realtime=no", "--high-priority=no",
                         "--log-target=file:\(dir)/pulse.log"]
        pid = try Self.spawn(arguments, environment: environment.map { "\($0.key)=\($0.value)" })
        let deadline = Date().addingTimeInterval(15)
        while true {
            if let info = try? run("pactl", ["info"], deadline: 5), info.status == 0 { break }
            guard isRunning, Date() < deadline else {
                let log = (try? String(contentsOfFile: dir + "/pulse.log", encoding: .utf8)) ?? ""
                kill()
                throw Failure(description: "the test's PulseAudio daemon did not come up: \(log.suffix(500))")
            }
            usleep(50_000)
        }
    }

    deinit { kill() }

    package struct Failure: Error, CustomStringConvertible { package let description: String }

    private static func makeDirectory() throws -> String {
        var template = Array("/tmp/avf-pulse-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        return String(cString: made)
    }

    private static func spawn(_ arguments: [String], environment: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard status == 0 else { throw Failure(description: "cannot start pulseaudio: \(String(cString: strerror(status)))") }
        return pid
    }

    /// Whether the daemon still runs (reaps it when it has exited).
    private var isRunning: Bool {
        lock.withLock {
            guard !reaped else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
            return !reaped
        }
    }

    /// The environment for a client tool of this daemon.
    package var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = server
        environment["PULSE_CLIENTCONFIG"] = directory.path + "/client.conf"
        return environment
    }

    /// Runs a client tool (pactl, paplay) against the daemon.
    @discardableResult
    package func run(_ tool: String, _ arguments: [String], deadline: TimeInterval = 30) throws -> (status: Int32, output: String) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        child.arguments = arguments
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        child.standardInput = FileHandle.nullDevice
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let end = Date().addingTimeInterval(deadline)
        while child.isRunning && Date() < end { usleep(10_000) }
        if child.isRunning { child.terminate() }
        child.waitUntilExit()
        return (child.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Starts a client tool without waiting for it.
    package func launch(_ tool: String, _ arguments: [String]) throws -> Process {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        child.arguments = arguments
        child.environment = environment
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        return child
    }

    /// Kills the daemon at once (SIGKILL: a crash, no goodbye to clients) and removes its directory.
    package func kill() {
        lock.withLock {
            guard !reaped else { return }
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            reaped = true
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
