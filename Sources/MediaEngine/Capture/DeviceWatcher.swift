// DeviceWatcher: capture devices coming and going — file virtual cameras (inotify on their parent
// directories), V4L2 nodes (/dev/video*, inotify) and PulseAudio sources (PulseDirectory's
// subscription) — reported as (uniqueID, connected) on one serial queue.
import Foundation
import Synchronization
import Glibc

/// A device appearing or going away.
package struct DeviceChange: Sendable, Hashable, CustomStringConvertible {
    /// Where the change was seen.
    package enum Origin: Sendable, Hashable {
        /// A file virtual camera's file (uniqueID `virtual:<path>`).
        case virtualCamera
        /// A V4L2 device node; the uniqueID is the node's path (`/dev/video0`): the V4L2 backend
        /// maps it to its device by enumerating again.
        case videoNode
        /// A PulseAudio source (uniqueID `pulse:<source name>`).
        case pulseAudio
    }

    package var uniqueID: String
    package var connected: Bool
    package var origin: Origin

    package init(uniqueID: String, connected: Bool, origin: Origin) {
        self.uniqueID = uniqueID
        self.connected = connected
        self.origin = origin
    }

    package var description: String { "\(uniqueID) \(connected ? "connected" : "disconnected")" }
}

/// Watches for devices connecting and disconnecting and calls `handler` with each change, in
/// order, on one serial queue.
///
/// - File virtual cameras: a camera is connected while its file exists. The watcher keeps an
///   inotify watch (`IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE`) on each
///   camera's parent directory and, on any event naming the file, compares its existence with the
///   last state reported: so a file replaced by a rename gives nothing, a created one one event.
///   A camera whose directory does not exist is not watched (its state stays as first seen).
/// - V4L2: a watch on the device directory (`/dev`) for `video*` names (`IN_CREATE | IN_DELETE |
///   IN_ATTRIB`); changes are settled for 200 ms (udev renames nodes and fixes permissions right
///   after the kernel makes them) and then diffed against the nodes last seen.
/// - PulseAudio: `PulseDirectory.setEventHandler` (sources added and removed, server lost and back).
///
/// Nothing runs until `start()`; `stop()` ends it (no handler call begins after `stop()` returns,
/// unless it was called on the watcher's queue, where the call running is the last).
package final class DeviceWatcher: Sendable {
    private let cameraFiles: [(uniqueID: String, path: String)]
    private let deviceDirectory: String?
    private let pulse: PulseDirectory?
    private let handler: @Sendable (DeviceChange) -> Void
    /// The serial queue every handler call runs on.
    package let queue: DispatchQueue

    /// The inotify watches, what they last saw, and whether (and which run) the watcher runs.
    private struct State {
        var running = false
        var generation = 0
        var descriptor: Int32 = -1
        var readSource: (any DispatchSourceRead)?
        /// Watch descriptor → directory path; directory path → the camera files in it.
        var directories: [Int32: String] = [:]
        var filesIn: [String: [(uniqueID: String, name: String)]] = [:]
        var fileConnected: [String: Bool] = [:]
        var deviceWatch: Int32 = -1
        var nodes: Set<String> = []
        var nodeCheckScheduled = false
    }
    private let state = Mutex(State())

    /// A watcher of the file cameras among `virtualCameras`, the V4L2 nodes in `deviceDirectory`
    /// (nil: none) and the sources of `pulse` (nil: none).
    package init(virtualCameras: [VirtualCamera] = VirtualDevices.fromEnvironment(),
                 deviceDirectory: String? = "/dev",
                 pulse: PulseDirectory? = .shared,
                 handler: @escaping @Sendable (DeviceChange) -> Void) {
        cameraFiles = virtualCameras.compactMap { camera in
            if case .file(let url) = camera.kind { return (camera.uniqueID, url.path) }
            return nil
        }
        self.deviceDirectory = deviceDirectory
        self.pulse = pulse
        self.handler = handler
        queue = DispatchQueue(label: "DeviceWatcher")
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    deinit { stop() }

    /// Starts watching (nothing if already running); throws when inotify cannot be set up.
    package func start() throws {
        let started = try state.withLock { state -> Int? in
            guard !state.running else { return nil }
            let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            state.descriptor = fd
            state.generation += 1
            state.directories = [:]
            state.filesIn = [:]
            state.fileConnected = [:]
            for camera in cameraFiles {
                let url = URL(fileURLWithPath: camera.path)
                let directory = url.deletingLastPathComponent().path
                if state.filesIn[directory] == nil {
                    let wd = inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE))
                    guard wd >= 0 else { continue }
                    state.directories[wd] = directory
                    state.filesIn[directory] = []
                }
                state.filesIn[directory]?.append((camera.uniqueID, url.lastPathComponent))
                state.fileConnected[camera.uniqueID] = FileManager.default.fileExists(atPath: camera.path)
            }
            if let deviceDirectory {
                state.deviceWatch = inotify_add_watch(fd, deviceDirectory, UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO))
                state.nodes = Self.videoNodes(in: deviceDirectory)
            }
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            let generation = state.generation
            source.setEventHandler { [weak self] in self?.readEvents(generation: generation) }
            source.setCancelHandler { close(fd) }
            state.readSource = source
            state.running = true
            source.resume()
            return generation
        }
        guard let generation = started else { return }
        pulse?.setEventHandler { [weak self] id, connected in
            guard let self else { return }
            self.queue.async {
                guard self.isCurrent(generation) else { return }
                self.handler(DeviceChange(uniqueID: id, connected: connected, origin: .pulseAudio))
            }
        }
    }

    /// Stops watching; idempotent.
    package func stop() {
        let wasRunning = state.withLock { state -> Bool in
            guard state.running else { return false }
            state.running = false
            state.generation += 1
            state.readSource?.cancel()
            state.readSource = nil
            state.descriptor = -1
            return true
        }
        guard wasRunning else { return }
        pulse?.setEventHandler(nil)
        // Let a handler call in progress finish (not when called from one: that would wait for itself).
        if DispatchQueue.getSpecific(key: Self.queueKey) != ObjectIdentifier(self) { queue.sync {} }
    }

    /// Whether the watcher runs.
    package var isRunning: Bool { state.withLock { $0.running } }

    // MARK: - On the queue

    private func isCurrent(_ generation: Int) -> Bool { state.withLock { $0.running && $0.generation == generation } }

    private func readEvents(generation: Int) {
        var changes: [DeviceChange] = []
        var nodesTouched = false
        state.withLock { state in
            guard state.running, state.generation == generation, state.descriptor >= 0 else { return }
            let size = 64 * 1024
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
            defer { buffer.deallocate() }
            while true {
                let count = read(state.descriptor, buffer, size)
                guard count > 0 else { break }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let name = event.len > 0
                        ? String(cString: buffer.advanced(by: nameStart).assumingMemoryBound(to: CChar.self)) : ""
                    offset = nameStart + Int(event.len)
                    if event.wd == state.deviceWatch {
                        if name.hasPrefix("video") { nodesTouched = true }
                    }
                    if let directory = state.directories[event.wd] {
                        for file in state.filesIn[directory] ?? [] where file.name == name {
                            let exists = FileManager.default.fileExists(atPath: directory + "/" + name)
                            if state.fileConnected[file.uniqueID] != exists {
                                state.fileConnected[file.uniqueID] = exists
                                changes.append(DeviceChange(uniqueID: file.uniqueID, connected: exists, origin: .virtualCamera))
                            }
                        }
                    }
                }
            }
            if nodesTouched, !state.nodeCheckScheduled {
                state.nodeCheckScheduled = true
                queue.asyncAfter(deadline: .now() + 0.2) { [weak self] in self?.checkNodes(generation: generation) }
            }
        }
        for change in changes where isCurrent(generation) { handler(change) }
    }

    private func checkNodes(generation: Int) {
        let changes = state.withLock { state -> [DeviceChange] in
            state.nodeCheckScheduled = false
            guard state.running, state.generation == generation, let deviceDirectory else { return [] }
            let now = Self.videoNodes(in: deviceDirectory)
            let added = now.subtracting(state.nodes).sorted(), removed = state.nodes.subtracting(now).sorted()
            state.nodes = now
            return removed.map { DeviceChange(uniqueID: $0, connected: false, origin: .videoNode) }
                + added.map { DeviceChange(uniqueID: $0, connected: true, origin: .videoNode) }
        }
        for change in changes where isCurrent(generation) { handler(change) }
    }

    /// The paths of the `video*` character devices in `directory`.
    static func videoNodes(in directory: String) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(names.filter { $0.hasPrefix("video") }.map { directory + "/" + $0 }.filter { path in
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFCHR)
        })
    }

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
}
