import Testing
import AVFoundation
