// The general error codes the Core Audio APIs return (CoreAudioBaseTypes.h), as OSStatus values.

/// The routine is not implemented.
public let kAudio_UnimplementedError: OSStatus = -4
/// The file was not found.
public let kAudio_FileNotFoundError: OSStatus = -43
/// The file cannot be opened: file, folder or sandbox permissions.
public let kAudio_FilePermissionError: OSStatus = -54
/// The file cannot be opened: too many files are open.
public let kAudio_TooManyFilesOpenError: OSStatus = -42
/// The file path is malformed ('!pth').
public let kAudio_BadFilePathError: OSStatus = 0x2170_7468
/// A parameter is invalid.
public let kAudio_ParamError: OSStatus = -50
/// Memory could not be allocated.
public let kAudio_MemFullError: OSStatus = -108
