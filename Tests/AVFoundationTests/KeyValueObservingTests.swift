// Key-value observation with Apple's call shape (`observe(_:options:changeHandler:)`, the
// NSKeyValueObservation token): options, invalidation and release, handlers that invalidate
// themselves, subclass-rooted key paths, no call after invalidate() under concurrent changes, and
// the statuses of the export session, the asset writer and the asset reader observed as they run.
import AVFoundation
import Foundation
import Synchronization
import Testing

/// What handlers saw, in order (handlers run on whatever thread made the change).
private final class Log<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// An observable class written the way ours are: state behind a lock, the registry told after
/// each change with the old value, outside the lock.
private class Dial: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var storedLevel = 0
    private var storedOther = 0
    private var storedName: String?

    var level: Int { lock.withLock { storedLevel } }
    var other: Int { lock.withLock { storedOther } }
    var name: String? { lock.withLock { storedName } }

    func setLevel(_ value: Int) {
        let old = lock.withLock { () -> Int in defer { storedLevel = value }; return storedLevel }
        KVORegistry.shared.didChange(self, \Dial.level, old: old)
    }

    func setOther(_ value: Int) {
        let old = lock.withLock { () -> Int in defer { storedOther = value }; return storedOther }
        KVORegistry.shared.didChange(self, \Dial.other, old: old)
    }

    func setName(_ value: String?) {
        let old = lock.withLock { () -> String? in defer { storedName = value }; return storedName }
        KVORegistry.shared.didChange(self, \Dial.name, old: old)
    }
}

/// A client's subclass: its key paths (`\FancyDial.level`) differ from the ones the base class posts.
private final class FancyDial: Dial, @unchecked Sendable {}

/// A client's subclass of the asset writer.
private final class TracingWriter: AVAssetWriter, @unchecked Sendable {}

/// An observer written as app code is in Swift 6 strict concurrency: an NSObject subclass keeping
/// its observation, with key paths inferred from the observed type (this file must compile
/// without warnings; scripts/test.sh fails on any).
private final class ExportMonitor: NSObject, Sendable {
    let statuses = Log<AVAssetExportSession.Status>()
    private let observation = Mutex<NSKeyValueObservation?>(nil)

    func watch(_ session: AVAssetExportSession) {
        let statuses = statuses
        let token = session.observe(\.status, options: [.new]) { session, change in
            if let status = change.newValue { statuses.append(status) }
        }
        observation.withLock { $0 = token }
    }
}

@Suite("Key-value observation")
struct KeyValueObservingTests {
    // MARK: The mechanism

    @Test("with .initial and .new the handler sees the value at once, then each new value")
    func initialAndNew() {
        let dial = Dial()
        dial.setLevel(5)
        let log = Log<String>()
        let token = dial.observe(\.level, options: [.initial, .new]) { object, change in
            log.append("\(change.kind.rawValue) \(String(describing: change.newValue)) \(String(describing: change.oldValue)) "
                       + "\(change.isPrior) \(change.indexes == nil) \(object.level)")
        }
        dial.setLevel(6)
        dial.setLevel(7)
        #expect(log.all == ["1 Optional(5) nil false true 5", "1 Optional(6) nil false true 6", "1 Optional(7) nil false true 7"])
        token.invalidate()
    }

    @Test("with .old the handler gets the value before each change; without .new no new value")
    func oldValues() {
        let dial = Dial()
        let log = Log<String>()
        let both = dial.observe(\.level, options: [.old, .new]) { _, change in
            log.append("\(change.oldValue.map(String.init) ?? "-")→\(change.newValue.map(String.init) ?? "-")")
        }
        let oldOnly = dial.observe(\.level, options: .old) { _, change in
            log.append("old \(change.oldValue.map(String.init) ?? "-") new \(change.newValue.map(String.init) ?? "-")")
        }
        let neither = dial.observe(\.level) { object, change in
            log.append("plain \(change.oldValue == nil && change.newValue == nil) \(object.level)")
        }
        dial.setLevel(1)
        dial.setLevel(3)
        #expect(log.all == ["0→1", "old 0 new -", "plain true 1", "1→3", "old 1 new -", "plain true 3"])
        withExtendedLifetime((both, oldOnly, neither)) {}
    }

    @Test("optional values: nil is a value, not a missing one")
    func optionalValues() {
        let dial = Dial()
        let log = Log<String>()
        let token = dial.observe(\.name, options: [.old, .new]) { _, change in
            log.append("\(String(describing: change.oldValue))→\(String(describing: change.newValue))")
        }
        dial.setName("a")
        dial.setName(nil)
        #expect(log.all == ["Optional(nil)→Optional(Optional(\"a\"))", "Optional(Optional(\"a\"))→Optional(nil)"])
        token.invalidate()
    }

