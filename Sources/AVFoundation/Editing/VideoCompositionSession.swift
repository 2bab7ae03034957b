// VideoCompositionSession: a video composition made ready to render for one consumer (a reader
// output, an export, an image generator) — checked, its compositor made once (the custom class,
// or the built-in one), the render context given to it, its instructions in time order, and the
// pixel formats source frames are decoded to.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation

/// A video composition ready to render: one per consumer, shared by every stage it runs.
final class VideoCompositionSession: @unchecked Sendable {
    /// The composition (the consumer's copy).
    let composition: AVVideoComposition
    /// The compositor every request goes to: an instance of `customVideoCompositorClass`, or
    /// the built-in compositor.
    let compositor: any AVVideoCompositing
    /// The custom compositor (nil with the built-in one), as consumers report it.
    var customCompositor: (any AVVideoCompositing)? { compositor is BuiltInVideoCompositor ? nil : compositor }
    let renderContext: AVVideoCompositionRenderContext
    /// The instructions, by start time.
    let instructions: [any AVVideoCompositionInstructionProtocol]
    /// The interval between output frames.
    let frameDuration: CMTime
    /// What source frames are decoded to (the compositor's `sourcePixelBufferAttributes`).
    let sourceSettings: ReaderVideoSettings
    /// The pixel formats the consumer takes, best first (empty: any).
    let outputFormats: [OSType]
    /// The size the consumer takes (nil: the render context's); frames are scaled to it.
    let outputSize: (width: Int, height: Int)?
    /// The composition's Core Animation tool at work (nil without one).
    let animation: CoreAnimationRendering?

    /// Makes the session for `composition`. `outputFormats`: the pixel formats
    /// the consumer takes, best first (empty: any); the built-in compositor renders the first
    /// it can. Throws `AVError.invalidVideoComposition` for a composition that cannot be
    /// rendered, before anything is read or written.
    init(composition: AVVideoComposition, outputFormats: [OSType],
         outputSize: (width: Int, height: Int)? = nil) throws {
        try Self.check(composition)
        self.composition = composition
        self.outputFormats = outputFormats
        self.outputSize = outputSize
        frameDuration = composition.frameDuration
        instructions = composition.instructions.sorted { $0.timeRange.start < $1.timeRange.start }
        if let type = composition.customVideoCompositorClass {
            compositor = type.init()
        } else {
            // With a Core Animation tool the compositor still renders what the consumer takes:
            // the tool draws over a region of a Y'CbCr frame without converting the rest.
            compositor = BuiltInVideoCompositor(outputFormats: outputFormats)
        }
        let required = compositor.requiredPixelBufferAttributesForRenderContext
        renderContext = try AVVideoCompositionRenderContext(composition: composition, attributes: required)
        var settings = ReaderVideoSettings()
        if let attributes = compositor.sourcePixelBufferAttributes {
            var plain: [String: Any] = [:]
            for (key, value) in attributes { plain[key] = value }
            switch ReaderVideoSettings.parse(plain) {
            case .success(let parsed): settings = parsed
            case .failure(let problem):
                throw Self.invalid("The compositor's sourcePixelBufferAttributes cannot be honoured: \(problem.reason)")
            }
            if plain[kCVPixelBufferPixelFormatTypeKey as String] == nil {
                throw Self.invalid("The compositor's sourcePixelBufferAttributes has no kCVPixelBufferPixelFormatTypeKey.")
            }
        }
        sourceSettings = settings
        if let tool = composition.animationTool {
            let size = renderContext.size
            animation = try CoreAnimationRendering(tool: tool, width: Int(size.width), height: Int(size.height))
        } else {
            animation = nil
        }
        compositor.renderContextChanged(renderContext)
    }

    /// Why `composition` cannot be rendered, as `AVError.invalidVideoComposition`.
    static func check(_ composition: AVVideoComposition) throws {
        let fd = composition.frameDuration
        guard fd.isNumeric, fd > .zero else {
            throw invalid("The video composition's frameDuration is not a positive time.")
        }
        let size = composition.renderSize
        guard size.width >= 1, size.height >= 1, size.width.isFinite, size.height.isFinite,
              size.width <= 16384, size.height <= 16384 else {
            throw invalid("The video composition's renderSize (\(size.width)×\(size.height)) is not a size frames can have.")
        }
        let scale = composition.renderScale
        guard scale > 0, scale.isFinite, Double(size.width) * Double(scale) >= 1, Double(size.height) * Double(scale) >= 1 else {
            throw invalid("The video composition's renderScale (\(scale)) is not a positive scale.")
        }
        for (i, instruction) in composition.instructions.enumerated() {
            let range = instruction.timeRange
            guard range.isValid, range.start.isNumeric, range.duration.isNumeric, range.duration >= .zero else {
                throw invalid("Instruction \(i) of the video composition has no valid time range.")
            }
        }
    }

    static func invalid(_ reason: String) -> AVError {
        AVError(.invalidVideoComposition, userInfo: [NSLocalizedDescriptionKey: "Operation Stopped",
                                                     NSLocalizedFailureReasonErrorKey: reason])
    }

    /// The tracks `instruction` needs frames of: its passthrough track alone, else its required
    /// source tracks (nil: every track the consumer reads, `all`).
    static func requiredTrackIDs(of instruction: any AVVideoCompositionInstructionProtocol,
                                 all: [CMPersistentTrackID]) -> [CMPersistentTrackID] {
        if instruction.passthroughTrackID != kCMPersistentTrackID_Invalid { return [instruction.passthroughTrackID] }
        guard let ids = instruction.requiredSourceTrackIDs else { return all }
        return ids.compactMap { ($0 as? NSNumber).map { CMPersistentTrackID($0.int32Value) } }
    }

    /// A hint for the frames from `start` to `end`, given to the compositor before a run.
    func anticipate(from start: CMTime, to end: CMTime) {
        compositor.anticipateRendering(using: AVVideoCompositionRenderHint(startCompositionTime: start, endCompositionTime: end))
    }
}
