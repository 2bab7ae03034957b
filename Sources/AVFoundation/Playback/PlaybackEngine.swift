// PlaybackEngine: what an AVPlayer runs — the one pipeline (the reader's sources through
// ItemFeeder) into the renderers (an audio renderer core and a frame presenter) on one
// synchronizer's timebase, with preroll, seeks, end-of-item handling and statistics.
import CoreGraphics
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
import Synchronization

/// The playback machinery of one player. Thread-safe.
///
/// - Preparing an item (on `work`): its asset's tracks and duration load; the video source is
///   the video composition's (compositor stage over every video track) or the first enabled
///   video track's decoder, delivering 4:2:0 Y'CbCr; the sound source mixes the enabled audio
///   tracks (audio mix volumes, preferred volumes) into 32-bit float stereo at their rate.
/// - Preroll: the timebase stays still until the first picture and a quarter of a second of
///   sound are queued (or their media ended) — after the item opens and after every seek — and
///   then starts at the player's rate. `timeControlStatus` is `.waitingToPlayAtSpecifiedRate`
///   meanwhile.
/// - Seek: the timebase jumps (rate 0), the renderers flush (the picture shown stays), the feeder
///   repositions; when the preroll is back the completion handler gets true and the rate returns.
///   A later seek cancels an earlier one's handler (false).
/// - End: a boundary at the item's end time (forward end time, else duration) stops the
///   timebase there and posts `didPlayToEndTimeNotification`; then `actionAtItemEnd` applies.
/// - A tick every 100 ms (while an item is open) updates `loadedTimeRanges`, notices a stall (the
///   timebase reached what is queued before the media ended: `playbackStalledNotification`,
///   waiting until the preroll is back) and a failure once what was queued before it has played
///   (`failedToPlayToEndTimeNotification`).
final class PlaybackEngine: Sendable {
    let synchronizer = AVSampleBufferRenderSynchronizer()
    let audio = AVSampleBufferAudioRenderer()
    let presenter: FramePresenter
    /// The selected legible option's text.
    let legible: LegiblePresenter
    private let work = DispatchQueue(label: "com.avfoundation.player")
    private let state = Mutex(State())
    private struct PlayerReference {
        weak var player: AVPlayer?
    }

    private let playerReference = Mutex(PlayerReference())
    private var player: AVPlayer? { playerReference.withLock { $0.player } }

    private struct Seek {
        let id: Int
        let time: CMTime
        let handler: (@Sendable (Bool) -> Void)?
    }

    private struct State {
        var item: AVPlayerItem?
        var feeder: ItemFeeder?
        var seekID = 0
        var hasVideo = false
        var hasAudio = false
        /// Where each media's tracks end (the latest enabled track's end): media that stops
        /// well before it, without an error, is a truncated or damaged file.
        var videoTracksEnd = CMTime.invalid
        var audioTracksEnd = CMTime.invalid
        var videoQueued = CMTime.invalid
        var audioQueued = CMTime.invalid
        var videoEnded = false
        var audioEnded = false
        var failure: (any Error)?
        var failureReported = false
        var prerolled = false
        var pendingSeek: Seek?
        var seekStart = CMTime.zero
        var endTime = CMTime.positiveInfinity
        var atEnd = false
        var stalled = false
        var endObserver: TimeObserverToken?
        var tick: (any DispatchSourceTimer)?
        var openID = 0
        /// The peak bit rate of the variant playing (multivariant streams).
        var variantBitRate: Double?
        /// A start waiting for the sound output's latency (see `startIfWanted`): its id and rate.
        var pendingStart: (id: Int, rate: Float)?
        var startCount = 0
        var playStart: (date: Date, time: CMTime)?
        var droppedAtStart = 0
    }

    /// The player the engine reports to (held weakly).
    func setPlayer(_ player: AVPlayer) {
        playerReference.withLock { $0.player = player }
    }

