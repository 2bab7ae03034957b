// The timeline `avtool compose` reads: the book's "15 Seconds" model as JSON — video clips laid end
// to end with transitions between them, music items laid end to end with fades, voice-overs at a
// time under which the music ducks. docs/COMPOSE.md describes the format. This file only decodes
// and checks it and lays it out in time (the book's five steps as plain arithmetic); the
// composition is built from the layout through the public API in ComposeBuilder.swift.
import AVFoundation
import Foundation

/// A timeline as written in the JSON file. Times are seconds; paths are relative to the file.
struct ComposeTimeline: Decodable {
    struct Video: Decodable {
        /// The media file.
        var file: String
        /// Where the clip starts in the file (default 0).
        var start: Double?
        /// How long the clip is (default: to the end of the file's video).
        var duration: Double?
    }

    struct Transition: Decodable {
        /// dissolve, cross-dissolve, push-left/right/up/down (push = push-left), wipe-up/down/left/right
        /// (wipe = wipe-up), or cut.
        var type: String
        /// How long the two clips overlap (default 1 s, the book's THDefaultTransitionDuration).
        var duration: Double?
    }

    struct Music: Decodable {
        var file: String
        var start: Double?
        var duration: Double?
        /// The item's volume (default 1).
        var volume: Double?
        /// A fade from silence over the item's first `fadeIn` seconds (default 0: none).
        var fadeIn: Double?
        /// A fade to silence over the item's last `fadeOut` seconds.
        var fadeOut: Double?
    }

    struct VoiceOver: Decodable {
        var file: String
        /// Where the voice-over starts on the timeline.
        var at: Double
        var start: Double?
        var duration: Double?
        var volume: Double?
    }

    struct Ducking: Decodable {
        /// Turn ducking off with false (default: on when there are voice-overs).
        var enabled: Bool?
        /// The music's volume under a voice-over, as a fraction of its own (default 0.2).
        var level: Double?
        /// How long the music takes to duck before a voice-over and to come back after it (default 0.5 s).
        var fade: Double?
    }

    /// A title over the video (the book's THTitleItem, §12.4): an optional image above a line of
    /// text, faded in and out, the image optionally spun about y and popped.
    struct Title: Decodable {
        /// The line of text (may be empty: then only the image shows).
        var text: String
        /// A PNG or JPEG file shown above the text.
        var image: String?
        /// Where the title starts on the timeline, in seconds.
        var start: Double
        /// How long it shows, in seconds.
        var duration: Double
        /// The font's name (default GillSans-Bold).
        var font: String?
        /// The font size (default 54; 64 with `large`).
        var size: Double?
        /// The book's large font (64).
        var large: Bool?
        /// The text colour, "#RRGGBB" or "#RRGGBBAA" (default white).
        var color: String?
        /// The keyframe fade [0, 1, 1, 0] at [0, 0.2, 0.8, 1] of the title's time (default true).
        var fade: Bool?
        /// The image turns twice about y (−4π), from start + 0.2 s over 0.4 × duration.
        var spin: Bool?
        /// The image scales to 1.3 and back over 0.35 s twice, ending the spin.
        var pop: Bool?
    }

    /// A static layer in every frame: an image and/or a line of text in a corner.
    struct Watermark: Decodable {
        var image: String?
        var text: String?
        /// top-left, top-right, bottom-left or bottom-right (default), 24 px from the edges.
        var position: String?
        /// Default 0.8.
        var opacity: Double?
        /// The text's font size (default 24).
        var size: Double?
        /// The text's font (default GillSans-Bold).
        var font: String?
        /// The text's colour (default white).
        var color: String?
    }

    var videos: [Video]
    /// `transitions[i]` joins video i and video i + 1; missing entries are cuts. One entry given
    /// for several joins applies to every join (the book's app uses one kind throughout).
    var transitions: [Transition]?
    var music: [Music]?
    var voiceOvers: [VoiceOver]?
    var ducking: Ducking?
    /// The output picture size `[width, height]` (default: the first clip's upright size).
    var renderSize: [Double]?
    /// Output frames per second (default: the highest clip frame rate, or 30).
    var frameRate: Double?
    /// Titles over the video, drawn by AVVideoCompositionCoreAnimationTool.
    var titles: [Title]?
    /// A static watermark in every frame.
    var watermark: Watermark?

