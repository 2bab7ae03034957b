// A subtitle reader as apps write one: the legible media selection group loaded from the asset,
// the option for a language picked with `mediaSelectionOptions(from:with:)`, an
// AVPlayerItemLegibleOutput whose push delegate collects the attributed strings (the app draws
// them itself, so the player's rendering is suppressed), and the player run to the end.
import AVFoundation

final class SubtitleCollector: NSObject, AVPlayerItemLegibleOutputPushDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []

    func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                       nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime) {
        guard let first = strings.first else { return }
        lock.lock()
        collected.append(String(format: "%.1f ", CMTimeGetSeconds(itemTime)) + first.string.replacingOccurrences(of: "\n", with: "/"))
        lock.unlock()
    }

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }
}

/// Lets the end notification's block act once.
final class EndFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func setIfFirst() -> Bool { lock.lock(); defer { lock.unlock() }; if value { return false }; value = true; return true }
}

/// The end observer's registration, for its own block to remove.
final class ObserverBox: @unchecked Sendable {
    var token: (any NSObjectProtocol)?
}

enum SubtitleWatcher {
    static func run(_ url: URL, language: String) async throws {
        let asset = AVURLAsset(url: url)
        guard let group = try await asset.loadMediaSelectionGroup(for: .legible) else {
            print("subtitles none")
            return
        }
        let matching = AVMediaSelectionGroup.mediaSelectionOptions(from: group.options, with: Locale(identifier: language))
        let item = AVPlayerItem(asset: asset)
        let output = AVPlayerItemLegibleOutput(mediaSubtypesForNativeRepresentation: [])
        let collector = SubtitleCollector()
        output.setDelegate(collector, queue: DispatchQueue.main)
        output.suppressesPlayerRendering = true
        output.advanceIntervalForDelegateInvocation = 0
        item.add(output)
        item.select(matching.first, in: group)
        let player = AVPlayer(playerItem: item)
        player.isMuted = true
        // Wait for the end: the notification resumes the task (the delegate's strings arrive on
        // the main queue meanwhile, which runs while the task is suspended).
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = EndFlag()
            let box = ObserverBox()
            box.token = NotificationCenter.default.addObserver(forName: .AVPlayerItemDidPlayToEndTime, object: item,
                                                               queue: .main) { _ in
                guard once.setIfFirst() else { return }
                if let token = box.token { NotificationCenter.default.removeObserver(token) }
                continuation.resume()
            }
            player.playImmediately(atRate: 2)
        }
        let name = matching.first?.displayName(with: Locale(identifier: "en")) ?? "none"
        print("subtitles \(name): " + collector.lines.joined(separator: " | "))
    }
}
