import Testing
import VideoToolbox
