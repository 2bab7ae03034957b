@_exported import CoreMedia
@_exported import CoreVideo
internal import MediaEngine
