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

/// Seeks, time observers and queues (acceptance AT-P2–AT-P4).
@Suite(.serialized) struct PlayerSeekAndObserverTests {
    /// A ready player on `url` with a BGRA video output on its item.
    private func readyPlayer(_ url: URL) -> (AVPlayer, AVPlayerItem, AVPlayerItemVideoOutput) {
        let item = AVPlayerItem(url: url)
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        item.add(output)
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        return (player, item, output)
    }

    /// The number on the picture the output shows at the player's current time.
    private func shownNumber(_ player: AVPlayer, _ output: AVPlayerItemVideoOutput) -> (Int?, CMTime) {
        let now = player.currentTime()
        guard waitUntil({ output.hasNewPixelBuffer(forItemTime: now) }) else { return (nil, .invalid) }
        var shown = CMTime.invalid
        guard let buffer = output.copyPixelBuffer(forItemTime: now, itemTimeForDisplay: &shown) else { return (nil, .invalid) }
        return (PlayerMedia.number(in: buffer), shown)
    }

    private func seek(_ player: AVPlayer, to time: CMTime, before: CMTime? = nil, after: CMTime? = nil) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex(false)
        let handler: @Sendable (Bool) -> Void = { finished in
            result.withLock { $0 = finished }
            done.signal()
        }
        if let before, let after {
            player.seek(to: time, toleranceBefore: before, toleranceAfter: after, completionHandler: handler)
        } else {
            player.seek(to: time, completionHandler: handler)
        }
        guard done.wait(timeout: .now() + 10) == .success else { return false }
        return result.withLock { $0 }
    }

    @Test func exactSeekLandsOnTheFrameAndDefaultSeekOnAKeyframe() throws {
        let (player, _, output) = readyPlayer(PlayerMedia.numbered)
        // Zero tolerance: frame-exact, 150/30.
        #expect(seek(player, to: CMTime(value: 5, timescale: 1), before: .zero, after: .zero))
        #expect(player.currentTime() == CMTime(value: 150, timescale: 30))
        let (number, shown) = shownNumber(player, output)
        #expect(number == 150)
        #expect(shown == CMTime(value: 5, timescale: 1))
        // A frame that is not a keyframe, deep in a GOP.
        #expect(seek(player, to: CMTime(value: 297, timescale: 30), before: .zero, after: .zero))
        #expect(shownNumber(player, output).0 == 297)
        // The default (infinite tolerance): the nearest keyframe — frames 144 (4.8 s) and 192 (6.4 s)
        // surround 5 s; 144 is nearer. Within one GOP (48 frames) of the request.
        #expect(seek(player, to: CMTime(value: 5, timescale: 1)))
        let landed = player.currentTime()
        #expect(abs(landed.seconds - 5) <= 48.0 / 30)
        #expect(landed == CMTime(value: 144, timescale: 30))
        #expect(shownNumber(player, output).0 == 144)
        // Tolerance that excludes every keyframe: exact after all.
        #expect(seek(player, to: CMTime(value: 5, timescale: 1), before: CMTime(value: 1, timescale: 10), after: CMTime(value: 1, timescale: 10)))
        #expect(player.currentTime() == CMTime(value: 5, timescale: 1))
        #expect(shownNumber(player, output).0 == 150)
    }

    @Test func stepMovesOneFrameEitherWay() throws {
        let (player, item, output) = readyPlayer(PlayerMedia.numbered)
        #expect(seek(player, to: CMTime(value: 100, timescale: 30), before: .zero, after: .zero))
        item.step(byCount: 1)
        #expect(waitUntil { player.currentTime() == CMTime(value: 101, timescale: 30) })
        #expect(shownNumber(player, output).0 == 101)
        item.step(byCount: -2)
        #expect(waitUntil { player.currentTime() == CMTime(value: 99, timescale: 30) })
        #expect(shownNumber(player, output).0 == 99)
    }

    @Test func periodicObserverFiresWhilePlayingAndOnJumps() throws {
        let item = AVPlayerItem(url: PlayerMedia.clip(seconds: 4))
        item.forwardPlaybackEndTime = CMTime(value: 3, timescale: 1)
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let stalls = NotificationRecorder(.AVPlayerItemPlaybackStalled, object: item)
        let times = Mutex<[CMTime]>([])
        let token = player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 2), queue: DispatchQueue(label: "periodic")) { time in
            times.withLock { $0.append(time) }
        }
        player.play()
        #expect(ended.wait(timeout: 30))
        usleep(100_000)
        let played = times.withLock { $0 }
        // 0.5 s over 3 s of playback: 6–8 calls (AT-P3), in order — plus a stop and a start for
        // each stall, when a loaded machine could not decode in time (observers fire on rate changes).
        #expect((6...(8 + 2 * stalls.count)).contains(played.count), "\(played.map(\.seconds)), \(stalls.count) stalls")
        #expect(played == played.sorted())
        // A jump: one more call, at the new time.
        #expect(seek(player, to: CMTime(value: 1, timescale: 1), before: .zero, after: .zero))
        #expect(waitUntil { times.withLock { $0.count } == played.count + 1 })
        usleep(300_000)
        #expect(times.withLock { $0.count } == played.count + 1)
        #expect(times.withLock { $0.last } == CMTime(value: 1, timescale: 1))
        // Removed: nothing more.
        player.removeTimeObserver(token)
        let count = times.withLock { $0.count }
        #expect(seek(player, to: CMTime(value: 2, timescale: 1), before: .zero, after: .zero))
        usleep(300_000)
        #expect(times.withLock { $0.count } == count)
    }

    @Test func boundaryObserverFiresOnceEachAndBlocksNeverOverlap() throws {
        let item = AVPlayerItem(url: PlayerMedia.clip(seconds: 2.5))
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let crossed = Mutex<[CMTime]>([])
        _ = player.addBoundaryTimeObserver(forTimes: [NSValue(time: CMTime(value: 1, timescale: 1)), NSValue(time: CMTime(value: 2, timescale: 1))],
                                           queue: DispatchQueue(label: "boundary")) {
            crossed.withLock { $0.append(player.currentTime()) }
        }
        // A periodic block that sleeps 1 s on a concurrent queue is never re-entered.
        let active = Mutex(0), most = Mutex(0), calls = Mutex(0)
        let token = player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 10),
                                                   queue: DispatchQueue(label: "slow", attributes: .concurrent)) { _ in
            let now = active.withLock { $0 += 1; return $0 }
            most.withLock { $0 = max($0, now) }
            calls.withLock { $0 += 1 }
            sleep(1)
            active.withLock { $0 -= 1 }
        }
        player.play()
        #expect(ended.wait(timeout: 10))
        #expect(waitUntil { active.withLock { $0 } == 0 })
        let times = crossed.withLock { $0 }
        #expect(times.count == 2, "\(times.map(\.seconds))")
        if times.count == 2 {
            #expect(abs(times[0].seconds - 1) < 0.25)
            #expect(abs(times[1].seconds - 2) < 0.25)
        }
        #expect(most.withLock { $0 } == 1)
        #expect(calls.withLock { $0 } >= 2)
        player.removeTimeObserver(token)
    }

    @Test func queuePlayerAdvancesInsertsAndEmpties() throws {
        let urls = (0..<4).map { PlayerMedia.clip(seconds: 0.5 + Double($0) * 0.1) }
        let a = AVPlayerItem(url: urls[0]), b = AVPlayerItem(url: urls[1]), c = AVPlayerItem(url: urls[2])
        let d = AVPlayerItem(url: urls[3])
        let queue = AVQueuePlayer(items: [a, b, c])
        #expect(queue.currentItem === a)
        #expect(queue.items().count == 3)
        queue.advanceToNextItem()
        #expect(queue.currentItem === b)
        #expect(queue.items().count == 2)
        #expect(queue.canInsert(d, after: nil))
        queue.insert(d, after: nil)
        #expect(queue.items().last === d)
        // B plays to its end and the queue moves on to C by itself.
        let endedB = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: b)
        queue.play()
        #expect(endedB.wait(timeout: 10))
        #expect(waitUntil { queue.currentItem === c })
        #expect(queue.rate == 1)
        queue.removeAllItems()
        #expect(queue.currentItem == nil)
        #expect(queue.items().isEmpty)
    }

    @Test func missingFileFailsTheItemWithAnError() throws {
        let url = URL(fileURLWithPath: "/nonexistent/clip.mp4")
        let item = AVPlayerItem(url: url)
        let statuses = Mutex<[AVPlayerItem.Status]>([])
        let observation = item.observe(\.status, options: [.new]) { item, _ in
            statuses.withLock { $0.append(item.status) }
        }
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .failed })
        #expect(item.error != nil)
        #expect(statuses.withLock { $0 } == [.failed])
        player.play()
        #expect(player.timeControlStatus != .playing)
        observation.invalidate()
    }
}

