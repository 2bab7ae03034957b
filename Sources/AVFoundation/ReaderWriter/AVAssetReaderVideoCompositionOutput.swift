// AVAssetReaderVideoCompositionOutput: reads the frames a video composition makes of one or more
// video tracks — the compositor stage over one decoded source per track.
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// Reads video frames composited from one or more video tracks of the reader's asset by a video
/// composition: one frame at every `k·frameDuration` from the start of the reader's time range
/// (exact times, duration `frameDuration`) up to the asset's end, each composed by the
/// composition's `customVideoCompositorClass` (one instance per output) or the built-in
/// compositor, from each track's frame at that time.
///
/// `videoSettings` are Core Video pixel buffer attributes: `kCVPixelBufferPixelFormatTypeKey`
/// (one format or an array) chooses the format frames are delivered in (a composed frame of
/// another format is converted once); frames are `renderSize × renderScale` unless
/// `kCVPixelBufferWidthKey` and `kCVPixelBufferHeightKey` ask for another size (scaled once).
/// nil delivers what the compositor renders. Set `videoComposition` before reading starts; reading without one
/// fails with `AVError.invalidVideoComposition`, as does a composition that cannot be rendered
/// (a frame duration that is not positive, an empty render size, an animation tool).
open class AVAssetReaderVideoCompositionOutput: AVAssetReaderOutput, @unchecked Sendable {
    /// The tracks whose frames are composed.
    public let videoTracks: [AVAssetTrack]
    /// The settings the output was created with.
    public let videoSettings: [String: Any]?
    private let parsedSettings: ReaderVideoSettings
    private struct State {
        var composition: AVVideoComposition?
        var session: VideoCompositionSession?
        var source: ComposedReaderSource?
    }
    private let state = Mutex(State())

    /// An output composing `videoTracks` (all of media type video) into frames with
    /// `videoSettings` (pixel buffer attributes; nil: the compositor's format).
    public init(videoTracks: [AVAssetTrack], videoSettings: [String: Any]?) {
        let method = "*** -[AVAssetReaderVideoCompositionOutput initWithVideoTracks:videoSettings:]"
        guard !videoTracks.isEmpty else {
            raiseReaderException(.invalidArgument, "\(method) invalid parameter not satisfying: [videoTracks count] > 0")
        }
        for track in videoTracks where track.mediaType != .video {
            raiseReaderException(.invalidArgument, "\(method) all tracks must be of media type AVMediaTypeVideo (track \(track.trackID) is not)")
        }
        var parsed = ReaderVideoSettings()
        if let videoSettings {
            switch ReaderVideoSettings.parse(videoSettings) {
            case .success(let settings): parsed = settings
            case .failure(let problem): raiseReaderException(.invalidArgument, "\(method) \(problem.reason)")
            }
        }
        self.videoTracks = videoTracks
        self.videoSettings = videoSettings
        parsedSettings = parsed
        super.init(mediaType: .video)
    }

    /// The video composition the frames are made with (a copy is kept). Cannot be set after
    /// reading has started.
    open var videoComposition: AVVideoComposition? {
        get { state.withLock { $0.composition } }
        set {
            if hasStartedReading {
                raiseReaderException(.invalidArgument,
                                     "*** -[AVAssetReaderVideoCompositionOutput setVideoComposition:] cannot be called after reading has started")
            }
            let copy = newValue?.copy() as? AVVideoComposition
            state.withLock { $0.composition = copy }
        }
    }

    /// The instance of the composition's `customVideoCompositorClass` the output uses, once
    /// reading has started; nil with the built-in compositor.
    open var customVideoCompositor: (any AVVideoCompositing)? {
        state.withLock { $0.session?.customCompositor }
    }

    override var sourceTracks: [AVAssetTrack] { videoTracks }

