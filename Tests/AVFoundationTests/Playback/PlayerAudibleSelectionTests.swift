// The audible media selection group chooses which of a file's audio tracks a player plays.
@testable import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite(.serialized) struct PlayerAudibleSelectionTests {
    /// 2 s of video with two AAC tracks, English (440 Hz) then French (880 Hz).
    private static let movie: URL = {
        let url = TestTools.makeTemporaryDirectory("player-audible").appendingPathComponent("two-languages.mp4")
        _ = try? TestTools.run("ffmpeg", [
            "-nostdin", "-y", "-loglevel", "error",
            "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=2",
            "-f", "lavfi", "-i", "sine=f=440:r=48000:d=2", "-f", "lavfi", "-i", "sine=f=880:r=48000:d=2",
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-disposition:a:1", "0",
            url.path,
        ])
        return url
    }()

    @Test func theSelectedLanguagePlaysAndTheOtherDoesNot() throws {
        let item = AVPlayerItem(url: Self.movie)
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        let group = try #require(item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible))
        #expect(group.options.map(\.extendedLanguageTag) == ["en", "fr"])
        #expect(!group.allowsEmptySelection)
        let audio = item.asset.tracks(withMediaType: .audio)
        #expect(audio.count == 2)
        // By default the group's default option, English.
        #expect(item.currentMediaSelection.selectedMediaOption(in: group) === group.defaultOption)
        #expect(PlaybackEngine.selectedAudio(audio, item: item).map(\.trackID) == [audio[0].trackID])
        item.select(group.options[1], in: group)
        #expect(PlaybackEngine.selectedAudio(audio, item: item).map(\.trackID) == [audio[1].trackID])
        // Nil is refused in a group that needs a selection; the French stays.
        item.select(nil, in: group)
        #expect(item.currentMediaSelection.selectedMediaOption(in: group) === group.options[1])
        // The player re-opens where it was and stays ready.
        #expect(waitUntil { item.status == .readyToPlay && player.currentItem === item })
        player.play()
        #expect(waitUntil { player.currentTime().seconds > 0.3 })
        player.pause()
    }
}
