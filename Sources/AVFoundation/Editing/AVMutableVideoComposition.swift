// AVMutableVideoComposition: a video composition whose frame duration and render size can be set.
import CoreGraphics
import CoreMedia
import Foundation

/// A video composition whose frame duration and render size can be changed.
open class AVMutableVideoComposition: AVVideoComposition, @unchecked Sendable {
    open override var frameDuration: CMTime {
        get { storedFrameDuration }
        set { storedFrameDuration = newValue }
    }

    open override var renderSize: CGSize {
        get { storedRenderSize }
        set { storedRenderSize = newValue }
    }

    open override var renderScale: Float {
        get { storedRenderScale }
        set { storedRenderScale = newValue }
    }
}
