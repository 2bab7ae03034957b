// The capture movie recorder (the engine of AVCaptureMovieFileOutput): a real-time recording fed
// like a camera and a microphone, judged by ffprobe/ffmpeg and AVURLAsset — duration, tracks,
// codecs, limits, the existing-file rule, metadata set mid-recording, pause/resume, drops.
import AVFoundation
import Foundation
import Testing

@Suite(.serialized) struct MovieRecorderTests {
    static let frameTolerance = 1.0 / 30 + 1e-6

    @Test func aThreeSecondRecordingHasOneVideoAndOneAudioTrack() async throws {
        let url = try WriterFixtures.outputURL("three.mov")
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url), completion: done.handler)
        let started = RecorderFixtures.Completion()
        let startedHandler = started.handler
        recorder.startHandler = { time in startedHandler(time == CMTime(value: 5_000 * 30_000, timescale: 30_000) ? nil : AVError(.unknown)) }
        #expect(recorder.start())
        let feed = RecordingFeed()
        // Audio before the first frame is not recorded.
        recorder.appendAudio(feed.audioSample(firstFrame: -4_800, count: 4_800))
        let results = feed.feed(recorder, frames: 90)
        #expect(results.allSatisfy { $0 == .appended })
        #expect(abs(recorder.recordedDuration.seconds - 3.0) < 1e-9)
        #expect(recorder.recordedFileSize > 0)
        recorder.finish()
        let outcome = done.wait()
        #expect(outcome.called)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(recorder.sessionStartTime == feed.base)
        let start = started.wait()
        #expect(start.called && start.error == nil && started.count == 1)

        #expect(try RecorderFixtures.codecs(url) == ["h264", "aac"])
        let duration = try #require(try RecorderFixtures.duration(url))
        #expect(abs(duration - 3.0) <= Self.frameTolerance, "ffprobe duration \(duration)")
        let video = try WriterFixtures.stream(url, "v")
        #expect(video["width"] == "320" && video["height"] == "240")
        #expect(video["has_b_frames"] == "0")
        let audio = try WriterFixtures.stream(url, "a")
        #expect(audio["sample_rate"] == "48000")
        #expect(audio["channels"] == "2")
        #expect(try WriterFixtures.packets(url, "v").count == 90)
        let clean = try RecorderFixtures.decodesCleanly(url)
        #expect(clean.ok, "\(clean.output)")
        // Crash-safe layout: the movie header first, then fragments (one a second).
        let boxes = try RecorderFixtures.topLevelBoxes(url)
        #expect(Array(boxes.prefix(2)) == ["ftyp", "moov"])
        #expect(boxes.filter { $0 == "moof" }.count >= 1)
        // Our own reader reads it as a whole.
        let facts = try await RecorderFixtures.assetFacts(url)
        #expect(abs(facts.duration - 3.0) <= Self.frameTolerance, "AVURLAsset duration \(facts.duration)")
        #expect(facts.types.sorted { $0.rawValue < $1.rawValue } == [.audio, .video].sorted { $0.rawValue < $1.rawValue })
        #expect(done.count == 1)
    }

    /// A second of 1080p pictures arriving at once (the encoder busy for a moment) all wait for
    /// the encoder: none is dropped, all are in the file. A plain real-time writer input (8
    /// pictures) would drop most of them.
    @Test func aBurstOfASecondOfPicturesIsKeptForTheEncoder() throws {
        #expect(MovieRecorder.pendingVideoLimit(width: 1920, height: 1080) == 30)
        #expect(MovieRecorder.pendingVideoLimit(width: 640, height: 480) == 30)
        #expect(MovieRecorder.pendingVideoLimit(width: 3840, height: 2160) == 8)
        let url = try WriterFixtures.outputURL("burst.mov")
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url, width: 1920, height: 1080),
                                         completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed(width: 1920, height: 1080, distinctFrames: 4)
        let results = feed.feed(recorder, frames: 30, waitForReady: false)
        #expect(results.allSatisfy { $0 == .appended }, "\(results.filter { $0 != .appended }.count) not appended")
        #expect(recorder.droppedSampleCounts.video == 0)
        recorder.finish()
        let outcome = done.wait()
        #expect(outcome.called && outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(try WriterFixtures.packets(url, "v").count == 30)
    }

    @Test func aMaximumDurationStopsAtExactlyThatTime() async throws {
        let url = try WriterFixtures.outputURL("limit.mov")
        let done = RecorderFixtures.Completion()
        var configuration = RecorderFixtures.configuration(url)
        configuration.maxRecordedDuration = CMTime(value: 2, timescale: 1)
        let recorder = try MovieRecorder(configuration: configuration, completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed()
        feed.feed(recorder, frames: 90)
        let outcome = done.wait()
        let error = try #require(outcome.error)
        #expect(error.domain == AVFoundationErrorDomain)
        #expect(error.code == AVError.Code.maximumDurationReached.rawValue)
        #expect(error.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool == true)
        #expect(recorder.currentState == .finished)
        #expect(recorder.recordedDuration == CMTime(value: 2, timescale: 1))
        let duration = try #require(try RecorderFixtures.duration(url))
        #expect(abs(duration - 2.0) <= Self.frameTolerance, "ffprobe duration \(duration)")
        #expect(try WriterFixtures.packets(url, "v").count == 60)
        #expect(try RecorderFixtures.codecs(url) == ["h264", "aac"])
        let facts = try await RecorderFixtures.assetFacts(url)
        #expect(abs(facts.duration - 2.0) <= Self.frameTolerance)
        // Nothing more is taken after the limit.
        #expect(feed.feed(recorder, frames: 1, waitForReady: false) == [.skipped])
        recorder.finish()
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(done.count == 1)
    }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let url = try WriterFixtures.outputURL("existing.mov")
        let original = Data("an earlier recording".utf8)
        try original.write(to: url)
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url), completion: done.handler)
        #expect(!recorder.start())
        let outcome = done.wait()
        let error = try #require(outcome.error)
        #expect(error.domain == AVFoundationErrorDomain)
        #expect(error.code == AVError.Code.fileAlreadyExists.rawValue)
        #expect(error.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool == false)
        #expect(try Data(contentsOf: url) == original)
        #expect(RecordingFeed().feed(recorder, frames: 1, waitForReady: false) == [.skipped])
        recorder.finish()
        #expect(try Data(contentsOf: url) == original)
        #expect(done.count == 1)
    }

    @Test func metadataSetDuringTheRecordingIsWrittenAtTheEnd() throws {
        let url = try WriterFixtures.outputURL("titled.mov")
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url), completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed()
        feed.feed(recorder, frames: 45)
        let title = AVMutableMetadataItem()
        title.identifier = .commonIdentifierTitle
        title.value = "AT-C3" as NSString
        recorder.metadata = [title]
        feed.feed(recorder, frames: 45)
        recorder.finish()
        #expect(done.wait().error == nil)
        let tags = try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "format_tags=title", "-of", "csv=p=0", url.path])
        #expect(tags.output.trimmingCharacters(in: .whitespacesAndNewlines) == "AT-C3", "\(tags.output)")
        let duration = try #require(try RecorderFixtures.duration(url))
        #expect(abs(duration - 3.0) <= Self.frameTolerance)
        #expect(try RecorderFixtures.decodesCleanly(url).ok)
    }

    @Test func pauseAndResumeGiveOneContinuousMovie() throws {
        let url = try WriterFixtures.outputURL("paused.mov")
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url), completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed()
        feed.feed(recorder, frames: 30)
        recorder.pause()
        #expect(recorder.isPaused)
        // Frames while paused are not recorded.
        #expect(feed.feed(recorder, frames: 30, waitForReady: false).allSatisfy { $0 == .skipped })
        feed.skip(seconds: 1.5)
        recorder.resume()
        feed.feed(recorder, frames: 30)
        #expect(abs(recorder.recordedDuration.seconds - 2.0) < 1e-9)
        recorder.finish()
        #expect(done.wait().error == nil)
        let duration = try #require(try RecorderFixtures.duration(url))
        #expect(abs(duration - 2.0) <= Self.frameTolerance, "ffprobe duration \(duration)")
        let times = try WriterFixtures.framePresentationTimes(url)
        #expect(times.count == 60)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.allSatisfy { abs($0 - 1.0 / 30) < 0.002 }, "\(gaps.filter { abs($0 - 1.0 / 30) >= 0.002 })")
        #expect(try RecorderFixtures.decodesCleanly(url).ok)
    }

    @Test func stoppingBeforeAnyFrameReportsNoDataAndLeavesNoFile() async throws {
        let url = try WriterFixtures.outputURL("empty.mov")
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url), completion: done.handler)
        #expect(recorder.start())
        #expect(FileManager.default.fileExists(atPath: url.path))
        recorder.finish()
        let error = try #require(done.wait().error)
        #expect(error.code == AVError.Code.noDataCaptured.rawValue)
        #expect(error.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool == false)
        #expect(!FileManager.default.fileExists(atPath: url.path))

        // Never started: the same answer, once; no file.
        let never = RecorderFixtures.Completion()
        let idle = try MovieRecorder(configuration: RecorderFixtures.configuration(url), completion: never.handler)
        idle.finish()
        idle.finish()
        #expect(never.wait().error?.code == AVError.Code.noDataCaptured.rawValue)
        #expect(!idle.start())
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(never.count == 1)
    }

    @Test func aStopByTheOwnerCarriesItsReasonWithTheFileFinished() throws {
        let url = try WriterFixtures.outputURL("unplugged.mov")
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url), completion: done.handler)
        #expect(recorder.start())
        RecordingFeed().feed(recorder, frames: 30)
        recorder.finish(error: .deviceWasDisconnected)
        recorder.finish(error: .sessionWasInterrupted)
        let error = try #require(done.wait().error)
        #expect(error.code == AVError.Code.deviceWasDisconnected.rawValue)
        #expect(error.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool == true)
        #expect(abs((try RecorderFixtures.duration(url) ?? 0) - 1.0) <= Self.frameTolerance)
        #expect(done.count == 1)
    }

    @Test func anInputThatIsNotReadyDropsTheSampleInsteadOfBlocking() throws {
        let url = try WriterFixtures.outputURL("burst.mov")
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url, width: 1280, height: 720), completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed(width: 1280, height: 720, distinctFrames: 4)
        // Far faster than the encoder: the input's queue fills and frames are dropped.
        let results = feed.feed(recorder, frames: 120, waitForReady: false)
        let dropped = results.filter { $0 == .dropped }.count
        #expect(dropped > 0)
        #expect(recorder.droppedSampleCounts.video == dropped)
        #expect(results.first == .appended)
        recorder.finish()
        #expect(done.wait().error == nil)
        #expect(try WriterFixtures.packets(url, "v").count == 120 - dropped)
    }

    @Test func aMaximumFileSizeStopsTheRecording() throws {
        let url = try WriterFixtures.outputURL("size.mov")
        let done = RecorderFixtures.Completion()
        var configuration = RecorderFixtures.configuration(url)
        configuration.movieFragmentInterval = CMTime(value: 1, timescale: 2)
        configuration.videoSettings = MovieRecorder.defaultVideoSettings(width: 320, height: 240, frameRate: 30, averageBitRate: 3_000_000)
        configuration.maxRecordedFileSize = 1_000_000
        let recorder = try MovieRecorder(configuration: configuration, completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed(noise: true)
        // 3 Mb/s of noise: the limit falls within the first seconds.
        feed.feed(recorder, frames: 300)
        let error = try #require(done.wait().error)
        #expect(error.code == AVError.Code.maximumFileSizeReached.rawValue)
        #expect(error.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool == true)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber).int64Value
        // The limit is checked before each frame against the written size plus the frames still
        // in the encoder at the average frame size: the file ends near it.
        #expect(size >= 500_000 && size <= 1_100_000, "size \(size), \(recorder.recordedDuration.seconds) s")
        // It stopped early, at about the time the limit was reached.
        #expect(recorder.recordedDuration.seconds < 5, "\(recorder.recordedDuration.seconds)")
        #expect(abs((try RecorderFixtures.duration(url) ?? 0) - recorder.recordedDuration.seconds) <= Self.frameTolerance)
        #expect(try RecorderFixtures.decodesCleanly(url).ok)
    }

    @Test func withoutFragmentsTheMovieIsStillComplete() async throws {
        let url = try WriterFixtures.outputURL("plain.mp4")
        let done = RecorderFixtures.Completion()
        var configuration = RecorderFixtures.configuration(url)
        configuration.movieFragmentInterval = .invalid
        #expect(configuration.fileType == .mp4)
        let recorder = try MovieRecorder(configuration: configuration, completion: done.handler)
        #expect(recorder.start())
        RecordingFeed().feed(recorder, frames: 45)
        recorder.finish()
        #expect(done.wait().error == nil)
        #expect(!(try RecorderFixtures.topLevelBoxes(url)).contains("moof"))
        #expect(abs((try RecorderFixtures.duration(url) ?? 0) - 1.5) <= Self.frameTolerance)
        let facts = try await RecorderFixtures.assetFacts(url)
        #expect(facts.types.count == 2)
    }

    @Test func fragmentsReachTheDiskWhileRecording() async throws {
        let url = try WriterFixtures.outputURL("live.mov")
        let done = RecorderFixtures.Completion()
        var configuration = RecorderFixtures.configuration(url)
        configuration.movieFragmentInterval = CMTime(value: 1, timescale: 1)
        configuration.videoTransform = CGAffineTransform(rotationAngle: .pi / 2)
        let recorder = try MovieRecorder(configuration: configuration, completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed()
        feed.feed(recorder, frames: 1)
        // The empty movie header is on disk before the first fragment.
        var boxes: [String] = []
        for _ in 0..<200 where !boxes.contains("moov") {
            boxes = try RecorderFixtures.topLevelBoxes(url)
            if !boxes.contains("moov") { usleep(10_000) }
        }
        #expect(Array(boxes.prefix(2)) == ["ftyp", "moov"])
        feed.feed(recorder, frames: 79)
        for _ in 0..<200 where recorder.fragmentsWritten < 2 { usleep(10_000) }
        #expect(recorder.fragmentsWritten >= 2)
        // A copy taken now (as a crash would leave it) is a readable movie of whole fragments.
        let copy = try WriterFixtures.outputURL("live-copy.mov")
        try FileManager.default.copyItem(at: url, to: copy)
        let facts = try await RecorderFixtures.assetFacts(copy)
        #expect(facts.types.count == 2)
        #expect(facts.duration >= 1.9, "\(facts.duration)")
        let probed = try #require(try RecorderFixtures.duration(copy))
        #expect(probed >= 1.9, "\(probed)")
        recorder.finish()
        #expect(done.wait().error == nil)
        let rotation = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                          "stream_side_data=rotation", "-of", "csv=p=0", url.path])
        #expect(rotation.output.contains("-90"), "\(rotation.output)")
    }

    @Test func hevcIsRecordedWhenAskedFor() throws {
        let url = try WriterFixtures.outputURL("hevc.mov")
        let done = RecorderFixtures.Completion()
        var configuration = RecorderFixtures.configuration(url)
        configuration.videoSettings = MovieRecorder.defaultVideoSettings(width: 320, height: 240, frameRate: 30, codec: .hevc)
        configuration.movieFragmentInterval = CMTime(value: 1, timescale: 2)
        let recorder = try MovieRecorder(configuration: configuration, completion: done.handler)
        #expect(recorder.start())
        RecordingFeed().feed(recorder, frames: 45)
        recorder.finish()
        #expect(done.wait().error == nil)
        #expect(try RecorderFixtures.codecs(url) == ["hevc", "aac"])
        #expect(try WriterFixtures.stream(url, "v")["codec_tag_string"] == "hvc1")
        #expect(abs((try RecorderFixtures.duration(url) ?? 0) - 1.5) <= Self.frameTolerance)
        #expect(try WriterFixtures.packets(url, "v").count == 45)
        #expect(try RecorderFixtures.decodesCleanly(url).ok)
    }

    @Test func anAudioOnlyRecordingStartsAtItsFirstSampleAndStopsAtItsLimit() async throws {
        let url = try WriterFixtures.outputURL("sound.mov")
        let done = RecorderFixtures.Completion()
        var configuration = RecorderFixtures.configuration(url)
        configuration.videoSettings = nil
        configuration.maxRecordedDuration = CMTime(value: 1, timescale: 1)
        let recorder = try MovieRecorder(configuration: configuration, completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed()
        // Tone only: 2 s offered in 480-frame (10 ms) buffers.
        for i in 0..<200 where recorder.currentState != .finished {
            for _ in 0..<4_000 where !recorder.isReadyForMoreAudio && recorder.currentState != .finished { usleep(250) }
            recorder.appendAudio(feed.audioSample(firstFrame: Int64(i) * 480, count: 480))
        }
        let error = try #require(done.wait().error)
        #expect(error.code == AVError.Code.maximumDurationReached.rawValue)
        #expect(error.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool == true)
        #expect(recorder.sessionStartTime == feed.base)
        #expect(try RecorderFixtures.codecs(url) == ["aac"])
        let facts = try await RecorderFixtures.assetFacts(url)
        #expect(facts.types == [.audio])
        #expect(abs(facts.duration - 1.0) < 0.025, "\(facts.duration)")
    }

    @Test func framesThatComeEarlierThanTheirNominalDurationAreKeptAndOnesOutOfOrderSkipped() throws {
        let url = try WriterFixtures.outputURL("jitter.mov")
        let done = RecorderFixtures.Completion()
        let recorder = try MovieRecorder(configuration: RecorderFixtures.configuration(url), completion: done.handler)
        #expect(recorder.start())
        let feed = RecordingFeed()
        // A camera's frames say 1/30 s but come 2 ms early now and then.
        var results: [MovieRecorder.AppendResult] = []
        for i in 0..<30 {
            for _ in 0..<4_000 where !recorder.isReadyForMoreVideo { usleep(250) }
            var timing = CMSampleTimingInfo(duration: feed.frameDuration,
                                            presentationTimeStamp: CMTimeSubtract(feed.time(ofFrame: Int64(i)),
                                                                                  CMTime(value: i % 3 == 1 ? 2 : 0, timescale: 1_000)),
                                            decodeTimeStamp: .invalid)
            var sample: CMSampleBuffer?
            CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: feed.frames[i], formatDescription: feed.videoFormat,
                                                     sampleTiming: &timing, sampleBufferOut: &sample)
            results.append(recorder.appendVideo(sample!))
        }
        #expect(results.allSatisfy { $0 == .appended })
        // A frame older than the last one written is skipped, not an error.
        #expect(recorder.appendVideo(feed.videoSample(10)) == .skipped)
        recorder.finish()
        #expect(done.wait().error == nil)
        #expect(try WriterFixtures.packets(url, "v").count == 30)
    }
}
