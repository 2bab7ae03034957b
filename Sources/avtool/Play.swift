// `avtool play FILE|URL|TIMELINE.json`: a player built the way an app builds one — AVPlayer, an
// AVPlayerLayer in a window, AV Kit-style controls as sublayers drawn over the picture (a bar with
// play/pause, time, a scrubber, rate and volume; a message in the middle for each action), the
// keys people know from mpv and ffplay, in the window or the terminal:
//
//   space/p  play/pause        ←/→  −/+10 s        ↓/↑  −/+60 s       ,/.  one frame back/forward
//   [/]      slower/faster (0.5–2×, pitch kept)    9/0  volume −/+    m    mute
//   f        full screen       i/o  trim in/out at the playhead      w    write the trimmed range
//   q/Esc    quit              a click on the scrubber seeks there; elsewhere it plays/pauses
//
// `--no-window` plays the sound only; `--stats` adds dropped frames and the measured audio/video
// offset to the status line. Trimming writes the range by passthrough export (AV Kit's
// beginTrimming then an export session), to --trim-output or NAME-trim.EXT beside the input.
//
// Exit status: 0 when playback ended or was quit, 1 when the media could not be played.
import ArgumentParser
import AVFoundation
import Foundation
import Glibc
import QuartzCore
import Synchronization

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a movie, a sound file, an http(s) URL or a compose timeline, with controls (q quits).")

    @Argument(help: "A media file, an http(s) URL, or a TIMELINE.json as `avtool compose` reads.")
    var input: String

    @Flag(help: "No window: sound only (the controls are the terminal's keys).")
    var noWindow = false

    @Option(help: "Start at this many seconds.")
    var start: Double?

    @Flag(help: "Play again from the start at the end (AVPlayerLooper).")
    var loop = false

    @Option(help: "Playback rate, 0.5–2 (pitch kept).")
    var rate: Float = 1

    @Option(help: "Volume, 0–1.")
    var volume: Float = 1

    @Flag(help: "Start muted.")
    var mute = false

    @Flag(help: "Start in full screen.")
    var fullScreen = false

    @Option(help: "Window size in pixels, WxH (default: the video's size).")
    var size: String?

    @Flag(help: "Show dropped frames and the measured audio/video offset in the status line.")
    var stats = false

    @Option(help: "Quit after this many seconds of wall time.")
    var stopAfter: Double?

    @Option(help: "Where `w` writes the trimmed range (default NAME-trim.EXT beside the input).")
    var trimOutput: String?

    @Flag(help: "No status line.")
    var quiet = false

    func run() throws {
        let code = MainActor.assumeIsolated { () -> Int32 in
            let session = PlaySession(options: self)
            return session.run()
        }
        if code != 0 { throw ExitCode(code) }
    }
}

/// One playing session: the player, its layer and controls, the input and the status line.
@MainActor
final class PlaySession {
    private let options: Play
    private var player: AVPlayer!
    private var looper: AVPlayerLooper?
    private var layer: AVPlayerLayer?
    private var controls: PlayerControls?
    private var observers: [Any] = []
    private var notifications: [any NSObjectProtocol] = []
    private var finished: Int32?
    private var lastActivity = Date()
    private var trimIn: CMTime?
    private var trimOut: CMTime?
    private var fullScreen = false
    private var terminal: TerminalKeys?
    private var asset: AVAsset!
    private var sourceURL: URL?
    /// When the session began, and how long after it the first picture was shown.
    private let began = Date()
    private var firstPicture: TimeInterval?
    private var readyObservation: NSKeyValueObservation?

    init(options: Play) {
        self.options = options
    }

