// The asynchronously loadable properties of compositions typed as Apple's are: their tracks as
// composition tracks.

extension AVPartialAsyncProperty where Root == AVComposition {
    /// The composition's tracks.
    public static var tracks: AVAsyncProperty<AVComposition, [AVCompositionTrack]> {
        .init(key: "tracks") { $0.compositionTracks }
    }
}

extension AVPartialAsyncProperty where Root == AVMutableComposition {
    /// The mutable composition's tracks.
    public static var tracks: AVAsyncProperty<AVMutableComposition, [AVMutableCompositionTrack]> {
        .init(key: "tracks") { $0.compositionTracks.compactMap { $0 as? AVMutableCompositionTrack } }
    }
}

extension AVPartialAsyncProperty where Root == AVCompositionTrack {
    /// The composition track's segments.
    public static var segments: AVAsyncProperty<AVCompositionTrack, [AVCompositionTrackSegment]> {
        .init(key: "segments") { $0.compositionSegments }
    }
}