    @Test("only the observed key path of the observed object notifies")
    func onlyTheObservedProperty() {
        let dial = Dial()
        let another = Dial()
        let log = Log<Int>()
        let token = dial.observe(\.level, options: .new) { _, change in log.append(change.newValue ?? -1) }
        dial.setOther(9)
        another.setLevel(9)
        dial.setLevel(2)
        #expect(log.all == [2])
        token.invalidate()
    }

    @Test("invalidate() stops the observation; calling it twice is harmless")
    func invalidateStops() {
        let dial = Dial()
        let log = Log<Int>()
        let token = dial.observe(\.level, options: .new) { _, change in log.append(change.newValue ?? -1) }
        dial.setLevel(1)
        token.invalidate()
        dial.setLevel(2)
        token.invalidate()
        dial.setLevel(3)
        #expect(log.all == [1])
    }

    @Test("releasing the token stops the observation")
    func releasingStops() {
        let dial = Dial()
        let log = Log<Int>()
        do {
            let token = dial.observe(\.level, options: .new) { _, change in log.append(change.newValue ?? -1) }
            dial.setLevel(1)
            withExtendedLifetime(token) {}
        }
        dial.setLevel(2)
        #expect(log.all == [1])
    }

    @Test("a handler may invalidate its own observation")
    func handlerInvalidatesItself() {
        let dial = Dial()
        let log = Log<Int>()
        let holder = Mutex<NSKeyValueObservation?>(nil)
        let token = dial.observe(\.level, options: .new) { _, change in
            log.append(change.newValue ?? -1)
            holder.withLock { $0 }?.invalidate()
        }
        holder.withLock { $0 = token }
        dial.setLevel(1)
        dial.setLevel(2)
        #expect(log.all == [1])
        // Releasing the token from inside its own handler stops it too.
        let released = Log<Int>()
        let second = Mutex<NSKeyValueObservation?>(nil)
        second.withLock {
            $0 = dial.observe(\.level, options: .new) { _, change in
                released.append(change.newValue ?? -1)
                second.withLock { $0 = nil }
            }
        }
        dial.setLevel(3)
        dial.setLevel(4)
        #expect(released.all == [3])
    }

    @Test("the token holds the observed object weakly")
    func tokenDoesNotKeepTheObject() {
        weak var gone: Dial?
        let token: NSKeyValueObservation
        do {
            let dial = Dial()
            gone = dial
            token = dial.observe(\.level) { _, _ in }
        }
        #expect(gone == nil)
        token.invalidate()
    }

    @Test("a key path rooted at a subclass (\\FancyDial.level) is told of the base class's changes, once per change of its value")
    func subclassKeyPath() {
        #expect((\FancyDial.level as AnyKeyPath) != (\Dial.level as AnyKeyPath))
        let dial = FancyDial()
        let log = Log<String>()
        let token = dial.observe(\.level, options: [.old, .new]) { _, change in
            log.append("\(change.oldValue ?? -1)→\(change.newValue ?? -1)")
        }
        dial.setLevel(4)
        dial.setOther(8)    // another Int property of the same object: level did not change
        dial.setLevel(4)    // posted, but the value is the same
        dial.setLevel(5)
        #expect(log.all == ["0→4", "4→5"])
        token.invalidate()
        dial.setLevel(6)
        #expect(log.all == ["0→4", "4→5"])
    }

    @Test("after invalidate() returns, no handler call starts, while another thread keeps changing the value")
    func noCallAfterInvalidate() async {
        let dial = Dial()
        let calls = Atomic<Int>(0)
        let invalidated = Atomic<Bool>(false)
        let late = Atomic<Int>(0)
        let token = dial.observe(\.level, options: .new) { _, _ in
            if invalidated.load(ordering: .sequentiallyConsistent) { late.add(1, ordering: .sequentiallyConsistent) }
            calls.add(1, ordering: .sequentiallyConsistent)
        }
        let stop = Atomic<Bool>(false)
        let changer = Thread {
            var value = 0
            while !stop.load(ordering: .sequentiallyConsistent) {
                value += 1
                dial.setLevel(value)
            }
        }
        changer.start()
        while calls.load(ordering: .sequentiallyConsistent) < 200 { try? await Task.sleep(nanoseconds: 1_000_000) }
        token.invalidate()
        invalidated.store(true, ordering: .sequentiallyConsistent)
        let settled = calls.load(ordering: .sequentiallyConsistent)
        // Let the changer post a few thousand more changes.
        let target = dial.level + 2_000
        while dial.level < target { try? await Task.sleep(nanoseconds: 1_000_000) }
        stop.store(true, ordering: .sequentiallyConsistent)
        #expect(late.load(ordering: .sequentiallyConsistent) == 0)
        #expect(calls.load(ordering: .sequentiallyConsistent) == settled)
    }

    // MARK: The classes that notify

