// The frame compositor's two paths: on the planes of an NV12 canvas (Y'CbCr layers moved by whole,
// even offsets or scaled onto whole pixels) and on a 32-bit premultiplied RGB canvas (everything
// else). See FrameCompositor.swift.
internal import CPixman
import CoreVideo
import Foundation

extension FrameCompositor {
    private static let nv12Video = OSType(fourCC: "420v")
    private static let nv12Full = OSType(fourCC: "420f")
    private static let bgra = OSType(fourCC: "BGRA")

    // MARK: Planes

    /// Composites on the luma and chroma planes of an NV12 canvas (the output when it is
    /// `420v`/`420f`, else a pooled canvas converted once at the end). Each plane is an
    /// `a8` image to pixman: an opaque layer is copied (SRC), a faded one blended as
    /// `dst·(1−α) + src·α` (IN with a solid, then ADD of a solid through the layer as mask). A
    /// layer moved by (tx, ty) covers chroma samples ⌊(x+1)/2⌋ for its luma edges x, so layers
    /// meeting at an odd column share out the chroma sample between them.
    func renderPlanes(_ layers: [PlacedLayer], background: Color?, matrix: PixelFormatColor.Matrix, into output: CVPixelBuffer,
                      scratch: Scratch) throws(PixelConversionError) {
        let outputIsNV12 = pixelFormat == Self.nv12Video || pixelFormat == Self.nv12Full
        // For other outputs the canvas takes the range of the back layer, so NV12 layers (as
        // decoders give them) are read in place rather than converted between ranges.
        let backFormat = layers.first?.storage.pixelFormat
        let canvasFormat = outputIsNV12 ? pixelFormat : backFormat == Self.nv12Video ? Self.nv12Video : Self.nv12Full
        let canvas = outputIsNV12 ? output : try buffer(canvasFormat, width: renderWidth, height: renderHeight)
        guard let c = canvas.storage, c.planes.count == 2,
              let luma = scratch.image(PIXMAN_a8, width: c.width, height: c.height, bits: c.planes[0].baseAddress,
                                       bytesPerRow: c.planes[0].bytesPerRow),
              let chroma = scratch.image(PIXMAN_a8, width: 2 * c.planes[1].width, height: c.planes[1].height,
                                         bits: c.planes[1].baseAddress, bytesPerRow: c.planes[1].bytesPerRow)
        else { throw .invalidBuffer }
        if let background {
            let value = try backgroundYCbCr(background, fullRange: canvasFormat == Self.nv12Full, matrix: matrix)
            guard PixmanOps.fill(c.planes[0].baseAddress, bytesPerRow: c.planes[0].bytesPerRow, bitsPerPixel: 8,
                                 box: PixelRect(x: 0, y: 0, width: c.width, height: c.height), value: UInt32(value.y)),
                  PixmanOps.fill(c.planes[1].baseAddress, bytesPerRow: c.planes[1].bytesPerRow, bitsPerPixel: 16,
                                 box: PixelRect(x: 0, y: 0, width: c.planes[1].width, height: c.planes[1].height),
                                 value: UInt32(value.cb) | UInt32(value.cr) << 8)
            else { throw .invalidBuffer }
        }
        for layer in layers {
            var source = layer.image
            let shift: (x: Int, y: Int)
            if let translation = layer.translation {
                shift = translation
            } else {
                // Scaled onto whole pixels: libswscale scales the crop (an opaque layer straight
                // into the canvas, a faded one into the top-left of a pooled frame-sized buffer).
                guard let d = layer.scaledDestination else { throw .invalidBuffer }
                if layer.alpha == 255 {
                    try scale(layer, into: canvas, at: d, matrix: matrix)
                    continue
                }
                source = try buffer(canvasFormat, width: renderWidth, height: renderHeight)
                try scale(layer, into: source, at: PixelRect(x: 0, y: 0, width: d.width, height: d.height), matrix: matrix)
                PixelFormatColor.setAttachment(PixelFormatColor.matrixKey, matrix.rawValue, on: source)
                shift = (d.x, d.y)
            }
            var planes = planeImages(source, canvasFormat: canvasFormat, matrix: matrix, scratch: scratch)
            if planes == nil, let size = source.storage {
                // Another layout, range or matrix (or planes pixman cannot address): converted once.
                let original = source
                source = try buffer(canvasFormat, width: size.width, height: size.height)
                try transfer(original, into: source, matrix: matrix)
                PixelFormatColor.setAttachment(PixelFormatColor.matrixKey, matrix.rawValue, on: source)
                planes = planeImages(source, canvasFormat: canvasFormat, matrix: matrix, scratch: scratch)
            }
            guard let (sourceLuma, sourceChroma) = planes.map({ ($0.0, $0.1) }) else { throw .invalidBuffer }
            let box = layer.box
            let cx0 = (box.x + 1) >> 1, cx1 = (box.maxX + 1) >> 1, cy0 = (box.y + 1) >> 1, cy1 = (box.maxY + 1) >> 1
            let chromaBox = PixelRect(x: 2 * cx0, y: cy0, width: 2 * (cx1 - cx0), height: cy1 - cy0)
            try blend(sourceLuma, onto: luma, box: box, offset: (-shift.x, -shift.y), alpha: layer.alpha, scratch: scratch)
            try blend(sourceChroma, onto: chroma, box: chromaBox, offset: (-shift.x, -shift.y / 2), alpha: layer.alpha,
                      scratch: scratch)
            withExtendedLifetime(source) {}
        }
        PixelFormatColor.setAttachment(PixelFormatColor.matrixKey, matrix.rawValue, on: canvas)
        if canvas !== output { try transfer(canvas, into: output) }
    }

