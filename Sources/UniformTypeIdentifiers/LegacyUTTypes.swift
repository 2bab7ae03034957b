// The pre-UTType names of type identifiers and the C functions over them. On Apple platforms
// they are declared in CoreServices (macOS) / MobileCoreServices (iOS) and deprecated in favour
// of `UTType`; they are offered here so that older ported code compiles.

/// `"public.item"`.
public let kUTTypeItem: CFString = "public.item"
/// `"public.content"`.
public let kUTTypeContent: CFString = "public.content"
/// `"public.data"`.
public let kUTTypeData: CFString = "public.data"
/// `"public.image"`.
public let kUTTypeImage: CFString = "public.image"
/// `"public.png"`.
public let kUTTypePNG: CFString = "public.png"
/// `"public.jpeg"`.
public let kUTTypeJPEG: CFString = "public.jpeg"
/// `"public.tiff"`.
public let kUTTypeTIFF: CFString = "public.tiff"
/// `"com.compuserve.gif"`.
public let kUTTypeGIF: CFString = "com.compuserve.gif"
/// `"com.microsoft.bmp"`.
public let kUTTypeBMP: CFString = "com.microsoft.bmp"
/// `"com.microsoft.ico"`.
public let kUTTypeICO: CFString = "com.microsoft.ico"
/// `"public.audiovisual-content"`.
public let kUTTypeAudiovisualContent: CFString = "public.audiovisual-content"
/// `"public.movie"`.
public let kUTTypeMovie: CFString = "public.movie"
/// `"public.video"`.
public let kUTTypeVideo: CFString = "public.video"
/// `"public.audio"`.
public let kUTTypeAudio: CFString = "public.audio"
/// `"com.apple.quicktime-movie"`.
public let kUTTypeQuickTimeMovie: CFString = "com.apple.quicktime-movie"
/// `"public.mpeg"`.
public let kUTTypeMPEG: CFString = "public.mpeg"
/// `"public.mpeg-4"`.
public let kUTTypeMPEG4: CFString = "public.mpeg-4"
/// `"public.mpeg-4-audio"`.
public let kUTTypeMPEG4Audio: CFString = "public.mpeg-4-audio"
/// `"public.mp3"`.
public let kUTTypeMP3: CFString = "public.mp3"
/// `"com.microsoft.waveform-audio"`.
public let kUTTypeWaveformAudio: CFString = "com.microsoft.waveform-audio"
/// `"public.avi"`.
public let kUTTypeAVIMovie: CFString = "public.avi"
/// `"public.text"`.
public let kUTTypeText: CFString = "public.text"
/// `"public.plain-text"`.
public let kUTTypePlainText: CFString = "public.plain-text"
/// `"public.json"`.
public let kUTTypeJSON: CFString = "public.json"
/// `"com.adobe.pdf"`.
public let kUTTypePDF: CFString = "com.adobe.pdf"

/// The filename-extension tag class, `"public.filename-extension"`.
public let kUTTagClassFilenameExtension: CFString = "public.filename-extension"
/// The MIME-type tag class, `"public.mime-type"`.
public let kUTTagClassMIMEType: CFString = "public.mime-type"

/// Whether type identifier `inUTI` conforms to `inConformsToUTI` (`UTTypeConformsTo`).
@discardableResult
public func UTTypeConformsTo(_ inUTI: CFString, _ inConformsToUTI: CFString) -> Bool {
    guard let a = UTType(inUTI), let b = UTType(inConformsToUTI) else { return inUTI == inConformsToUTI }
    return a.conforms(to: b)
}

/// Whether two type identifiers name the same type (`UTTypeEqual`).
@discardableResult
public func UTTypeEqual(_ inUTI1: CFString, _ inUTI2: CFString) -> Bool {
    inUTI1.lowercased() == inUTI2.lowercased()
}