    static func load(_ url: URL) throws -> ComposeTimeline {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw ComposeError("cannot read \(url.path): \(error.localizedDescription)") }
        do {
            return try JSONDecoder().decode(ComposeTimeline.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw ComposeError("\(url.lastPathComponent) is not valid JSON: \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, context) {
            throw ComposeError("\(url.lastPathComponent): \(Self.path(context.codingPath + [key])) is missing")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ComposeError("\(url.lastPathComponent): \(Self.path(context.codingPath)) has the wrong type")
        } catch {
            throw ComposeError("\(url.lastPathComponent): \(error)")
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
}

/// A failure `avtool compose` explains.
struct ComposeError: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = text }
}

/// How a transition draws the clip going out over the clip coming in.
enum TransitionKind: Equatable {
    case cut
    /// The outgoing clip fades out over the incoming one (the book's default).
    case dissolve
    /// The outgoing clip fades out while the incoming one fades in.
    case crossDissolve
    /// Both clips slide by one picture width or height; `dx, dy` is the outgoing clip's direction.
    case push(dx: Int, dy: Int)
    /// The outgoing clip is cut away from one edge; `dx, dy` is the direction the edge moves.
    case wipe(dx: Int, dy: Int)

    init(_ name: String) throws {
        switch name.lowercased() {
        case "cut", "none": self = .cut
        case "dissolve": self = .dissolve
        case "cross-dissolve", "crossdissolve", "cross_dissolve": self = .crossDissolve
        case "push", "push-left": self = .push(dx: -1, dy: 0)
        case "push-right": self = .push(dx: 1, dy: 0)
        case "push-up": self = .push(dx: 0, dy: -1)
        case "push-down": self = .push(dx: 0, dy: 1)
        case "wipe", "wipe-up": self = .wipe(dx: 0, dy: -1)
        case "wipe-down": self = .wipe(dx: 0, dy: 1)
        case "wipe-left": self = .wipe(dx: -1, dy: 0)
        case "wipe-right": self = .wipe(dx: 1, dy: 0)
        default:
            throw ComposeError("unknown transition “\(name)” (dissolve, cross-dissolve, push[-left|-right|-up|-down], "
                               + "wipe[-up|-down|-left|-right], cut)")
        }
    }

    var name: String {
        switch self {
        case .cut: return "cut"
        case .dissolve: return "dissolve"
        case .crossDissolve: return "cross-dissolve"
        case let .push(dx, dy): return "push-" + (dx < 0 ? "left" : dx > 0 ? "right" : dy < 0 ? "up" : "down")
        case let .wipe(dx, dy): return "wipe-" + (dx < 0 ? "left" : dx > 0 ? "right" : dy < 0 ? "up" : "down")
        }
    }
}

/// Where everything lands on the timeline, in exact times (timescale 600 for video, as the book
/// advises; 1/1000 s resolution for seconds given in the file).
struct ComposeLayout {
    struct Clip {
        var url: URL
        /// The range of the source's video used.
        var source: CMTimeRange
        /// Where it plays on the timeline.
        var at: CMTime
        /// Which of the two video tracks holds it (0 = A, 1 = B; always 0 without transitions).
        var lane: Int
        var timelineRange: CMTimeRange { CMTimeRange(start: at, duration: source.duration) }
    }

    struct Join {
        var kind: TransitionKind
        /// Where the clips overlap (empty for a cut).
        var range: CMTimeRange
        /// The outgoing and incoming clips.
        var from: Int, to: Int
    }

    struct AudioItem {
        var url: URL
        var source: CMTimeRange
        var at: CMTime
        var volume: Float
        var fadeIn: CMTime
        var fadeOut: CMTime
        var timelineRange: CMTimeRange { CMTimeRange(start: at, duration: source.duration) }
    }

