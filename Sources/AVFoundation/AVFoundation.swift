// The umbrella: `import AVFoundation` brings in Core Media, Core Video, the Core Graphics
// subset, ImageIO and VideoToolbox, as it does on Apple platforms.
@_exported import CoreMedia
@_exported import CoreVideo
@_exported import CoreGraphics
@_exported import CoreAudioTypes
@_exported import ImageIO
@_exported import UniformTypeIdentifiers
@_exported import VideoToolbox
