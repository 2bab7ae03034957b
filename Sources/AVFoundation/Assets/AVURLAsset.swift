// AVURLAsset: an asset backed by a local file URL.
import Foundation

/// Option key (Bool): prefer exact duration and timing even when computing them requires
/// reading the whole file (e.g. an MP3 without a Xing/VBRI header). Default false.
public let AVURLAssetPreferPreciseDurationAndTimingKey: String = "AVURLAssetPreferPreciseDurationAndTimingKey"

/// An asset that reads the media file at a URL. Creation does no I/O; the file is opened when
/// a property is first loaded.
open class AVURLAsset: AVAsset, @unchecked Sendable {
    /// The URL the asset was created with.
    public let url: URL

    /// An asset for `URL` with options (`AVURLAssetPreferPreciseDurationAndTimingKey`).
    public init(url URL: URL, options: [String: Any]? = nil) {
        self.url = URL
        let precise: Bool
        switch options?[AVURLAssetPreferPreciseDurationAndTimingKey] {
        case let b as Bool: precise = b
        case let n as NSNumber: precise = n.boolValue
        default: precise = false
        }
        super.init(engine: URLAssetEngine(url: URL, prefersPreciseTiming: precise))
    }

    /// A string describing the asset and its URL.
    open override var description: String { "<AVURLAsset: \(url.absoluteString)>" }
}
