// Video format descriptions: creation from a codec type, an image buffer or H.264/HEVC
// parameter sets, and the dimension, clean-aperture and parameter-set queries.

/// Creates a video format description for `codecType` at `width`×`height`.
@discardableResult
public func CMVideoFormatDescriptionCreate(allocator: CFAllocator?, codecType: CMVideoCodecType, width: Int32, height: Int32,
                                           extensions: CFDictionary?,
                                           formatDescriptionOut: UnsafeMutablePointer<CMVideoFormatDescription?>) -> OSStatus {
    guard width >= 0, height >= 0 else { return kCMFormatDescriptionError_InvalidParameter }
    formatDescriptionOut.pointee = CMFormatDescription(mediaType: kCMMediaType_Video, mediaSubType: codecType,
                                                       extensions: extensions,
                                                       dimensions: CMVideoDimensions(width: width, height: height))
    return noErr
}

/// The extension keys that video format descriptions share with image buffer attachments.
@discardableResult
public func CMVideoFormatDescriptionGetExtensionKeysCommonWithImageBuffers() -> CFArray {
    NSArray(array: VideoFormat.commonKeys)
}

/// Creates a video format description for the media in `imageBuffer`: its pixel format as the
/// subtype, its size, and as extensions its attachments under the keys common with image buffers.
@discardableResult
public func CMVideoFormatDescriptionCreateForImageBuffer(allocator: CFAllocator?, imageBuffer: CVImageBuffer,
                                                         formatDescriptionOut: UnsafeMutablePointer<CMVideoFormatDescription?>) -> OSStatus {
    guard let storage = imageBuffer.storage else { return kCMFormatDescriptionError_InvalidParameter }
    let attachments = VideoFormat.commonAttachments(of: imageBuffer)
    formatDescriptionOut.pointee = CMFormatDescription(
        mediaType: kCMMediaType_Video, mediaSubType: storage.pixelFormat,
        extensions: attachments.isEmpty ? nil : NSDictionary(dictionary: attachments),
        dimensions: CMVideoDimensions(width: Int32(storage.width), height: Int32(storage.height)))
    return noErr
}

/// The encoded dimensions of a video format description (0×0 for other media).
@discardableResult
public func CMVideoFormatDescriptionGetDimensions(_ videoDesc: CMVideoFormatDescription) -> CMVideoDimensions {
    videoDesc.videoDimensions
}

/// The codec type of a video format description (its media subtype).
@discardableResult
public func CMVideoFormatDescriptionGetCodecType(_ desc: CMVideoFormatDescription) -> CMVideoCodecType {
    desc.mediaSubTypeCode
}

/// The size at which to present the video, applying the pixel aspect ratio (width scaled by
/// horizontal/vertical spacing) and the clean aperture when asked and present.
@discardableResult
public func CMVideoFormatDescriptionGetPresentationDimensions(_ videoDesc: CMVideoFormatDescription,
                                                              usePixelAspectRatio: Bool, useCleanAperture: Bool) -> CGSize {
    var width = Double(videoDesc.videoDimensions.width)
    var height = Double(videoDesc.videoDimensions.height)
    if useCleanAperture, let aperture = VideoFormat.cleanAperture(videoDesc) {
        width = aperture.width
        height = aperture.height
    }
    if usePixelAspectRatio, let par = VideoFormat.pixelAspectRatio(videoDesc) {
        width = width * par.h / par.v
    }
    return CGSize(width: width, height: height)
}

/// The clean aperture: the region of the encoded picture to display. Without a clean-aperture
/// extension, the whole picture.
@discardableResult
public func CMVideoFormatDescriptionGetCleanAperture(_ videoDesc: CMVideoFormatDescription, originIsAtTopLeft: Bool) -> CGRect {
    let w = Double(videoDesc.videoDimensions.width), h = Double(videoDesc.videoDimensions.height)
    guard let a = VideoFormat.cleanAperture(videoDesc) else { return CGRect(x: 0, y: 0, width: w, height: h) }
    let x = (w - a.width) / 2 + a.hOffset
    let y = originIsAtTopLeft ? (h - a.height) / 2 + a.vOffset : (h - a.height) / 2 - a.vOffset
    return CGRect(x: x, y: y, width: a.width, height: a.height)
}

