// `avtool play FILE|URL|TIMELINE.json`: a player built the way an app builds one — AVPlayer, an
// AVPlayerLayer in a window, AV Kit-style controls as sublayers drawn over the picture (a bar with
// play/pause, time, a scrubber, rate and volume; a message in the middle for each action), the
// keys people know from mpv and ffplay, in the window or the terminal:
//
//   space/p  play/pause        ←/→  −/+10 s        ↓/↑  −/+60 s       ,/.  one frame back/forward
//   [/]      slower/faster (0.5–2×, pitch kept)    9/0  volume −/+    m    mute
//   f        full screen       i/o  trim in/out at the playhead      w    write the trimmed range
//   j        next subtitles (off, each track)    #    next audio language
//   v        subtitle menu     c    chapter menu (↑/↓ and Return choose, Esc closes; or click)
//   PgUp/PgDn  previous/next chapter
//   q/Esc    quit              a click on the scrubber seeks there; elsewhere it plays/pauses
//
// Subtitles are off until chosen (as with the system's default caption settings); `--sub-file`
// adds a SubRip or WebVTT side-car (the movie and its text track in one composition) and turns
// it on, `--sid N` chooses the file's Nth subtitle track.
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

    @Option(help: "A subtitle side-car file (SubRip .srt or WebVTT .vtt) to show with the movie.")
    var subFile: String?

    @Option(help: "The subtitle track to show, 1 for the first (default: none).")
    var sid: Int?

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
    private var choices: PlayChoices?
    private var menu: PlayerMenu?

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
        chooseInitialOptions(current)
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
        if let subFile = options.subFile { return try itemWithSideCar(movie: asset, subtitles: subFile) }
        return AVPlayerItem(asset: asset)
    }

    /// The movie and a side-car's text track in one composition (how an app adds subtitles
    /// that are not in the file).
    private func itemWithSideCar(movie: AVURLAsset, subtitles path: String) throws -> AVPlayerItem {
        let subsURL = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: subsURL.path) else { throw ComposeError("\(path): no such file") }
        let subs = AVURLAsset(url: subsURL)
        guard let text = subs.tracks.first(where: { $0.mediaType == .text || $0.mediaType == .subtitle }) else {
            throw ComposeError("\(path): no subtitles in it (SubRip .srt or WebVTT .vtt)")
        }
        let composition = AVMutableComposition()
        let duration = movie.duration
        for source in movie.tracks where source.mediaType == .video || source.mediaType == .audio {
            guard let track = composition.addMutableTrack(withMediaType: source.mediaType, preferredTrackID: kCMPersistentTrackID_Invalid) else { continue }
            try track.insertTimeRange(CMTimeRange(start: .zero, duration: duration), of: source, at: .zero)
            track.preferredTransform = source.preferredTransform
        }
        if let track = composition.addMutableTrack(withMediaType: text.mediaType, preferredTrackID: kCMPersistentTrackID_Invalid) {
            let range = CMTimeRange(start: text.timeRange.start, end: min(text.timeRange.end, duration))
            if range.duration > .zero { try track.insertTimeRange(range, of: text, at: range.start) }
        }
        return AVPlayerItem(asset: composition)
    }

    /// Subtitles as the options ask: the side-car's, the `--sid`th track, else none.
    private func chooseInitialOptions(_ item: AVPlayerItem) {
        var choices = PlayChoices(asset: item.asset, movie: asset === item.asset ? nil : asset)
        if let subFile = options.subFile, let sideCar = choices.subtitleGroup?.options.last {
            choices.names[ObjectIdentifier(sideCar)] = URL(fileURLWithPath: subFile).lastPathComponent
        }
        self.choices = choices
        guard let group = choices.subtitleGroup else {
            if options.sid != nil { say("avtool: \(options.input) has no subtitles") }
            return
        }
        if options.subFile != nil {
            item.select(group.options.last, in: group)
        } else if let sid = options.sid {
            if sid >= 1 && sid <= group.options.count {
                item.select(group.options[sid - 1], in: group)
            } else {
                say("avtool: no subtitle track \(sid) (the file has \(group.options.count))")
            }
        }
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
            if let menu {
                if let row = menu.row(atX: Double(x), y: Double(y)) { choose(row, in: menu) } else { closeMenu() }
                return
            }
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
        if let menu {
            switch key {
            case "up": menu.move(-1)
            case "down": menu.move(1)
            case "return", " ": choose(menu.highlighted, in: menu)
            case "escape", "c", "v", "q": closeMenu()
            default: break
            }
            updateControls()
            return
        }
        switch key {
        case "j": cycleSubtitles()
        case "#": cycleAudio()
        case "3" where shift: cycleAudio()
        case "v": openMenu(.subtitles)
        case "c": openMenu(.chapters)
        case "pageup": jumpChapter(-1)
        case "pagedown": jumpChapter(1)
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

    // MARK: Subtitles, sound and chapters

    private var subtitleRows: [String] {
        guard let group = choices?.subtitleGroup else { return [] }
        return ["Off"] + group.options.map { choices?.name($0, in: group) ?? $0.displayName }
    }

    /// The subtitle menu's row now chosen (0: off).
    private var subtitleRow: Int {
        guard let group = choices?.subtitleGroup, let item = player.currentItem,
              let option = item.currentMediaSelection.selectedMediaOption(in: group),
              let index = group.options.firstIndex(where: { $0 === option }) else { return 0 }
        return index + 1
    }

    private func selectSubtitles(row: Int) {
        guard let group = choices?.subtitleGroup, let item = player.currentItem else { return }
        item.select(row == 0 ? nil : group.options[row - 1], in: group)
        flash(row == 0 ? "Subtitles off" : "Subtitles: \(subtitleRows[row])")
    }

    private func cycleSubtitles() {
        guard choices?.subtitleGroup != nil else {
            flash("No subtitles")
            return
        }
        selectSubtitles(row: (subtitleRow + 1) % subtitleRows.count)
    }

    private func cycleAudio() {
        guard let choices, let group = choices.audioGroup, let item = player.currentItem, group.options.count > 1 else {
            flash("One audio track")
            return
        }
        let current = item.currentMediaSelection.selectedMediaOption(in: group)
        let index = current.flatMap { option in group.options.firstIndex { $0 === option } } ?? 0
        let next = group.options[(index + 1) % group.options.count]
        item.select(next, in: group)
        flash("Audio: \(choices.name(next, in: group))")
    }

    private func jumpChapter(_ delta: Int) {
        guard let choices, !choices.chapters.isEmpty else {
            flash("No chapters")
            return
        }
        let now = player.currentTime()
        let current = choices.chapter(at: now) ?? -1
        // Back within the first two seconds of a chapter goes to the one before, else to its start.
        var target = current + delta
        if delta < 0, current >= 0, (now - choices.chapters[current].start).seconds > 2 { target = current }
        guard target >= 0, target < choices.chapters.count else {
            flash(delta < 0 ? "First chapter" : "Last chapter")
            return
        }
        goToChapter(target)
    }

    private func goToChapter(_ index: Int) {
        guard let chapter = choices?.chapters[index] else { return }
        seek(to: chapter.start, exact: true)
        flash(chapter.title)
    }

    private func openMenu(_ kind: PlayerMenu.Kind) {
        guard let layer, let choices else { return }
        switch kind {
        case .subtitles:
            guard choices.subtitleGroup != nil else { return flash("No subtitles") }
            menu = PlayerMenu(kind: .subtitles, title: "Subtitles", rows: subtitleRows, current: subtitleRow, in: layer)
        case .chapters:
            guard !choices.chapters.isEmpty else { return flash("No chapters") }
            menu = PlayerMenu(kind: .chapters, title: "Chapters",
                              rows: choices.chapters.map { "\($0.title)   \(clock($0.start.seconds))" },
                              current: choices.chapter(at: player.currentTime()), in: layer)
        case .audio:
            return
        }
        updateControls()
    }

    private func choose(_ row: Int, in menu: PlayerMenu) {
        closeMenu()
        switch menu.kind {
        case .subtitles: selectSubtitles(row: row)
        case .chapters: goToChapter(row)
        case .audio: break
        }
    }

    private func closeMenu() {
        menu?.close()
        menu = nil
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
        var extras: [String] = []
        if let choices, let index = choices.chapter(at: player.currentTime()) { extras.append(choices.chapters[index].title) }
        if choices?.subtitleGroup != nil { extras.append(subtitleRow == 0 ? "CC off" : "CC \(subtitleRows[subtitleRow])") }
        controls.update(size: size, time: player.currentTime().seconds, duration: item.duration.seconds, playing: playing,
                        rate: playing ? player.rate : preferredRate, volume: player.volume, muted: player.isMuted,
                        trim: (trimIn?.seconds, trimOut?.seconds), visible: visible || menu != nil, message: text,
                        extras: extras.joined(separator: "   "))
        menu?.layout(size: size, bottom: size.height - PlayerControls.barHeight - 12)
        // Subtitles move up above the bar while it shows (as AV Kit lifts them over its controls).
        layer.setCaptionInset(visible || menu != nil ? PlayerControls.barHeight + 20 : 0)
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
        text += options.noWindow ? " — keys: space ←/→ [ ] 9/0 m j # PgUp/PgDn q" : " — keys: space ←/→ ,/. [ ] 9/0 m f j v c # PgUp/PgDn i/o/w q"
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
                trim: (Double?, Double?), visible: Bool, message: String?, extras: String = "") {
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
        left.frame = CGRect(x: 14, y: 24, width: width * 0.64, height: 22)
        left.string = "\(playing ? "▶" : "❚❚")  \(clock(time)) / \(duration.isFinite ? clock(duration) : "--:--")"
            + (extras.isEmpty ? "" : "   \(extras)")
        right.frame = CGRect(x: width * 0.64, y: 24, width: width * 0.36 - 14, height: 22)
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
                    // Page up/down: ESC [ 5 ~ and ESC [ 6 ~.
                    if pending[2] == UInt8(ascii: "5") || pending[2] == UInt8(ascii: "6") {
                        if pending.count < 4 { continue }
                        handler(pending[2] == UInt8(ascii: "5") ? "pageup" : "pagedown")
                        pending = []
                        continue
                    }
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
