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