    var clips: [Clip] = []
    var joins: [Join] = []
    var music: [AudioItem] = []
    var voiceOvers: [AudioItem] = []
    var duckLevel: Float = 0.2
    var duckFade = CMTime(value: 1, timescale: 2)
    var ducks = true
    /// Whether the clips alternate between two tracks (some join overlaps them).
    var usesTwoTracks: Bool { joins.contains { $0.kind != .cut } }
    /// The end of the last clip: the length of the output.
    var duration: CMTime { clips.map { $0.timelineRange.end }.max() ?? .zero }
}

/// Seconds from the file as an exact time (to the millisecond, at `timescale`).
func composeTime(_ seconds: Double, timescale: Int32 = 600) -> CMTime {
    CMTime(value: Int64((seconds * 1000).rounded()), timescale: 1000).convertScale(timescale, method: .roundHalfAwayFromZero)
}

extension ComposeTimeline {
    /// Lays the timeline out: `sourceDuration` gives each file's media duration for a media type
    /// (nil when the file has no such track). Follows the book's steps: clip i goes on track
    /// i % 2 when transitions are used, and the cursor moves by the clip's duration less the
    /// following transition's, so the timeline is shorter by the transitions; music items follow
    /// each other from 0 and stop at the end of the video; voice-overs sit at their time.
    func layout(relativeTo base: URL, sourceDuration: (URL, AVMediaType) throws -> CMTime?) throws -> ComposeLayout {
        guard !videos.isEmpty else { throw ComposeError("the timeline has no videos") }
        var layout = ComposeLayout()
        func resolve(_ file: String) -> URL {
            file.hasPrefix("/") ? URL(fileURLWithPath: file) : base.appendingPathComponent(file)
        }
        func range(_ file: URL, _ type: AVMediaType, start: Double?, duration: Double?, what: String) throws -> CMTimeRange {
            guard let length = try sourceDuration(file, type) else {
                throw ComposeError("\(what): \(file.lastPathComponent) has no \(type == .video ? "video" : "audio") track")
            }
            let from = composeTime(max(0, start ?? 0))
            guard from < length else { throw ComposeError("\(what) starts at \(start ?? 0) s, after the end of \(file.lastPathComponent) (\(String(format: "%.3f", length.seconds)) s)") }
            var span = duration.map { composeTime($0) } ?? CMTimeSubtract(length, from)
            if let duration, duration <= 0 { throw ComposeError("\(what) has a duration of \(duration) s") }
            if CMTimeAdd(from, span) > length { span = CMTimeSubtract(length, from) }
            return CMTimeRange(start: from, duration: span)
        }

        // Joins: transitions[i] between clip i and i + 1; a single entry applies to all.
        let given = transitions ?? []
        var kinds: [(TransitionKind, CMTime)] = []
        for i in 0..<max(0, videos.count - 1) {
            let entry = given.count == 1 ? given[0] : (i < given.count ? given[i] : nil)
            let kind = try entry.map { try TransitionKind($0.type) } ?? .cut
            let length = kind == .cut ? CMTime.zero : composeTime(entry?.duration ?? 1)
            if kind != .cut, length <= .zero { throw ComposeError("transition \(i + 1) has no duration") }
            kinds.append((kind, length))
        }
        let twoTracks = kinds.contains { $0.0 != .cut }
        var cursor = CMTime.zero
        for (i, video) in videos.enumerated() {
            let url = resolve(video.file)
            let source = try range(url, .video, start: video.start, duration: video.duration, what: "video \(i + 1)")
            let before = i > 0 ? kinds[i - 1].1 : .zero
            let after = i < kinds.count ? kinds[i].1 : .zero
            guard CMTimeAdd(before, after) <= source.duration else {
                throw ComposeError("video \(i + 1) (\(String(format: "%.3f", source.duration.seconds)) s) is shorter than the transitions into and out of it")
            }
            layout.clips.append(.init(url: url, source: source, at: cursor, lane: twoTracks ? i % 2 : 0))
            cursor = CMTimeAdd(cursor, CMTimeSubtract(source.duration, after))
            if i < kinds.count {
                layout.joins.append(.init(kind: kinds[i].0, range: CMTimeRange(start: cursor, duration: kinds[i].1), from: i, to: i + 1))
            }
        }
        let end = layout.duration

        var at = CMTime.zero
        for (i, item) in (music ?? []).enumerated() where at < end {
            let url = resolve(item.file)
            var source = try range(url, .audio, start: item.start, duration: item.duration, what: "music \(i + 1)")
            if CMTimeAdd(at, source.duration) > end { source.duration = CMTimeSubtract(end, at) }  // the music stops with the video
            layout.music.append(.init(url: url, source: source, at: at, volume: Float(item.volume ?? 1),
                                      fadeIn: composeTime(item.fadeIn ?? 0), fadeOut: composeTime(item.fadeOut ?? 0)))
            at = CMTimeAdd(at, source.duration)
        }
        for (i, item) in (voiceOvers ?? []).enumerated() {
            let url = resolve(item.file)
            var source = try range(url, .audio, start: item.start, duration: item.duration, what: "voice-over \(i + 1)")
            let start = composeTime(item.at)
            guard item.at >= 0, start < end else { throw ComposeError("voice-over \(i + 1) starts at \(item.at) s, outside the video (0–\(String(format: "%.3f", end.seconds)) s)") }
            if CMTimeAdd(start, source.duration) > end { source.duration = CMTimeSubtract(end, start) }
            if let last = layout.voiceOvers.last, last.timelineRange.end > start {
                throw ComposeError("voice-over \(i + 1) starts before voice-over \(i) ends")
            }
            layout.voiceOvers.append(.init(url: url, source: source, at: start, volume: Float(item.volume ?? 1), fadeIn: .zero, fadeOut: .zero))
        }
        layout.ducks = ducking?.enabled ?? true
        layout.duckLevel = Float(ducking?.level ?? 0.2)
        layout.duckFade = composeTime(ducking?.fade ?? 0.5)
        return layout
    }
}

extension ComposeLayout {
    /// The music's gain over the timeline as straight pieces, each one volume ramp: each item's
    /// fades times its volume, times the ducking under voice-overs (down over `duckFade` before a
    /// voice-over to `duckLevel`, back up over `duckFade` after it, as the book's builder does).
    func musicRamps() -> [(range: CMTimeRange, from: Float, to: Float)] {
        var times: [CMTime] = [.zero, duration]
        for item in music {
            let r = item.timelineRange
            times += [r.start, r.end, CMTimeAdd(r.start, item.fadeIn), CMTimeSubtract(r.end, item.fadeOut)]
        }
        if ducks {
            for vo in voiceOvers {
                let r = vo.timelineRange
                times += [CMTimeSubtract(r.start, duckFade), r.start, r.end, CMTimeAdd(r.end, duckFade)]
            }
        }
        var points: [CMTime] = []
        for t in times.filter({ $0 >= .zero && $0 <= duration }).sorted() where points.last.map({ $0 < t }) ?? true {
            points.append(t)
        }
        return zip(points, points.dropFirst()).map { a, b in
            (CMTimeRange(start: a, end: b), gain(at: a, approachingFromBefore: false), gain(at: b, approachingFromBefore: true))
        }
    }

