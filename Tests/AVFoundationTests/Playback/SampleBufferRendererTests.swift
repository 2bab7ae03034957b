// The renderers AVPlayer is built on, driven directly as apps drive them (AVSampleBufferDisplayLayer
// with its own control timebase; AVSampleBufferRenderSynchronizer with an audio renderer and a
// display layer fed by AVAssetReader through requestMediaDataWhenReady): the picture shown is the
// one whose time the timebase says, jumps and rate changes are followed, the synchronizer's
// observers fire on its time.
@testable import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

/// Sample buffers read from one track of a file, handed out one at a time. Thread-safe.
private final class TrackFeed: Sendable {
    private let buffers: Mutex<[CMSampleBuffer]>

    init(_ url: URL, mediaType: AVMediaType, settings: [String: Any]?) throws {
        let asset = AVURLAsset(url: url)
        let reader = try AVAssetReader(asset: asset)
        let track = try #require(asset.tracks(withMediaType: mediaType).first)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
        reader.add(output)
        #expect(reader.startReading())
        var all: [CMSampleBuffer] = []
        while let buffer = output.copyNextSampleBuffer() { all.append(buffer) }
        buffers = Mutex(all)
    }

    var count: Int { buffers.withLock { $0.count } }

    func next() -> CMSampleBuffer? {
        buffers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// Feeds `renderer` whenever it wants more, until the buffers run out.
    func feed(_ renderer: any AVQueuedSampleBufferRendering, on queue: DispatchQueue) {
        renderer.requestMediaDataWhenReady(on: queue) { [self] in
            while renderer.isReadyForMoreMediaData {
                guard let buffer = next() else {
                    renderer.stopRequestingMediaData()
                    return
                }
                renderer.enqueue(buffer)
            }
        }
    }
}

@Suite(.serialized) struct SampleBufferRendererTests {
    @Test func displayLayerShowsThePictureItsControlTimebaseSays() throws {
        let frames = try TrackFeed(PlayerMedia.numbered, mediaType: .video,
                                   settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        let layer = AVSampleBufferDisplayLayer()
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: CMClockGetHostTimeClock(), timebaseOut: &made)
        let timebase = try #require(made)
        try timebase.setTime(CMTime(value: 1, timescale: 1))
        layer.controlTimebase = timebase
        // The first 3 s of frames (90), enqueued as the layer takes them.
        let queue = DispatchQueue(label: "feed")
        frames.feed(layer, on: queue)
        #expect(waitUntil { layer.isReadyForDisplay })
        #expect(waitUntil { layer.displayedPixelBuffer.flatMap(PlayerMedia.number) == 30 },
                "\(String(describing: layer.displayedPixelBuffer.flatMap(PlayerMedia.number)))")
        // A jump of the stopped timebase: the layer follows it (the timebase's notification).
        try timebase.setTime(CMTime(value: 3, timescale: 2))
        #expect(waitUntil { layer.displayedPixelBuffer.flatMap(PlayerMedia.number) == 45 },
                "\(String(describing: layer.displayedPixelBuffer.flatMap(PlayerMedia.number)))")
        // Running: later pictures come, in order.
        try timebase.setRate(1)
        #expect(waitUntil { (layer.displayedPixelBuffer.flatMap(PlayerMedia.number) ?? 0) > 60 })
        try timebase.setRate(0)
        let stopped = layer.displayedPixelBuffer.flatMap(PlayerMedia.number)
        usleep(200_000)
        #expect(layer.displayedPixelBuffer.flatMap(PlayerMedia.number) == stopped)
        layer.stopRequestingMediaData()
        layer.flushAndRemoveImage()
        #expect(layer.displayedPixelBuffer == nil)
    }

    @Test func synchronizerPlaysAnAudioRendererAndADisplayLayerTogether() throws {
        let url = PlayerMedia.clip(seconds: 3)
        let video = try TrackFeed(url, mediaType: .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange])
        let audio = try TrackFeed(url, mediaType: .audio, settings: [AVFormatIDKey: kAudioFormatLinearPCM])
        let synchronizer = AVSampleBufferRenderSynchronizer()
        let display = AVSampleBufferDisplayLayer()
        let sound = AVSampleBufferAudioRenderer()
        synchronizer.addRenderer(display)
        synchronizer.addRenderer(sound)
        #expect(synchronizer.renderers.count == 2)
        #expect(sound.timebase === synchronizer.timebase)
        let queue = DispatchQueue(label: "feed")
        video.feed(display, on: queue)
        audio.feed(sound, on: queue)
        let crossed = Mutex<CMTime?>(nil)
        let token = synchronizer.addBoundaryTimeObserver(forTimes: [NSValue(time: CMTime(value: 1, timescale: 1))], queue: queue) {
            crossed.withLock { $0 = synchronizer.currentTime() }
        }
        synchronizer.setRate(1, time: .zero)
        #expect(synchronizer.rate == 1)
        #expect(waitUntil { crossed.withLock { $0 } != nil })
        if let at = crossed.withLock({ $0 }) { #expect(abs(at.seconds - 1) < 0.1, "\(at.seconds)") }
        #expect(sound.status == .rendering, "\(audio.count) audio buffers left, \(sound.core.queue.count) queued, \(String(describing: sound.error))")
        #expect(display.status == .rendering)
        #expect(display.isReadyForDisplay)
        // The picture shown is the one for the synchronizer's time.
        let now = synchronizer.currentTime()
        let shown = try #require(display.presenter.shownFrame)
        #expect(shown.presentationTimeStamp <= now)
        #expect((now - shown.presentationTimeStamp).seconds < 0.1, "shown \(shown.presentationTimeStamp.seconds) at \(now.seconds)")
        // Stopped: the time stands.
        synchronizer.setRate(0, time: .invalid)
        let held = synchronizer.currentTime()
        usleep(200_000)
        #expect(synchronizer.currentTime() == held)
        synchronizer.removeTimeObserver(token)
        display.stopRequestingMediaData()
        sound.stopRequestingMediaData()
    }
}