    override func makeSource(timeRange: CMTimeRange) throws -> any ReaderSampleSource {
        guard let composition = videoComposition else {
            throw VideoCompositionSession.invalid("An AVAssetReaderVideoCompositionOutput needs a videoComposition to read.")
        }
        var size: (width: Int, height: Int)?
        if let width = parsedSettings.width, let height = parsedSettings.height { size = (width, height) }
        let session = try VideoCompositionSession(composition: composition, outputFormats: parsedSettings.pixelFormats,
                                                  outputSize: size)
        let source = ComposedReaderSource(tracks: videoTracks, session: session, copiesSampleData: alwaysCopiesSampleData)
        state.withLock {
            $0.session = session
            $0.source = source
        }
        return source
    }

    override func interruptSource() {
        state.withLock { $0.source }?.interrupt()
    }
}

/// The reader source of a composition output (and of the image generator with a composition):
/// one decoded source per track (through the segment walker), the compositor stage over them,
/// re-made for each requested range.
final class ComposedReaderSource: ReaderSampleSource, @unchecked Sendable {
    private let tracks: [AVAssetTrack]
    let session: VideoCompositionSession
    private let copiesSampleData: Bool
    private var inners: [any ReaderSampleSource] = []
    private var ranges: [CMTimeRange] = []
    private var stage: VideoCompositorStage?
    private var positioned = false
    /// The running stage, for `interrupt()` from other threads (under `interruptLock`).
    private var running: VideoCompositorStage?
    private let interruptLock = NSLock()
    /// Where composed frames end: the asset's duration (else the tracks' latest end).
    private let end: CMTime

    init(tracks: [AVAssetTrack], session: VideoCompositionSession, copiesSampleData: Bool) {
        self.tracks = tracks
        self.session = session
        self.copiesSampleData = copiesSampleData
        let ends = tracks.map(\.timeRange.end).filter(\.isNumeric)
        let duration = tracks.first?.asset?.duration
        end = duration.flatMap { $0.isNumeric ? $0 : nil } ?? ends.max() ?? .zero
    }

    func start(timeRange: CMTimeRange) throws {
        let settings = session.sourceSettings
        inners = try tracks.map { track in
            try SegmentWalkingSource.make(segments: track.mediaSegments, cutsFrames: true) {
                ReaderVideoSource(source: $0, settings: settings, copiesSampleData: false, cancellation: $1)
            }
        }
        try reset(timeRanges: [timeRange])
    }

    func reset(timeRanges: [CMTimeRange]) throws {
        ranges = timeRanges
        stage = nil
        try advance()
    }

    /// Positions every track's source on the next range and makes its stage; none when no range
    /// is left.
    private func advance() throws {
        stage = nil
        while !ranges.isEmpty {
            let requested = ranges.removeFirst()
            let rangeEnd = requested.end.isNumeric ? min(requested.end, end) : end
            guard requested.start < rangeEnd else { continue }
            let range = CMTimeRange(start: requested.start, end: rangeEnd)
            for inner in inners {
                if positioned { try inner.reset(timeRanges: [range]) } else { try inner.start(timeRange: range) }
            }
            positioned = true
            let sources = zip(tracks, inners).map { track, inner in
                VideoCompositorStage.Source(trackID: track.trackID, timeRange: track.timeRange, next: inner.next)
            }
            let made = VideoCompositorStage(sources: sources, composition: session, range: range,
                                            outputFormats: session.outputFormats, copiesSourceFrames: copiesSampleData)
            stage = made
            interruptLock.withLock { running = made }
            return
        }
    }

    func next() throws -> CMSampleBuffer? {
        while let stage {
            if let frame = try stage.next() { return frame }
            try advance()
        }
        return nil
    }

    /// Stops a `next()` waiting for the compositor (from any thread).
    func interrupt() {
        interruptLock.withLock { running }?.interrupt()
    }

    func cancel() {
        interrupt()
        for inner in inners { inner.cancel() }
        inners = []
        ranges = []
        stage = nil
    }
}
