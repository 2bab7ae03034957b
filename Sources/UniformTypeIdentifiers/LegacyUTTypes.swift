// The pre-UTType names of type identifiers and the C functions over them. On Apple platforms
// they are declared in CoreServices (macOS) / MobileCoreServices (iOS) and deprecated in favour
// of `UTType`; they are offered here so that older ported code compiles.

/// `"public.item"`.
nonisolated(unsafe) public let kUTTypeItem: CFString = "public.item"
/// `"public.content"`.
nonisolated(unsafe) public let kUTTypeContent: CFString = "public.content"
/// `"public.data"`.
nonisolated(unsafe) public let kUTTypeData: CFString = "public.data"
/// `"public.image"`.
nonisolated(unsafe) public let kUTTypeImage: CFString = "public.image"
/// `"public.png"`.
nonisolated(unsafe) public let kUTTypePNG: CFString = "public.png"
/// `"public.jpeg"`.
nonisolated(unsafe) public let kUTTypeJPEG: CFString = "public.jpeg"
/// `"public.tiff"`.
nonisolated(unsafe) public let kUTTypeTIFF: CFString = "public.tiff"
/// `"com.compuserve.gif"`.
nonisolated(unsafe) public let kUTTypeGIF: CFString = "com.compuserve.gif"
/// `"com.microsoft.bmp"`.
nonisolated(unsafe) public let kUTTypeBMP: CFString = "com.microsoft.bmp"
/// `"com.microsoft.ico"`.
nonisolated(unsafe) public let kUTTypeICO: CFString = "com.microsoft.ico"
/// `"public.audiovisual-content"`.
nonisolated(unsafe) public let kUTTypeAudiovisualContent: CFString = "public.audiovisual-content"
/// `"public.movie"`.
nonisolated(unsafe) public let kUTTypeMovie: CFString = "public.movie"
/// `"public.video"`.
nonisolated(unsafe) public let kUTTypeVideo: CFString = "public.video"
/// `"public.audio"`.
nonisolated(unsafe) public let kUTTypeAudio: CFString = "public.audio"
/// `"com.apple.quicktime-movie"`.
nonisolated(unsafe) public let kUTTypeQuickTimeMovie: CFString = "com.apple.quicktime-movie"
/// `"public.mpeg"`.
nonisolated(unsafe) public let kUTTypeMPEG: CFString = "public.mpeg"
/// `"public.mpeg-4"`.
nonisolated(unsafe) public let kUTTypeMPEG4: CFString = "public.mpeg-4"
/// `"public.mpeg-4-audio"`.
nonisolated(unsafe) public let kUTTypeMPEG4Audio: CFString = "public.mpeg-4-audio"
/// `"public.mp3"`.
nonisolated(unsafe) public let kUTTypeMP3: CFString = "public.mp3"
/// `"com.microsoft.waveform-audio"`.
nonisolated(unsafe) public let kUTTypeWaveformAudio: CFString = "com.microsoft.waveform-audio"
/// `"public.avi"`.
nonisolated(unsafe) public let kUTTypeAVIMovie: CFString = "public.avi"
/// `"public.text"`.
nonisolated(unsafe) public let kUTTypeText: CFString = "public.text"
/// `"public.plain-text"`.
nonisolated(unsafe) public let kUTTypePlainText: CFString = "public.plain-text"
/// `"public.json"`.
nonisolated(unsafe) public let kUTTypeJSON: CFString = "public.json"
/// `"com.adobe.pdf"`.
nonisolated(unsafe) public let kUTTypePDF: CFString = "com.adobe.pdf"

/// The filename-extension tag class, `"public.filename-extension"`.
nonisolated(unsafe) public let kUTTagClassFilenameExtension: CFString = "public.filename-extension"
/// The MIME-type tag class, `"public.mime-type"`.
nonisolated(unsafe) public let kUTTagClassMIMEType: CFString = "public.mime-type"

/// Whether type identifier `inUTI` conforms to `inConformsToUTI` (`UTTypeConformsTo`).
@discardableResult
public func UTTypeConformsTo(_ inUTI: CFString, _ inConformsToUTI: CFString) -> Bool {
    let uti = inUTI as String, parent = inConformsToUTI as String
    guard let a = UTType(uti), let b = UTType(parent) else { return uti.lowercased() == parent.lowercased() }
    return a.conforms(to: b)
}

