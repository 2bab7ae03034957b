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

    /// A clock a little slower than the host (as the audio clock can be): timers set for host
    /// deadlines find the item's time a fraction of a millisecond short of their target, and
    /// each periodic and boundary time is still called exactly once.
    @Test func observersFireOnceOnAClockSlowerThanTheHost() throws {
        let item = AVPlayerItem(url: PlayerMedia.clip(seconds: 2.5))
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        player.sourceClock = CMClock(name: "slow") {
            let host = CMClockGetTime(CMClockGetHostTimeClock())
            return CMTime(value: host.value - host.value / 2000, timescale: host.timescale)   // 0.05 % slow
        }
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let periodic = Mutex<[CMTime]>([]), crossed = Mutex<[Double]>([])
        let token = player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 4), queue: DispatchQueue(label: "periodic")) { time in
            periodic.withLock { $0.append(time) }
        }
        let boundary = player.addBoundaryTimeObserver(forTimes: [0.5, 1.0, 1.5].map { NSValue(time: CMTime(seconds: $0, preferredTimescale: 600)) },
                                                      queue: DispatchQueue(label: "boundary")) {
            crossed.withLock { $0.append(player.currentTime().seconds) }
        }
        player.play()
        #expect(ended.wait(timeout: 15))
        usleep(100_000)
        // The last call is the stop at the end (observers are called when the rate changes).
        let times = periodic.withLock { $0 }.dropLast()
        #expect(Set(times).count == times.count, "a time called twice: \(times.map(\.seconds))")
        #expect(times.count >= 9)
        #expect(crossed.withLock { $0 }.count == 3, "\(crossed.withLock { $0 })")
        player.removeTimeObserver(token)
        player.removeTimeObserver(boundary)
    }
}
