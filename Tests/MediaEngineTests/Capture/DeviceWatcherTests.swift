// DeviceWatcher with file virtual cameras: a camera's file created → connected, removed →
// disconnected, renamed away and back → disconnected, connected; other files in the directory and
// a stopped watcher report nothing.
import Foundation
@testable import MediaEngine
import Testing
import TestSupport

@Suite struct DeviceWatcherTests {
    @Test func fileCamerasConnectAndDisconnectWithTheirFiles() throws {
        let directory = try TestTools.temporaryDirectory("device-watcher")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("camera.mov").path
        let cameras = VirtualDevices.parse("\(path),testsrc:640x480@30").cameras
        #expect(cameras.count == 2)
        let id = "virtual:\(path)"
        let log = ChangeLog()
        let watcher = DeviceWatcher(virtualCameras: cameras, deviceDirectory: nil, pulse: nil) { log.add($0) }
        #expect(!watcher.isRunning)
        try watcher.start()
        try watcher.start()   // idempotent
        #expect(watcher.isRunning)

        // Another file in the directory: nothing.
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("other.mov").path, contents: Data([1]))
        _ = FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3]))
        let connected = log.wait(seconds: 1) { $0.uniqueID == id && $0.connected }
        #expect(connected == DeviceChange(uniqueID: id, connected: true, origin: .virtualCamera), "\(log.all)")
        try FileManager.default.removeItem(atPath: path)
        #expect(log.wait(seconds: 1) { $0.uniqueID == id && !$0.connected } != nil, "\(log.all)")
        #expect(log.all == [DeviceChange(uniqueID: id, connected: true, origin: .virtualCamera),
                            DeviceChange(uniqueID: id, connected: false, origin: .virtualCamera)])

        // Moved in (a rename into the directory), moved out.
        let outside = directory.appendingPathComponent("staging.tmp").path
        _ = FileManager.default.createFile(atPath: outside, contents: Data([4]))
        try FileManager.default.moveItem(atPath: outside, toPath: path)
        #expect(log.wait(seconds: 1) { _ in log.all.count >= 3 } != nil)
        try FileManager.default.moveItem(atPath: path, toPath: outside)
        #expect(log.wait(seconds: 1) { _ in log.all.count >= 4 } != nil)
        #expect(log.all.map(\.connected) == [true, false, true, false], "\(log.all)")

        watcher.stop()
        watcher.stop()
        #expect(!watcher.isRunning)
        _ = FileManager.default.createFile(atPath: path, contents: Data([5]))
        usleep(300_000)
        #expect(log.all.count == 4, "a stopped watcher reported \(log.all)")

        // Started again: the state is taken afresh (the file now exists), and removal is seen.
        try watcher.start()
        try FileManager.default.removeItem(atPath: path)
        #expect(log.wait(seconds: 1) { _ in log.all.count >= 5 } != nil)
        #expect(log.all.last == DeviceChange(uniqueID: id, connected: false, origin: .virtualCamera))
        watcher.stop()
    }

    @Test func videoNodesAreCharacterDevicesNamedVideo() throws {
        let directory = try TestTools.temporaryDirectory("fake-dev")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A regular file named like a node is not one.
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("video0").path, contents: Data())
        #expect(DeviceWatcher.videoNodes(in: directory.path).isEmpty)
        // /dev/null is a character device, but not named video*: the real /dev lists only video* nodes.
        #expect(DeviceWatcher.videoNodes(in: "/dev").allSatisfy { $0.hasPrefix("/dev/video") })
    }
}
