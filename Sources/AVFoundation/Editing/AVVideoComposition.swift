// AVVideoComposition: how an asset's video tracks are composed into one picture over time —
// the instructions, render size and scale, frame rate, compositor class and output colour space.
import CoreGraphics
import CoreMedia
import Foundation

/// An immutable description of how video tracks are composed, for any time in the range its
/// instructions cover: which tracks, layered how (opacity, transform and crop ramps for the
/// built-in compositor; anything for a custom compositor's own instructions).
///
/// `AVMutableVideoComposition` sets the properties; `init(propertiesOf:)` derives them from an
/// asset. Copies are independent: `copy()` and `mutableCopy()` copy the built-in instructions
/// and their layer instructions too.
open class AVVideoComposition: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    var storedFrameDuration: CMTime = .zero
    var storedRenderSize: CGSize = .zero
    var storedRenderScale: Float = 1
    var storedInstructions: [any AVVideoCompositionInstructionProtocol] = []
    var storedSourceTrackIDForFrameTiming: CMPersistentTrackID = kCMPersistentTrackID_Invalid
    var storedCustomVideoCompositorClass: (any AVVideoCompositing.Type)?
    var storedColorPrimaries: String?
    var storedColorYCbCrMatrix: String?
    var storedColorTransferFunction: String?
    var storedSourceSampleDataTrackIDs: [CMPersistentTrackID] = []
    var storedAnimationTool: AVVideoCompositionCoreAnimationTool?

    public override init() {
        super.init()
    }

    /// The interval at which composed frames are rendered (`.zero` until set).
    open var frameDuration: CMTime { storedFrameDuration }

    /// The size composed frames are rendered at (`.zero` until set).
    open var renderSize: CGSize { storedRenderSize }

    /// The scale composed frames are rendered at; other than 1 only for a player item's composition.
    open var renderScale: Float { storedRenderScale }

    /// The instructions, in time order. The first instruction's range must start at or before
    /// the first time processed (usually zero), each next one must start where the previous one
    /// ends, and the last must end at or after the last time processed (usually the asset's
    /// duration); `isValid(for:timeRange:validationDelegate:)` checks this.
    open var instructions: [any AVVideoCompositionInstructionProtocol] { storedInstructions }

    /// When not `kCMPersistentTrackID_Invalid`, the track whose frame times the composed frames
    /// take (keeping a source's variable frame timing; within its empty edits frames are composed
    /// at up to `frameDuration`).
    open var sourceTrackIDForFrameTiming: CMPersistentTrackID { storedSourceTrackIDForFrameTiming }

    /// The custom compositor class that renders the instructions; nil uses the built-in one.
    open var customVideoCompositorClass: (any AVVideoCompositing.Type)? { storedCustomVideoCompositorClass }

    /// The colour primaries of the rendered frames (an `AVVideoColorPrimaries…` value); nil
    /// keeps the sources'.
    open var colorPrimaries: String? { storedColorPrimaries }

    /// The YCbCr matrix of the rendered frames (an `AVVideoYCbCrMatrix…` value); nil keeps the sources'.
    open var colorYCbCrMatrix: String? { storedColorYCbCrMatrix }

    /// The transfer function of the rendered frames (an `AVVideoTransferFunction…` value); nil
    /// keeps the sources'.
    open var colorTransferFunction: String? { storedColorTransferFunction }

    /// The timed-metadata tracks whose samples a custom compositor receives.
    open var sourceSampleDataTrackIDs: [CMPersistentTrackID] { storedSourceSampleDataTrackIDs }

    /// The Core Animation tool that renders layers over (or as a source of) the composed frames
    /// in exports, reader outputs and image generators; nil for none. Players refuse a
    /// composition that has one.
    open var animationTool: AVVideoCompositionCoreAnimationTool? { storedAnimationTool }

    /// A video composition that presents the video tracks of `asset`, after loading what it
    /// needs (see `init(propertiesOf:)`).
    open class func videoComposition(withPropertiesOf asset: AVAsset) async throws -> AVVideoComposition {
        try await loadProperties(of: asset)
        return AVVideoComposition(propertiesOf: asset)
    }

    /// A video composition that presents the video tracks of `asset`, handed to
    /// `completionHandler` on a background queue (or the error loading the asset met).
    open class func videoComposition(withPropertiesOf asset: AVAsset,
                                     completionHandler: @escaping @Sendable (AVVideoComposition?, (any Error)?) -> Void) {
        whenLoaded(asset) { error in completionHandler(error == nil ? AVVideoComposition(propertiesOf: asset) : nil, error) }
    }

    /// Calls `body` on a background queue once the asset's tracks and duration are loaded, with
    /// the error that stopped them if any.
    static func whenLoaded(_ asset: AVAsset, _ body: @escaping @Sendable ((any Error)?) -> Void) {
        asset.loadValuesAsynchronously(forKeys: ["tracks", "duration"]) {
            var error: NSError?
            for key in ["tracks", "duration"] where asset.statusOfValue(forKey: key, error: &error) != .loaded {
                return body(error ?? AVError(.unknown))
            }
            body(nil)
        }
    }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any { copyState(into: AVVideoComposition()) }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any { copyState(into: AVMutableVideoComposition()) }

    private func copyState<T: AVVideoComposition>(into copy: T) -> T {
        copy.storedFrameDuration = storedFrameDuration
        copy.storedRenderSize = storedRenderSize
        copy.storedRenderScale = storedRenderScale
        copy.storedInstructions = storedInstructions.map { instruction in
            // The built-in instructions are copied (a mutable one changed later must not change
            // the copy); a custom instruction is the caller's object, kept as it is.
            (instruction as? AVVideoCompositionInstruction)?.copy() as? AVVideoCompositionInstruction ?? instruction
        }
        copy.storedSourceTrackIDForFrameTiming = storedSourceTrackIDForFrameTiming
        copy.storedCustomVideoCompositorClass = storedCustomVideoCompositorClass
        copy.storedColorPrimaries = storedColorPrimaries
        copy.storedColorYCbCrMatrix = storedColorYCbCrMatrix
        copy.storedColorTransferFunction = storedColorTransferFunction
        copy.storedSourceSampleDataTrackIDs = storedSourceSampleDataTrackIDs
        copy.storedAnimationTool = storedAnimationTool
        return copy
    }

    // MARK: Evaluation (for the compositor)

    /// The instruction in effect at `time`: the first whose time range contains it; nil in a gap
    /// (where Apple renders black).
    func instruction(at time: CMTime) -> (any AVVideoCompositionInstructionProtocol)? {
        instructions.first { $0.timeRange.containsTime(time) }
    }
}

extension AVAsset {
    /// A track ID no track of the asset has (one above the greatest; the smallest free positive
    /// ID when that would overflow), for an extra video composition source such as the Core
    /// Animation tool's layer.
    public func unusedTrackID() -> CMPersistentTrackID {
        let used = Set(tracks.map(\.trackID))
        if let greatest = used.max(), greatest < CMPersistentTrackID.max { return max(greatest + 1, 1) }
        return (1...CMPersistentTrackID.max).first { !used.contains($0) } ?? kCMPersistentTrackID_Invalid
    }
}
