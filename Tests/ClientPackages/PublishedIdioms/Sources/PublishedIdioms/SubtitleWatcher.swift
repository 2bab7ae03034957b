// A subtitle reader as apps write one: the legible media selection group loaded from the asset,
// the option for a language picked with `mediaSelectionOptions(from:with:)`, an
// AVPlayerItemLegibleOutput whose push delegate collects the attributed strings (the app draws
// them itself, so the player's rendering is suppressed), and the player run to the end.
import AVFoundation
import Synchronization

final class SubtitleCollector: NSObject, AVPlayerItemLegibleOutputPushDelegate, Sendable {
    private let collected = Mutex<[String]>([])

    func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                       nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime) {
        guard let first = strings.first else { return }
        let line = String(format: "%.1f ", CMTimeGetSeconds(itemTime)) + first.string.replacingOccurrences(of: "\n", with: "/")
        collected.withLock { $0.append(line) }
    }

    var lines: [String] { collected.withLock { $0 } }
}

/// Lets the end notification's block act once.
final class EndFlag: Sendable {
    private let value = Mutex(false)
    func setIfFirst() -> Bool {
        value.withLock { done in
            defer { done = true }
            return !done
        }
    }
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
        var token: (any NSObjectProtocol)?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = EndFlag()
            token = NotificationCenter.default.addObserver(forName: .AVPlayerItemDidPlayToEndTime, object: item,
                                                           queue: .main) { _ in
                if once.setIfFirst() { continuation.resume() }
            }
            player.playImmediately(atRate: 2)
        }
        if let token { NotificationCenter.default.removeObserver(token) }
        let name = matching.first?.displayName(with: Locale(identifier: "en")) ?? "none"
        print("subtitles \(name): " + collector.lines.joined(separator: " | "))
    }
}
