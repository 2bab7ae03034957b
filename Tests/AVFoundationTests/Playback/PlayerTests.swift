// AVPlayer and AVPlayerItem as the guide and the book describe them (acceptance AT-P1–AT-P4).
import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite(.serialized) struct PlayerTests {
    @Test func itemBecomesReadyAndPlaysToTheEnd() throws {
        let url = PlayerMedia.clip(seconds: 1.5)
        let item = AVPlayerItem(url: url)
        #expect(item.status == .unknown)
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let player = AVPlayer(playerItem: item)
        #expect(player.status == .readyToPlay)
        #expect(waitUntil { item.status == .readyToPlay })
        #expect(item.duration == CMTime(value: 1536, timescale: 1024) || abs(item.duration.seconds - 1.5) < 0.05)
        #expect(item.presentationSize == CGSize(width: 320, height: 240))
        #expect(item.tracks.count == 2)
        player.play()
        #expect(player.rate == 1)
        #expect(ended.wait(timeout: 10))
        #expect(player.rate == 0)
        #expect(player.timeControlStatus == .paused)
        let end = player.currentTime()
        #expect(abs(end.seconds - item.duration.seconds) < 0.001)
        // At the end play does nothing until a seek.
        player.play()
        #expect(player.rate == 0)
        usleep(200_000)
        #expect(player.currentTime() == end)
        #expect(ended.count == 1)
        // Seek to zero and play again: replays to the end.
        let sought = DispatchSemaphore(value: 0)
        player.seek(to: .zero) { finished in
            #expect(finished)
            sought.signal()
        }
        #expect(sought.wait(timeout: .now() + 10) == .success)
        #expect(player.currentTime() == .zero)
        player.play()
        #expect(ended.wait(count: 2, timeout: 10))
    }
}