/// Whether `imageBuffer` matches the description: same pixel format, size, and the same values
/// for the extension keys common with image buffers.
@discardableResult
public func CMVideoFormatDescriptionMatchesImageBuffer(_ desc: CMVideoFormatDescription, imageBuffer: CVImageBuffer) -> Bool {
    guard desc.mediaTypeCode == kCMMediaType_Video, let s = imageBuffer.storage,
          desc.mediaSubTypeCode == s.pixelFormat,
          Int(desc.videoDimensions.width) == s.width, Int(desc.videoDimensions.height) == s.height else { return false }
    let attachments = VideoFormat.commonAttachments(of: imageBuffer)
    let extensions = FormatDescriptionValues.stringKeyed(desc.extensionsDictionary)
    for key in VideoFormat.commonKeys {
        switch (extensions[key], attachments[key]) {
        case (nil, nil): continue
        case let (a?, b?): if !FormatDescriptionValues.valuesEqual(a, b) { return false }
        default: return false
        }
    }
    return true
}

// MARK: Parameter sets

/// Creates an H.264 format description from SPS and PPS NAL units (without start codes): the
/// size comes from the SPS (cropping applied) and the units are stored in an avcC atom under
/// `kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms`.
@discardableResult
public func CMVideoFormatDescriptionCreateFromH264ParameterSets(
    allocator: CFAllocator?, parameterSetCount: Int, parameterSetPointers: UnsafePointer<UnsafePointer<UInt8>>,
    parameterSetSizes: UnsafePointer<Int>, nalUnitHeaderLength NALUnitHeaderLength: Int32,
    formatDescriptionOut: UnsafeMutablePointer<CMFormatDescription?>) -> OSStatus {
    guard parameterSetCount >= 2, [1, 2, 4].contains(NALUnitHeaderLength) else { return kCMFormatDescriptionError_InvalidParameter }
    var sps: [Data] = [], pps: [Data] = []
    for i in 0..<parameterSetCount {
        let size = parameterSetSizes[i]
        guard size > 0, size <= 0xFFFF else { return kCMFormatDescriptionError_InvalidParameter }
        let unit = Data(bytes: parameterSetPointers[i], count: size)
        switch NALParameterSets.h264Type(unit) {
        case 7: sps.append(unit)
        case 8: pps.append(unit)
        default: return kCMFormatDescriptionError_InvalidParameter
        }
    }
    guard !sps.isEmpty, sps.count <= 31, !pps.isEmpty, pps.count <= 255,
          let parsed = NALParameterSets.parseH264SPS(sps[0]) else { return kCMFormatDescriptionError_InvalidParameter }
    let avcC = NALParameterSets.makeAVCC(sps: sps, pps: pps, nalUnitHeaderLength: Int(NALUnitHeaderLength), parsed: parsed)
    let extensions: NSDictionary = [kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms: NSDictionary(dictionary: ["avcC": avcC])]
    formatDescriptionOut.pointee = CMFormatDescription(mediaType: kCMMediaType_Video, mediaSubType: kCMVideoCodecType_H264,
                                                       extensions: extensions,
                                                       dimensions: CMVideoDimensions(width: parsed.width, height: parsed.height))
    return noErr
}

