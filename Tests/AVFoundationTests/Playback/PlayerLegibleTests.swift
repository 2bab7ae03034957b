// Subtitles in the player: media selection chooses the legible track, AVPlayerItemLegibleOutput
// pushes its cues as attributed strings at their item times (after seeks too), the audible
// group chooses the sound that plays, and the player layer's window draws the text.
import AVFoundation
import CoreMedia
import Foundation
import Synchronization
import Testing
import TestSupport

/// Records what a legible output's delegate is told. Thread-safe.
final class LegibleRecorder: NSObject, AVPlayerItemLegibleOutputPushDelegate, Sendable {
    struct Delivery: Sendable, Equatable {
        var texts: [String]
        var time: Double
    }

    /// The strings of each delivery. @unchecked Sendable: delivered strings are not changed.
    struct Strings: @unchecked Sendable {
        let strings: [NSAttributedString]
    }

    let deliveries = Mutex<[(Delivery, Strings)]>([])
    /// Each delivery's native samples: (media subtype, bytes, start s, duration s).
    let natives = Mutex<[[(subtype: FourCharCode, bytes: [UInt8], start: Double, duration: Double)]]>([])
    let flushes = Mutex(0)

    func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                       nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime) {
        let delivery = Delivery(texts: strings.map(\.string), time: itemTime.seconds)
        deliveries.withLock { $0.append((delivery, Strings(strings: strings))) }
        let samples = nativeSamples.map { any -> (subtype: FourCharCode, bytes: [UInt8], start: Double, duration: Double) in
            let sample = any as! CMSampleBuffer
            var bytes: [UInt8] = []
            if let block = CMSampleBufferGetDataBuffer(sample) {
                bytes = [UInt8](repeating: 0, count: CMBlockBufferGetDataLength(block))
                bytes.withUnsafeMutableBytes { _ = CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
            }
            let subtype = CMSampleBufferGetFormatDescription(sample).map(CMFormatDescriptionGetMediaSubType) ?? 0
            return (subtype, bytes, CMSampleBufferGetPresentationTimeStamp(sample).seconds, CMSampleBufferGetDuration(sample).seconds)
        }
        natives.withLock { $0.append(samples) }
    }

    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {
        flushes.withLock { $0 += 1 }
    }

    var texts: [Delivery] { deliveries.withLock { $0.map(\.0) } }
    var lastStrings: [NSAttributedString] { deliveries.withLock { $0.last?.1.strings ?? [] } }
    func reset() { deliveries.withLock { $0.removeAll() } }
}

@Suite(.serialized) struct PlayerLegibleTests {
    private static let dir = TestTools.makeTemporaryDirectory("player-legible")

    private func ready(_ url: URL) throws -> (AVPlayer, AVPlayerItem, AVMediaSelectionGroup, AVPlayerItemLegibleOutput, LegibleRecorder) {
        try ready(asset: AVURLAsset(url: url))
    }