    func run() -> Int32 {
        let item: AVPlayerItem
        do { item = try makeItem() } catch {
            say("avtool: \((error as? ComposeError)?.description ?? errorText(error))")
            return 1
        }
        if options.loop {
            let queue = AVQueuePlayer()
            looper = AVPlayerLooper(player: queue, templateItem: item)
            player = queue
        } else {
            player = AVPlayer(playerItem: item)
        }
        player.volume = min(max(options.volume, 0), 1)
        player.isMuted = options.mute
        let current = player.currentItem ?? item
        // The layer first: its window system gets ready while the item loads.
        let playerLayer = options.noWindow ? nil : AVPlayerLayer()
        guard waitForReady(current) else { return finished ?? 1 }
        if let playerLayer { makeWindow(playerLayer, for: current) }
        if let start = options.start {
            player.seek(to: CMTime(seconds: start, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero)
        }
        watch()
        terminal = TerminalKeys { key in Task { @MainActor [weak self] in self?.handle(key: key, shift: false) } }
        // Ctrl-C and SIGTERM quit cleanly (the terminal restored, the player stopped).
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { [weak self] in self?.finished = 0 } }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        player.rate = min(max(options.rate, 0.5), 2)
        let began = Date()
        if options.noWindow, firstPicture == nil { firstPicture = 0 }
        if !options.quiet { say(header(current)) }
        var lastStatus = Date.distantPast
        while finished == nil {
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.05))
            if let stop = options.stopAfter, Date().timeIntervalSince(began) >= stop { finished = 0 }
            if Date().timeIntervalSince(lastStatus) >= 0.25 {
                lastStatus = Date()
                refresh()
            }
        }
        refresh()
        if !options.quiet { FileHandle.standardError.write(Data("\n".utf8)) }
        if options.stats {
            let stats = player.playbackStatistics
            var line = "avtool: stats: shown \(stats.presented), dropped \(stats.dropped)"
            if let firstPicture, !options.noWindow { line += String(format: ", first picture %.0f ms", firstPicture * 1000) }
            if let offset = stats.audioOffset { line += String(format: ", A/V offset %+.1f ms", offset * 1000) }
            say(line)
        }
        terminal?.restore()
        player.pause()
        for observer in observers { player.removeTimeObserver(observer) }
        for note in notifications { NotificationCenter.default.removeObserver(note) }
        layer?.player = nil
        layer = nil
        return finished ?? 0
    }

    // MARK: The item

    private func makeItem() throws -> AVPlayerItem {
        let text = options.input
        if text.hasPrefix("http://") || text.hasPrefix("https://"), let url = URL(string: text) {
            let asset = AVURLAsset(url: url)
            self.asset = asset
            sourceURL = url
            return AVPlayerItem(asset: asset)
        }
        let url = URL(fileURLWithPath: text)
        guard FileManager.default.fileExists(atPath: url.path) else { throw ComposeError("\(text): no such file") }
        if url.pathExtension.lowercased() == "json" {
            let timeline = try ComposeTimeline.load(url)
            let built = try ComposeBuilder.build(timeline, relativeTo: url.deletingLastPathComponent())
            let item = AVPlayerItem(asset: built.composition)
            // Titles drawn by a Core Animation tool are for export; a player shows them with an
            // AVSynchronizedLayer (not yet here): the cuts, transitions and mix play.
            built.videoComposition.animationTool = nil
            item.videoComposition = built.videoComposition
            item.audioMix = built.audioMix
            asset = built.composition
            return item
        }
        let asset = AVURLAsset(url: url)
        self.asset = asset
        sourceURL = url
        return AVPlayerItem(asset: asset)
    }

    /// Waits (running the main run loop) until the item can play; false when it failed.
    private func waitForReady(_ item: AVPlayerItem) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while item.status == .unknown, Date() < deadline {
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.02))
        }
        switch item.status {
        case .readyToPlay: return true
        case .failed:
            say("avtool: cannot play \(options.input): \(item.error.map(errorText) ?? "unknown error")")
        default:
            say("avtool: \(options.input) did not become ready to play within 30 s")
        }
        finished = 1
        return false
    }

    private func makeWindow(_ layer: AVPlayerLayer, for item: AVPlayerItem) {
        var size = item.presentationSize
        if let text = options.size {
            let parts = text.lowercased().split(separator: "x").compactMap { Double($0) }
            if parts.count == 2, parts[0] >= 16, parts[1] >= 16 { size = CGSize(width: parts[0], height: parts[1]) }
        }
        if size.width < 16 || size.height < 16 { size = CGSize(width: 640, height: 360) }
        layer.frame = CGRect(origin: .zero, size: size)
        layer.name = "avtool play — \(URL(fileURLWithPath: options.input).lastPathComponent)"
        layer.videoGravity = .resizeAspect
        layer.player = player
        let began = self.began
        readyObservation = layer.observe(\.isReadyForDisplay, options: [.initial, .new]) { layer, _ in
            guard layer.isReadyForDisplay else { return }
            let seconds = Date().timeIntervalSince(began)
            Task { @MainActor [weak self] in if self?.firstPicture == nil { self?.firstPicture = seconds } }
        }
        let controls = PlayerControls(in: layer)
        layer.setWindowEventHandler { event in
            Task { @MainActor [weak self] in self?.handle(window: event) }
        }
        self.layer = layer
        self.controls = controls
        if options.fullScreen { toggleFullScreen() }
    }

    private func watch() {
        let interval = CMTime(value: 1, timescale: 10)
        observers.append(player.addPeriodicTimeObserver(forInterval: interval, queue: .main) { [weak self] _ in
            MainActor.assumeIsolated { self?.updateControls() }
        })
        notifications.append(NotificationCenter.default.addObserver(forName: AVPlayerItem.didPlayToEndTimeNotification, object: nil,
                                                                    queue: .main) { [weak self] note in
            let ended = (note.object as AnyObject?).map(ObjectIdentifier.init)
            MainActor.assumeIsolated {
                guard let self, !self.options.loop, let item = self.player.currentItem, ended == ObjectIdentifier(item) else { return }
                self.finished = 0
            }
        })
        notifications.append(NotificationCenter.default.addObserver(forName: AVPlayerItem.failedToPlayToEndTimeNotification, object: nil,
                                                                    queue: .main) { [weak self] note in
            let error = note.userInfo?[AVPlayerItemFailedToPlayToEndTimeErrorKey] as? NSError
            MainActor.assumeIsolated {
                self?.say("\navtool: playback failed: \(error.map(errorText) ?? "unknown error")")
                self?.finished = 1
            }
        })
    }

    // MARK: Input

    private func handle(window event: VideoWindowEvent) {
        switch event {
        case .key(let key, let shift): handle(key: key, shift: shift)
        case .click(let x, let y, let width, let height):
            activity()
            if let fraction = controls?.scrubberFraction(x: Double(x), y: Double(y), size: CGSize(width: width, height: height)) {
                let duration = player.currentItem?.duration ?? .invalid
                if duration.isNumeric {
                    seek(to: CMTime(seconds: duration.seconds * fraction, preferredTimescale: 600), exact: false)
                }
            } else {
                togglePlay()
            }
        case .pointerMoved: activity()
        case .closed: finished = 0
        }
    }

    private func handle(key: String, shift: Bool) {
        activity()
        switch key {
        case " ", "p": togglePlay()
        case "left": seek(by: -10)
        case "right": seek(by: 10)
        case "down": seek(by: -60)
        case "up": seek(by: 60)
        case ",": step(-1)
        case ".": step(1)
        case "[": changeRate(down: true)
        case "]": changeRate(down: false)
        case "9": changeVolume(-0.1)
        case "0": changeVolume(0.1)
        case "m":
            player.isMuted.toggle()
            flash(player.isMuted ? "Muted" : "Sound on")
        case "f", "f11": toggleFullScreen()
        case "escape":
            if fullScreen { toggleFullScreen() } else { finished = 0 }
        case "q": finished = 0
        case "i":
            trimIn = player.currentTime()
            flash("Trim in at \(clock(trimIn!.seconds))")
        case "o":
            trimOut = player.currentTime()
            flash("Trim out at \(clock(trimOut!.seconds))")
        case "w": writeTrim()
        default: return
        }
        updateControls()
    }

    private func activity() {
        lastActivity = Date()
        updateControls()
    }

    private func togglePlay() {
        if player.rate != 0 {
            player.pause()
            flash("Paused")
        } else {
            // At the end, play starts again from the start (as AV Kit's play button does).
            if let item = player.currentItem, item.duration.isNumeric, player.currentTime() >= item.duration {
                player.seek(to: .zero)
            }
            player.rate = max(0.5, min(2, preferredRate))
            flash("Play")
        }
    }

    private var preferredRate: Float = 1

    private func seek(by seconds: Double) {
        let target = player.currentTime().seconds + seconds
        seek(to: CMTime(seconds: max(0, target), preferredTimescale: 600), exact: false)
        flash(seconds < 0 ? "−\(Int(-seconds)) s" : "+\(Int(seconds)) s")
    }

    private func seek(to time: CMTime, exact: Bool) {
        // Exact, as a person scrubbing expects the picture they aimed at.
        player.seek(to: time, toleranceBefore: .zero, toleranceAfter: .zero)
    }

    private func step(_ count: Int) {
        player.pause()
        player.currentItem?.step(byCount: count)
        flash(count < 0 ? "◀ frame" : "frame ▶")
    }

    private static let rates: [Float] = [0.5, 0.75, 1, 1.25, 1.5, 2]

    private func changeRate(down: Bool) {
        let now = player.rate != 0 ? player.rate : preferredRate
        let next = down ? Self.rates.last { $0 < now - 0.01 } ?? 0.5 : Self.rates.first { $0 > now + 0.01 } ?? 2
        preferredRate = next
        if player.rate != 0 { player.rate = next }
        flash(String(format: "Rate %.2g×", next))
    }

    private func changeVolume(_ delta: Float) {
        player.volume = min(1, max(0, player.volume + delta))
        player.isMuted = false
        flash("Volume \(Int((player.volume * 100).rounded())) %")
    }

    private func toggleFullScreen() {
        fullScreen.toggle()
        layer?.setWindowFullScreen(fullScreen)
    }

    // MARK: Trimming

    private func writeTrim() {
        guard let trimIn, let trimOut, trimOut > trimIn else {
            flash("Set trim in (i) and out (o) first")
            return
        }
        guard let sourceURL, sourceURL.isFileURL else {
            flash("Only files can be trimmed")
            return
        }
        let target = options.trimOutput.map { URL(fileURLWithPath: $0) }
            ?? sourceURL.deletingLastPathComponent().appendingPathComponent(
                sourceURL.deletingPathExtension().lastPathComponent + "-trim." + sourceURL.pathExtension)
        try? FileManager.default.removeItem(at: target)
        guard let export = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough) else {
            flash("This media cannot be trimmed")
            return
        }
        export.outputURL = target
        export.outputFileType = AVFileType.forTrimming(target) ?? export.supportedFileTypes.first
        export.timeRange = CMTimeRange(start: trimIn, end: trimOut)
        flash("Writing \(target.lastPathComponent)…")
        let range = String(format: "%.3f–%.3f s", trimIn.seconds, trimOut.seconds)
        export.exportAsynchronously { [weak self] in
            let status = export.status, error = export.error
            Task { @MainActor in
                if status == .completed {
                    self?.flash("Wrote \(target.lastPathComponent)")
                    self?.say("\navtool: wrote \(range) to \(target.path)")
                } else {
                    self?.flash("Trim failed")
                    self?.say("\navtool: trimming failed: \(error.map(errorText) ?? "unknown error")")
                }
            }
        }
    }

    // MARK: Display

    private var message: (text: String, until: Date)?

    private func flash(_ text: String) {
        message = (text, Date().addingTimeInterval(1.2))
        updateControls()
    }

    private func updateControls() {
        guard let controls, let layer, let item = player.currentItem else { return }
        var size = layer.windowSize
        if size.width < 1 || size.height < 1 { size = layer.bounds.size }
        let playing = player.rate != 0
        let visible = !playing || Date().timeIntervalSince(lastActivity) < 3
        let text = message.flatMap { $0.until > Date() ? $0.text : nil }
        controls.update(size: size, time: player.currentTime().seconds, duration: item.duration.seconds, playing: playing,
                        rate: playing ? player.rate : preferredRate, volume: player.volume, muted: player.isMuted,
                        trim: (trimIn?.seconds, trimOut?.seconds), visible: visible, message: text)
    }

    private func refresh() {
        updateControls()
        guard !options.quiet, let item = player.currentItem else { return }
        let duration = item.duration
        var line = "\r  \(clock(player.currentTime().seconds)) / \(duration.isNumeric ? clock(duration.seconds) : "--:--")"
        line += player.rate != 0 ? String(format: "  ▶ %.2g×", player.rate) : "  ❚❚"
        line += player.isMuted ? "  muted" : "  vol \(Int((player.volume * 100).rounded())) %"
        if options.stats {
            let stats = player.playbackStatistics
            line += "  shown \(stats.presented) dropped \(stats.dropped)"
            if let offset = stats.audioOffset { line += String(format: "  A/V %+.0f ms", offset * 1000) }
        }
        if let looper { line += "  loop \(looper.loopCount)" }
        FileHandle.standardError.write(Data((line + "   ").utf8))
    }

    private func header(_ item: AVPlayerItem) -> String {
        let size = item.presentationSize
        var text = "playing \(options.input)"
        if size.width > 0 { text += " (\(Int(size.width))×\(Int(size.height)))" }
        if item.duration.isNumeric { text += ", \(clock(item.duration.seconds))" }
        if let problem = layer?.windowProblem { text += "; no window: \(problem)" }
        text += options.noWindow ? " — keys: space ←/→ [ ] 9/0 m q" : " — keys: space ←/→ ,/. [ ] 9/0 m f i/o/w q"
        return text
    }

    private func say(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// "m:ss.s" (or "h:mm:ss.s").
func clock(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "--:--" }
    let total = max(0, seconds)
    let hours = Int(total) / 3600, minutes = Int(total) / 60 % 60
    let rest = total - Double(hours * 3600 + minutes * 60)
    if hours > 0 { return String(format: "%d:%02d:%04.1f", hours, minutes, rest) }
    return String(format: "%d:%04.1f", minutes, rest)
}