    init() {
        presenter = FramePresenter(timebase: synchronizer.timebase)
        legible = LegiblePresenter(timebase: synchronizer.timebase)
        synchronizer.delaysRateChangeUntilHasSufficientMediaData = false
        synchronizer.addRenderer(audio)
        presenter.setTarget(self) { [weak self] frame in self?.pictureShown(frame) }
        legible.setTarget { [weak self] cues in self?.player?.captionsChanged(cues) }
        audio.outputLossHandler.withLock { $0 = { [weak self] error in self?.soundOutputLost(error) } }
    }

    /// The sound server went away while the item played: the item fails with the renderer's
    /// error (`AVError.mediaServicesWereReset`, the reason saying what went away) and
    /// FailedToPlayToEndTime is posted, as Apple's player fails when media services are reset.
    private func soundOutputLost(_ error: any Error) {
        guard let (item, openID, feeder) = state.withLock({ s -> (AVPlayerItem, Int, ItemFeeder?)? in
            guard let item = s.item, !s.failureReported else { return nil }
            s.failure = error
            s.failureReported = true
            return (item, s.openID, s.feeder)
        }) else { return }
        feeder?.stop()
        synchronizer.apply(rate: 0, time: .invalid, hostTime: .invalid, notify: true)
        NotificationCenter.default.post(name: AVPlayerItem.failedToPlayToEndTimeNotification, object: item,
                                        userInfo: [AVPlayerItemFailedToPlayToEndTimeErrorKey: error as NSError])
        fail(item, error, openID: openID)
    }

    deinit {
        let (feeder, tick) = state.withLock { ($0.feeder, $0.tick) }
        feeder?.stop()
        tick?.cancel()
        presenter.stop()
        audio.core.close()
    }

    var currentTime: CMTime { synchronizer.timebase.time }
    var isPrerolled: Bool { state.withLock { $0.prerolled } }
    var droppedFrames: Int { presenter.counts.dropped }

    // MARK: Items

    /// Makes `item` the one playing (nil: none), starting at the item's start time.
    func open(_ item: AVPlayerItem?) {
        let (oldFeeder, oldObserver, oldTick, openID) = state.withLock { s -> (ItemFeeder?, TimeObserverToken?, (any DispatchSourceTimer)?, Int) in
            defer {
                // Start ids keep counting: a start scheduled for the item before must not match one of this item's.
                let starts = s.startCount
                s = State()
                s.item = item
                s.startCount = starts
            }
            s.openID += 1
            return (s.feeder, s.endObserver, s.tick, s.openID)
        }
        state.withLock { $0.openID = openID }
        oldFeeder?.stop()
        oldTick?.cancel()
        if let oldObserver { synchronizer.observers.remove(oldObserver) }
        synchronizer.apply(rate: 0, time: .zero, hostTime: .invalid, notify: false)
        presenter.flush(removingImage: true)
        audio.flush()
        legible.load(nil)
        guard let item else { return }
        work.async { [weak self] in self?.prepare(item, openID: openID) }
    }

    private var isCurrent: (AVPlayerItem, Int) -> Bool {
        { [weak self] item, id in self?.state.withLock { $0.item === item && $0.openID == id } ?? false }
    }

