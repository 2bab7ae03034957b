// AVAssetVariant: one variant of an HTTP Live Streaming multivariant playlist (its peak bit rate,
// picture size and codecs), and how a player chooses among them.
import CoreGraphics
import CoreMedia
import Foundation
internal import MediaEngine

/// One variant of a stream: a rendition of the whole presentation at one bit rate.
public final class AVAssetVariant: NSObject, Sendable {

    /// The video of a variant.
    public final class VideoAttributes: NSObject, Sendable {
        /// The picture size.
        public let presentationSize: CGSize
        private let codecs: [FourCharCode]
        /// The video codecs (four-character codes).
        public var codecTypes: [NSNumber] { codecs.map { NSNumber(value: $0) } }
        /// The frame rate, when the variant declares one.
        public let nominalFrameRate: Double?

        init(presentationSize: CGSize, codecTypes: [FourCharCode], nominalFrameRate: Double?) {
            self.presentationSize = presentationSize
            codecs = codecTypes
            self.nominalFrameRate = nominalFrameRate
        }
    }

    /// The sound of a variant.
    public final class AudioAttributes: NSObject, Sendable {
        private let formats: [AudioFormatID]
        /// The audio formats (four-character codes).
        public var formatIDs: [NSNumber] { formats.map { NSNumber(value: $0) } }

        init(formatIDs: [AudioFormatID]) {
            formats = formatIDs
        }
    }

    /// The declared peak bit rate (the playlist's BANDWIDTH), bits per second.
    public let peakBitRate: Double?
    /// The declared average bit rate (AVERAGE-BANDWIDTH); nil when the playlist gives none.
    public let averageBitRate: Double?
    /// The video, nil for an audio-only variant.
    public let videoAttributes: VideoAttributes?
    /// The sound, nil for a video-only variant.
    public let audioAttributes: AudioAttributes?
    /// The tracks of the asset that play in this variant.
    let trackIDs: Set<CMPersistentTrackID>

    init(peakBitRate: Double?, videoAttributes: VideoAttributes?, audioAttributes: AudioAttributes?, trackIDs: Set<CMPersistentTrackID>) {
        self.peakBitRate = peakBitRate
        averageBitRate = nil
        self.videoAttributes = videoAttributes
        self.audioAttributes = audioAttributes
        self.trackIDs = trackIDs
    }

    /// The variants of a multivariant playlist's tracks, lowest bit rate first; empty when the
    /// tracks are not variants of one stream.
    static func variants(of tracks: [AVAssetTrack]) -> [AVAssetVariant] {
        var byRate: [Int: [AVAssetTrack]] = [:]
        for track in tracks where !track.isMadeOfSegments {
            if let rate = track.stream.variantBitRate { byRate[rate, default: []].append(track) }
        }
        return byRate.keys.sorted().map { rate in
            let members = byRate[rate]!
            let video = members.filter { $0.mediaType == .video }
            let audio = members.filter { $0.mediaType == .audio }
            let size = video.map { CGSize(width: $0.stream.width, height: $0.stream.height) }
                .max { $0.width * $0.height < $1.width * $1.height }
            let videoAttributes = video.isEmpty ? nil : VideoAttributes(
                presentationSize: size ?? .zero,
                codecTypes: video.map { $0.stream.mediaSubType },
                nominalFrameRate: video.first.map { $0.stream.averageFrameRate }.flatMap { $0 > 0 ? $0 : nil })
            let audioAttributes = audio.isEmpty ? nil : AudioAttributes(formatIDs: audio.map { $0.stream.mediaSubType })
            return AVAssetVariant(peakBitRate: Double(rate), videoAttributes: videoAttributes, audioAttributes: audioAttributes,
                                  trackIDs: Set(members.map(\.trackID)))
        }
    }

    /// The variant a player plays under an item's preferences: the highest bit rate at or below
    /// `peakBitRate` (0: no limit) whose picture fits in `maximumResolution` (zero: no limit);
    /// the lowest variant when none fits.
    static func choose(_ variants: [AVAssetVariant], peakBitRate: Double, maximumResolution: CGSize) -> AVAssetVariant? {
        let fitting = variants.filter { variant in
            if peakBitRate > 0, let rate = variant.peakBitRate, rate > peakBitRate { return false }
            if maximumResolution.width > 0, maximumResolution.height > 0, let size = variant.videoAttributes?.presentationSize,
               size.width > maximumResolution.width || size.height > maximumResolution.height { return false }
            return true
        }
        return fitting.last ?? variants.first
    }

    /// The tracks that play for `variant`: its own and those outside every variant.
    static func tracks(_ tracks: [AVAssetTrack], playing variant: AVAssetVariant?, of variants: [AVAssetVariant]) -> [AVAssetTrack] {
        guard let variant else { return tracks }
        let inSome = variants.reduce(into: Set<CMPersistentTrackID>()) { $0.formUnion($1.trackIDs) }
        return tracks.filter { !inSome.contains($0.trackID) || variant.trackIDs.contains($0.trackID) }
    }

    public override var description: String {
        var text = "<AVAssetVariant: peakBitRate = \(peakBitRate.map { String(Int($0)) } ?? "none")"
        if let size = videoAttributes?.presentationSize { text += ", presentationSize = \(Int(size.width))×\(Int(size.height))" }
        return text + ">"
    }
}

extension AVURLAsset {
    /// The variants of an HTTP Live Streaming multivariant playlist, lowest bit rate first;
    /// empty for other media.
    public var variants: [AVAssetVariant] {
        AVAssetVariant.variants(of: (try? loadedTracks()) ?? [])
    }
}

extension AVPartialAsyncProperty where Root: AVURLAsset {
    /// The variants of a multivariant playlist.
    public static var variants: AVAsyncProperty<Root, [AVAssetVariant]> {
        .init(key: "variants") { asset in AVAssetVariant.variants(of: try asset.loadedTracks()) }
    }
}
