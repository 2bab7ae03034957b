// A metadata reader: title, artist and duration of a media file, old style and async style.
import AVFoundation

struct MediaInfo {
    var title: String?
    var artist: String?
    var duration: Double
    var videoSize: CGSize?
}

func readMediaInfo(url: URL) -> MediaInfo {
    let asset = AVURLAsset(url: url, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
    let common = asset.commonMetadata
    let title = AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierTitle).first?.stringValue
    let artist = AVMetadataItem.metadataItems(from: common, withKey: AVMetadataKey.commonKeyArtist,
                                              keySpace: .common).first?.stringValue
    var size: CGSize?
    if let track = asset.tracks(withMediaType: .video).first {
        let transformed = track.naturalSize.applying(track.preferredTransform)
        size = CGSize(width: abs(transformed.width), height: abs(transformed.height))
    }
    return MediaInfo(title: title, artist: artist, duration: CMTimeGetSeconds(asset.duration), videoSize: size)
}

func loadMediaInfo(url: URL) async throws -> MediaInfo {
    let asset = AVURLAsset(url: url)
    let (duration, metadata) = try await asset.load(.duration, .commonMetadata)
    let titles = AVMetadataItem.metadataItems(from: metadata, filteredByIdentifier: .commonIdentifierTitle)
    let title = try await titles.first?.load(.stringValue)
    return MediaInfo(title: title ?? nil, artist: nil, duration: duration.seconds, videoSize: nil)
}

enum MetadataReader {
    static func run(_ url: URL) async throws {
        let info = readMediaInfo(url: url)
        let loaded = try await loadMediaInfo(url: url)
        let size = info.videoSize.map { "\(Int($0.width))x\(Int($0.height))" } ?? "none"
        print("metadata title=\(info.title ?? "-") artist=\(info.artist ?? "-") duration=\(info.duration) size=\(size)")
        print("metadata-async title=\(loaded.title ?? "-") duration=\(loaded.duration)")
    }
}
