// The Swift overlay Apple's SDK adds to CMFormatDescription (macOS 10.15 / iOS 13): typed media
// types and subtypes, extensions, properties and throwing initialisers.

extension CMFormatDescription {
    /// The kind of media, as a typed four-character code.
    public struct MediaType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The four-character code.
        public var rawValue: FourCharCode
        /// A media type from its code.
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// A media type from its code.
        public init(_ rawValue: FourCharCode) { self.rawValue = rawValue }

        /// Audio, 'soun'.
        public static let audio = MediaType(rawValue: kCMMediaType_Audio)
        /// Closed captions, 'clcp'.
        public static let closedCaption = MediaType(rawValue: kCMMediaType_ClosedCaption)
        /// Metadata, 'meta'.
        public static let metadata = MediaType(rawValue: kCMMediaType_Metadata)
        /// Muxed media, 'muxx'.
        public static let muxed = MediaType(rawValue: kCMMediaType_Muxed)
        /// Subtitles, 'sbtl'.
        public static let subtitle = MediaType(rawValue: kCMMediaType_Subtitle)
        /// Text, 'text'.
        public static let text = MediaType(rawValue: kCMMediaType_Text)
        /// Time codes, 'tmcd'.
        public static let timeCode = MediaType(rawValue: kCMMediaType_TimeCode)
        /// Video, 'vide'.
        public static let video = MediaType(rawValue: kCMMediaType_Video)

