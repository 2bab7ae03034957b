// AVMutableVideoCompositionInstruction: an instruction whose range, background, layers and
// post-processing flag can be set.
import CoreGraphics
import CoreMedia
import Foundation

/// A video composition instruction that can be changed. A new one has `timeRange`
/// `.invalid`, no background colour (opaque black), no layer instructions and
/// `enablePostProcessing` true.
open class AVMutableVideoCompositionInstruction: AVVideoCompositionInstruction, @unchecked Sendable {
    public override init() {
        super.init()
    }

    /// The time range during which the instruction is effective.
    open override var timeRange: CMTimeRange {
        get { storedTimeRange }
        set { storedTimeRange = newValue }
    }

    /// The colour under the layers; nil means opaque black.
    open override var backgroundColor: CGColor? {
        get { storedBackgroundColor }
        set { storedBackgroundColor = newValue }
    }

    /// The layers, first on top. The array is kept as given: the layer instruction objects are
    /// the caller's (changing a mutable one changes the instruction, as on Apple).
    open override var layerInstructions: [AVVideoCompositionLayerInstruction] {
        get { storedLayerInstructions }
        set { storedLayerInstructions = newValue }
    }

    /// Whether post-processing runs over the range.
    open override var enablePostProcessing: Bool {
        get { storedEnablePostProcessing }
        set { storedEnablePostProcessing = newValue }
    }
}