/// Creates an HEVC format description from VPS, SPS and PPS NAL units (without start codes): the
/// size comes from the SPS (conformance window applied) and the units are stored in an hvcC atom.
/// `extensions` are merged in.
@discardableResult
public func CMVideoFormatDescriptionCreateFromHEVCParameterSets(
    allocator: CFAllocator?, parameterSetCount: Int, parameterSetPointers: UnsafePointer<UnsafePointer<UInt8>>,
    parameterSetSizes: UnsafePointer<Int>, nalUnitHeaderLength NALUnitHeaderLength: Int32, extensions: CFDictionary?,
    formatDescriptionOut: UnsafeMutablePointer<CMFormatDescription?>) -> OSStatus {
    guard parameterSetCount >= 3, [1, 2, 4].contains(NALUnitHeaderLength) else { return kCMFormatDescriptionError_InvalidParameter }
    var byType: [UInt8: [Data]] = [:]
    var order: [UInt8] = []
    for i in 0..<parameterSetCount {
        let size = parameterSetSizes[i]
        guard size > 1, size <= 0xFFFF else { return kCMFormatDescriptionError_InvalidParameter }
        let unit = Data(bytes: parameterSetPointers[i], count: size)
        guard let type = NALParameterSets.hevcType(unit), [32, 33, 34, 39, 40].contains(type) else {
            return kCMFormatDescriptionError_InvalidParameter
        }
        if byType[type] == nil { order.append(type) }
        byType[type, default: []].append(unit)
    }
    guard byType[32] != nil, let spsUnits = byType[33], byType[34] != nil,
          let sps = NALParameterSets.parseHEVCSPS(spsUnits[0]) else { return kCMFormatDescriptionError_InvalidParameter }
    let arrays = order.sorted().map { (type: $0, units: byType[$0]!) }
    let hvcC = NALParameterSets.makeHVCC(arrays: arrays, nalUnitHeaderLength: Int(NALUnitHeaderLength), sps: sps)
    var merged = FormatDescriptionValues.stringKeyed(extensions)
    var atoms = FormatDescriptionValues.dictionary(merged[(kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms as String)]) ?? [:]
    atoms["hvcC"] = hvcC
    merged[(kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms as String)] = NSDictionary(dictionary: atoms)
    formatDescriptionOut.pointee = CMFormatDescription(mediaType: kCMMediaType_Video, mediaSubType: kCMVideoCodecType_HEVC,
                                                       extensions: NSDictionary(dictionary: merged),
                                                       dimensions: CMVideoDimensions(width: sps.params.width, height: sps.params.height))
    return noErr
}

/// Reads back one H.264 parameter set (SPS first, then PPS) from the description's avcC atom.
/// Any out-pointer may be nil; with a nil index pointer use `parameterSetCountOut` alone.
@discardableResult
public func CMVideoFormatDescriptionGetH264ParameterSetAtIndex(
    _ videoDesc: CMFormatDescription, parameterSetIndex: Int,
    parameterSetPointerOut: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, parameterSetSizeOut: UnsafeMutablePointer<Int>?,
    parameterSetCountOut: UnsafeMutablePointer<Int>?, nalUnitHeaderLengthOut: UnsafeMutablePointer<Int32>?) -> OSStatus {
    guard videoDesc.mediaSubTypeCode == kCMVideoCodecType_H264 else { return kCMFormatDescriptionError_InvalidParameter }
    return VideoFormat.parameterSet(videoDesc, parameterSetIndex, parameterSetPointerOut, parameterSetSizeOut,
                                    parameterSetCountOut, nalUnitHeaderLengthOut)
}

/// Reads back one HEVC parameter set (in hvcC order: VPS, SPS, PPS, SEI) from the description.
@discardableResult
public func CMVideoFormatDescriptionGetHEVCParameterSetAtIndex(
    _ videoDesc: CMFormatDescription, parameterSetIndex: Int,
    parameterSetPointerOut: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, parameterSetSizeOut: UnsafeMutablePointer<Int>?,
    parameterSetCountOut: UnsafeMutablePointer<Int>?, nalUnitHeaderLengthOut: UnsafeMutablePointer<Int32>?) -> OSStatus {
    guard videoDesc.mediaTypeCode == kCMMediaType_Video,
          videoDesc.mediaSubTypeCode != kCMVideoCodecType_H264 else { return kCMFormatDescriptionError_InvalidParameter }
    return VideoFormat.parameterSet(videoDesc, parameterSetIndex, parameterSetPointerOut, parameterSetSizeOut,
                                    parameterSetCountOut, nalUnitHeaderLengthOut)
}

