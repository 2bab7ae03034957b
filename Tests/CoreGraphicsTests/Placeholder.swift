import Testing
import CoreGraphics