extension AVFileType {
    /// The file type for `url`'s extension among the common movie and audio containers.
    static func forTrimming(_ url: URL) -> AVFileType? {
        switch url.pathExtension.lowercased() {
        case "mov", "qt": return .mov
        case "mp4": return .mp4
        case "m4v": return .m4v
        case "m4a": return .m4a
        case "wav": return .wav
        case "aif", "aiff": return .aiff
        case "caf": return .caf
        default: return nil
        }
    }
}

/// The controls drawn over the picture: Core Animation layers added to the player layer, as an
/// app adds its own views over AVPlayerLayer.
@MainActor
final class PlayerControls {
    private let bar = CALayer()
    private let track = CALayer()
    private let fill = CALayer()
    private let trimBand = CALayer()
    private let knob = CALayer()
    private let left = CATextLayer()
    private let right = CATextLayer()
    private let banner = CATextLayer()
    private var trackFrame = CGRect.zero

    static let barHeight: CGFloat = 52

    init(in layer: CALayer) {
        bar.backgroundColor = CGColor(red: 0, green: 0, blue: 0, alpha: 0.62)
        bar.cornerRadius = 8
        track.backgroundColor = CGColor(red: 1, green: 1, blue: 1, alpha: 0.3)
        track.cornerRadius = 2
        fill.backgroundColor = CGColor(red: 1, green: 1, blue: 1, alpha: 0.95)
        fill.cornerRadius = 2
        trimBand.backgroundColor = CGColor(red: 1, green: 0.8, blue: 0.1, alpha: 0.7)
        knob.backgroundColor = CGColor(red: 1, green: 1, blue: 1, alpha: 1)
        knob.cornerRadius = 6
        for text in [left, right, banner] {
            text.fontSize = 15
            text.foregroundColor = CGColor(red: 1, green: 1, blue: 1, alpha: 1)
        }
        right.alignmentMode = .right
        banner.alignmentMode = .center
        banner.fontSize = 22
        banner.backgroundColor = CGColor(red: 0, green: 0, blue: 0, alpha: 0.55)
        banner.cornerRadius = 10
        for sub in [track, trimBand, fill, knob, left, right] { bar.addSublayer(sub) }
        layer.addSublayer(bar)
        layer.addSublayer(banner)
    }

