// A thumbnailer: one frame of a movie through AVAssetImageGenerator, saved as PNG with ImageIO.
import AVFoundation
import UniformTypeIdentifiers

enum ThumbnailError: Error {
    case cannotCreateDestination
    case cannotWrite
}

final class Thumbnailer {
    let asset: AVAsset

    init(url: URL) {
        asset = AVAsset(url: url)
    }

    func thumbnail(at seconds: Double, maximumWidth: CGFloat) throws -> (CGImage, CMTime) {
        let generator = AVAssetImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = true
        generator.maximumSize = CGSize(width: maximumWidth, height: maximumWidth)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        var actualTime = CMTime.zero
        let image = try generator.copyCGImage(at: CMTime(seconds: seconds, preferredTimescale: 600), actualTime: &actualTime)
        return (image, actualTime)
    }

    func save(_ image: CGImage, to url: URL) throws {
        guard let destination = CGImageDestinationCreateWithURL(url as CFURL, UTType.png.identifier as CFString, 1, nil) else {
            throw ThumbnailError.cannotCreateDestination
        }
        CGImageDestinationAddImage(destination, image, nil)
        guard CGImageDestinationFinalize(destination) else { throw ThumbnailError.cannotWrite }
    }

    /// PNG bytes in memory, the CFData way.
    func pngData(_ image: CGImage) -> Data? {
        let data = CFDataCreateMutable(kCFAllocatorDefault, 0)!
        guard let destination = CGImageDestinationCreateWithData(data, kUTTypePNG, 1, nil) else { return nil }
        CGImageDestinationAddImage(destination, image, nil)
        guard CGImageDestinationFinalize(destination), CFDataGetLength(data) > 0 else { return nil }
        return data as Data
    }

    static func run(_ url: URL, output: URL) throws {
        let thumbnailer = Thumbnailer(url: url)
        let (image, actual) = try thumbnailer.thumbnail(at: 1.0, maximumWidth: 160)
        try thumbnailer.save(image, to: output)
        let png = thumbnailer.pngData(image)
        let signature = png.map { Array($0.prefix(4)) == [0x89, 0x50, 0x4E, 0x47] } ?? false
        print("thumbnail size=\(image.width)x\(image.height) actual=\(actual.seconds)"
              + " typeid=\(CFGetTypeID(image) == CGImageGetTypeID()) png=\(signature)")
    }
}
