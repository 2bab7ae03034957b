// AVMutableVideoComposition: a video composition whose every property can be set.
import CoreGraphics
import CoreMedia
import Foundation

/// A video composition that can be changed. A new one has `frameDuration` `.zero`,
/// `renderSize` `.zero`, `renderScale` 1, no instructions and no custom compositor.
open class AVMutableVideoComposition: AVVideoComposition, @unchecked Sendable {
    public override init() {
        super.init()
    }

    /// A mutable video composition that presents the video tracks of `asset`, after loading
    /// what it needs (see `AVVideoComposition.init(propertiesOf:)`).
    open override class func videoComposition(withPropertiesOf asset: AVAsset) async throws -> AVMutableVideoComposition {
        try await loadProperties(of: asset)
        return AVMutableVideoComposition(propertiesOf: asset)
    }

    /// A mutable video composition that presents the video tracks of `asset`, handed to
    /// `completionHandler` on a background queue (or the error loading the asset met).
    open override class func videoComposition(withPropertiesOf asset: AVAsset,
                                              completionHandler: @escaping @Sendable (AVMutableVideoComposition?, (any Error)?) -> Void) {
        whenLoaded(asset) { error in completionHandler(error == nil ? AVMutableVideoComposition(propertiesOf: asset) : nil, error) }
    }

    /// A mutable video composition that presents the video tracks of `asset` with the
    /// background colour and post-processing flag of `prototypeInstruction`, after loading what
    /// it needs.
    open class func videoComposition(withPropertiesOf asset: AVAsset,
                                     prototypeInstruction: AVVideoCompositionInstruction) async throws -> AVMutableVideoComposition {
        try await loadProperties(of: asset)
        return AVMutableVideoComposition(propertiesOf: asset, prototypeInstruction: prototypeInstruction)
    }

    /// The completion-handler form of `videoComposition(withPropertiesOf:prototypeInstruction:)`.
    open class func videoComposition(withPropertiesOf asset: AVAsset, prototypeInstruction: AVVideoCompositionInstruction,
                                     completionHandler: @escaping @Sendable (AVMutableVideoComposition?, (any Error)?) -> Void) {
        whenLoaded(asset) { error in
            completionHandler(error == nil ? AVMutableVideoComposition(propertiesOf: asset, prototypeInstruction: prototypeInstruction) : nil,
                              error)
        }
    }

    /// The interval at which composed frames are rendered.
    open override var frameDuration: CMTime {
        get { storedFrameDuration }
        set { storedFrameDuration = newValue }
    }

    /// The size composed frames are rendered at.
    open override var renderSize: CGSize {
        get { storedRenderSize }
        set { storedRenderSize = newValue }
    }

    /// The scale composed frames are rendered at.
    open override var renderScale: Float {
        get { storedRenderScale }
        set { storedRenderScale = newValue }
    }

    /// The instructions, in time order. The array is kept as given: the instruction objects are
    /// the caller's (changing a mutable one changes the composition, as on Apple; `copy()` takes
    /// a snapshot).
    open override var instructions: [any AVVideoCompositionInstructionProtocol] {
        get { storedInstructions }
        set { storedInstructions = newValue }
    }

    /// The track whose frame times the composed frames take; `kCMPersistentTrackID_Invalid`
    /// renders at `frameDuration`.
    open override var sourceTrackIDForFrameTiming: CMPersistentTrackID {
        get { storedSourceTrackIDForFrameTiming }
        set { storedSourceTrackIDForFrameTiming = newValue }
    }

    /// The custom compositor class; nil uses the built-in compositor.
    open override var customVideoCompositorClass: (any AVVideoCompositing.Type)? {
        get { storedCustomVideoCompositorClass }
        set { storedCustomVideoCompositorClass = newValue }
    }

    /// The colour primaries of the rendered frames; nil keeps the sources'.
    open override var colorPrimaries: String? {
        get { storedColorPrimaries }
        set { storedColorPrimaries = newValue }
    }

    /// The YCbCr matrix of the rendered frames; nil keeps the sources'.
    open override var colorYCbCrMatrix: String? {
        get { storedColorYCbCrMatrix }
        set { storedColorYCbCrMatrix = newValue }
    }

    /// The transfer function of the rendered frames; nil keeps the sources'.
    open override var colorTransferFunction: String? {
        get { storedColorTransferFunction }
        set { storedColorTransferFunction = newValue }
    }

    /// The timed-metadata tracks whose samples a custom compositor receives.
    open override var sourceSampleDataTrackIDs: [CMPersistentTrackID] {
        get { storedSourceSampleDataTrackIDs }
        set { storedSourceSampleDataTrackIDs = newValue }
    }

    /// The Core Animation tool rendering layers with the composed frames; nil for none.
    open override var animationTool: AVVideoCompositionCoreAnimationTool? {
        get { storedAnimationTool }
        set { storedAnimationTool = newValue }
    }
}