/// Shared video helpers.
enum VideoFormat {
    /// Extension keys shared with CVImageBuffer attachments.
    static let commonKeys: [String] = [
        (kCMFormatDescriptionExtension_CleanAperture as String), (kCMFormatDescriptionExtension_FieldCount as String),
        (kCMFormatDescriptionExtension_FieldDetail as String), (kCMFormatDescriptionExtension_PixelAspectRatio as String),
        (kCMFormatDescriptionExtension_ColorPrimaries as String), (kCMFormatDescriptionExtension_TransferFunction as String),
        (kCMFormatDescriptionExtension_GammaLevel as String), (kCMFormatDescriptionExtension_YCbCrMatrix as String),
        (kCMFormatDescriptionExtension_ChromaLocationTopField as String), (kCMFormatDescriptionExtension_ChromaLocationBottomField as String),
        (kCMFormatDescriptionExtension_ICCProfile as String), (kCMFormatDescriptionExtension_MasteringDisplayColorVolume as String),
        (kCMFormatDescriptionExtension_ContentLightLevelInfo as String),
    ]

    /// The image buffer's attachments (either mode) under the common keys.
    static func commonAttachments(of buffer: CVBuffer) -> [String: Any] {
        buffer.mutex.lock()
        defer { buffer.mutex.unlock() }
        var out: [String: Any] = [:]
        for key in commonKeys {
            if let v = buffer.attachmentsByMode[.shouldPropagate]?[key] ?? buffer.attachmentsByMode[.shouldNotPropagate]?[key] {
                out[key] = v
            }
        }
        return out
    }

    /// The clean aperture extension in pixels, if present and well formed.
    static func cleanAperture(_ desc: CMFormatDescription) -> (width: Double, height: Double, hOffset: Double, vOffset: Double)? {
        guard let d = FormatDescriptionValues.dictionary(desc.extensionsDictionary?[kCMFormatDescriptionExtension_CleanAperture]) else {
            return nil
        }
        func value(_ key: String, _ rationalKey: String) -> Double? {
            if let n = FormatDescriptionValues.number(d[key]) { return n }
            if let pair = d[rationalKey] as? NSArray, pair.count == 2,
               let num = FormatDescriptionValues.number(pair[0]), let den = FormatDescriptionValues.number(pair[1]), den != 0 {
                return num / den
            }
            return nil
        }
        guard let w = value((kCMFormatDescriptionKey_CleanApertureWidth as String), (kCMFormatDescriptionKey_CleanApertureWidthRational as String)),
              let h = value((kCMFormatDescriptionKey_CleanApertureHeight as String), (kCMFormatDescriptionKey_CleanApertureHeightRational as String)),
              w > 0, h > 0 else { return nil }
        let ho = value((kCMFormatDescriptionKey_CleanApertureHorizontalOffset as String),
                       (kCMFormatDescriptionKey_CleanApertureHorizontalOffsetRational as String)) ?? 0
        let vo = value((kCMFormatDescriptionKey_CleanApertureVerticalOffset as String),
                       (kCMFormatDescriptionKey_CleanApertureVerticalOffsetRational as String)) ?? 0
        return (w, h, ho, vo)
    }

    /// The pixel aspect ratio extension, if present and well formed.
    static func pixelAspectRatio(_ desc: CMFormatDescription) -> (h: Double, v: Double)? {
        guard let d = FormatDescriptionValues.dictionary(desc.extensionsDictionary?[kCMFormatDescriptionExtension_PixelAspectRatio]),
              let h = FormatDescriptionValues.number(d[(kCMFormatDescriptionKey_PixelAspectRatioHorizontalSpacing as String)]),
              let v = FormatDescriptionValues.number(d[(kCMFormatDescriptionKey_PixelAspectRatioVerticalSpacing as String)]),
              h > 0, v > 0 else { return nil }
        return (h, v)
    }

    static func parameterSet(_ desc: CMFormatDescription, _ index: Int,
                             _ pointerOut: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ sizeOut: UnsafeMutablePointer<Int>?,
                             _ countOut: UnsafeMutablePointer<Int>?, _ nalOut: UnsafeMutablePointer<Int32>?) -> OSStatus {
        let sets = desc.parameterSetStorage
        guard !sets.isEmpty else { return kCMFormatDescriptionError_ValueNotAvailable }
        countOut?.pointee = sets.count
        nalOut?.pointee = desc.nalUnitHeaderLength
        if pointerOut == nil && sizeOut == nil { return noErr }
        guard index >= 0, index < sets.count else { return kCMFormatDescriptionError_InvalidParameter }
        pointerOut?.pointee = UnsafePointer(sets[index].baseAddress)
        sizeOut?.pointee = sets[index].count
        return noErr
    }
}