    /// Scales `layer`'s crop into `region` of `target` (an NV12 buffer of the planes canvas's
    /// layout) with libswscale, converting its Y'CbCr layout and range on the way.
    private func scale(_ layer: PlacedLayer, into target: CVPixelBuffer, at region: PixelRect, matrix: PixelFormatColor.Matrix)
        throws(PixelConversionError) {
        guard let from = PixelImage(pixelBuffer: layer.image, matrix: layer.matrix),
              let to = PixelImage(pixelBuffer: target, matrix: matrix) else { throw .invalidBuffer }
        let crop = layer.crop
        try converter.scale(from.cropped(x: crop.x, y: crop.y, width: crop.width, height: crop.height),
                            into: to.cropped(x: region.x, y: region.y, width: region.width, height: region.height),
                            scaling: .bicubic, fast: true)
    }

    /// The luma and chroma planes of `buffer` as `a8` images, when it is an NV12 buffer of the
    /// canvas's format and `matrix` that pixman can address; nil otherwise.
    private func planeImages(_ buffer: CVPixelBuffer, canvasFormat: OSType, matrix: PixelFormatColor.Matrix, scratch: Scratch)
        -> (PixmanPicture, PixmanPicture)? {
        guard let s = buffer.storage, s.pixelFormat == canvasFormat, s.planes.count == 2,
              (PixelFormatColor.attachedMatrix(of: buffer) ?? .defaultMatrix(height: s.height)) == matrix,
              let y = scratch.image(PIXMAN_a8, width: s.width, height: s.height, bits: s.planes[0].baseAddress,
                                    bytesPerRow: s.planes[0].bytesPerRow),
              let c = scratch.image(PIXMAN_a8, width: 2 * s.planes[1].width, height: s.planes[1].height,
                                    bits: s.planes[1].baseAddress, bytesPerRow: s.planes[1].bytesPerRow)
        else { return nil }
        return (y, c)
    }

    /// Draws `box` of one plane: a copy at opacity 255, else `dst·(255−α)/255 + src·α/255`.
    private func blend(_ source: PixmanPicture, onto destination: PixmanPicture, box: PixelRect, offset: (x: Int, y: Int),
                       alpha: UInt8, scratch: Scratch) throws(PixelConversionError) {
        if alpha == 255 {
            PixmanOps.composite(.source, source, onto: destination, box: box, sourceOffset: offset)
            return
        }
        guard let complement = scratch.complement, let solid = scratch.alpha else { throw .allocationFailed }
        complement.setSolid(UInt32(255 - alpha))
        PixmanOps.composite(.inside, complement, onto: destination, box: box)
        solid.setSolid(UInt32(alpha))
        PixmanOps.composite(.add, solid, mask: source, onto: destination, box: box, maskOffset: offset)
    }

    // MARK: RGB