    @Test func subtitlesAreOffUntilSelectedThenPushedAtTheirTimes() throws {
        let url = try SubtitleMedia.movie(in: Self.dir)
        let (player, item, group, output, recorder) = try ready(url)
        #expect(group.options.count == 2)
        #expect(group.allowsEmptySelection)
        #expect(group.options.map { $0.extendedLanguageTag } == ["en", "fr"])
        // Off by default (no forced subtitles): nothing is pushed.
        #expect(item.currentMediaSelection.selectedMediaOption(in: group) == nil)
        usleep(300_000)
        #expect(recorder.texts.isEmpty)

        item.select(group.options[0], in: group)
        #expect(item.currentMediaSelection.selectedMediaOption(in: group) === group.options[0])
        player.rate = 2
        #expect(waitUntil(timeout: 15) { recorder.texts.count >= 6 })
        // Nothing is said while nothing shows at the start; then each change, at its time.
        let expected: [LegibleRecorder.Delivery] = [
            .init(texts: ["Hello world"], time: 0.5), .init(texts: [], time: 1.5),
            .init(texts: ["Second line one\nsecond line two"], time: 2.0), .init(texts: [], time: 3.25),
            .init(texts: ["Bold end"], time: 4.0), .init(texts: [], time: 5.0),
        ]
        let got = recorder.texts
        #expect(got.map(\.texts) == expected.map(\.texts), "\(got)")
        for (g, e) in zip(got, expected) { #expect(abs(g.time - e.time) < 0.01, "\(got)") }
        withExtendedLifetime(output) {}
    }

    @Test func stringsCarryTextMarkupStyles() throws {
        let url = try SubtitleMedia.movie(in: Self.dir)
        let (player, item, group, output, recorder) = try ready(url)
        item.select(group.options[0], in: group)
        let sought = DispatchSemaphore(value: 0)
        player.seek(to: CMTime(value: 1, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { _ in sought.signal() }
        #expect(sought.wait(timeout: .now() + 10) == .success)
        #expect(waitUntil { recorder.texts.last?.texts == ["Hello world"] })
        let string = try #require(recorder.lastStrings.first)
        let italic = NSAttributedString.Key(rawValue: kCMTextMarkupAttribute_ItalicStyle as String)
        let colour = NSAttributedString.Key(rawValue: kCMTextMarkupAttribute_ForegroundColorARGB as String)
        let world = (string.string as NSString).range(of: "world")
        #expect(string.attribute(italic, at: world.location, effectiveRange: nil) as? Bool == true)
        #expect(string.attribute(italic, at: 0, effectiveRange: nil) == nil)
        #expect(string.attribute(colour, at: 0, effectiveRange: nil) as? [Double] == [1, 1, 1, 1])
        output.textStylingResolution = .sourceAndRulesOnly
        withExtendedLifetime((player, output)) {}
    }

    @Test func seekingAndSwitchingLanguageRePushTheTextShowing() throws {
        let url = try SubtitleMedia.movie(in: Self.dir, container: "mkv")
        let (player, item, group, output, recorder) = try ready(url)
        item.select(group.options[0], in: group)
        let flushesBefore = recorder.flushes.withLock { $0 }
        let sought = DispatchSemaphore(value: 0)
        player.seek(to: CMTime(value: 25, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero) { _ in sought.signal() }
        #expect(sought.wait(timeout: .now() + 10) == .success)
        #expect(waitUntil { recorder.texts.last?.texts == ["Second line one\nsecond line two"] }, "\(recorder.texts)")
        #expect(recorder.flushes.withLock { $0 } > flushesBefore)
        // The start of the cue showing, on the file's timeline.
        let offset = item.asset.tracks(withMediaType: .video).first?.timeRange.start.seconds ?? 0
        #expect(abs((recorder.texts.last?.time ?? 0) - 2.0 - offset) < 0.01, "\(recorder.texts) offset \(offset)")
        item.select(group.options[1], in: group)
        #expect(waitUntil { recorder.texts.last?.texts == ["Deuxième ligne un\ndeuxième ligne deux"] }, "\(recorder.texts)")
        // Off: the text goes away and nothing more comes.
        item.select(nil, in: group)
        #expect(item.currentMediaSelection.selectedMediaOption(in: group) == nil)
        usleep(200_000)
        recorder.reset()
        player.rate = 2
        usleep(800_000)
        player.rate = 0
        #expect(recorder.texts.isEmpty, "\(recorder.texts)")
        withExtendedLifetime(output) {}
    }

    @Test func advanceIntervalCallsEarly() throws {
        let url = try SubtitleMedia.movie(in: Self.dir)
        let (player, item, group, output, recorder) = try ready(url)
        output.advanceIntervalForDelegateInvocation = 1
        item.select(group.options[0], in: group)
        let sought = DispatchSemaphore(value: 0)
        player.seek(to: CMTime(value: 1, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero) { _ in sought.signal() }
        #expect(sought.wait(timeout: .now() + 10) == .success)
        // At 0.1 s, one second ahead is 1.1 s: cue 1 (0.5–1.5) is already delivered, for its own time.
        #expect(waitUntil { recorder.texts.last?.texts == ["Hello world"] }, "\(recorder.texts)")
        #expect(abs((recorder.texts.last?.time ?? 0) - 0.5) < 0.01)
        #expect(player.currentTime().seconds < 0.5)
        withExtendedLifetime((player, output)) {}
    }

    @Test func aSideCarFileIsATextTrackOfAComposition() async throws {
        let movie = AVURLAsset(url: PlayerMedia.clip(seconds: 6))
        let subs = AVURLAsset(url: try SubtitleMedia.srt(in: Self.dir))
        let composition = AVMutableComposition()
        let duration = try await movie.load(.duration)
        let range = CMTimeRange(start: .zero, duration: duration)
        for type in [AVMediaType.video, .audio] {
            let source = try #require(try await movie.loadTracks(withMediaType: type).first)
            let track = try #require(composition.addMutableTrack(withMediaType: type, preferredTrackID: kCMPersistentTrackID_Invalid))
            try track.insertTimeRange(range, of: source, at: .zero)
        }
        let subsTracks = try await subs.load(.tracks)
        let text = try #require(subsTracks.first { $0.mediaType == .text || $0.mediaType == .subtitle })
        let textTrack = try #require(composition.addMutableTrack(withMediaType: text.mediaType, preferredTrackID: kCMPersistentTrackID_Invalid))
        // The side-car starts one second later in the movie.
        // A subtitle file's track runs from zero to its last cue's end.
        #expect(text.timeRange == CMTimeRange(start: .zero, end: CMTime(value: 5, timescale: 1)), "\(text.timeRange)")
        try textTrack.insertTimeRange(text.timeRange, of: text, at: CMTime(value: 1, timescale: 1))
        let (player, item, group, output, recorder) = try ready(asset: composition)
        item.select(group.options.first, in: group)
        let sought = DispatchSemaphore(value: 0)
        player.seek(to: CMTime(value: 16, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero) { _ in sought.signal() }
        #expect(sought.wait(timeout: .now() + 10) == .success)
        #expect(waitUntil { recorder.texts.last?.texts == ["Hello world"] }, "\(recorder.texts)")
        #expect(abs((recorder.texts.last?.time ?? 0) - 1.5) < 0.01)
        // The last cue, 4–5 s in the file, shows at 5–6 s.
        recorder.reset()
        let later = DispatchSemaphore(value: 0)
        player.seek(to: CMTime(value: 55, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero) { _ in later.signal() }
        #expect(later.wait(timeout: .now() + 10) == .success)
        #expect(waitUntil { recorder.texts.last?.texts == ["Bold end"] }, "\(recorder.texts)")
        #expect(abs((recorder.texts.last?.time ?? 0) - 5.0) < 0.01)
        withExtendedLifetime((player, output)) {}
    }

    /// An output made for a subtype natively gets that track's cues as sample buffers in the
    /// track's own sample format, with the cue's time and duration, and no strings for them.
    @Test(arguments: [("mp4", kCMTextFormatType_3GText), ("mkv", kCMSubtitleFormatType_WebVTT)])
    func nativeSubtypesComeAsSampleBuffers(container: String, subtype: FourCharCode) throws {
        let asset = AVURLAsset(url: try SubtitleMedia.movie(in: Self.dir, container: container))
        let (player, item, group, output, recorder) = try ready(
            asset: asset, output: AVPlayerItemLegibleOutput(mediaSubtypesForNativeRepresentation: [NSNumber(value: subtype)]))
        item.select(group.options[0], in: group)
        player.rate = 2
        let end = "Bold end"
        func text(_ bytes: [UInt8]) -> String {
            if subtype == kCMTextFormatType_3GText, bytes.count >= 2 {
                #expect(Int(bytes[0]) << 8 | Int(bytes[1]) == bytes.count - 2)
                return String(decoding: bytes.dropFirst(2), as: UTF8.self)
            }
            // 'vttc' box holding a 'payl' box.
            guard bytes.count >= 16, String(decoding: bytes[4..<8], as: UTF8.self) == "vttc",
                  String(decoding: bytes[12..<16], as: UTF8.self) == "payl" else { return "?" }
            return String(decoding: bytes.dropFirst(16), as: UTF8.self)
        }
        #expect(waitUntil { recorder.natives.withLock { $0.last?.first.map { text($0.bytes) } } == end })
        let natives = recorder.natives.withLock { $0 }
        let shown = natives.compactMap(\.first)
        #expect(shown.map { text($0.bytes) } == SubtitleMedia.cues.map(\.text))
        #expect(shown.allSatisfy { $0.subtype == subtype })
        // ffmpeg's Matroska muxer shifts every stream by the AAC priming (21 ms): the cues sit there.
        let shift = container == "mkv" ? 0.021 : 0
        for (sample, cue) in zip(shown, SubtitleMedia.cues) {
            #expect(abs(sample.start - shift - cue.start) < 0.002 && abs(sample.duration - (cue.end - cue.start)) < 0.002, "\(sample.start)+\(sample.duration)")
        }
        #expect(recorder.texts.allSatisfy { $0.texts.isEmpty }, "no strings for native cues: \(recorder.texts)")
        withExtendedLifetime((player, output)) {}
    }

    /// A ready player of `asset` with a legible output whose delegate records what it is told.
    private func ready(asset: AVAsset, output: AVPlayerItemLegibleOutput = AVPlayerItemLegibleOutput()) throws
        -> (AVPlayer, AVPlayerItem, AVMediaSelectionGroup, AVPlayerItemLegibleOutput, LegibleRecorder) {
        let item = AVPlayerItem(asset: asset)
        let recorder = LegibleRecorder()
        output.setDelegate(recorder, queue: DispatchQueue(label: "legible-test"))
        item.add(output)
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        let group = try #require(asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        return (player, item, group, output, recorder)
    }
}