    /// The music's gain at `t`, or just before it (the end of a piece): 0 where no music plays.
    func gain(at t: CMTime, approachingFromBefore: Bool) -> Float {
        let playing = music.first { item in
            let r = item.timelineRange
            return approachingFromBefore ? (r.start < t && t <= r.end) : (r.start <= t && t < r.end)
        }
        guard let item = playing else { return 0 }
        let r = item.timelineRange
        var g = item.volume
        if item.fadeIn > .zero, t < CMTimeAdd(r.start, item.fadeIn) {
            g *= Float(CMTimeSubtract(t, r.start).seconds / item.fadeIn.seconds)
        }
        if item.fadeOut > .zero, t > CMTimeSubtract(r.end, item.fadeOut) {
            g *= Float(CMTimeSubtract(r.end, t).seconds / item.fadeOut.seconds)
        }
        guard ducks else { return g }
        var duck: Float = 1
        for vo in voiceOvers {
            let v = vo.timelineRange
            let down = CMTimeSubtract(v.start, duckFade), up = CMTimeAdd(v.end, duckFade)
            if t >= v.start && t <= v.end {
                duck = min(duck, duckLevel)
            } else if t > down && t < v.start {
                duck = min(duck, 1 - (1 - duckLevel) * Float(CMTimeSubtract(t, down).seconds / duckFade.seconds))
            } else if t > v.end && t < up {
                duck = min(duck, duckLevel + (1 - duckLevel) * Float(CMTimeSubtract(t, v.end).seconds / duckFade.seconds))
            }
        }
        return g * duck
    }
}
