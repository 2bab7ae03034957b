// LegiblePresenter: the text of the item's selected legible option (subtitle/caption track) on
// the player's timebase — its cues read once through SubtitleReader and mapped onto the item's
// timeline, shown in the player's layers and pushed to the item's legible outputs as the
// playhead crosses their times.
import CoreGraphics
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

/// Shows the cues of one item's selected legible track. Thread-safe; the work happens on a
/// private serial queue.
///
/// A dispatch timer on the timebase (`CMTimebaseAddTimerDispatchSource`) is armed for the next
/// time the text changes for any consumer (cue starts and ends, less each legible output's
/// advance); the timebase's time-jumped and rate-changed notifications re-evaluate at once.
/// Consumers: the player's layers (exact times) and each `AVPlayerItemLegibleOutput` of the item
/// (its advance). Cues are read in the background when the item opens or the selection changes:
/// pictures and sound never wait for them.
final class LegiblePresenter: Sendable {
    /// One cue on the item's timeline.
    struct Cue: Sendable, Equatable {
        var id: Int
        var start: CMTime
        var end: CMTime
        var runs: [SubtitleCue.Run]
        /// The format of the track the cue comes from (its media subtype says how it is stored).
        var format: CMFormatDescription?
    }

    private struct State {
        weak var item: AVPlayerItem?
        var cues: [Cue] = []
        /// Whether the cues of the selected option are read (outputs get nothing before).
        var loaded = false
        var loadID = 0
        /// The cue ids shown in the layers.
        var shown: [Int] = []
    }

    private let timebase: CMTimebase
    private let queue = DispatchQueue(label: "com.avfoundation.player.legible")
    private let state = Mutex(State())
    /// The timebase timer and the notification observations, made once in `init`.
    private struct Handles {
        var timer: DispatchSource
        var observations: [any NSObjectProtocol]
    }

    private let handles: Mutex<Handles>
    private var timer: DispatchSource { handles.withLock { $0.timer } }
    /// Told the cues the layers should show (empty: none).
    private let show = Mutex<(@Sendable ([Cue]) -> Void)?>(nil)

    init(timebase: CMTimebase) {
        self.timebase = timebase
        let queue = self.queue
        let timer = DispatchSource.makeTimerSource(queue: queue) as! DispatchSource
        var observations: [any NSObjectProtocol] = []
        let holder = WeakHolder()
        for name in [NSNotification.Name(kCMTimebaseNotification_TimeJumped as String),
                     NSNotification.Name(kCMTimebaseNotification_EffectiveRateChanged as String)] {
            observations.append(NotificationCenter.default.addObserver(forName: name, object: timebase, queue: nil) { _ in
                queue.async { holder.presenter?.evaluate() }
            })
        }
        handles = Mutex(Handles(timer: timer, observations: observations))
        holder.presenter = self
        timer.setEventHandler { holder.presenter?.evaluate() }
        _ = CMTimebaseAddTimerDispatchSource(timebase, timerSource: timer)
        timer.resume()
    }

    deinit {
        let (timer, observations) = handles.withLock { ($0.timer, $0.observations) }
        for observation in observations { NotificationCenter.default.removeObserver(observation) }
        _ = CMTimebaseRemoveTimerDispatchSource(timebase, timerSource: timer)
        timer.cancel()
    }

    /// A weak reference the notification blocks and the timer hold (set in `init`, once the
    /// presenter exists).
    private final class WeakHolder: Sendable {
        private struct Reference {
            weak var presenter: LegiblePresenter?
        }

        private let reference = Mutex(Reference())
        var presenter: LegiblePresenter? {
            get { reference.withLock { $0.presenter } }
            set { reference.withLock { $0.presenter = newValue } }
        }
    }

    /// Sets who is told the cues the layers should show.
    func setTarget(_ target: @escaping @Sendable ([Cue]) -> Void) {
        show.withLock { $0 = target }
    }

    /// Shows `item`'s selected legible option from now on (nil: none) — reading its cues in the
    /// background first.
    func load(_ item: AVPlayerItem?) {
        let loadID = state.withLock { s -> Int in
            s.loadID += 1
            s.item = item
            s.cues = []
            s.loaded = false
            return s.loadID
        }
        queue.async { [self] in
            evaluate()
            guard let item else { return }
            // Another selection (or none): what the outputs had is gone.
            for output in Self.legibleOutputs(of: item) { output.flushed() }
            guard let track = Self.selectedTrack(of: item) else { return }
            let cues = Self.cues(of: track)
            let current = state.withLock { s -> Bool in
                guard s.loadID == loadID else { return false }
                s.cues = cues
                s.loaded = true
                return true
            }
            if current { evaluate() }
        }
    }

    /// Look again now (an output was added, its delegate or advance changed).
    func refresh() {
        queue.async { [self] in evaluate() }
    }

