@_exported import CoreGraphics
internal import MediaEngine
@_exported import CoreFoundationCompat
