import Testing
import CoreVideo