/// Rate, looping and damaged files.
@Suite(.serialized) struct PlayerRateLoopAndFaultTests {
    @Test func rateTwoPlaysInHalfTheTime() throws {
        let item = AVPlayerItem(url: PlayerMedia.clip(seconds: 3))
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let start = Date()
        player.rate = 2
        #expect(player.rate == 2)
        #expect(player.timeControlStatus != .paused)
        #expect(ended.wait(timeout: 10))
        let wall = Date().timeIntervalSince(start)
        // 3 s of media at 2×: about 1.5 s of wall time (loose bounds: no timing in tests beyond
        // telling 1× from 2×).
        #expect(wall < 2.4, "\(wall) s")
        #expect(wall > 1.2, "\(wall) s")
        #expect(abs(player.currentTime().seconds - 3) < 0.05)
    }

    @Test func seekingAndPlayingInTheEndHandlerLoops() throws {
        // The classic loop: actionAtItemEnd .none, and on DidPlayToEndTime seek to zero and play.
        for action in [AVPlayer.ActionAtItemEnd.none, .pause] {
            let item = AVPlayerItem(url: PlayerMedia.clip(seconds: 0.5))
            let player = AVPlayer(playerItem: item)
            player.actionAtItemEnd = action
            #expect(waitUntil { item.status == .readyToPlay })
            let ends = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
            let observer = NotificationCenter.default.addObserver(forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: nil) { _ in
                player.seek(to: .zero)
                player.play()
            }
            player.play()
            #expect(ends.wait(count: 3, timeout: 20), "\(action): \(ends.count) ends")
            // (The recorder hears the notification before the handler plays again.)
            #expect(waitUntil { player.rate == 1 })
            NotificationCenter.default.removeObserver(observer)
            player.pause()
        }
    }