    /// Lays the controls out for a window `size` (top-left origin) and shows the state.
    func update(size: CGSize, time: Double, duration: Double, playing: Bool, rate: Float, volume: Float, muted: Bool,
                trim: (Double?, Double?), visible: Bool, message: String?) {
        CATransaction.begin()
        CATransaction.setDisableActions(true)
        defer { CATransaction.commit() }
        let margin: CGFloat = 12
        let width = max(size.width - 2 * margin, 100)
        bar.frame = CGRect(x: margin, y: size.height - Self.barHeight - margin, width: width, height: Self.barHeight)
        bar.isHidden = !visible
        trackFrame = CGRect(x: 14, y: 10, width: width - 28, height: 5)
        track.frame = trackFrame
        let fraction = duration.isFinite && duration > 0 ? min(max(time / duration, 0), 1) : 0
        fill.frame = CGRect(x: trackFrame.minX, y: trackFrame.minY, width: trackFrame.width * fraction, height: trackFrame.height)
        knob.frame = CGRect(x: trackFrame.minX + trackFrame.width * fraction - 6, y: trackFrame.midY - 6, width: 12, height: 12)
        if let start = trim.0, duration > 0 {
            let end = trim.1 ?? time
            let a = min(max(start / duration, 0), 1), b = min(max(end / duration, 0), 1)
            trimBand.frame = CGRect(x: trackFrame.minX + trackFrame.width * min(a, b), y: trackFrame.minY - 2,
                                    width: max(2, trackFrame.width * abs(b - a)), height: trackFrame.height + 4)
            trimBand.isHidden = false
        } else {
            trimBand.isHidden = true
        }
        left.frame = CGRect(x: 14, y: 24, width: width / 2, height: 22)
        left.string = "\(playing ? "▶" : "❚❚")  \(clock(time)) / \(duration.isFinite ? clock(duration) : "--:--")"
        right.frame = CGRect(x: width / 2, y: 24, width: width / 2 - 14, height: 22)
        right.string = String(format: "%.2g×   ", rate) + (muted ? "muted" : "vol \(Int((volume * 100).rounded())) %")
        if let message {
            banner.string = message
            let bannerWidth = min(size.width - 40, CGFloat(message.count) * 13 + 40)
            banner.frame = CGRect(x: (size.width - bannerWidth) / 2, y: size.height / 2 - 22, width: bannerWidth, height: 44)
            banner.isHidden = false
        } else {
            banner.isHidden = true
        }
    }

