// AVAssetTrack's metadata: the items of the track's own user data and metadata boxes (QuickTime,
// MP4) or of its container tags (Matroska, Ogg…), shared with the asset's single metadata read.
import Foundation

extension AVAssetTrack {
    /// Every metadata item of the track, in all its formats. Empty when the file cannot be read.
    public var metadata: [AVMetadataItem] { (try? loadedMetadata(for: "metadata").trackItems[trackID]) ?? [] }

    /// The track's items that have a common key, each in its own key space.
    public var commonMetadata: [AVMetadataItem] { (try? loadedMetadata(for: "commonMetadata").commonTrackItems(trackID)) ?? [] }

    /// The metadata formats the track has items in.
    public var availableMetadataFormats: [AVMetadataFormat] {
        (try? loadedMetadata(for: "availableMetadataFormats").trackFormats(trackID)) ?? []
    }

    /// The track's items of one format (empty for a format it has none of).
    public func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] {
        (try? loadedMetadata(for: "availableMetadataFormats").trackItemsByFormat[trackID]?[format]) ?? []
    }

    /// Loads the track's items of one format.
    public func loadMetadata(for format: AVMetadataFormat) async throws -> [AVMetadataItem] {
        _ = try await load(.availableMetadataFormats)
        return metadata(forFormat: format)
    }

    /// Loads the track's items of one format and calls `completionHandler` on a background queue.
    public func loadMetadata(for format: AVMetadataFormat,
                             completionHandler: @escaping @Sendable ([AVMetadataItem]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["availableMetadataFormats"]) { [self] in
            do {
                let metadata = try loadedMetadata(for: "availableMetadataFormats")
                completionHandler(metadata.trackItemsByFormat[trackID]?[format] ?? [], nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }
}
