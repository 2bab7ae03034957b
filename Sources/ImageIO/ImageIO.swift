@_exported import CoreGraphics
import MediaEngine
@_exported import CoreFoundationCompat
