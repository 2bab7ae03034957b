// AVVideoComposition, which an export session refers to. Editing (instructions, layer
// instructions, rendering) is not implemented yet: a composition set on an export session is
// kept and reported, not applied.
import CoreGraphics
import CoreMedia
import Foundation

/// Describes how video tracks are composed for export or playback: frame duration and render
/// size. (Instructions arrive with editing; an export session does not apply compositions yet.)
open class AVVideoComposition: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    var storedFrameDuration: CMTime = .invalid
    var storedRenderSize: CGSize = .zero
    var storedRenderScale: Float = 1

    public override init() {
        super.init()
    }

    /// The interval between composed frames.
    open var frameDuration: CMTime { storedFrameDuration }
    /// The size composed frames are rendered at.
    open var renderSize: CGSize { storedRenderSize }
    /// The scale composed frames are rendered at.
    open var renderScale: Float { storedRenderScale }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVVideoComposition()
        copy.storedFrameDuration = storedFrameDuration
        copy.storedRenderSize = storedRenderSize
        copy.storedRenderScale = storedRenderScale
        return copy
    }

    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = AVMutableVideoComposition()
        copy.storedFrameDuration = storedFrameDuration
        copy.storedRenderSize = storedRenderSize
        copy.storedRenderScale = storedRenderScale
        return copy
    }
}