    /// Loads the item's asset and opens its sources (on `work`).
    private func prepare(_ item: AVPlayerItem, openID: Int) {
        let asset = item.asset
        let allTracks: [AVAssetTrack]
        let duration: CMTime
        do {
            allTracks = try asset.loadedTracks()
            duration = try asset.loadedDuration()
        } catch {
            fail(item, error, openID: openID)
            return
        }
        guard isCurrent(item, openID) else { return }
        // A multivariant stream plays one variant: the item's preferences choose it.
        let variants = AVAssetVariant.variants(of: allTracks)
        let variant = Self.variant(of: variants, for: item)
        let tracks = AVAssetVariant.tracks(allTracks, playing: variant, of: variants)
        state.withLock { $0.variantBitRate = variant?.peakBitRate }
        let videoTracks = tracks.filter { $0.mediaType == .video }
        let itemTracks = tracks.map { AVPlayerItemTrack(assetTrack: $0, item: item) }
        let enabled = Set(itemTracks.filter(\.isEnabled).compactMap { $0.assetTrack?.trackID })
        item.setTracks(itemTracks)
        item.update(\.duration, duration, observed: \AVPlayerItem.duration)
        if duration.isNumeric { item.setSeekableTimeRanges([CMTimeRange(start: .zero, duration: duration)]) }
        let presentation = videoTracks.first(where: { enabled.contains($0.trackID) }).map { track -> CGSize in
            let size = track.naturalSize.applying(track.preferredTransform)
            return CGSize(width: abs(size.width), height: abs(size.height))
        } ?? .zero
        let composition = item.videoComposition
        item.update(\.presentationSize, composition?.renderSize ?? presentation, observed: \AVPlayerItem.presentationSize)

        let video: (any ReaderSampleSource)?
        let audioSource: (any ReaderSampleSource)?
        do {
            video = try Self.videoSource(tracks: videoTracks.filter { enabled.contains($0.trackID) }, composition: composition)
            let audioTracks = Self.selectedAudio(tracks.filter { $0.mediaType == .audio && enabled.contains($0.trackID) }, item: item)
            audioSource = try Self.audioSource(tracks: audioTracks, mix: item.audioMix, algorithm: item.audioTimePitchAlgorithm)
        } catch {
            fail(item, error, openID: openID)
            return
        }
        if video == nil && audioSource == nil {
            fail(item, AVError(.fileFormatNotRecognized, userInfo: [
                NSLocalizedDescriptionKey: "Cannot Open",
                NSLocalizedFailureReasonErrorKey: "The media has no audio or video track to play.",
            ]), openID: openID)
            return
        }
        audio.audioTimePitchAlgorithm = item.audioTimePitchAlgorithm
        let end = item.endTime
        let reverse = item.reversePlaybackEndTime
        var start = item.state.withLock { $0.startTime }
        if start == .zero, reverse.isNumeric { start = reverse }
        if end.isNumeric { start = min(start, end) }
        let pendingHandler = item.state.withLock { s -> (@Sendable (Bool) -> Void)? in
            defer { s.pendingSeek = nil }
            return s.pendingSeek?.handler
        }
        // Where local files' tracks end (truncation shows against it); a stream's tracks are not
        // scanned for it — that would download every variant of it.
        let local = tracks.allSatisfy { $0.mediaSegments.allSatisfy { $0.source?.url.isFileURL ?? true } }
        let tracksEnds = local
            ? (video: Self.tracksEnd(tracks.filter { $0.mediaType == .video && enabled.contains($0.trackID) }),
               audio: Self.tracksEnd(tracks.filter { $0.mediaType == .audio && enabled.contains($0.trackID) }))
            : (video: CMTime.invalid, audio: CMTime.invalid)
        let feeder = ItemFeeder(
            start: start, end: end,
            video: video.map { ($0, ItemFeeder.Sink(queue: presenter.queue) { [weak self] buffer, generation in
                guard let self else { return false }
                self.videoOutputsReceive(buffer, item: item)
                return self.presenter.enqueue(buffer, generation: generation)
            }) },
            audio: audioSource.map { ($0, ItemFeeder.Sink(queue: audio.core.queue) { [weak self] buffer, generation in
                self?.audio.core.enqueue(buffer, generation: generation) ?? false
            }) },
            report: { [weak self] progress in self?.progress(progress, item: item, openID: openID) })
        let proceed = state.withLock { s -> Bool in
            guard s.item === item, s.openID == openID else { return false }
            s.feeder = feeder
            s.hasVideo = video != nil
            s.hasAudio = audioSource != nil
            s.videoTracksEnd = tracksEnds.video
            s.audioTracksEnd = tracksEnds.audio
            s.endTime = end
            s.seekStart = start
            s.seekID = feeder.currentSeekID
            if let pendingHandler { s.pendingSeek = Seek(id: s.seekID, time: start, handler: pendingHandler) }
            return true
        }
        guard proceed else {
            feeder.stop()
            return
        }
        synchronizer.apply(rate: 0, time: start, hostTime: .invalid, notify: false)
        armEnd(end)
        startTick(item, openID: openID)
        legible.load(item)
        // Preferences changed while it opened: the variant they choose now.
        if variant != nil { variantPreferencesChanged() }
    }