    /// The track of the item's selected legible option (nil: none selected).
    static func selectedTrack(of item: AVPlayerItem) -> AVAssetTrack? {
        guard let group = item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible),
              let option = item.selectedOption(in: group) else { return nil }
        return item.asset.tracks.first { $0.trackID == option.track.trackID }
    }

    /// The cues of `track` on its timeline: every segment's source cues, cut to the segment's
    /// source range and mapped onto its target range. Unreadable sources give no cues.
    static func cues(of track: AVAssetTrack) -> [Cue] {
        var out: [Cue] = []
        var cache: [SourceTrack.Key: [SubtitleCue]] = [:]
        for segment in track.mediaSegments {
            guard let source = segment.source else { continue }
            let sourceCues: [SubtitleCue]
            if let cached = cache[source.key] {
                sourceCues = cached
            } else {
                sourceCues = (try? SubtitleReader.cues(url: source.url, streamIndex: source.streamIndex)) ?? []
                cache[source.key] = sourceCues
            }
            for cue in sourceCues {
                if segment.isWholeStream {
                    out.append(Cue(id: out.count, start: cue.start, end: cue.end, runs: cue.runs, format: source.stream.formatDescription))
                    continue
                }
                let range = segment.timeMapping.source
                let start = max(cue.start, range.start)
                let end = min(cue.end, range.end)
                guard end > start else { continue }
                out.append(Cue(id: out.count, start: segment.targetTime(start), end: segment.targetTime(end), runs: cue.runs,
                               format: source.stream.formatDescription))
            }
        }
        return out.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
    }

    private static func legibleOutputs(of item: AVPlayerItem) -> [AVPlayerItemLegibleOutput] {
        item.outputs.compactMap { $0 as? AVPlayerItemLegibleOutput }
    }

    /// The cues showing at `t`.
    private static func active(_ cues: [Cue], at t: CMTime) -> [Cue] {
        cues.filter { $0.start <= t && t < $0.end }
    }

    /// The first time after `t` at which the cues showing change.
    private static func nextChange(_ cues: [Cue], after t: CMTime) -> CMTime? {
        var next: CMTime?
        for cue in cues {
            for edge in [cue.start, cue.end] where edge > t && edge.isNumeric {
                if next == nil || edge < next! { next = edge }
            }
        }
        return next
    }

    /// The item time a set of showing cues is delivered for: the latest start among them, else
    /// the latest cue end at or before `t` (when the text went away), else `t`.
    private static func itemTime(_ showing: [Cue], all: [Cue], at t: CMTime) -> CMTime {
        if let start = showing.map(\.start).max() { return start }
        return all.map(\.end).filter { $0 <= t }.max() ?? t
    }

    /// Shows what is due now and arms the timer for the next change (on `queue`).
    private func evaluate() {
        let (item, cues, shown, loaded) = state.withLock { ($0.item, $0.cues, $0.shown, $0.loaded) }
        let now = timebase.time
        guard now.isNumeric else { return }
        var nextFire: CMTime?
        func consider(_ t: CMTime?) {
            guard let t else { return }
            if nextFire == nil || t < nextFire! { nextFire = t }
        }
        // The layers.
        let layerCues = Self.active(cues, at: now)
        if layerCues.map(\.id) != shown {
            state.withLock { $0.shown = layerCues.map(\.id) }
            show.withLock { $0 }?(layerCues)
        }
        consider(Self.nextChange(cues, after: now))
        // The outputs, each ahead by its advance.
        if let item, loaded {
            for output in Self.legibleOutputs(of: item) {
                let advance = output.advance
                let t = now + advance
                let showing = Self.active(cues, at: t)
                output.deliver(showing, itemTime: Self.itemTime(showing, all: cues, at: t))
                consider(Self.nextChange(cues, after: t).map { $0 - advance })
            }
        }
        let fire = nextFire ?? .positiveInfinity
        _ = CMTimebaseSetTimerDispatchSourceNextFireTime(timebase, timerSource: timer, fireTime: fire, flags: 0)
    }

    /// A cue as a legible output vends it: its runs with `kCMTextMarkupAttribute_` styles.
    static func markupString(_ cue: Cue) -> NSAttributedString {
        let out = NSMutableAttributedString(string: "")
        for run in cue.runs {
            var attributes: [NSAttributedString.Key: Any] = [:]
            if run.isItalic { attributes[NSAttributedString.Key(rawValue: kCMTextMarkupAttribute_ItalicStyle as String)] = true }
            if run.isBold { attributes[NSAttributedString.Key(rawValue: kCMTextMarkupAttribute_BoldStyle as String)] = true }
            if run.isUnderlined { attributes[NSAttributedString.Key(rawValue: kCMTextMarkupAttribute_UnderlineStyle as String)] = true }
            out.append(NSAttributedString(string: run.text, attributes: attributes))
        }
        return out
    }

    /// Cues as a text layer draws them: white, Helvetica in its italic and bold faces.
    static func layerString(_ cues: [Cue], fontSize: CGFloat) -> NSAttributedString {
        let out = NSMutableAttributedString(string: "")
        let white = CGColor(red: 1, green: 1, blue: 1, alpha: 1)
        for (i, cue) in cues.enumerated() {
            if i > 0 { out.append(NSAttributedString(string: "\n")) }
            for run in cue.runs {
                let face = run.isBold ? (run.isItalic ? "Helvetica-BoldOblique" : "Helvetica-Bold")
                                      : (run.isItalic ? "Helvetica-Oblique" : "Helvetica")
                var attributes: [NSAttributedString.Key: Any] = [
                    NSAttributedString.Key(rawValue: "NSFont"): face, NSAttributedString.Key(rawValue: "NSFontSize"): Double(fontSize),
                    NSAttributedString.Key(rawValue: "NSColor"): white,
                ]
                if run.isUnderlined { attributes[NSAttributedString.Key(rawValue: "NSUnderline")] = 1 }
                out.append(NSAttributedString(string: run.text, attributes: attributes))
            }
        }
        return out
    }
}
