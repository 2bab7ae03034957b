// The CVImageBuffer C API: image geometry and colour read from a buffer and its attachments,
// plus the package accessors other modules use to read colour information.
import CoreGraphics

/// The full encoded size of the image, in pixels (width × height of the pixel buffer).
@discardableResult
public func CVImageBufferGetEncodedSize(_ imageBuffer: CVImageBuffer) -> CGSize {
    guard let s = imageBuffer.storage else { return .zero }
    return CGSize(width: CGFloat(s.width), height: CGFloat(s.height))
}

/// The nominal display size in square pixels: the clean aperture's size (the encoded size
/// without one), widened or narrowed by the `kCVImageBufferPixelAspectRatioKey` attachment.
@discardableResult
public func CVImageBufferGetDisplaySize(_ imageBuffer: CVImageBuffer) -> CGSize {
    var size = CVImageBufferGetCleanRect(imageBuffer).size
    if let ratio = imageBuffer.attachmentValue(forKey: (kCVImageBufferPixelAspectRatioKey as String))
        .flatMap(CVPixelBufferAttributeReader.dictionary),
       let h = ratio[(kCVImageBufferPixelAspectRatioHorizontalSpacingKey as String)].flatMap(CVPixelBufferAttributeReader.double),
       let v = ratio[(kCVImageBufferPixelAspectRatioVerticalSpacingKey as String)].flatMap(CVPixelBufferAttributeReader.double),
       h > 0, v > 0 {
        size.width = (size.width * CGFloat(h) / CGFloat(v)).rounded()
    }
    return size
}

/// The clean rectangle: from the `kCVImageBufferCleanApertureKey` attachment (its size, centred
/// on the image and moved by its offsets), or the whole image when there is none.
@discardableResult
public func CVImageBufferGetCleanRect(_ imageBuffer: CVImageBuffer) -> CGRect {
    let encoded = CVImageBufferGetEncodedSize(imageBuffer)
    let full = CGRect(origin: .zero, size: encoded)
    guard let aperture = imageBuffer.attachmentValue(forKey: (kCVImageBufferCleanApertureKey as String))
        .flatMap(CVPixelBufferAttributeReader.dictionary),
          let w = aperture[(kCVImageBufferCleanApertureWidthKey as String)].flatMap(CVPixelBufferAttributeReader.double),
          let h = aperture[(kCVImageBufferCleanApertureHeightKey as String)].flatMap(CVPixelBufferAttributeReader.double),
          w > 0, h > 0
    else { return full }
    let dx = aperture[(kCVImageBufferCleanApertureHorizontalOffsetKey as String)].flatMap(CVPixelBufferAttributeReader.double) ?? 0
    let dy = aperture[(kCVImageBufferCleanApertureVerticalOffsetKey as String)].flatMap(CVPixelBufferAttributeReader.double) ?? 0
    let x = (Double(encoded.width) - w) / 2 + dx
    let y = (Double(encoded.height) - h) / 2 + dy
    return CGRect(x: x, y: y, width: w, height: h)
}

/// Whether the image is vertically flipped: pixel buffers here always store the top row first
/// and are never flipped.
@discardableResult
public func CVImageBufferIsFlipped(_ imageBuffer: CVImageBuffer) -> Bool { false }

/// The colour space attached with `kCVImageBufferCGColorSpaceKey`, unretained; nil when the
/// buffer carries none.
@discardableResult
public func CVImageBufferGetColorSpace(_ imageBuffer: CVImageBuffer) -> Unmanaged<CGColorSpace>? {
    guard let space = imageBuffer.attachmentValue(forKey: (kCVImageBufferCGColorSpaceKey as String)) as? CGColorSpace
    else { return nil }
    return Unmanaged.passUnretained(space)
}

/// A colour space for attachments (as from CVBufferCopyAttachments): the attached
/// `kCVImageBufferCGColorSpaceKey` space, else one named from the colour primaries and transfer
/// function (BT.709 → ITU-R 709, BT.2020 → ITU-R 2020, P3 D65 → Display P3, DCI P3 → DCI-P3,
/// BT.709 primaries with sRGB / linear transfer → sRGB / linear sRGB); nil when they don't say.
@discardableResult
public func CVImageBufferCreateColorSpaceFromAttachments(_ attachments: CFDictionary) -> Unmanaged<CGColorSpace>? {
    let values = CVPixelBufferAttributeReader.stringKeyed(attachments)
    if let space = values[(kCVImageBufferCGColorSpaceKey as String)] as? CGColorSpace { return Unmanaged.passRetained(space) }
    guard let primaries = values[(kCVImageBufferColorPrimariesKey as String)] as? String else { return nil }
    let transfer = values[(kCVImageBufferTransferFunctionKey as String)] as? String
    let name: CFString?
    switch (NSString(string: primaries), transfer.map { NSString(string: $0) }) {
    case (kCVImageBufferColorPrimaries_ITU_R_709_2, kCVImageBufferTransferFunction_sRGB?): name = CGColorSpace.sRGB
    case (kCVImageBufferColorPrimaries_ITU_R_709_2, kCVImageBufferTransferFunction_Linear?): name = CGColorSpace.linearSRGB
    case (kCVImageBufferColorPrimaries_ITU_R_709_2, _): name = CGColorSpace.itur_709
    case (kCVImageBufferColorPrimaries_ITU_R_2020, _): name = CGColorSpace.itur_2020
    case (kCVImageBufferColorPrimaries_P3_D65, _): name = CGColorSpace.displayP3
    case (kCVImageBufferColorPrimaries_DCI_P3, _): name = CGColorSpace.dcip3
    default: name = nil
    }
    guard let name, let space = CGColorSpace(name: name) else { return nil }
    return Unmanaged.passRetained(space)
}

extension CVBuffer {
    /// The `kCVImageBufferYCbCrMatrixKey` attachment (e.g. `"ITU_R_709_2"`), if any: for
    /// converters choosing Y'CbCr ↔ RGB coefficients.
    package var yCbCrMatrix: String? { attachmentValue(forKey: (kCVImageBufferYCbCrMatrixKey as String)) as? String }
    /// The `kCVImageBufferColorPrimariesKey` attachment, if any.
    package var colorPrimaries: String? { attachmentValue(forKey: (kCVImageBufferColorPrimariesKey as String)) as? String }
    /// The `kCVImageBufferTransferFunctionKey` attachment, if any.
    package var transferFunction: String? { attachmentValue(forKey: (kCVImageBufferTransferFunctionKey as String)) as? String }
    /// The `kCVImageBufferChromaLocationTopFieldKey` attachment, if any.
    package var chromaLocation: String? {
        attachmentValue(forKey: (kCVImageBufferChromaLocationTopFieldKey as String)) as? String
    }
    /// Whether the Y'CbCr samples are full range, from the pixel format ('420f', 'xf20', 'f420',
    /// '422f' are full range); nil for non-Y'CbCr or unknown formats.
    package var isFullRangeYCbCr: Bool? {
        guard let format = storage?.pixelFormat, let layout = CVPixelFormatLayout.layout(for: format),
              layout.isYCbCr else { return nil }
        return layout.isFullRange
    }
}
