// The umbrella: `import AVFoundation` brings in Core Media, Core Video, the Core Graphics
// subset, Quartz Core (CALayer and its animations), ImageIO and VideoToolbox, as it does on Apple
// platforms.
@_exported import AVFAudio
@_exported import CoreMedia
@_exported import CoreVideo
@_exported import CoreGraphics
@_exported import QuartzCore
@_exported import CoreAudioTypes
@_exported import ImageIO
@_exported import UniformTypeIdentifiers
@_exported import VideoToolbox
#if canImport(FoundationNetworking)
// On Apple platforms `import AVFoundation` brings all of Foundation, URLSession and URLRequest
// included; on Linux those live in FoundationNetworking, re-exported here so that media code
// that downloads what it processes compiles unchanged. The cost (libcurl and ten more shared
// libraries at start-up, about 2.5 ms of CPU for avtool) is measured in docs/COMPATIBILITY.md.
@_exported import FoundationNetworking
#endif