    @Test func looperPlaysTheItemAgainAndAgain() throws {
        let template = AVPlayerItem(url: PlayerMedia.clip(seconds: 0.5))
        let queue = AVQueuePlayer()
        let looper = AVPlayerLooper(player: queue, templateItem: template)
        #expect(looper.loopingPlayerItems.count >= 2)
        #expect(queue.items().count == looper.loopingPlayerItems.count)
        #expect(waitUntil { looper.status == .ready })
        queue.play()
        #expect(waitUntil(timeout: 15) { looper.loopCount >= 3 })
        // The queue stays full: every copy went back to its end.
        #expect(queue.items().count == looper.loopingPlayerItems.count)
        #expect(queue.rate == 1)
        looper.disableLooping()
        #expect(looper.status == .cancelled)
        queue.pause()
    }

    @Test func truncatedFilePlaysToTheDamageThenFails() throws {
        // An MPEG-TS stream (no index to lose) cut in the middle: plays what is there, then
        // FailedToPlayToEndTime with an error in the user info — or a normal end when the demuxer
        // sees a clean end; what it must not do is hang or crash.
        let whole = PlayerMedia.dir.appendingPathComponent("whole.mp4")
        if !FileManager.default.fileExists(atPath: whole.path) {
            GeneratorMedia.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4", "-c:v", "libx264", "-preset", "veryfast",
                                   "-pix_fmt", "yuv420p", "-movflags", "+faststart", whole.path])
        }
        let data = try Data(contentsOf: whole)
        let cut = PlayerMedia.dir.appendingPathComponent("cut.mp4")
        try data.prefix(data.count / 2).write(to: cut)
        let item = AVPlayerItem(url: cut)
        let failed = NotificationRecorder(.AVPlayerItemFailedToPlayToEndTime, object: item)
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status != .unknown })
        #expect(item.status == .readyToPlay)
        player.rate = 2
        #expect(waitUntil(timeout: 10) { failed.count + ended.count > 0 })
        #expect(failed.count == 1)
        let error = failed.notifications.first?.userInfo?[AVPlayerItemFailedToPlayToEndTimeErrorKey] as? NSError
        #expect(error?.domain == AVFoundationErrorDomain)
        #expect(player.currentTime().seconds > 1)
        #expect(player.currentTime().seconds < 3)
        #expect(item.errorLog()?.events.isEmpty == false)
    }
}