    /// Composites OVER a premultiplied 32-bit canvas (the output when it is a 32-bit RGB format,
    /// else a pooled `BGRA` canvas converted once at the end).
    func renderRGB(_ layers: [PlacedLayer], background: Color?, into output: CVPixelBuffer, scratch: Scratch)
        throws(PixelConversionError) {
        let outputFormat = PixmanOps.rgb32Format(pixelFormat, opaque: false)
        let canvas = outputFormat != nil ? output : try buffer(Self.bgra, width: renderWidth, height: renderHeight)
        guard let c = canvas.storage,
              let target = scratch.image(outputFormat ?? PIXMAN_a8r8g8b8, width: c.width, height: c.height,
                                         bits: c.planes[0].baseAddress, bytesPerRow: c.planes[0].bytesPerRow)
        else { throw .invalidBuffer }
        let frame = PixelRect(x: 0, y: 0, width: c.width, height: c.height)
        if let background {
            guard let color = scratch.color else { throw .allocationFailed }
            color.setSolid(Self.premultipliedPixel(background))
            PixmanOps.composite(.source, color, onto: target, box: frame)
        }
        for (index, layer) in layers.enumerated() {
            let s = layer.storage
            let direct = PixmanOps.rgb32Format(s.pixelFormat, opaque: !layer.layout.hasAlpha)
            if index == 0, layer.coversCanvas, direct == nil, layer.translation.map({ $0 == (0, 0) }) ?? false,
               s.width == c.width, s.height == c.height, layer.crop == frame {
                // An opaque back layer filling the frame: converted straight into the canvas.
                try transfer(layer.image, into: canvas)
                continue
            }
            var pixels = layer.image
            var format = direct
            if format == nil {
                pixels = try buffer(Self.bgra, width: s.width, height: s.height)
                try transfer(layer.image, into: pixels)
                format = layer.layout.hasAlpha ? PIXMAN_a8r8g8b8 : PIXMAN_x8r8g8b8
            }
            guard let format, let p = pixels.storage?.planes.first else { throw .invalidBuffer }
            let crop = layer.crop
            var image = scratch.image(format, width: crop.width, height: crop.height,
                                      bits: p.baseAddress + crop.y * p.bytesPerRow + crop.x * 4, bytesPerRow: p.bytesPerRow)
            if image == nil, direct != nil {
                // Rows pixman cannot address (stride or start not a multiple of 4): a pooled copy.
                pixels = try buffer(Self.bgra, width: s.width, height: s.height)
                try transfer(layer.image, into: pixels)
                guard let q = pixels.storage?.planes.first else { throw .invalidBuffer }
                image = scratch.image(PIXMAN_a8r8g8b8, width: crop.width, height: crop.height,
                                      bits: q.baseAddress + crop.y * q.bytesPerRow + crop.x * 4, bytesPerRow: q.bytesPerRow)
            }
            guard let image else { throw .invalidBuffer }
            var offset = (x: 0, y: 0)
            if let shift = layer.translation {
                offset = (-shift.x - crop.x, -shift.y - crop.y)
            } else {
                let toImage = CGAffineTransform(translationX: CGFloat(crop.x), y: CGFloat(crop.y))
                    .concatenating(layer.transform).inverted()
                guard image.setSampling(toImage, pad: layer.axisAligned) else { throw .invalidBuffer }
            }
            var mask: PixmanPicture?
            if layer.alpha < 255 {
                guard let solid = scratch.alpha else { throw .allocationFailed }
                solid.setSolid(UInt32(layer.alpha))
                mask = solid
            }
            PixmanOps.composite(.over, image, mask: mask, onto: target, box: layer.box, sourceOffset: offset)
            withExtendedLifetime(pixels) {}
        }
        if canvas !== output {
            // libswscale's fast RGB → 4:2:0 conversion reads one pixel past an odd width: the
            // column after the picture (row padding of the pooled canvas) repeats the last one.
            if c.width % 2 == 1, c.planes[0].bytesPerRow >= (c.width + 1) * 4,
               let padded = scratch.image(PIXMAN_a8r8g8b8, width: c.width + 1, height: c.height,
                                          bits: c.planes[0].baseAddress, bytesPerRow: c.planes[0].bytesPerRow) {
                PixmanOps.composite(.source, padded, onto: padded, box: PixelRect(x: c.width, y: 0, width: 1, height: c.height),
                                    sourceOffset: (-1, 0))
            }
            try transfer(canvas, into: output)
        }
    }

    /// One libswscale conversion between buffers of the same size: a source into the canvas's
    /// layout, or the canvas into the output. Y'CbCr is read with the source's matrix and written
    /// with `matrix` (default `yCbCrMatrix`). Unscaled conversions use libswscale's SIMD converters (`fast`), as the
    /// reader's and the encoder's unscaled conversions do.
    ///
    /// libswscale 5.1 has SIMD unscaled converters from planar 4:2:0 to RGB but none from NV12,
    /// which takes its general scaler (about 10× slower at 720p): NV12 → RGB goes through a pooled
    /// planar copy (an unscaled deinterleave, nearly free) instead.
    private func transfer(_ source: CVPixelBuffer, into destination: CVPixelBuffer, matrix: PixelFormatColor.Matrix? = nil)
        throws(PixelConversionError) {
        var options = PixelConverter.Options()
        options.propagateAttachments = false
        options.fast = true
        var source = source
        if let s = source.storage, let d = destination.storage, s.pixelFormat == Self.nv12Video || s.pixelFormat == Self.nv12Full,
           !PixelFormat.isYCbCr(d.pixelFormat), s.height % 2 == 0 {
            let planar = try buffer(OSType(fourCC: s.pixelFormat == Self.nv12Full ? "f420" : "y420"), width: s.width,
                                    height: s.height)
            options.destinationMatrix = PixelFormatColor.attachedMatrix(of: source) ?? .defaultMatrix(height: s.height)
            try converter.transfer(from: source, to: planar, options: options)
            source = planar
        }
        options.destinationMatrix = matrix ?? yCbCrMatrix
        try converter.transfer(from: source, to: destination, options: options)
    }
}
