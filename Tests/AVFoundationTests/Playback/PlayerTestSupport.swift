// Media and helpers for the playback tests: short clips made with the ffmpeg CLI once per
// process, waits on notifications and key-value changes, and the numbered video's frame numbers
// read from pixel buffers.
import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

enum PlayerMedia {
    static let dir: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("player-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// `seconds` of 30 fps 320×240 H.264 (keyframe every 60 frames) with silent stereo AAC —
    /// silent because these players play into the test services' shared sink while other suites
    /// (capture, the sound tests) measure what comes out of its monitor.
    static func clip(seconds: Double, name: String? = nil) -> URL {
        let url = dir.appendingPathComponent(name ?? "clip-\(seconds).mp4")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        GeneratorMedia.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=\(seconds)",
                               "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=\(seconds)",
                               "-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-pix_fmt", "yuv420p",
                               "-c:a", "aac", "-b:a", "96k", "-shortest", url.path])
        return url
    }

    /// The numbered video (12 s, 30 fps, 48-frame GOPs; each frame shows its number).
    static var numbered: URL { GeneratorMedia.numbered }

    /// The frame number the numbered video's picture in `buffer` shows (any 4:2:0 or BGRA buffer
    /// at 320×240).
    static func number(in buffer: CVPixelBuffer) -> Int? {
        guard let bgra = try? convert(buffer) else { return nil }
        CVPixelBufferLockBaseAddress(bgra, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(bgra, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(bgra) else { return nil }
        let row = CVPixelBufferGetBytesPerRow(bgra)
        var n = 0
        for k in 0..<16 {
            let x = k * 20 + 10, y = 16
            let green = base.load(fromByteOffset: y * row + x * 4 + 1, as: UInt8.self)
            if green > 128 { n |= 1 << k }
        }
        return n
    }

    private static func convert(_ buffer: CVPixelBuffer) throws -> CVPixelBuffer {
        if CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_32BGRA { return buffer }
        var session: VTPixelTransferSession?
        _ = VTPixelTransferSessionCreate(allocator: nil, pixelTransferSessionOut: &session)
        var out: CVPixelBuffer?
        _ = CVPixelBufferCreate(nil, CVPixelBufferGetWidth(buffer), CVPixelBufferGetHeight(buffer), kCVPixelFormatType_32BGRA, nil, &out)
        guard let session, let out else { throw CocoaError(.featureUnsupported) }
        guard VTPixelTransferSessionTransferImage(session, from: buffer, to: out) == noErr else { throw CocoaError(.featureUnsupported) }
        return out
    }
}

/// Collects notifications of one name (and object) for a test. Thread-safe.
final class NotificationRecorder: Sendable {
    /// A received notification. @unchecked Sendable: posted notifications are not changed after posting.
    struct Received: @unchecked Sendable {
        let notification: Notification
    }

    /// What the observer block and the test share.
    private final class Storage: Sendable {
        let received = Mutex<[Received]>([])
        let signal = DispatchSemaphore(value: 0)
    }

    /// The registration. @unchecked Sendable: written once in init, read in deinit.
    private final class Observer: @unchecked Sendable {
        var token: (any NSObjectProtocol)?
    }

    private let storage = Storage()
    private let observer = Observer()

    init(_ name: NSNotification.Name, object: AnyObject? = nil) {
        let storage = self.storage
        observer.token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { note in
            let box = Received(notification: note)
            storage.received.withLock { $0.append(box) }
            storage.signal.signal()
        }
    }

    deinit {
        if let token = observer.token { NotificationCenter.default.removeObserver(token) }
    }

    private var signal: DispatchSemaphore { storage.signal }
    var count: Int { storage.received.withLock { $0.count } }
    var notifications: [Notification] { storage.received.withLock { $0.map(\.notification) } }

    /// Waits until `count` notifications arrived (false after `timeout` seconds).
    @discardableResult
    func wait(count: Int = 1, timeout: Double = 10) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while self.count < count {
            if signal.wait(timeout: deadline) == .timedOut { return self.count >= count }
        }
        return true
    }
}

/// Waits until `condition` holds, checking every 10 ms, at most `timeout` seconds.
@discardableResult
func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(10_000)
    }
    return true
}
