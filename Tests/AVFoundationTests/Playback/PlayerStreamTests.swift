// AVPlayer over HTTP: a progressive movie (its index at the end, read with byte ranges) and an
// HTTP Live Streaming playlist made by ffmpeg, served by a loopback server; and the faults a
// network brings — a server that stops answering, one that drops the connection, nobody there.
// Each fault must end in an error within a bounded time, never a hang or a crash.
import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite(.serialized) struct PlayerStreamTests {
    /// A directory served over HTTP: the 4 s clip as made (index at the end), with its index first
    /// (fast.mp4), and as HLS in 1 s segments.
    static let served: URL = {
        let dir = PlayerMedia.dir.appendingPathComponent("served")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let movie = dir.appendingPathComponent("clip.mp4")
        if !FileManager.default.fileExists(atPath: movie.path) {
            try? FileManager.default.copyItem(at: PlayerMedia.clip(seconds: 4), to: movie)
            // The same with its index first, as web servers serve movies for streaming.
            GeneratorMedia.ffmpeg(["-i", movie.path, "-c", "copy", "-movflags", "+faststart", dir.appendingPathComponent("fast.mp4").path])
            GeneratorMedia.ffmpeg(["-i", movie.path, "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                                   "-hls_segment_filename", dir.appendingPathComponent("seg%d.ts").path,
                                   dir.appendingPathComponent("index.m3u8").path])
        }
        return dir
    }()

    /// The 4 s clip as a multivariant playlist: 320×240 (v0) and 160×120 (v1), each with sound,
    /// in 1 s segments.
    static let variants: URL = {
        let dir = served.appendingPathComponent("variants")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: dir.appendingPathComponent("master.m3u8").path) {
            GeneratorMedia.ffmpeg(["-i", PlayerMedia.clip(seconds: 4).path,
                                   "-filter_complex", "[0:v]split=2[a][b];[b]scale=160:120[small]",
                                   "-map", "[a]", "-map", "[small]", "-map", "0:a", "-map", "0:a",
                                   "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-b:v:0", "800k", "-b:v:1", "150k",
                                   "-c:a", "aac", "-b:a", "64k", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                                   "-master_pl_name", "master.m3u8", "-var_stream_map", "v:0,a:0 v:1,a:1",
                                   "-hls_segment_filename", dir.appendingPathComponent("v%v_%d.ts").path,
                                   dir.appendingPathComponent("v%v.m3u8").path])
        }
        return dir
    }()

    @Test func variantsAreListedAndThePreferencesChooseOne() throws {
        _ = Self.variants
        let server = try LoopbackHTTPServer(root: Self.served)
        defer { server.stop() }
        let asset = AVURLAsset(url: server.url("variants/master.m3u8"))
        let variants = asset.variants
        #expect(variants.count == 2)
        #expect(variants.map { $0.videoAttributes?.presentationSize } == [CGSize(width: 160, height: 120), CGSize(width: 320, height: 240)])
        #expect((variants.first?.peakBitRate ?? 0) < (variants.last?.peakBitRate ?? 0))
        #expect(variants.first?.audioAttributes?.formatIDs == [NSNumber(value: kAudioFormatMPEG4AAC)])

        // No preference: the best variant, one video and one sound track.
        let best = AVPlayerItem(asset: asset)
        let (bestPlayer, _, _) = play(best, rate: 0)
        #expect(best.status == .readyToPlay, "\(String(describing: best.error))")
        #expect(best.presentationSize == CGSize(width: 320, height: 240))
        #expect(best.tracks.count == 2)
        bestPlayer.replaceCurrentItem(with: nil)

        // At most 200×200: the small one, and only its segments are fetched to the end (another
        // server, whose log is this item's alone).
        let smallServer = try LoopbackHTTPServer(root: Self.served)
        defer { smallServer.stop() }
        let small = AVPlayerItem(asset: AVURLAsset(url: smallServer.url("variants/master.m3u8")))
        small.preferredMaximumResolution = CGSize(width: 200, height: 200)
        let (player, ended, _) = play(small, rate: 2)
        #expect(small.presentationSize == CGSize(width: 160, height: 120))
        #expect(ended.wait(timeout: 15))
        let requests = smallServer.requests
        #expect(requests.contains { $0.contains("v1_3.ts") }, "\(requests)")
        #expect(!requests.contains { $0.contains("v0_3.ts") }, "\(requests)")
        // A bit rate limit above the big one's: the big one, where the playhead is.
        let sought = DispatchSemaphore(value: 0)
        player.seek(to: CMTime(value: 1, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { _ in sought.signal() }
        #expect(sought.wait(timeout: .now() + 15) == .success)
        small.preferredMaximumResolution = .zero
        small.preferredPeakBitRate = (variants.last?.peakBitRate ?? 0) + 1
        #expect(waitUntil(timeout: 15) {
            small.presentationSize == CGSize(width: 320, height: 240) && abs(player.currentTime().seconds - 1) < 0.1
        }, "\(small.presentationSize) at \(player.currentTime().seconds)")
        // A limit below every variant: the lowest.
        small.preferredPeakBitRate = 1000
        #expect(waitUntil(timeout: 15) { small.presentationSize == CGSize(width: 160, height: 120) })
    }

    private func play(_ item: AVPlayerItem, rate: Float = 2) -> (AVPlayer, NotificationRecorder, NotificationRecorder) {
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let failed = NotificationRecorder(.AVPlayerItemFailedToPlayToEndTime, object: item)
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil(timeout: 15) { item.status != .unknown })
        player.rate = rate
        return (player, ended, failed)
    }

    @Test func progressiveMovieOverHTTPPlaysToTheEnd() throws {
        let server = try LoopbackHTTPServer(root: Self.served)
        defer { server.stop() }
        let item = AVPlayerItem(url: server.url("clip.mp4"))
        let (player, ended, failed) = play(item)
        #expect(item.status == .readyToPlay, "\(String(describing: item.error))")
        #expect(abs(item.duration.seconds - 4) < 0.1)
        #expect(item.tracks.count == 2)
        #expect(item.presentationSize == CGSize(width: 320, height: 240))
        #expect(waitUntil { !item.loadedTimeRanges.isEmpty })
        #expect(ended.wait(timeout: 15))
        #expect(failed.count == 0)
        #expect(abs(player.currentTime().seconds - 4) < 0.05)
        // The index at the end of the file came by a byte range.
        #expect(server.requests.contains { $0.contains("bytes=") && !$0.hasSuffix("bytes=0-") }, "\(server.requests)")
    }

    @Test func liveStreamingPlaylistPlaysAndSeeks() throws {
        let server = try LoopbackHTTPServer(root: Self.served)
        defer { server.stop() }
        let item = AVPlayerItem(url: server.url("index.m3u8"))
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        item.add(output)
        let (player, ended, failed) = play(item, rate: 0)
        #expect(item.status == .readyToPlay, "\(String(describing: item.error))")
        #expect(abs(item.duration.seconds - 4) < 0.2)
        #expect(item.seekableTimeRanges.first?.timeRangeValue.duration.seconds ?? 0 > 3.5)
        let sought = DispatchSemaphore(value: 0)
        player.seek(to: CMTime(value: 2, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { _ in sought.signal() }
        #expect(sought.wait(timeout: .now() + 15) == .success)
        #expect(abs(player.currentTime().seconds - 2) < 0.001)
        #expect(waitUntil { output.hasNewPixelBuffer(forItemTime: player.currentTime()) })
        player.rate = 2
        #expect(ended.wait(timeout: 15))
        #expect(failed.count == 0, "\(failed.notifications.first?.userInfo ?? [:])")
        #expect(server.requests.contains { $0.contains("seg") })
    }

    /// The 10 s clip with its index first (for the throttled cases: big enough that the network,
    /// not a buffer, feeds the player).
    static let long: URL = {
        let url = served.appendingPathComponent("long.mp4")
        if !FileManager.default.fileExists(atPath: url.path) {
            GeneratorMedia.ffmpeg(["-i", PlayerMedia.clip(seconds: 10).path, "-c", "copy", "-movflags", "+faststart", url.path])
        }
        return url
    }()

    @Test func serverThatStopsAnsweringStallsThenFailsInBoundedTime() throws {
        let size = try Data(contentsOf: Self.long).count
        // Three times as fast as the media needs, until the server goes silent mid-play.
        let server = try LoopbackHTTPServer(root: Self.served, faults: .init(bytesPerSecond: size * 3 / 10))
        defer { server.stop() }
        let item = AVPlayerItem(url: server.url("long.mp4"))
        let stalled = NotificationRecorder(.AVPlayerItemPlaybackStalled, object: item)
        let (player, ended, failed) = play(item, rate: 1)
        defer { _ = player }
        #expect(item.status == .readyToPlay, "\(String(describing: item.error))")
        #expect(waitUntil { player.currentTime().seconds > 1 })
        server.stopAnswering()
        // What was read plays out, then a stall; the read then times out: an error, no hang.
        #expect(stalled.wait(timeout: 20), "no PlaybackStalled")
        #expect(player.timeControlStatus == .waitingToPlayAtSpecifiedRate)
        #expect(player.reasonForWaitingToPlay == .toMinimizeStalls)
        #expect(failed.wait(timeout: 30), "no FailedToPlayToEndTime")
        #expect(ended.count == 0)
        let error = failed.notifications.first?.userInfo?[AVPlayerItemFailedToPlayToEndTimeErrorKey] as? NSError
        #expect(error != nil)
        #expect(item.errorLog()?.events.isEmpty == false)
    }

    @Test func slowServerStallsAndRecovers() throws {
        let size = try Data(contentsOf: Self.long).count
        // Sixty per cent of the speed the media needs: playback stalls, waits, goes on, ends.
        let server = try LoopbackHTTPServer(root: Self.served, faults: .init(bytesPerSecond: size * 6 / 100))
        defer { server.stop() }
        let item = AVPlayerItem(url: server.url("long.mp4"))
        item.forwardPlaybackEndTime = CMTime(value: 4, timescale: 1)
        let stalled = NotificationRecorder(.AVPlayerItemPlaybackStalled, object: item)
        let (player, ended, failed) = play(item, rate: 1)
        defer { _ = player }
        #expect(ended.wait(timeout: 40))
        #expect(stalled.count >= 1)
        #expect(failed.count == 0)
        #expect(abs(player.currentTime().seconds - 4) < 0.05)
    }

    @Test func droppedConnectionIsAnError() throws {
        let size = try Data(contentsOf: Self.served.appendingPathComponent("fast.mp4")).count
        let server = try LoopbackHTTPServer(root: Self.served, faults: .init(dropAfterBytes: size / 2))
        defer { server.stop() }
        let item = AVPlayerItem(url: server.url("fast.mp4"))
        let (player, ended, failed) = play(item, rate: 2)
        defer { _ = player }
        #expect(item.status == .readyToPlay, "\(String(describing: item.error))")
        #expect(waitUntil(timeout: 30) { failed.count > 0 || item.status == .failed || ended.count > 0 })
        #expect(ended.count == 0)
        #expect(failed.count == 1 || item.status == .failed)
    }

    @Test func nobodyListeningFailsTheItem() throws {
        // A port that was just free: nothing answers there.
        let server = try LoopbackHTTPServer(root: Self.served)
        let url = server.url("clip.mp4")
        server.stop()
        let item = AVPlayerItem(url: url)
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil(timeout: 15) { item.status == .failed })
        #expect(item.error != nil)
        _ = player
    }
}
