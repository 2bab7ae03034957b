@_exported import CoreGraphics
import MediaEngine
