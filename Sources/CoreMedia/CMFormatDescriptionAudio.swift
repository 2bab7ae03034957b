// Audio format descriptions: the stream description, channel layout and magic cookie, copied
// into the description and returned from stable storage inside it.

/// Creates an audio format description. The stream description is required; the channel layout
/// and magic cookie are optional (size and pointer go together); everything is copied.
@discardableResult
public func CMAudioFormatDescriptionCreate(allocator: CFAllocator?, asbd: UnsafePointer<AudioStreamBasicDescription>,
                                           layoutSize: Int, layout: UnsafePointer<AudioChannelLayout>?,
                                           magicCookieSize: Int, magicCookie: UnsafeRawPointer?, extensions: CFDictionary?,
                                           formatDescriptionOut: UnsafeMutablePointer<CMAudioFormatDescription?>) -> OSStatus {
    let d = asbd.pointee
    guard d.mFormatID != 0, d.mSampleRate >= 0, d.mSampleRate.isFinite,
          (layout == nil) == (layoutSize == 0), (magicCookie == nil) == (magicCookieSize == 0),
          layoutSize == 0 || layoutSize >= MemoryLayout<AudioChannelLayout>.size - MemoryLayout<AudioChannelDescription>.size,
          layoutSize >= 0, magicCookieSize >= 0 else { return kCMFormatDescriptionError_InvalidParameter }
    if d.mFormatID == kAudioFormatLinearPCM {
        // Linear PCM needs a consistent frame geometry.
        guard d.mChannelsPerFrame > 0, d.mBytesPerFrame > 0, d.mFramesPerPacket == 1,
              d.mBytesPerPacket == d.mBytesPerFrame else { return kCMFormatDescriptionError_InvalidParameter }
    }
    formatDescriptionOut.pointee = CMFormatDescription(mediaType: kCMMediaType_Audio, mediaSubType: d.mFormatID,
                                                       extensions: extensions, asbd: d,
                                                       layout: layout.map { UnsafeRawPointer($0) }, layoutSize: layoutSize,
                                                       cookie: magicCookie, cookieSize: magicCookieSize)
    return noErr
}

/// The stream description of an audio format description; nil for other media. The pointer
/// stays valid while the description lives.
@discardableResult
public func CMAudioFormatDescriptionGetStreamBasicDescription(_ desc: CMAudioFormatDescription)
    -> UnsafePointer<AudioStreamBasicDescription>? {
    desc.asbdStorage.map { UnsafePointer($0) }
}

/// The channel layout of an audio format description, and its size; nil when it has none.
@discardableResult
public func CMAudioFormatDescriptionGetChannelLayout(_ desc: CMAudioFormatDescription,
                                                     sizeOut: UnsafeMutablePointer<Int>?) -> UnsafePointer<AudioChannelLayout>? {
    sizeOut?.pointee = desc.layoutSize
    guard let p = desc.layoutStorage else { return nil }
    return UnsafePointer(p.assumingMemoryBound(to: AudioChannelLayout.self))
}

/// The magic cookie of an audio format description, and its size; nil when it has none.
@discardableResult
public func CMAudioFormatDescriptionGetMagicCookie(_ desc: CMAudioFormatDescription,
                                                   sizeOut: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    sizeOut?.pointee = desc.cookieSize
    return desc.cookieStorage.map { UnsafeRawPointer($0) }
}