    @Test("an export session's status is observed going .waiting, .exporting, .completed, before the completion handler")
    func exportSessionStatus() async throws {
        let source = try #require(ExportFixtures.trimSource)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        session.outputURL = try ExportFixtures.output("observed.mp4")
        session.outputFileType = .mp4
        let log = Log<String>()
        let token = session.observe(\.status, options: [.initial, .old, .new]) { session, change in
            log.append("\(change.oldValue.map { "\($0.rawValue)" } ?? "-")→\(change.newValue?.rawValue ?? -1)")
        }
        let monitor = ExportMonitor()
        monitor.watch(session)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.exportAsynchronously {
                log.append("done")
                continuation.resume()
            }
        }
        #expect(session.status == .completed, "\(String(describing: session.error))")
        // unknown 0, waiting 1, exporting 2, completed 3
        #expect(log.all == ["-→0", "0→1", "1→2", "2→3", "done"])
        #expect(monitor.statuses.all == [.waiting, .exporting, .completed])
        token.invalidate()
    }

    @Test("an export that cannot start is observed going .waiting, .failed")
    func exportSessionFailure() async throws {
        let source = try #require(ExportFixtures.trimSource)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPresetPassthrough))
        session.outputFileType = .mp4    // no outputURL
        let monitor = ExportMonitor()
        monitor.watch(session)
        await session.export()
        #expect(session.status == .failed)
        #expect(monitor.statuses.all == [.waiting, .failed])
    }

    @Test("an asset writer's status is observed going .writing, .completed")
    func writerStatus() async throws {
        let url = try WriterFixtures.outputURL("observed.mp4")
        let log = Log<String>()
        let holder = Mutex<NSKeyValueObservation?>(nil)
        let writer = try await WriterFixtures.writeFrames(
            to: url, settings: [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 64, AVVideoHeightKey: 48],
            count: 5, width: 64, height: 48) { writer, _ in
                let token = writer.observe(\.status, options: [.old, .new]) { _, change in
                    log.append("\(change.oldValue?.rawValue ?? -1)→\(change.newValue?.rawValue ?? -1)")
                }
                holder.withLock { $0 = token }
            }
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        // unknown 0, writing 1, completed 2
        #expect(log.all == ["0→1", "1→2"])
    }

    @Test("a subclass of the writer is observed through its own key path: .writing, then .cancelled")
    func writerSubclassStatus() throws {
        let url = try WriterFixtures.outputURL("subclass.mov")
        let writer = try TracingWriter(outputURL: url, fileType: .mov)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: [
            AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 64, AVVideoHeightKey: 48])
        writer.add(input)
        let log = Log<AVAssetWriter.Status>()
        let token = writer.observe(\.status, options: .new) { writer, change in
            if let status = change.newValue { log.append(status) }
        }
        #expect(writer.startWriting())
        writer.cancelWriting()
        writer.cancelWriting()    // nothing changes: no notification
        #expect(log.all == [.writing, .cancelled])
        token.invalidate()
    }

    @Test("a writer that fails to start is observed going .failed")
    func writerFailureStatus() throws {
        let url = try WriterFixtures.outputURL("exists.mov")
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data([1, 2, 3])))
        let writer = try AVAssetWriter(outputURL: url, fileType: .mov)
        writer.add(AVAssetWriterInput(mediaType: .video, outputSettings: [
            AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 64, AVVideoHeightKey: 48]))
        let log = Log<AVAssetWriter.Status>()
        let token = writer.observe(\.status, options: .new) { _, change in
            if let status = change.newValue { log.append(status) }
        }
        #expect(!writer.startWriting())
        #expect(log.all == [.failed])
        token.invalidate()
    }

    @Test("an asset reader's status is observed going .reading, .completed (posted by the last copyNextSampleBuffer)")
    func readerStatus() async throws {
        let source = try #require(ExportFixtures.trimSource)
        let asset = AVURLAsset(url: source)
        let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        reader.add(output)
        let log = Log<String>()
        let token = reader.observe(\.status, options: [.old, .new]) { reader, change in
            log.append("\(change.oldValue?.rawValue ?? -1)→\(change.newValue?.rawValue ?? -1)")
        }
        #expect(reader.startReading())
        var count = 0
        while output.copyNextSampleBuffer() != nil { count += 1 }
        #expect(count > 0)
        #expect(reader.status == .completed)
        // unknown 0, reading 1, completed 2
        #expect(log.all == ["0→1", "1→2"])
        token.invalidate()

        let cancelled = try AVAssetReader(asset: asset)
        cancelled.add(AVAssetReaderTrackOutput(track: track, outputSettings: nil))
        let statuses = Log<AVAssetReader.Status>()
        let second = cancelled.observe(\.status, options: .new) { _, change in
            if let status = change.newValue { statuses.append(status) }
        }
        #expect(cancelled.startReading())
        cancelled.cancelReading()
        #expect(statuses.all == [.reading, .cancelled])
        second.invalidate()
    }
}