    /// The variant `item`'s preferences choose (nil: the media has no variants).
    static func variant(of variants: [AVAssetVariant], for item: AVPlayerItem) -> AVAssetVariant? {
        guard !variants.isEmpty else { return nil }
        return AVAssetVariant.choose(variants, peakBitRate: item.preferredPeakBitRate, maximumResolution: item.preferredMaximumResolution)
    }

    /// The item's variant preferences changed: another variant re-opens the pipeline where it is.
    func variantPreferencesChanged() {
        guard let item = state.withLock({ $0.item }), state.withLock({ $0.feeder != nil }),
              let tracks = try? item.asset.loadedTracks() else { return }
        let chosen = Self.variant(of: AVAssetVariant.variants(of: tracks), for: item)?.peakBitRate
        if chosen != state.withLock({ $0.variantBitRate }) { tracksChanged() }
    }

    /// The audio tracks that play: with an audible selection group, the selected option's
    /// track and the audio tracks outside the group; else every enabled one.
    static func selectedAudio(_ tracks: [AVAssetTrack], item: AVPlayerItem) -> [AVAssetTrack] {
        guard let group = item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible) else { return tracks }
        let members = Set(group.options.map(\.track.trackID))
        let chosen = item.selectedOption(in: group)?.track.trackID
        return tracks.filter { !members.contains($0.trackID) || $0.trackID == chosen }
    }

    /// The item's selection changed in the group of `characteristic`: other sound re-opens the
    /// pipeline where it is; other text is read and shown.
    func mediaSelectionChanged(_ characteristic: AVMediaCharacteristic) {
        guard let item = state.withLock({ $0.item }) else { return }
        if characteristic == .audible {
            tracksChanged()
        } else if state.withLock({ $0.feeder != nil }) {
            legible.load(item)
        }
    }

    /// The video source: the composition's compositor stage, or the first enabled video track.
    static func videoSource(tracks: [AVAssetTrack], composition: AVVideoComposition?) throws -> (any ReaderSampleSource)? {
        guard let first = tracks.first else { return nil }
        let formats = [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange]
        if let composition {
            let session = try VideoCompositionSession(composition: composition, outputFormats: formats + [kCVPixelFormatType_32BGRA])
            return ComposedReaderSource(tracks: tracks, session: session, copiesSampleData: false)
        }
        var settings = ReaderVideoSettings()
        settings.pixelFormats = formats
        return try SegmentWalkingSource.make(segments: first.mediaSegments, cutsFrames: true) {
            ReaderVideoSource(source: $0, settings: settings, copiesSampleData: false, cancellation: $1)
        }
    }

    /// The sound source: the tracks mixed to 32-bit float interleaved stereo at their rate.
    static func audioSource(tracks: [AVAssetTrack], mix: AVAudioMix?, algorithm: AVAudioTimePitchAlgorithm) throws -> (any ReaderSampleSource)? {
        guard !tracks.isEmpty else { return nil }
        let rate = tracks.map { Double($0.stream.sampleRate) }.max() ?? 48_000
        let settings: [String: Any] = [
            AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate > 0 ? rate : 48_000, AVNumberOfChannelsKey: 2,
            AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true, AVLinearPCMIsNonInterleaved: false,
            AVLinearPCMIsBigEndianKey: false,
        ]
        return try AudioReaderSource(tracks: tracks, audioSettings: settings, audioMix: mix, timePitchAlgorithm: algorithm,
                                     appliesPreferredVolume: true)
    }

    private func fail(_ item: AVPlayerItem, _ error: any Error, openID: Int) {
        guard isCurrent(item, openID) else { return }
        item.logError(error)
        item.setStatus(.failed, error: error)
        player?.itemFailed(item)
    }

    // MARK: Progress

    /// The latest end of `tracks`' time ranges (invalid without tracks).
    private static func tracksEnd(_ tracks: [AVAssetTrack]) -> CMTime {
        tracks.map(\.timeRange).filter(\.isValid).map(\.end).filter(\.isNumeric).max() ?? .invalid
    }

    /// The error for media that ended, without a read error, more than half a second before its
    /// tracks say it should (what a file cut short reads as); nil when it ended where expected.
    private static func truncation(queued: CMTime, tracksEnd: CMTime, rangeEnd: CMTime, media: ItemFeeder.Media) -> (any Error)? {
        guard tracksEnd.isNumeric else { return nil }
        let expected = rangeEnd.isNumeric ? min(rangeEnd, tracksEnd) : tracksEnd
        let reached = queued.isNumeric ? queued : .zero
        guard (expected - reached).seconds > 0.5 else { return nil }
        let kind = media == .video ? "video" : "sound"
        return AVError(.fileFailedToParse, userInfo: [
            NSLocalizedDescriptionKey: "Cannot Complete Action",
            NSLocalizedFailureReasonErrorKey: String(format: "The %@ ends at %.3f s, before the %.3f s its track declares: the file is truncated or damaged.",
                                                     kind, reached.seconds, expected.seconds),
        ])
    }

    private func progress(_ p: ItemFeeder.Progress, item: AVPlayerItem, openID: Int) {
        let becameReady: (seek: Seek?, ready: Bool)? = state.withLock { s in
            guard s.item === item, s.openID == openID, p.seekID == s.seekID else { return nil }
            switch p.media {
            case .video:
                if p.queuedUntil.isNumeric { s.videoQueued = p.queuedUntil }
                if p.ended { s.videoEnded = true }
            case .audio:
                if p.queuedUntil.isNumeric { s.audioQueued = p.queuedUntil }
                if p.ended { s.audioEnded = true }
            }
            if let failure = p.failure, s.failure == nil { s.failure = failure }
            if p.ended, p.failure == nil, s.failure == nil {
                let (queued, tracksEnd) = p.media == .video ? (s.videoQueued, s.videoTracksEnd) : (s.audioQueued, s.audioTracksEnd)
                if let cut = Self.truncation(queued: queued, tracksEnd: tracksEnd, rangeEnd: s.endTime, media: p.media) { s.failure = cut }
            }
            guard !s.prerolled else { return nil }
            let videoReady = !s.hasVideo || s.videoEnded || s.videoQueued.isValid
            let audioReady = !s.hasAudio || s.audioEnded || (s.audioQueued.isNumeric && (s.audioQueued - s.seekStart).seconds >= 0.25)
                || !audio.core.queue.isReady
            guard videoReady && audioReady else { return nil }
            s.prerolled = true
            s.stalled = false
            defer { s.pendingSeek = nil }
            return (s.pendingSeek, true)
        }
        guard let becameReady else { return }
        if item.status == .unknown {
            if let failure = state.withLock({ $0.failure }), !state.withLock({ $0.videoQueued.isValid || $0.audioQueued.isValid }) {
                fail(item, failure, openID: openID)
                return
            }
            item.update(\.likelyToKeepUp, true, observed: \AVPlayerItem.isPlaybackLikelyToKeepUp)
            item.update(\.bufferEmpty, false, observed: \AVPlayerItem.isPlaybackBufferEmpty)
            item.setStatus(.readyToPlay)
        }
        if let seek = becameReady.seek, let handler = seek.handler { DispatchQueue.main.async { handler(true) } }
        startIfWanted()
    }

    /// Starts the timebase at the player's rate when the player wants to play and the media is ready.
    func startIfWanted() {
        guard let player else { return }
        let rate = player.rate
        let (prerolled, atEnd, hasItem) = state.withLock { ($0.prerolled, $0.atEnd, $0.item != nil) }
        if rate != 0 && prerolled && !atEnd && hasItem {
            if synchronizer.timebase.rate != Double(rate), state.withLock({ $0.pendingStart?.rate != rate }) {
                state.withLock { s in
                    s.playStart = (Date(), synchronizer.timebase.time)
                    s.droppedAtStart = presenter.counts.dropped
                }
                start(rate: rate)
            }
            player.setTimeControlStatus(.playing, reason: nil)
            return
        }
        cancelPendingStart()
        if rate != 0 {
            if synchronizer.timebase.rate != 0 { synchronizer.apply(rate: 0, time: .invalid, hostTime: .invalid, notify: true) }
            player.setTimeControlStatus(hasItem ? .waitingToPlayAtSpecifiedRate : .waitingToPlayAtSpecifiedRate,
                                        reason: hasItem ? .toMinimizeStalls : .noItemToPlay)
        } else {
            if synchronizer.timebase.rate != 0 {
                logAccess()
                synchronizer.apply(rate: 0, time: .invalid, hostTime: .invalid, notify: true)
            }
            player.setTimeControlStatus(.paused, reason: nil)
        }
    }

    /// Starts the timebase at `rate`. From a standstill with sound, the start is put off by the
    /// sound output's latency and the output starts now: the first sound is heard exactly when
    /// the clock starts (instead of its first tens of milliseconds being skipped to catch up), and
    /// the clock never shows a time before the start.
    private func start(rate: Float) {
        let lead = synchronizer.timebase.rate == 0 && state.withLock({ $0.hasAudio }) ? min(max(audio.core.startLead, 0), 0.25) : 0
        guard lead > 0.002 else {
            cancelPendingStart()
            synchronizer.apply(rate: rate, time: .invalid, hostTime: .invalid, notify: true)
            return
        }
        let time = synchronizer.timebase.time
        let host = CMClockGetTime(CMClockGetHostTimeClock()) + CMTime(seconds: lead, preferredTimescale: 1_000_000_000)
        let id = state.withLock { s -> Int in
            s.startCount += 1
            s.pendingStart = (s.startCount, rate)
            return s.startCount
        }
        audio.core.scheduleStart(rate: Double(rate), time: time, hostTime: host.seconds)
        work.asyncAfter(deadline: .now() + lead) { [weak self] in
            guard let self else { return }
            let current = self.state.withLock { s -> Bool in
                guard s.pendingStart?.id == id else { return false }
                s.pendingStart = nil
                return s.prerolled && !s.atEnd
            }
            guard current, self.synchronizer.timebase.rate == 0, self.synchronizer.timebase.time == time else { return }
            self.synchronizer.apply(rate: rate, time: time, hostTime: host, notify: true)
        }
    }

    /// Forgets a start still waiting for the sound output (a pause, a seek, another item).
    private func cancelPendingStart() {
        let pending = state.withLock { s -> Bool in
            defer { s.pendingStart = nil }
            return s.pendingStart != nil
        }
        if pending { audio.core.timebaseChanged(jumped: false) }
    }

    /// Records the period just played in the item's access log.
    private func logAccess() {
        let (item, start, dropped) = state.withLock { s -> (AVPlayerItem?, (date: Date, time: CMTime)?, Int) in
            defer { s.playStart = nil }
            return (s.item, s.playStart, s.droppedAtStart)
        }
        guard let item, let start else { return }
        let event = AVPlayerItemAccessLogEvent(playbackStartDate: start.date, uri: (item.asset as? AVURLAsset)?.url.absoluteString,
                                               numberOfDroppedVideoFrames: presenter.counts.dropped - dropped,
                                               durationWatched: Date().timeIntervalSince(start.date),
                                               indicatedBitrate: state.withLock { $0.variantBitRate } ?? 0)
        item.state.withLock { $0.accessEvents.append(event) }
        NotificationCenter.default.post(name: AVPlayerItem.newAccessLogEntryNotification, object: item)
    }

    // MARK: Seeking

    func seek(to requested: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime, completion: (@Sendable (Bool) -> Void)?) {
        guard requested.isNumeric else {
            if let completion { DispatchQueue.main.async { completion(false) } }
            return
        }
        let (item, feeder, end) = state.withLock { ($0.item, $0.feeder, $0.endTime) }
        guard let item else {
            if let completion { DispatchQueue.main.async { completion(false) } }
            return
        }
        guard let feeder else {
            // Still opening: playback starts there.
            item.state.withLock { s in
                s.startTime = requested
                s.time = requested
            }
            let old = item.state.withLock { s -> (@Sendable (Bool) -> Void)? in
                let previous = s.pendingSeek?.handler
                s.pendingSeek = (requested, completion)
                return previous
            }
            if let old { DispatchQueue.main.async { old(false) } }
            return
        }
        var time = max(requested, .zero)
        let duration = item.duration
        if duration.isNumeric { time = min(time, duration) }
        time = Self.seekTarget(time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, item: item)
        state.withLock { $0.pendingStart = nil }
        synchronizer.apply(rate: 0, time: time, hostTime: .invalid, notify: false)
        presenter.flush()
        audio.core.flush()
        for output in item.outputs { output.flushed() }
        let previous: Seek? = state.withLock { s in
            let old = s.pendingSeek
            s.prerolled = false
            s.atEnd = false
            s.videoQueued = .invalid
            s.audioQueued = .invalid
            s.videoEnded = false
            s.audioEnded = false
            s.seekStart = time
            s.seekID = feeder.seek(to: time, end: end)
            s.pendingSeek = Seek(id: s.seekID, time: time, handler: completion)
            return old
        }
        if let handler = previous?.handler { DispatchQueue.main.async { handler(false) } }
        NotificationCenter.default.post(name: AVPlayerItem.timeJumpedNotification, object: item)
        player?.setTimeControlStatusForSeek()
    }

    /// Where a seek with tolerances lands: the sync sample (keyframe) of the item's video track
    /// nearest `time` within [time − before, time + after] — no decoding of the frames between
    /// it and `time` — else `time` itself (zero tolerances, compositions, video compositions,
    /// audio-only items, no keyframe in the window).
    static func seekTarget(_ time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime, item: AVPlayerItem) -> CMTime {
        guard toleranceBefore > .zero || toleranceAfter > .zero, item.videoComposition == nil,
              let track = item.asset.tracks(withMediaType: .video).first(where: \.isEnabled),
              let keys = track.syncSampleTimes(), !keys.isEmpty else { return time }
        let low = toleranceBefore.isPositiveInfinity ? CMTime.negativeInfinity : time - toleranceBefore
        let high = toleranceAfter.isPositiveInfinity ? CMTime.positiveInfinity : time + toleranceAfter
        let candidates = keys.filter { $0 >= low && $0 <= high }
        guard let best = candidates.min(by: { abs(($0 - time).seconds) < abs(($1 - time).seconds) }) else { return time }
        return best
    }

    func cancelPendingSeeks() {
        let previous = state.withLock { s -> Seek? in
            defer { s.pendingSeek = nil }
            return s.pendingSeek
        }
        if let handler = previous?.handler { DispatchQueue.main.async { handler(false) } }
    }

    /// The tracks enabled changed: re-open the pipeline at the current time.
    func tracksChanged() {
        guard let item = state.withLock({ $0.item }) else { return }
        let time = currentTime
        item.state.withLock { $0.startTime = time }
        open(item)
    }

    func audioAlgorithmChanged(_ algorithm: AVAudioTimePitchAlgorithm) {
        audio.audioTimePitchAlgorithm = algorithm
    }

    // MARK: End

    private func armEnd(_ end: CMTime) {
        guard end.isNumeric else { return }
        let token = synchronizer.observers.addBoundary(times: [NSValue(time: end)], queue: work) { [weak self] in
            self?.reachedEnd()
        }
        state.withLock { $0.endObserver = token }
    }

    private func reachedEnd() {
        let item: AVPlayerItem? = state.withLock { s in
            guard !s.atEnd, let item = s.item else { return nil }
            s.atEnd = true
            return item
        }
        guard let item else { return }
        let end = state.withLock { $0.endTime }
        logAccess()
        synchronizer.apply(rate: 0, time: end, hostTime: .invalid, notify: true)
        // The player is paused before the notification goes out, so a handler that seeks and
        // plays again (the usual loop) is not undone after it; a queue advances after it.
        player?.itemWillPostEnd(item)
        NotificationCenter.default.post(name: AVPlayerItem.didPlayToEndTimeNotification, object: item)
        player?.itemDidReachEnd(item)
    }

    /// Whether the playhead is at the item's end (play does nothing until a seek).
    var isAtEnd: Bool { state.withLock { $0.atEnd } }

    // MARK: Tick

    private func startTick(_ item: AVPlayerItem, openID: Int) {
        let work = self.work
        state.withLock { s in
            guard s.item === item, s.openID == openID else { return }
            let timer = DispatchSource.makeTimerSource(queue: work)
            timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100), leeway: .milliseconds(10))
            timer.setEventHandler { [weak self] in self?.tick(item, openID: openID) }
            timer.resume()
            s.tick = timer
        }
    }

    private func tick(_ item: AVPlayerItem, openID: Int) {
        guard isCurrent(item, openID) else { return }
        let s = state.withLock { $0 }
        let now = currentTime
        // Buffered ahead: from where reading started to what is queued.
        let queued = [s.hasVideo ? s.videoQueued : nil, s.hasAudio ? s.audioQueued : nil].compactMap { $0 }.filter(\.isNumeric)
        if let furthest = queued.min(), furthest > s.seekStart {
            let endOfMedia = (s.videoEnded || !s.hasVideo) && (s.audioEnded || !s.hasAudio)
            let until = endOfMedia && s.endTime.isNumeric ? s.endTime : (queued.max() ?? furthest)
            item.setLoadedTimeRanges([CMTimeRange(start: s.seekStart, end: until)])
        }
        let ended = (!s.hasVideo || s.videoEnded) && (!s.hasAudio || s.audioEnded)
        let queuesEmpty = presenter.queue.count == 0 && audio.core.queue.count == 0
        // A failure, once what was queued before it has played.
        if let failure = s.failure, !s.failureReported, ended, queuesEmpty, s.prerolled || item.status == .readyToPlay {
            state.withLock { $0.failureReported = true }
            synchronizer.apply(rate: 0, time: .invalid, hostTime: .invalid, notify: true)
            item.logError(failure)
            item.state.withLock { $0.error = failure }
            NotificationCenter.default.post(name: AVPlayerItem.failedToPlayToEndTimeNotification, object: item,
                                            userInfo: [AVPlayerItemFailedToPlayToEndTimeErrorKey: failure as NSError])
            return
        }
        // A stall: playing, nothing queued, the media not ended.
        if synchronizer.timebase.rate != 0, !ended, queuesEmpty, let furthest = queued.min(), now >= furthest {
            state.withLock { s in
                s.prerolled = false
                s.stalled = true
                s.seekStart = now
            }
            synchronizer.apply(rate: 0, time: .invalid, hostTime: .invalid, notify: true)
            item.update(\.likelyToKeepUp, false, observed: \AVPlayerItem.isPlaybackLikelyToKeepUp)
            item.update(\.bufferEmpty, true, observed: \AVPlayerItem.isPlaybackBufferEmpty)
            // The player's state first, so an observer of the notification reads it.
            player?.setTimeControlStatus(.waitingToPlayAtSpecifiedRate, reason: .toMinimizeStalls)
            NotificationCenter.default.post(name: AVPlayerItem.playbackStalledNotification, object: item)
        }
        let full = !presenter.queue.isReady || !audio.core.queue.isReady
        item.update(\.bufferFull, full, observed: \AVPlayerItem.isPlaybackBufferFull)
    }

    // MARK: Pictures

    private func pictureShown(_ frame: CMSampleBuffer) {
        player?.pictureShown(frame)
    }

    private func videoOutputsReceive(_ frame: CMSampleBuffer, item: AVPlayerItem) {
        for output in item.outputs { output.receive(frame) }
    }

    /// The item's outputs changed (suppression of the layers' rendering may have).
    func outputsChanged() {
        player?.layersChanged()
    }
}
