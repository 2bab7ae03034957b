// Creating CGImages from PNG and JPEG data providers. On Apple platforms these initialisers
// belong to Core Graphics; here they live in ImageIO, which holds the decoders.
import Foundation
internal import MediaEngine

extension CGImage {
    /// Creates an image from a data provider supplying PNG data; nil when the data is not a
    /// decodable PNG. `decode`, `shouldInterpolate` and `intent` are recorded on the image.
    public convenience init?(pngDataProviderSource source: CGDataProvider, decode: UnsafePointer<CGFloat>?,
                             shouldInterpolate: Bool, intent: CGColorRenderingIntent) {
        guard let decoded = CGImage.decoded(from: source, format: .png) else { return nil }
        self.init(width: decoded.width, height: decoded.height, bitsPerComponent: decoded.bitsPerComponent,
                  bitsPerPixel: decoded.bitsPerPixel, bytesPerRow: decoded.bytesPerRow, space: decoded.colorSpace!,
                  bitmapInfo: decoded.bitmapInfo, provider: decoded.dataProvider!, decode: decode,
                  shouldInterpolate: shouldInterpolate, intent: intent)
    }

    /// Creates an image from a data provider supplying JPEG data; nil when the data is not a
    /// decodable JPEG. `decode`, `shouldInterpolate` and `intent` are recorded on the image.
    public convenience init?(jpegDataProviderSource source: CGDataProvider, decode: UnsafePointer<CGFloat>?,
                             shouldInterpolate: Bool, intent: CGColorRenderingIntent) {
        guard let decoded = CGImage.decoded(from: source, format: .jpeg) else { return nil }
        self.init(width: decoded.width, height: decoded.height, bitsPerComponent: decoded.bitsPerComponent,
                  bitsPerPixel: decoded.bitsPerPixel, bytesPerRow: decoded.bytesPerRow, space: decoded.colorSpace!,
                  bitmapInfo: decoded.bitmapInfo, provider: decoded.dataProvider!, decode: decode,
                  shouldInterpolate: shouldInterpolate, intent: intent)
    }

    private static func decoded(from source: CGDataProvider, format: ImageFormat) -> CGImage? {
        guard let data = source.data else { return nil }
        let bytes = Data(bytes: data.bytes, count: data.length)
        guard ImageFormat(sniffing: bytes) == format, let image = ImageCodec.decode(bytes),
              image.colorSpace != nil, image.dataProvider != nil else { return nil }
        return image
    }
}
