// SubtitleReader: the cues of a text subtitle stream (mov_text/tx3g, WebVTT, SubRip, ASS…)
// through the shared decoder — FFmpeg's subtitle decoders turn every format into ASS dialogue
// lines, which are read here into styled runs.
internal import CFFmpeg
import CoreMedia
import Foundation

/// One subtitle cue: text shown from `start` until `end`, in styled runs (lines separated by "\n").
package struct SubtitleCue: Sendable, Equatable {
    /// A stretch of text in one style.
    package struct Run: Sendable, Equatable {
        package var text: String
        package var isItalic = false
        package var isBold = false
        package var isUnderlined = false

        package init(text: String, isItalic: Bool = false, isBold: Bool = false, isUnderlined: Bool = false) {
            self.text = text
            self.isItalic = isItalic
            self.isBold = isBold
            self.isUnderlined = isUnderlined
        }
    }

    /// When the cue appears (the stream's timeline).
    package var start: CMTime
    /// When it goes away.
    package var end: CMTime
    /// The text.
    package var runs: [Run]

    package init(start: CMTime, end: CMTime, runs: [Run]) {
        self.start = start
        self.end = end
        self.runs = runs
    }

    /// The plain text.
    package var text: String { runs.map(\.text).joined() }
}

extension Decoder {
    /// Decodes one packet of a subtitle stream into the text it shows (nil: the packet shows
    /// nothing — an empty mov_text sample ending the previous cue, or a picture-based
    /// subtitle, which is not text). Several dialogue lines of one packet are stacked.
    package func decodeSubtitle(_ packet: DemuxerPacket) throws(FFmpegError) -> (runs: [SubtitleCue.Run], displayMilliseconds: UInt32)? {
        guard let context else { throw .invalidArgument }
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        let result = avcodec_decode_subtitle2(context, &subtitle, &got, packet.pointer)
        if result < 0 { throw FFmpegError(code: result) }
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        var runs: [SubtitleCue.Run] = []
        for i in 0..<Int(subtitle.num_rects) {
            guard let rect = subtitle.rects[i] else { continue }
            var lineRuns: [SubtitleCue.Run] = []
            if let ass = rect.pointee.ass {
                lineRuns = SubtitleText.runs(fromDialogue: String(cString: ass))
            } else if let text = rect.pointee.text {
                lineRuns = [SubtitleCue.Run(text: String(cString: text))]
            }
            lineRuns = SubtitleText.trimmed(lineRuns)
            guard !lineRuns.isEmpty else { continue }
            if !runs.isEmpty { runs.append(SubtitleCue.Run(text: "\n")) }
            runs += lineRuns
        }
        guard !runs.isEmpty else { return nil }
        return (SubtitleText.merged(runs), subtitle.end_display_time)
    }
}

/// ASS dialogue text into styled runs.
package enum SubtitleText {
    /// `"ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text"` (FFmpeg's dialogue
    /// form): the text's runs, override tags `{\i1}`, `{\b1}`, `{\u1}`, `{\r}` applied, others
    /// dropped, `\N`/`\n` as line breaks, `\h` as a space.
    package static func runs(fromDialogue line: String) -> [SubtitleCue.Run] {
        var fields = 0
        var index = line.startIndex
        while fields < 8, let comma = line[index...].firstIndex(of: ",") {
            index = line.index(after: comma)
            fields += 1
        }
        let text = fields == 8 ? String(line[index...]) : line
        var runs: [SubtitleCue.Run] = []
        var style = SubtitleCue.Run(text: "")
        var chars = Array(text)
        var i = 0
        func flush() {
            if !style.text.isEmpty { runs.append(style) }
            style.text = ""
        }
        while i < chars.count {
            let c = chars[i]
            if c == "{", let close = chars[i...].firstIndex(of: "}") {
                flush()
                apply(tags: String(chars[(i + 1)..<close]), to: &style)
                i = close + 1
                continue
            }
            if c == "\\", i + 1 < chars.count {
                switch chars[i + 1] {
                case "N", "n": style.text.append("\n"); i += 2; continue
                case "h": style.text.append(" "); i += 2; continue
                default: break
                }
            }
            style.text.append(c)
            i += 1
        }
        flush()
        chars.removeAll()
        return runs
    }

    /// The override tags of one `{…}` block that change italic, bold and underline.
    private static func apply(tags: String, to style: inout SubtitleCue.Run) {
        for tag in tags.split(separator: "\\") {
            let t = tag.trimmingCharacters(in: .whitespaces)
            if t == "r" || t.hasPrefix("r") && !t.hasPrefix("rnd") {
                style.isItalic = false
                style.isBold = false
                style.isUnderlined = false
            } else if t.hasPrefix("i"), let v = Int(t.dropFirst()) {
                style.isItalic = v != 0
            } else if t.hasPrefix("b"), !t.hasPrefix("bord"), !t.hasPrefix("blur"), !t.hasPrefix("be"), let v = Int(t.dropFirst()) {
                style.isBold = v != 0
            } else if t.hasPrefix("u"), let v = Int(t.dropFirst()) {
                style.isUnderlined = v != 0
            }
        }
    }

    /// Without leading and trailing blank lines and spaces.
    static func trimmed(_ runs: [SubtitleCue.Run]) -> [SubtitleCue.Run] {
        var r = runs
        while let first = r.first {
            let t = String(first.text.drop(while: { $0.isWhitespace }))
            if t.isEmpty { r.removeFirst() } else { r[0].text = t; break }
        }
        while let last = r.last {
            var t = last.text
            while let c = t.last, c.isWhitespace { t.removeLast() }
            if t.isEmpty { r.removeLast() } else { r[r.count - 1].text = t; break }
        }
        return r
    }

    /// Neighbouring runs of one style joined.
    static func merged(_ runs: [SubtitleCue.Run]) -> [SubtitleCue.Run] {
        var out: [SubtitleCue.Run] = []
        for run in runs {
            if var last = out.last, last.isItalic == run.isItalic, last.isBold == run.isBold, last.isUnderlined == run.isUnderlined {
                last.text += run.text
                out[out.count - 1] = last
            } else {
                out.append(run)
            }
        }
        return out
    }
}

