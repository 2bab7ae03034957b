// willChangeValue/didChangeValue (Apple's manual key-value notification) reach observe(_:)
// handlers: a class of the client's own announces its changes, as Objective-C-era code does.
import AVFoundation
import Foundation
import Synchronization
import Testing

private final class Take: NSObject {
    var name = "a"
    var count = 0
    var frame = CGRect.zero
    var computedLabel: String { "\(name)#\(count)" }
}

private final class Seen: Sendable {
    let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

@Suite struct ManualChangeNotificationTests {
    @Test func aStoredKeyNotifiesItsObserversWithTheOldValue() {
        let take = Take()
        let seen = Seen()
        let names = take.observe(\.name, options: [.old, .new]) { _, change in
            seen.add("name \(change.oldValue ?? "-")>\(change.newValue ?? "-")")
        }
        let counts = take.observe(\.count, options: [.new]) { _, change in seen.add("count \(change.newValue ?? -1)") }
        take.willChangeValue(forKey: "name")
        take.name = "b"
        take.didChangeValue(forKey: "name")
        // Announcing a change of `name` leaves the observer of `count` (another type) alone; an
        // announcement with no change calls no one.
        take.willChangeValue(forKey: "name")
        take.didChangeValue(forKey: "name")
        take.willChangeValue(forKey: "count")
        take.count = 2
        take.didChangeValue(forKey: "count")
        names.invalidate()
        counts.invalidate()
        take.willChangeValue(forKey: "name")
        take.name = "c"
        take.didChangeValue(forKey: "name")
        #expect(seen.all == ["name a>b", "count 2"])
    }

    @Test func keyPathsAndComputedKeysNotify() {
        let take = Take()
        let seen = Seen()
        let frames = take.observe(\.frame, options: [.new]) { _, change in seen.add("frame \(change.newValue?.width ?? -1)") }
        let labels = take.observe(\.computedLabel, options: [.old, .new]) { _, change in
            seen.add("label \(change.oldValue ?? "-")>\(change.newValue ?? "-")")
        }
        take.willChangeValue(for: \.frame)
        take.frame = CGRect(x: 0, y: 0, width: 4, height: 3)
        take.didChangeValue(for: \.frame)
        // A key reflection does not find (computed): every observer whose value changed is called.
        take.willChangeValue(forKey: "computedLabel")
        take.count = 7
        take.didChangeValue(forKey: "computedLabel")
        frames.invalidate()
        labels.invalidate()
        #expect(seen.all == ["frame 4.0", "label a#0>a#7"])
    }

    @Test func didChangeAloneComparesWithTheLastValueSeen() {
        let take = Take()
        let seen = Seen()
        let names = take.observe(\.name, options: [.initial, .new]) { _, change in seen.add(change.newValue ?? "-") }
        take.name = "quiet"
        take.didChangeValue(forKey: "name")
        take.didChangeValue(forKey: "name")
        names.invalidate()
        #expect(seen.all == ["a", "quiet"])
    }
}