/// Whether two type identifiers name the same type (`UTTypeEqual`).
@discardableResult
public func UTTypeEqual(_ inUTI1: CFString, _ inUTI2: CFString) -> Bool {
    (inUTI1 as String).lowercased() == (inUTI2 as String).lowercased()
}

/// The identifier of the preferred type for a tag (`UTTypeCreatePreferredIdentifierForTag`):
/// `UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "mp4" as CFString, nil)`
/// gives `"public.mpeg-4"`; a tag no declared type carries gives a dynamic (`dyn.`) identifier.
/// The caller owns the result (`takeRetainedValue()`). Nil for an empty tag or an unknown class.
public func UTTypeCreatePreferredIdentifierForTag(_ inTagClass: CFString, _ inTag: CFString,
                                                  _ inConformingToUTI: CFString?) -> Unmanaged<CFString>? {
    let supertype: UTType?
    if let inConformingToUTI {
        guard let parent = UTType(inConformingToUTI as String) else { return nil }
        supertype = parent
    } else {
        supertype = nil
    }
    guard let type = UTType.types(tag: inTag as String, tagClass: UTTagClass(rawValue: inTagClass as String),
                                  conformingTo: supertype).first else { return nil }
    return Unmanaged.passRetained(NSString(string: type.identifier))
}

/// Every type identifier carrying a tag (`UTTypeCreateAllIdentifiersForTag`); the caller owns the array.
public func UTTypeCreateAllIdentifiersForTag(_ inTagClass: CFString, _ inTag: CFString,
                                             _ inConformingToUTI: CFString?) -> Unmanaged<CFArray>? {
    let supertype = inConformingToUTI.flatMap { UTType($0 as String) }
    if inConformingToUTI != nil, supertype == nil { return nil }
    let types = UTType.types(tag: inTag as String, tagClass: UTTagClass(rawValue: inTagClass as String),
                             conformingTo: supertype)
    guard !types.isEmpty else { return nil }
    return Unmanaged.passRetained(NSArray(array: types.map { NSString(string: $0.identifier) }))
}

/// The preferred tag of a class for a type identifier (`UTTypeCopyPreferredTagWithClass`):
/// `UTTypeCopyPreferredTagWithClass("public.mpeg-4" as CFString, kUTTagClassFilenameExtension)`
/// gives `"mp4"`. The caller owns the result (`takeRetainedValue()`). Nil when the type has no
/// tag of that class.
public func UTTypeCopyPreferredTagWithClass(_ inUTI: CFString, _ inTagClass: CFString) -> Unmanaged<CFString>? {
    guard let type = UTType(inUTI as String),
          let tag = type.tags[UTTagClass(rawValue: inTagClass as String)]?.first else { return nil }
    return Unmanaged.passRetained(NSString(string: tag))
}

/// Every tag of a class for a type identifier (`UTTypeCopyAllTagsWithClass`); the caller owns the array.
public func UTTypeCopyAllTagsWithClass(_ inUTI: CFString, _ inTagClass: CFString) -> Unmanaged<CFArray>? {
    guard let type = UTType(inUTI as String),
          let tags = type.tags[UTTagClass(rawValue: inTagClass as String)], !tags.isEmpty else { return nil }
    return Unmanaged.passRetained(NSArray(array: tags.map { NSString(string: $0) }))
}

/// The description of a type identifier (`UTTypeCopyDescription`); the caller owns it.
public func UTTypeCopyDescription(_ inUTI: CFString) -> Unmanaged<CFString>? {
    guard let description = UTType(inUTI as String)?.localizedDescription else { return nil }
    return Unmanaged.passRetained(NSString(string: description))
}

/// Whether the identifier is a dynamic one (`UTTypeIsDynamic`).
public func UTTypeIsDynamic(_ inUTI: CFString) -> Bool { (inUTI as String).lowercased().hasPrefix("dyn.") }

/// Whether the identifier is declared (`UTTypeIsDeclared`).
public func UTTypeIsDeclared(_ inUTI: CFString) -> Bool { UTType(inUTI as String)?.isDeclared ?? false }