/// Reads every cue of a text subtitle stream.
package enum SubtitleReader {
    /// The cues of stream `streamIndex` of `url`, in presentation order. A cue without a
    /// duration lasts until the next one starts (or for as long as the decoder says it shows).
    /// Picture-based subtitle streams (DVD, PGS) give no cues. Damaged data ends the list where
    /// it starts; a stream FFmpeg cannot decode is `.decoderNotFound`.
    package static func cues(url: URL, streamIndex: Int, cancellation: DemuxerCancellation = DemuxerCancellation()) throws(MediaError) -> [SubtitleCue] {
        let demuxer = try Demuxer(url: url, cancellation: cancellation)
        guard streamIndex >= 0, streamIndex < demuxer.streams.count else {
            throw .failedToParse(code: MediaError.streamNotFoundCode, message: "\(url.path): the subtitle stream is missing")
        }
        let stream = demuxer.streams[streamIndex]
        demuxer.selectStreams([streamIndex])
        let decoder = try demuxer.makeDecoder(stream: stream, threads: 1)
        var cues: [SubtitleCue] = []
        var openEnded: [Int] = []
        while true {
            let packet: DemuxerPacket?
            do {
                packet = try demuxer.readPacket()
            } catch {
                if case .cancelled = error { throw error }
                break  // damaged data: the cues before it
            }
            guard let packet else { break }
            guard packet.streamIndex == streamIndex else { continue }
            let start = packet.presentationTime.isValid ? packet.presentationTime : packet.decodeTime
            guard start.isNumeric else { continue }
            // A new cue (or an empty sample) ends cues still open.
            for i in openEnded where cues[i].end > start || !cues[i].end.isNumeric { cues[i].end = start }
            openEnded.removeAll()
            let decoded: (runs: [SubtitleCue.Run], displayMilliseconds: UInt32)?
            do {
                decoded = try decoder.decodeSubtitle(packet)
            } catch {
                continue  // one bad cue: the others still show
            }
            guard let decoded else { continue }
            var end = CMTime.positiveInfinity
            if packet.duration.isNumeric {
                end = start + packet.duration
            } else if decoded.displayMilliseconds > 0, decoded.displayMilliseconds != UInt32.max {
                end = start + CMTime(value: Int64(decoded.displayMilliseconds), timescale: 1000)
            }
            cues.append(SubtitleCue(start: start, end: end, runs: decoded.runs))
            if !packet.duration.isNumeric { openEnded.append(cues.count - 1) }
        }
        if stream.duration.isNumeric {
            let streamEnd = (stream.startTime.isNumeric ? stream.startTime : .zero) + stream.duration
            for i in cues.indices where !cues[i].end.isNumeric && streamEnd > cues[i].start { cues[i].end = streamEnd }
        }
        return cues.filter { $0.end > $0.start }.sorted { $0.start < $1.start }
    }
}