        /// The four characters.
        public var description: String { rawValue.fourCCString }
    }

    /// A media subtype (codec, pixel format or audio format), as a typed four-character code.
    public struct MediaSubType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The four-character code.
        public var rawValue: FourCharCode
        /// A subtype from its code.
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// A subtype from its code.
        public init(_ rawValue: FourCharCode) { self.rawValue = rawValue }
        /// A subtype from four characters, e.g. `"avc1"`; invalid strings give 0.
        public init(stringLiteral value: StringLiteralType) { rawValue = FourCharCode(fourCCString: value) ?? 0 }

        /// The four characters.
        public var description: String { rawValue.fourCCString }

        // Audio
        /// Linear PCM.
        public static let linearPCM = MediaSubType(kAudioFormatLinearPCM)
        /// AC-3.
        public static let ac3 = MediaSubType(kAudioFormatAC3)
        /// AC-3 over IEC 60958.
        public static let iec60958AC3 = MediaSubType(kAudioFormat60958AC3)
        /// Apple IMA 4:1.
        public static let appleIMA4 = MediaSubType(kAudioFormatAppleIMA4)
        /// MPEG-4 AAC.
        public static let mpeg4AAC = MediaSubType(kAudioFormatMPEG4AAC)
        /// MPEG-4 CELP.
        public static let mpeg4CELP = MediaSubType(kAudioFormatMPEG4CELP)
        /// MPEG-4 HVXC.
        public static let mpeg4HVXC = MediaSubType(kAudioFormatMPEG4HVXC)
        /// MPEG-4 TwinVQ.
        public static let mpeg4TwinVQ = MediaSubType(kAudioFormatMPEG4TwinVQ)
        /// MACE 3:1.
        public static let mace3 = MediaSubType(kAudioFormatMACE3)
        /// MACE 6:1.
        public static let mace6 = MediaSubType(kAudioFormatMACE6)
        /// µLaw.
        public static let uLaw = MediaSubType(kAudioFormatULaw)
        /// aLaw.
        public static let aLaw = MediaSubType(kAudioFormatALaw)
        /// QDesign.
        public static let qDesign = MediaSubType(kAudioFormatQDesign)
        /// QDesign 2.
        public static let qDesign2 = MediaSubType(kAudioFormatQDesign2)
        /// QUALCOMM PureVoice.
        public static let qualcomm = MediaSubType(kAudioFormatQUALCOMM)
        /// MPEG Layer I.
        public static let mpegLayer1 = MediaSubType(kAudioFormatMPEGLayer1)
        /// MPEG Layer II.
        public static let mpegLayer2 = MediaSubType(kAudioFormatMPEGLayer2)
        /// MPEG Layer III.
        public static let mpegLayer3 = MediaSubType(kAudioFormatMPEGLayer3)
        /// MIDI stream.
        public static let midiStream = MediaSubType(kAudioFormatMIDIStream)
        /// Apple Lossless.
        public static let appleLossless = MediaSubType(kAudioFormatAppleLossless)
        /// MPEG-4 HE-AAC.
        public static let mpeg4AAC_HE = MediaSubType(kAudioFormatMPEG4AAC_HE)
        /// MPEG-4 AAC LD.
        public static let mpeg4AAC_LD = MediaSubType(kAudioFormatMPEG4AAC_LD)
        /// MPEG-4 AAC ELD.
        public static let mpeg4AAC_ELD = MediaSubType(kAudioFormatMPEG4AAC_ELD)
        /// MPEG-4 AAC ELD with SBR.
        public static let mpeg4AAC_ELD_SBR = MediaSubType(kAudioFormatMPEG4AAC_ELD_SBR)
        /// MPEG-4 AAC ELD v2.
        public static let mpeg4AAC_ELD_V2 = MediaSubType(kAudioFormatMPEG4AAC_ELD_V2)
        /// MPEG-4 HE-AAC v2.
        public static let mpeg4AAC_HE_V2 = MediaSubType(kAudioFormatMPEG4AAC_HE_V2)
        /// MPEG-4 spatial audio.
        public static let mpeg4AAC_Spatial = MediaSubType(kAudioFormatMPEG4AAC_Spatial)
        /// MPEG-D USAC.
        public static let mpegD_USAC = MediaSubType(kAudioFormatMPEGD_USAC)
        /// AMR.
        public static let amr = MediaSubType(kAudioFormatAMR)
        /// AMR wide band.
        public static let amr_WB = MediaSubType(kAudioFormatAMR_WB)
        /// Audible.
        public static let audible = MediaSubType(kAudioFormatAudible)
        /// iLBC.
        public static let iLBC = MediaSubType(kAudioFormatiLBC)
        /// DVI/Intel IMA.
        public static let dviIntelIMA = MediaSubType(kAudioFormatDVIIntelIMA)
        /// Microsoft GSM.
        public static let microsoftGSM = MediaSubType(kAudioFormatMicrosoftGSM)
        /// AES3.
        public static let aes3 = MediaSubType(kAudioFormatAES3)
        /// Enhanced AC-3.
        public static let enhancedAC3 = MediaSubType(kAudioFormatEnhancedAC3)
        /// FLAC.
        public static let flac = MediaSubType(kAudioFormatFLAC)
        /// Opus.
        public static let opus = MediaSubType(kAudioFormatOpus)
        /// AAC LC protected.
        public static let aacLCProtected = MediaSubType(kCMAudioCodecType_AAC_LCProtected)
        /// AAC Audible protected.
        public static let aacAudibleProtected = MediaSubType(kCMAudioCodecType_AAC_AudibleProtected)
        // Video
        /// H.263.
        public static let h263 = MediaSubType(kCMVideoCodecType_H263)
        /// H.264.
        public static let h264 = MediaSubType(kCMVideoCodecType_H264)
        /// HEVC.
        public static let hevc = MediaSubType(kCMVideoCodecType_HEVC)
        /// HEVC with alpha.
        public static let hevcWithAlpha = MediaSubType(kCMVideoCodecType_HEVCWithAlpha)
        /// Dolby Vision HEVC.
        public static let dolbyVisionHEVC = MediaSubType(kCMVideoCodecType_DolbyVisionHEVC)
        /// MPEG-4 Part 2 video.
        public static let mpeg4Video = MediaSubType(kCMVideoCodecType_MPEG4Video)
        /// MPEG-2 video.
        public static let mpeg2Video = MediaSubType(kCMVideoCodecType_MPEG2Video)
        /// MPEG-1 video.
        public static let mpeg1Video = MediaSubType(kCMVideoCodecType_MPEG1Video)
        /// VP9.
        public static let vp9 = MediaSubType(kCMVideoCodecType_VP9)
        /// JPEG.
        public static let jpeg = MediaSubType(kCMVideoCodecType_JPEG)
        /// Cinepak.
        public static let cinepak = MediaSubType(kCMVideoCodecType_Cinepak)
        /// Apple Animation.
        public static let animation = MediaSubType(kCMVideoCodecType_Animation)
    }

    /// The media type.
    public var mediaType: MediaType { MediaType(rawValue: mediaTypeCode) }
    /// The media subtype.
    public var mediaSubType: MediaSubType { MediaSubType(rawValue: mediaSubTypeCode) }
    /// The encoded dimensions (video).
    public var dimensions: CMVideoDimensions { videoDimensions }
    /// The presentation size, applying pixel aspect ratio and clean aperture as asked.
    public func presentationDimensions(usePixelAspectRatio: Bool = true, useCleanAperture: Bool = true) -> CGSize {
        CMVideoFormatDescriptionGetPresentationDimensions(self, usePixelAspectRatio: usePixelAspectRatio,
                                                          useCleanAperture: useCleanAperture)
    }
    /// The clean aperture rectangle.
    public func cleanAperture(originIsAtTopLeft: Bool) -> CGRect {
        CMVideoFormatDescriptionGetCleanAperture(self, originIsAtTopLeft: originIsAtTopLeft)
    }
    /// Whether the image buffer matches this description.
    public func matchesImageBuffer(_ imageBuffer: CVImageBuffer) -> Bool {
        CMVideoFormatDescriptionMatchesImageBuffer(self, imageBuffer: imageBuffer)
    }
    /// The extensions.
    public var extensions: Extensions { Extensions(dictionary: extensionsDictionary) }
    /// The audio stream description, for audio.
    public var audioStreamBasicDescription: AudioStreamBasicDescription? { asbdStorage?.pointee }
    /// The H.264 or HEVC parameter sets stored in the description (empty for other codecs).
    public var parameterSets: [Data] { parameterSetStorage.map { Data(buffer: $0) } }

    /// Creates a description from a media type, subtype and extensions.
    public convenience init(mediaType: MediaType, mediaSubType: MediaSubType, extensions: Extensions? = nil) throws {
        self.init(mediaType: mediaType.rawValue, mediaSubType: mediaSubType.rawValue, extensions: extensions?.dictionary)
    }

    /// Creates a video description.
    public convenience init(videoCodecType: MediaSubType, width: Int, height: Int, extensions: Extensions? = nil) throws {
        guard width >= 0, height >= 0, width <= Int(Int32.max), height <= Int(Int32.max) else { throw Error.invalidParameter }
        self.init(mediaType: kCMMediaType_Video, mediaSubType: videoCodecType.rawValue, extensions: extensions?.dictionary,
                  dimensions: CMVideoDimensions(width: Int32(width), height: Int32(height)))
    }

    /// Creates a video description matching an image buffer.
    public convenience init(imageBuffer: CVImageBuffer) throws {
        var out: CMFormatDescription?
        let status = CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: imageBuffer, formatDescriptionOut: &out)
        try self.init(copying: out, status: status)
    }

    /// Creates an H.264 description from SPS and PPS NAL units.
    public convenience init(h264ParameterSets: [Data], nalUnitHeaderLength: Int) throws {
        var out: CMFormatDescription?
        let status = Self.withPointers(h264ParameterSets) { count, pointers, sizes in
            CMVideoFormatDescriptionCreateFromH264ParameterSets(allocator: nil, parameterSetCount: count, parameterSetPointers: pointers,
                                                                parameterSetSizes: sizes, nalUnitHeaderLength: Int32(clamping: nalUnitHeaderLength),
                                                                formatDescriptionOut: &out)
        }
        try self.init(copying: out, status: status)
    }

    /// Creates an HEVC description from VPS, SPS and PPS NAL units.
    public convenience init(hevcParameterSets: [Data], nalUnitHeaderLength: Int, extensions: Extensions? = nil) throws {
        var out: CMFormatDescription?
        let status = Self.withPointers(hevcParameterSets) { count, pointers, sizes in
            CMVideoFormatDescriptionCreateFromHEVCParameterSets(allocator: nil, parameterSetCount: count, parameterSetPointers: pointers,
                                                                parameterSetSizes: sizes, nalUnitHeaderLength: Int32(clamping: nalUnitHeaderLength),
                                                                extensions: extensions?.dictionary, formatDescriptionOut: &out)
        }
        try self.init(copying: out, status: status)
    }

    /// Creates an audio description.
    public convenience init(audioStreamBasicDescription: AudioStreamBasicDescription, layoutSize: Int = 0,
                            layout: UnsafePointer<AudioChannelLayout>? = nil, magicCookieSize: Int = 0,
                            magicCookie: UnsafeRawPointer? = nil, extensions: Extensions? = nil) throws {
        var asbd = audioStreamBasicDescription
        var out: CMFormatDescription?
        let status = CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: layoutSize, layout: layout,
                                                    magicCookieSize: magicCookieSize, magicCookie: magicCookie,
                                                    extensions: extensions?.dictionary, formatDescriptionOut: &out)
        try self.init(copying: out, status: status)
    }

    private convenience init(copying other: CMFormatDescription?, status: OSStatus) throws {
        guard status == noErr, let o = other else { throw Error.error(for: status) }
        self.init(mediaType: o.mediaTypeCode, mediaSubType: o.mediaSubTypeCode, extensions: o.extensionsDictionary,
                  dimensions: o.videoDimensions, asbd: o.asbdStorage?.pointee,
                  layout: o.layoutStorage.map { UnsafeRawPointer($0) }, layoutSize: o.layoutSize,
                  cookie: o.cookieStorage.map { UnsafeRawPointer($0) }, cookieSize: o.cookieSize)
    }

    private static func withPointers(_ sets: [Data], _ body: (Int, UnsafePointer<UnsafePointer<UInt8>>, UnsafePointer<Int>) -> OSStatus) -> OSStatus {
        let buffers = sets.map { d -> UnsafeMutableBufferPointer<UInt8> in
            let b = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(d.count, 1))
            _ = b.initialize(from: d)
            return b
        }
        defer { buffers.forEach { $0.deallocate() } }
        let pointers = buffers.map { UnsafePointer($0.baseAddress!) }
        let sizes = sets.map(\.count)
        guard !pointers.isEmpty else { return kCMFormatDescriptionError_InvalidParameter }
        return pointers.withUnsafeBufferPointer { p in
            sizes.withUnsafeBufferPointer { s in body(sets.count, p.baseAddress!, s.baseAddress!) }
        }
    }

    /// The errors the overlay throws: NSErrors in `NSOSStatusErrorDomain` with the C error code.
    public struct Error: Sendable {
        /// A parameter was invalid (-12710).
        public static var invalidParameter: NSError { error(for: kCMFormatDescriptionError_InvalidParameter) }
        /// Allocation failed (-12711).
        public static var allocationFailed: NSError { error(for: kCMFormatDescriptionError_AllocationFailed) }
        /// The value is not available (-12718).
        public static var valueNotAvailable: NSError { error(for: kCMFormatDescriptionError_ValueNotAvailable) }

        static func error(for status: OSStatus) -> NSError {
            NSError(domain: NSOSStatusErrorDomain, code: Int(status))
        }
    }

    /// Format description extensions: a property-list dictionary keyed by extension key.
    public struct Extensions: @unchecked Sendable {
        private var storage: [String: Any]

        /// No extensions.
        public init() { storage = [:] }
        /// Extensions from a dictionary.
        public init(base: [CFString: CFTypeRef]?) {
            storage = Dictionary(uniqueKeysWithValues: (base ?? [:]).map { ($0.key as String, $0.value as Any) })
        }
        init(dictionary: NSDictionary?) { storage = FormatDescriptionValues.stringKeyed(dictionary) }

        /// The value for an extension key.
        public subscript(key: CFString) -> CFTypeRef? {
            get { storage[(key as String)].map { $0 as AnyObject } }
            set { storage[(key as String)] = newValue }
        }

        /// The extensions as a dictionary.
        public var propertyListRepresentation: [CFString: CFTypeRef] {
            Dictionary(uniqueKeysWithValues: storage.map { (NSString(string: $0.key), $0.value as AnyObject) })
        }

        var dictionary: NSDictionary? { storage.isEmpty ? nil : NSDictionary(dictionary: storage) }
    }
}
