// CMFormatDescription: an immutable description of the media in a stream. CMVideoFormatDescription
// and CMAudioFormatDescription are aliases of it, as in Apple's SDK.

/// Describes media of one type (video, audio, muxed, …): its subtype and extensions, and for
/// video its dimensions, for audio its stream description, channel layout and magic cookie.
public final class CMFormatDescription: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The media type ('vide', 'soun', …).
    package let mediaTypeCode: CMMediaType
    /// The media subtype (codec or pixel format).
    package let mediaSubTypeCode: FourCharCode
    /// The extensions as given (nil when there are none).
    package let extensionsDictionary: NSDictionary?
    /// Encoded dimensions, for video.
    package let videoDimensions: CMVideoDimensions
    /// Stable storage for the stream description returned by CMAudioFormatDescriptionGetStreamBasicDescription.
    package let asbdStorage: UnsafeMutablePointer<AudioStreamBasicDescription>?
    /// The channel layout bytes (nil when none).
    package let layoutStorage: UnsafeMutableRawPointer?
    /// Size of `layoutStorage` in bytes.
    package let layoutSize: Int
    /// The magic cookie bytes (nil when none).
    package let cookieStorage: UnsafeMutableRawPointer?
    /// Size of `cookieStorage` in bytes.
    package let cookieSize: Int
    /// H.264/HEVC parameter sets (from the avcC/hvcC atom), kept at stable addresses.
    package let parameterSetStorage: [UnsafeMutableBufferPointer<UInt8>]
    /// The NAL unit length-field size recorded in the avcC/hvcC atom.
    package let nalUnitHeaderLength: Int32

    package init(mediaType: CMMediaType, mediaSubType: FourCharCode, extensions: NSDictionary?,
                 dimensions: CMVideoDimensions = CMVideoDimensions(),
                 asbd: AudioStreamBasicDescription? = nil,
                 layout: UnsafeRawPointer? = nil, layoutSize: Int = 0,
                 cookie: UnsafeRawPointer? = nil, cookieSize: Int = 0) {
        mediaTypeCode = mediaType
        mediaSubTypeCode = mediaSubType
        if let extensions, extensions.count > 0 {
            extensionsDictionary = NSDictionary(dictionary: extensions as! [AnyHashable: Any], copyItems: false)
        } else {
            extensionsDictionary = nil
        }
        videoDimensions = dimensions
        if let asbd {
            let p = UnsafeMutablePointer<AudioStreamBasicDescription>.allocate(capacity: 1)
            p.initialize(to: asbd)
            asbdStorage = p
        } else {
            asbdStorage = nil
        }
        (layoutStorage, self.layoutSize) = Self.copyBytes(layout, layoutSize)
        (cookieStorage, self.cookieSize) = Self.copyBytes(cookie, cookieSize)
        var sets: [UnsafeMutableBufferPointer<UInt8>] = []
        var nalLength: Int32 = 0
        if let atoms = FormatDescriptionValues.atoms(in: extensionsDictionary) {
            let parsed: (sets: [Data], nalUnitHeaderLength: Int)?
            if mediaSubType == kCMVideoCodecType_H264, let avcC = atoms["avcC"] {
                parsed = NALParameterSets.parseAVCC(avcC)
            } else if let hvcC = atoms["hvcC"] {
                parsed = NALParameterSets.parseHVCC(hvcC)
            } else {
                parsed = nil
            }
            if let parsed {
                for set in parsed.sets {
                    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(set.count, 1))
                    _ = buffer.initialize(from: set)
                    sets.append(UnsafeMutableBufferPointer(rebasing: buffer[0..<set.count]))
                }
                nalLength = Int32(parsed.nalUnitHeaderLength)
            }
        }
        parameterSetStorage = sets
        nalUnitHeaderLength = nalLength
    }

    private static func copyBytes(_ p: UnsafeRawPointer?, _ size: Int) -> (UnsafeMutableRawPointer?, Int) {
        guard let p, size > 0 else { return (nil, 0) }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        copy.copyMemory(from: p, byteCount: size)
        return (copy, size)
    }

    deinit {
        asbdStorage?.deallocate()
        layoutStorage?.deallocate()
        cookieStorage?.deallocate()
        for set in parameterSetStorage { set.deallocate() }
    }

    /// Two descriptions are equal when CMFormatDescriptionEqual says so.
    public static func == (lhs: CMFormatDescription, rhs: CMFormatDescription) -> Bool {
        CMFormatDescriptionEqual(lhs, otherFormatDescription: rhs)
    }

    /// Hashes the media type, subtype and dimensions.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(mediaTypeCode)
        hasher.combine(mediaSubTypeCode)
        hasher.combine(videoDimensions)
    }

    /// A summary of the description.
    public var description: String {
        var s = "<CMFormatDescription mediaType:'\(mediaTypeCode.fourCCString)' mediaSubType:'\(mediaSubTypeCode.fourCCString)'"
        if mediaTypeCode == kCMMediaType_Video { s += " dimensions:\(videoDimensions.width)x\(videoDimensions.height)" }
        if let asbd = asbdStorage?.pointee {
            s += " sampleRate:\(asbd.mSampleRate) channels:\(asbd.mChannelsPerFrame)"
        }
        if let e = extensionsDictionary { s += " extensions:\(e)" }
        return s + ">"
    }

    /// True when every field but the extensions matches.
    package func coreEquals(_ other: CMFormatDescription) -> Bool {
        guard mediaTypeCode == other.mediaTypeCode, mediaSubTypeCode == other.mediaSubTypeCode,
              videoDimensions == other.videoDimensions else { return false }
        switch (asbdStorage, other.asbdStorage) {
        case (nil, nil): break
        case let (a?, b?): if a.pointee != b.pointee { return false }
        default: return false
        }
        return Self.bytesEqual(layoutStorage, layoutSize, other.layoutStorage, other.layoutSize)
            && Self.bytesEqual(cookieStorage, cookieSize, other.cookieStorage, other.cookieSize)
    }

    private static func bytesEqual(_ a: UnsafeMutableRawPointer?, _ an: Int, _ b: UnsafeMutableRawPointer?, _ bn: Int) -> Bool {
        guard an == bn else { return false }
        guard an > 0, let a, let b else { return true }
        return memcmp(a, b, an) == 0
    }
}

