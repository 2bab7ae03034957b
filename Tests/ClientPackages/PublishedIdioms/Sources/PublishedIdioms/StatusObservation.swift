// Apps watch a writer's or an export's status with key-value observation: an NSObject that keeps
// the NSKeyValueObservation `observe(\.status, …)` returns. The file imports Foundation first, as
// app code does; the observation names must come with AVFoundation and clash with nothing.
import Foundation
import AVFoundation

/// The statuses a handler saw (handlers run on the thread that changed the status).
final class StatusLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func append(_ value: Int) { lock.lock(); values.append(value); lock.unlock() }
    var all: [Int] { lock.lock(); defer { lock.unlock() }; return values }
}

final class WriterStatusWatcher: NSObject {
    private var observation: NSKeyValueObservation?
    let log = StatusLog()

    func watch(_ writer: AVAssetWriter) {
        observation = writer.observe(\.status, options: [.initial, .new]) { [log] writer, change in
            guard let status = change.newValue else { return }
            log.append(status.rawValue)
        }
    }

    func stop() {
        observation?.invalidate()
        observation = nil
    }
}

enum StatusObservation {
    static func run() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kvo-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let writer = try? AVAssetWriter(outputURL: directory.appendingPathComponent("watched.mov"), fileType: .mov) else {
            print("kvo error=writer")
            return
        }
        writer.add(AVAssetWriterInput(mediaType: .video, outputSettings: [
            AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 64, AVVideoHeightKey: 48]))
        let watcher = WriterStatusWatcher()
        watcher.watch(writer)
        _ = writer.startWriting()
        writer.cancelWriting()
        watcher.stop()
        let statuses = watcher.log.all.map(String.init).joined(separator: ",")
        print("kvo statuses=\(statuses)")
    }
}
