// A player's sourceClock drives its item's time, as Apple's does.
import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

/// A player's `sourceClock`: the item's time follows the clock given, not the host's.
@Suite(.serialized) struct PlayerSourceClockTests {
    @Test func theItemTimeFollowsTheSourceClock() throws {
        let item = AVPlayerItem(url: PlayerMedia.clip(seconds: 4))
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        let time = Mutex(CMTime(value: 1000, timescale: 1))
        let clock = CMClock(name: "manual") { time.withLock { $0 } }
        player.sourceClock = clock
        #expect(player.sourceClock == clock)
        player.play()
        #expect(waitUntil { player.timeControlStatus == .playing && player.rate == 1 })
        usleep(200_000)
        // The clock stands still, so does the item's time.
        let standing = player.currentTime()
        usleep(300_000)
        #expect(player.currentTime() == standing)
        // Two seconds on the clock: two seconds of the item.
        time.withLock { $0 = $0 + CMTime(value: 2, timescale: 1) }
        #expect(abs((player.currentTime() - standing).seconds - 2) < 0.001, "\(player.currentTime().seconds) after \(standing.seconds)")
        // Back on the host clock: time runs again from where it is.
        player.sourceClock = nil
        let resumed = player.currentTime()
        #expect(abs((resumed - standing).seconds - 2) < 0.05)
        #expect(waitUntil { player.currentTime() > resumed + CMTime(value: 1, timescale: 10) })
        player.pause()
    }
}
