@_exported import CoreMedia
@_exported import CoreVideo
import MediaEngine
