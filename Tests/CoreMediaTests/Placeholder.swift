import Testing
import CoreMedia
