// Placeholder for the audio decoding source (replaced at merge by the audio reader's real file):
// lets track outputs of audio tracks with output settings compile. It never produces audio.
import CoreMedia
import Foundation

/// Decoded (linear PCM) audio of one or more tracks, mixed.
final class AudioReaderSource: ReaderSampleSource {
    /// Always fails: audio decoding arrives with the audio reader.
    init(tracks: [AVAssetTrack], audioSettings: [String: Any]?, audioMix: AnyObject?) throws {
        throw AVError(.decoderNotFound, userInfo: [
            NSLocalizedDescriptionKey: "Cannot Decode",
            NSLocalizedFailureReasonErrorKey: "Audio decoding is not available in this build.",
        ])
    }

    func start(timeRange: CMTimeRange) throws {}
    func next() throws -> CMSampleBuffer? { nil }
    func reset(timeRanges: [CMTimeRange]) throws {}
    func cancel() {}
}
