// AVAsynchronousVideoCompositionRequest: one frame a compositor is asked to compose — its time,
// instruction, render context and source frames — and the three ways to finish it.
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// What a video compositor needs to compose one output frame: the composition time, the
/// instruction in effect, the render context, and the source frames of the instruction's
/// tracks at that time. The compositor finishes it exactly once, from any thread; later calls
/// are ignored.
open class AVAsynchronousVideoCompositionRequest: NSObject, NSCopying, @unchecked Sendable {
    /// How a request ended.
    enum Outcome: @unchecked Sendable {
        case frame(CVPixelBuffer)
        case failed(any Error)
        case cancelled
    }

    private let context: AVVideoCompositionRenderContext
    private let time: CMTime
    private let instruction: any AVVideoCompositionInstructionProtocol
    /// The source frames by track, in the order of `sourceTrackIDs`.
    private let sources: [(trackID: CMPersistentTrackID, sample: CMSampleBuffer)]
    private let finished = Mutex(false)
    private let onFinish: @Sendable (Outcome) -> Void

    init(renderContext: AVVideoCompositionRenderContext, compositionTime: CMTime,
         instruction: any AVVideoCompositionInstructionProtocol,
         sources: [(trackID: CMPersistentTrackID, sample: CMSampleBuffer)],
         onFinish: @escaping @Sendable (Outcome) -> Void) {
        context = renderContext
        time = compositionTime
        self.instruction = instruction
        self.sources = sources
        self.onFinish = onFinish
        super.init()
    }

    /// The render context the frame is composed in.
    open var renderContext: AVVideoCompositionRenderContext { context }
    /// The time the frame is composed for.
    open var compositionTime: CMTime { time }
    /// The tracks whose frames are available for this request.
    open var sourceTrackIDs: [NSNumber] { sources.map { NSNumber(value: $0.trackID) } }
    /// The tracks whose sample data (non-video samples) is available: none.
    open var sourceSampleDataTrackIDs: [NSNumber] { [] }
    /// The instruction in effect at `compositionTime`.
    open var videoCompositionInstruction: any AVVideoCompositionInstructionProtocol { instruction }

    /// The source frame of track `trackID` at `compositionTime`; nil when the track has none
    /// (not among `sourceTrackIDs`, or no media there).
    open func sourceFrame(byTrackID trackID: CMPersistentTrackID) -> CVPixelBuffer? {
        sources.first { $0.trackID == trackID }.flatMap { CMSampleBufferGetImageBuffer($0.sample) }
    }

    /// The source sample buffer of track `trackID` at `compositionTime` (its pixel buffer is
    /// `sourceFrame(byTrackID:)`); nil when the track has none.
    open func sourceSampleBuffer(byTrackID trackID: CMPersistentTrackID) -> CMSampleBuffer? {
        sources.first { $0.trackID == trackID }?.sample
    }

    /// The composed frame: the request is done.
    open func finish(withComposedVideoFrame composedVideoFrame: CVPixelBuffer) {
        end(.frame(composedVideoFrame))
    }

    /// The compositor could not compose the frame: whatever reads the composition fails with
    /// `error`.
    open func finish(with error: any Error) {
        end(.failed(error))
    }

    /// The compositor did not compose the frame because its requests were cancelled
    /// (`cancelAllPendingVideoCompositionRequests()`).
    open func finishCancelledRequest() {
        end(.cancelled)
    }

    /// Requests are immutable: a copy is the request itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    private func end(_ outcome: Outcome) {
        let first = finished.withLock { done in
            defer { done = true }
            return !done
        }
        if first { onFinish(outcome) }
    }
}