/// AVSynchronizedLayer: titles on the movie's time (the book's A16).
@Suite(.serialized) struct SynchronizedLayerTests {
    /// The title's opacity in the synchronized layer's tree now.
    private func opacity(_ layer: AVSynchronizedLayer) -> Float {
        let tree = layer.renderTree(at: CACurrentMediaTime())
        return tree.sublayers.first?.opacity ?? -1
    }

    private func seek(_ player: AVPlayer, _ seconds: Double) {
        let done = DispatchSemaphore(value: 0)
        player.seek(to: CMTime(seconds: seconds, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero) { _ in
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
    }

    @Test func titleFadesOnTheItemsTimeNotTheWallClock() throws {
        let item = AVPlayerItem(url: PlayerMedia.clip(seconds: 4))
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        let sync = AVSynchronizedLayer(playerItem: item)
        #expect(sync.playerItem === item)
        let title = CALayer()
        title.opacity = 0
        let fade = CAKeyframeAnimation(keyPath: "opacity")
        fade.values = [0, 1, 1, 0]
        fade.keyTimes = [0, 0.2, 0.8, 1]
        fade.beginTime = 1.0
        fade.duration = 3.0
        fade.isRemovedOnCompletion = false
        title.add(fade, forKey: "fade")
        sync.addSublayer(title)
        // Before the title: the model value.
        seek(player, 0.5)
        #expect(abs(opacity(sync) - 0) < 0.01)
        // 1.3 s: a tenth into the fade, half-way up the first key (R12.4.3); it stays there while
        // the player is paused, however long the wall clock runs.
        seek(player, 1.3)
        #expect(abs(opacity(sync) - 0.5) < 0.02, "\(opacity(sync))")
        usleep(300_000)
        #expect(abs(opacity(sync) - 0.5) < 0.02)
        seek(player, 3.0)
        #expect(abs(opacity(sync) - 1) < 0.01)
        // Past the end and back: the animation is still there (not removed on completion).
        seek(player, 4.0)
        seek(player, 1.3)
        #expect(abs(opacity(sync) - 0.5) < 0.02)
        // Playing at 2×: the layer's time is the item's.
        player.rate = 2
        #expect(waitUntil { player.currentTime().seconds > 2 })
        player.pause()
        let p = (player.currentTime().seconds - 1) / 3
        let expected = p < 0.2 ? p / 0.2 : p <= 0.8 ? 1 : max(0, (1 - p) / 0.2)
        #expect(abs(Double(opacity(sync)) - expected) < 0.02, "at \(player.currentTime().seconds) s: \(opacity(sync)), expected \(expected)")
        // Detached: normal timing again (the model value at an arbitrary host time).
        sync.playerItem = nil
        #expect(sync.playerItem == nil)
    }
}
