// Projective image drawing (3D layers) and zero-copy snapshots, for the layer renderer.
internal import CPixman
import Foundation

extension CGContext {
    /// Draws `image` mapped by `homography` (image pixel coordinates, y down from the first row,
    /// → user space), sampled by pixman's projective transform: bilinear (nearest at
    /// interpolation quality `.none`), edges fading to transparent, composited source-over with
    /// the context's alpha, under the clip, blend mode and shadow. Parts behind the eye (w ≤ 0)
    /// are not drawn.
    package func draw(_ image: CGImage, projecting homography: ImageHomography) {
        if hasEffects && drawingOverride == nil {
            drawThroughCairo { draw(image, projecting: homography) }
            return
        }
        let w = image.width, h = image.height
        let toTarget = homography.concatenating(ImageHomography(state.ctm.concatenating(deviceToTarget)))
        guard let targetToImage = toTarget.inverted() else { return }
        // The bounding box of the corners when all are in front; otherwise the whole bitmap.
        let corners = [(0, 0), (w, 0), (0, h), (w, h)].map { toTarget.apply(CGFloat($0.0), CGFloat($0.1)) }
        let box: PixelBox?
        if corners.allSatisfy({ $0.w > 0 && $0.x.isFinite && $0.y.isFinite }) {
            box = clipped(x0: corners.map(\.x).min()!.rounded(.down), x1: corners.map(\.x).max()!.rounded(.up),
                          y0: corners.map(\.y).min()!.rounded(.down), y1: corners.map(\.y).max()!.rounded(.up))
        } else if corners.contains(where: { $0.w > 0 }) {
            box = PixelBox(x: 0, y: 0, width: width, height: height)
        } else {
            box = nil
        }
        guard let box else { return }
        // pixman's transform is column-vector: the transpose of the row-vector inverse.
        var f = pixman_f_transform()
        let m = targetToImage
        f.m = ((Double(m.m11), Double(m.m21), Double(m.m31)),
               (Double(m.m12), Double(m.m22), Double(m.m32)),
               (Double(m.m13), Double(m.m23), Double(m.m33)))
        var fixed = pixman_transform()
        guard pixman_transform_from_pixman_f_transform(&fixed, &f) != 0 else { return }
        let nearest = state.interpolationQuality == .none || !image.shouldInterpolate
        let opacity = state.alpha < 1 ? PixmanImage(alpha: state.alpha) : nil
        let model = drawingModel
        withSourcePlanes(image, model: model) { planes in
            var planes = planes
            if model == .gray && planes.alpha == nil {
                guard let opaque = PixmanImage.opaqueAlpha(width: w, height: h) else { return }
                planes.alpha = opaque
            }
            for plane in planes.all {
                guard pixman_image_set_transform(plane.pointer, &fixed) != 0,
                      pixman_image_set_filter(plane.pointer, nearest ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR,
                                              nil, 0) != 0 else { return }
                pixman_image_set_repeat(plane.pointer, PIXMAN_REPEAT_NONE)
            }
            withTarget { target in
                if let color = planes.color {
                    pixmanComposite(PIXMAN_OP_OVER, color, mask: opacity, onto: target, box: box)
                } else {
                    pixmanComposite(PIXMAN_OP_OUT_REVERSE, planes.alpha ?? PixmanImage(alpha: 1), mask: opacity,
                                    onto: target, box: box)
                    if let luma = planes.luma {
                        pixmanComposite(PIXMAN_OP_ADD, luma, mask: opacity, onto: target, box: box)
                    }
                }
            }
        }
    }

    /// An image over the context's own memory, without copying its pixels: drawing it into
    /// another context reads this bitmap in place. The image keeps the context (and so its
    /// memory) alive. It sees later drawing into this context, so draw into the context again
    /// only once the image is no longer used (the layer renderer's offscreen pattern: render,
    /// snapshot, composite, discard).
    package func makeImageSharingMemory() -> CGImage? {
        guard let data else { return nil }
        let count = bytesPerRow * height
        let bytes = Data(bytesNoCopy: data, count: count, deallocator: .custom { [self] _, _ in
            withExtendedLifetime(self) {}
        })
        return CGImage(validatingWidth: width, height: height, bitsPerComponent: bitsPerComponent,
                       bitsPerPixel: bitsPerPixel, bytesPerRow: bytesPerRow, space: colorSpace,
                       bitmapInfo: bitmapInfo, provider: CGDataProvider(bytes: bytes), decode: nil,
                       shouldInterpolate: true, intent: .defaultIntent)
    }
}
