// Text subtitle streams read into cues: mov_text in MP4, WebVTT in Matroska, SubRip and WebVTT
// side-cars, with their times, line breaks and italic/bold runs.
import CoreMedia
import Foundation
import MediaEngine
import Testing
import TestSupport

@Suite struct SubtitleReaderTests {
    private static let dir = TestTools.makeTemporaryDirectory("subtitle-reader")

    /// `offset`: where the file's timeline puts time zero of the subtitles (Matroska made by
    /// ffmpeg shifts every stream by the AAC priming, as it does the video).
    private func check(_ cues: [SubtitleCue], french: Bool = false, offset: Double = 0, _ comment: Comment) {
        let expected = french ? SubtitleMedia.frenchCues : SubtitleMedia.cues
        #expect(cues.count == expected.count, comment)
        for (cue, want) in zip(cues, expected) {
            #expect(abs(cue.start.seconds - want.start - offset) < 0.002, comment)
            #expect(abs(cue.end.seconds - want.end - offset) < 0.002, comment)
            #expect(cue.text == want.text, comment)
        }
    }

    private func subtitleStreams(_ url: URL) throws -> [StreamInfo] {
        try Demuxer(url: url).streams.filter { $0.kind == .subtitle }
    }

    @Test(arguments: ["mp4", "mkv"]) func textTracksOfAMovie(container: String) throws {
        let url = try SubtitleMedia.movie(in: Self.dir, container: container)
        let streams = try subtitleStreams(url)
        #expect(streams.count == 2)
        guard streams.count == 2 else { return }
        let video = try #require(try Demuxer(url: url).streams.first { $0.kind == .video })
        let offset = video.startTime.isNumeric ? video.startTime.seconds : 0
        check(try SubtitleReader.cues(url: url, streamIndex: streams[0].index), offset: offset, "\(container) English")
        check(try SubtitleReader.cues(url: url, streamIndex: streams[1].index), french: true, offset: offset, "\(container) French")
    }

    @Test func styledRunsSurviveMovText() throws {
        let url = try SubtitleMedia.movie(in: Self.dir, container: "mp4")
        let stream = try #require(try subtitleStreams(url).first)
        let cues = try SubtitleReader.cues(url: url, streamIndex: stream.index)
        try #require(cues.count == 3)
        #expect(cues[0].runs == [.init(text: "Hello "), .init(text: "world", isItalic: true)])
        #expect(cues[2].runs == [.init(text: "Bold", isBold: true), .init(text: " end")])
    }

    @Test func sideCarFiles() throws {
        for url in [try SubtitleMedia.srt(in: Self.dir), try SubtitleMedia.vtt(in: Self.dir)] {
            let streams = try subtitleStreams(url)
            #expect(streams.count == 1, "\(url.lastPathComponent)")
            guard let stream = streams.first else { continue }
            let cues = try SubtitleReader.cues(url: url, streamIndex: stream.index)
            check(cues, "\(url.lastPathComponent)")
            #expect(cues.first?.runs.last == .init(text: "world", isItalic: true), "\(url.lastPathComponent)")
        }
    }

    @Test func assDialogueTags() {
        let runs = SubtitleText.runs(fromDialogue: "0,0,Default,,0,0,0,,{\\an8}Top {\\i1}slanted{\\i0}\\Nnext{\\b1\\u1}strong{\\r} plain\\hend")
        #expect(runs == [.init(text: "Top "), .init(text: "slanted", isItalic: true), .init(text: "\nnext"),
                         .init(text: "strong", isBold: true, isUnderlined: true), .init(text: " plain end")])
    }

    @Test func aVideoStreamIsNoSubtitleStream() throws {
        let url = try SubtitleMedia.movie(in: Self.dir, container: "mp4")
        #expect(throws: MediaError.self) { try SubtitleReader.cues(url: url, streamIndex: 99) }
    }
}