    /// The fraction of the duration a click at (x, y) in a window of `size` points to, when it is
    /// on the scrubber (with a few pixels of slack); nil elsewhere.
    func scrubberFraction(x: Double, y: Double, size: CGSize) -> Double? {
        guard !bar.isHidden else { return nil }
        let frame = bar.frame
        let track = trackFrame.offsetBy(dx: frame.minX, dy: frame.minY).insetBy(dx: -4, dy: -10)
        guard track.contains(CGPoint(x: x, y: y)), trackFrame.width > 0 else { return nil }
        return min(max((x - frame.minX - trackFrame.minX) / trackFrame.width, 0), 1)
    }
}

/// The terminal's keys, read raw (no echo, no line buffering) while playing, when standard input
/// is a terminal; restored at the end (also on Ctrl-C, which quits).
final class TerminalKeys: Sendable {
    private let saved: termios?

    init?(_ handler: @escaping @Sendable (String) -> Void) {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        saved = original
        TerminalKeys.original.withLock { $0 = original }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        atexit { TerminalKeys.restoreSaved() }
        let thread = Thread {
            var pending: [UInt8] = []
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 {
                pending.append(byte)
                if pending == [27] {
                    // An escape sequence follows within a moment, or it was the Esc key.
                    var poll = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                    if Glibc.poll(&poll, 1, 30) <= 0 { handler("escape"); pending = []; continue }
                    continue
                }
                if pending.first == 27 {
                    if pending.count < 3 { continue }
                    switch pending[2] {
                    case UInt8(ascii: "A"): handler("up")
                    case UInt8(ascii: "B"): handler("down")
                    case UInt8(ascii: "C"): handler("right")
                    case UInt8(ascii: "D"): handler("left")
                    default: break
                    }
                    pending = []
                    continue
                }
                if let scalar = Unicode.Scalar(UInt32(byte)), byte >= 32, byte < 127 { handler(String(Character(scalar))) }
                pending = []
            }
        }
        thread.name = "avtool.play.keys"
        thread.start()
    }

    private static let original = Mutex<termios?>(nil)

    private static func restoreSaved() {
        guard var original = TerminalKeys.original.withLock({ $0 }) else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
    }

    func restore() {
        guard var saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }
}
