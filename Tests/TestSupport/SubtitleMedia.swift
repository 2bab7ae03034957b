// Subtitle media for the tests: SubRip and WebVTT side-cars written here, and movies with text
// tracks (mov_text in MP4, WebVTT in Matroska) made from them with the ffmpeg CLI.
import Foundation
import Glibc

package enum SubtitleMedia {
    /// The cues every subtitle fixture holds: (start s, end s, plain text) — the second line of
    /// cue 2 is a line break; "world" in cue 1 is italic, "Bold" in cue 3 bold.
    package static let cues: [(start: Double, end: Double, text: String)] = [
        (0.5, 1.5, "Hello world"),
        (2.0, 3.25, "Second line one\nsecond line two"),
        (4.0, 5.0, "Bold end"),
    ]

    /// The same cues in French, for a second subtitle track.
    package static let frenchCues: [(start: Double, end: Double, text: String)] = [
        (0.5, 1.5, "Bonjour le monde"),
        (2.0, 3.25, "Deuxième ligne un\ndeuxième ligne deux"),
        (4.0, 5.0, "Fin en gras"),
    ]

    private static func srtTime(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        return String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    /// A SubRip file of `french` or the English cues, with `<i>`/`<b>` styling.
    package static func srt(in dir: URL, french: Bool = false) throws -> URL {
        let url = dir.appendingPathComponent(french ? "subs-fr.srt" : "subs.srt")
        let texts = french ? ["Bonjour <i>le monde</i>", "Deuxième ligne un\ndeuxième ligne deux", "<b>Fin</b> en gras"]
                           : ["Hello <i>world</i>", "Second line one\nsecond line two", "<b>Bold</b> end"]
        var out = ""
        for (i, cue) in cues.enumerated() {
            out += "\(i + 1)\n\(srtTime(cue.start)) --> \(srtTime(cue.end))\n\(texts[i])\n\n"
        }
        try out.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// A WebVTT file of the English cues.
    package static func vtt(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("subs.vtt")
        var out = "WEBVTT\n\n"
        let texts = ["Hello <i>world</i>", "Second line one\nsecond line two", "<b>Bold</b> end"]
        for (i, cue) in cues.enumerated() {
            out += "\(srtTime(cue.start).replacingOccurrences(of: ",", with: ".")) --> \(srtTime(cue.end).replacingOccurrences(of: ",", with: "."))\n\(texts[i])\n\n"
        }
        try out.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// A 6 s 320×240 30 fps movie (silent AAC) with two subtitle tracks, English then French:
    /// mov_text in an MP4 (`container` "mp4"), WebVTT in Matroska ("mkv").
    package static func movie(in dir: URL, container: String = "mp4") throws -> URL {
        let url = dir.appendingPathComponent("subtitled.\(container)")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let english = try srt(in: dir)
        let french = try srt(in: dir, french: true)
        let codec = container == "mp4" ? "mov_text" : "webvtt"
        // Made under a name of its own and renamed when complete: tests running side by side
        // never see a half-written file.
        let partial = dir.appendingPathComponent("subtitled-\(UUID().uuidString).\(container)")
        let (status, _) = try TestTools.run("ffmpeg", [
            "-nostdin", "-y", "-loglevel", "error",
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=6",
            "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=6",
            "-i", english.path, "-i", french.path,
            "-map", "0:v", "-map", "1:a", "-map", "2:s", "-map", "3:s",
            "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "64k", "-c:s", codec,
            "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=fra",
            "-disposition:s:0", "default", "-shortest", partial.path,
        ])
        guard status == 0 else { throw CocoaError(.fileWriteUnknown) }
        if rename(partial.path, url.path) != 0 { try? FileManager.default.removeItem(at: partial) }
        return url
    }
}