/// A format description of video.
public typealias CMVideoFormatDescription = CMFormatDescription
/// A format description of audio.
public typealias CMAudioFormatDescription = CMFormatDescription
/// A format description of muxed media.
public typealias CMMuxedFormatDescription = CMFormatDescription
/// A format description of closed captions.
public typealias CMClosedCaptionFormatDescription = CMFormatDescription
/// A format description of text.
public typealias CMTextFormatDescription = CMFormatDescription
/// A format description of time codes.
public typealias CMTimeCodeFormatDescription = CMFormatDescription
/// A format description of metadata.
public typealias CMMetadataFormatDescription = CMFormatDescription

// MARK: Errors

/// A parameter was invalid.
public let kCMFormatDescriptionError_InvalidParameter: OSStatus = -12710
/// Memory could not be allocated.
public let kCMFormatDescriptionError_AllocationFailed: OSStatus = -12711
/// The requested value is not present in the description.
public let kCMFormatDescriptionError_ValueNotAvailable: OSStatus = -12718

// MARK: Media-type-agnostic functions

/// Creates a format description from a media type, subtype and extensions.
@discardableResult
public func CMFormatDescriptionCreate(allocator: CFAllocator?, mediaType: CMMediaType, mediaSubType: FourCharCode,
                                      extensions: CFDictionary?,
                                      formatDescriptionOut: UnsafeMutablePointer<CMFormatDescription?>) -> OSStatus {
    formatDescriptionOut.pointee = CMFormatDescription(mediaType: mediaType, mediaSubType: mediaSubType, extensions: extensions)
    return noErr
}

/// Whether two format descriptions describe the same format (type, subtype, dimensions, audio
/// description, layout, cookie and extensions). Two nils are equal.
@discardableResult
public func CMFormatDescriptionEqual(_ formatDescription: CMFormatDescription?,
                                     otherFormatDescription: CMFormatDescription?) -> Bool {
    guard let a = formatDescription, let b = otherFormatDescription else {
        return formatDescription == nil && otherFormatDescription == nil
    }
    if a === b { return true }
    guard a.coreEquals(b) else { return false }
    return FormatDescriptionValues.dictionariesEqual(a.extensionsDictionary, b.extensionsDictionary)
}

/// Like CMFormatDescriptionEqual, ignoring the given extension keys and sample-description
/// extension atom keys (each a CFString or a CFArray of them).
@discardableResult
public func CMFormatDescriptionEqualIgnoringExtensionKeys(_ formatDescription: CMFormatDescription?,
                                                          otherFormatDescription: CMFormatDescription?,
                                                          extensionKeysToIgnore: CFTypeRef?,
                                                          sampleDescriptionExtensionAtomKeysToIgnore: CFTypeRef?) -> Bool {
    guard let a = formatDescription, let b = otherFormatDescription else {
        return formatDescription == nil && otherFormatDescription == nil
    }
    guard a.coreEquals(b) else { return false }
    let ignore = Set(FormatDescriptionValues.keyList(extensionKeysToIgnore))
    let ignoreAtoms = Set(FormatDescriptionValues.keyList(sampleDescriptionExtensionAtomKeysToIgnore))
    func filtered(_ d: NSDictionary?) -> NSDictionary? {
        var out = FormatDescriptionValues.stringKeyed(d)
        for key in ignore { out[key] = nil }
        let atomsKey = kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms
        if !ignoreAtoms.isEmpty, let atoms = out[(atomsKey as String)] {
            var a = FormatDescriptionValues.stringKeyed(atoms as? NSDictionary)
            for key in ignoreAtoms { a[key] = nil }
            out[(atomsKey as String)] = a.isEmpty ? nil : NSDictionary(dictionary: a)
        }
        return out.isEmpty ? nil : NSDictionary(dictionary: out)
    }
    return FormatDescriptionValues.dictionariesEqual(filtered(a.extensionsDictionary), filtered(b.extensionsDictionary))
}

/// The media type of a format description.
@discardableResult
public func CMFormatDescriptionGetMediaType(_ desc: CMFormatDescription) -> CMMediaType {
    desc.mediaTypeCode
}

/// The media subtype (codec type, pixel format or audio format ID) of a format description.
@discardableResult
public func CMFormatDescriptionGetMediaSubType(_ desc: CMFormatDescription) -> FourCharCode {
    desc.mediaSubTypeCode
}

/// All extensions of a format description; nil when there are none.
@discardableResult
public func CMFormatDescriptionGetExtensions(_ desc: CMFormatDescription) -> CFDictionary? {
    desc.extensionsDictionary
}

/// One extension of a format description; nil when absent. (Apple types the result
/// `CFPropertyList?`; property lists are objects, so it is `CFTypeRef?` here.)
@discardableResult
public func CMFormatDescriptionGetExtension(_ desc: CMFormatDescription, extensionKey: CFString) -> CFTypeRef? {
    guard let v = desc.extensionsDictionary?[extensionKey] else { return nil }
    return v as AnyObject
}
