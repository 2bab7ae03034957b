// AudioStreamReader: one audio stream of a file decoded and converted to one PCM format, its
// samples placed on the output rate's timeline and trimmed to a time range, sample-accurately.
import CoreMedia
import Foundation

/// PCM frames read from a stream: `frameCount` frames starting at output sample `startIndex`
/// (time = startIndex ÷ sample rate), in the reader's output format (non-interleaved buffers one
/// after another).
package struct AudioPCMBlock: Sendable {
    /// The index of the first frame on the output rate's timeline.
    package var startIndex: Int64
    /// The number of frames.
    package var frameCount: Int
    /// The samples.
    package var data: Data

    package init(startIndex: Int64, frameCount: Int, data: Data) {
        self.startIndex = startIndex
        self.frameCount = frameCount
        self.data = data
    }
}

/// Decodes one audio stream with the pipe's stages — a `PacketSource` positioned for decoding
/// from a time and a `DecodeLoop` — and converts it with an `AudioResampler`.
///
/// Timing: the first decoded frame's presentation time places the stream on the output
/// timeline (FFmpeg has already removed encoder priming and applied the container's edit-list
/// start through skip-samples side data); later samples follow contiguously. Only samples whose
/// times lie in `[start, end)` are returned. Reading starts half a second before `start` (so
/// codecs with overlapping transforms or bit reservoirs decode the first wanted sample
/// correctly) in containers whose timestamps stay exact after a seek, and at the top of the file
/// otherwise or when `start` is that close to it (`PacketSource.position(decodingFrom:preroll:)`).
/// `start(from:to:)` may be called again at any time to reposition (a player seeks): what was
/// decoded and converted is dropped.
///
/// Damaged input: a packet the decoder rejects is skipped, as FFmpeg's tools do; more than 32
/// in a row, or a stream that yields no audio at all while the container says it has packets,
/// fail with `MediaError.failedToParse`.
///
/// Not thread-safe.
package final class AudioStreamReader: @unchecked Sendable {
    /// The stream being read.
    package let stream: StreamInfo
    /// What the samples are converted to.
    package let output: AudioPCMFormat
    private let packets: PacketSource
    private let loop: DecodeLoop
    private let resampler: AudioResampler
    private var headIndex: Int64?          // output index of the resampler FIFO's first frame
    private var startIndex: Int64 = .min
    private var endIndex: Int64 = .max
    private var started = false
    private var drained = false
    private var framesDecoded = 0
    /// Output frames before the stream's first sample on the reader's timeline (see `init`).
    private let originFrames: Int64

    /// The longest run of packets the decoder may reject before the stream counts as damaged.
    static let tolerableFailures = 32
    /// How far before the wanted start decoding begins after a seek.
    static let preroll = CMTime(value: 1, timescale: 2)

    /// Opens `url` and a decoder for its stream `streamIndex`, converting to `output`.
    ///
    /// `fromFirstSample`: times and indexes count from the stream's first sample (an audio
    /// file's frame positions, as AVAudioFile and the players use them) instead of from the
    /// container's time 0 (the asset's timeline) — they differ when the stream starts later, as
    /// an MP3's first sample does after its decoder delay (25 ms) or an M4A's without an edit list.
    package init(url: URL, streamIndex: Int, output: AudioPCMFormat, quality: AudioResampler.Quality = .medium,
                 fromFirstSample: Bool = false, cancellation: DemuxerCancellation = DemuxerCancellation()) throws(MediaError) {
        packets = try PacketSource(url: url, streamIndex: streamIndex, cancellation: cancellation)
        guard packets.stream.kind == .audio else {
            throw MediaError.invalidArgument(message: "\(url.path): stream \(streamIndex) is not an audio stream")
        }
        stream = packets.stream
        // Decoded audio ends where the file does; a short file is not an error here.
        packets.detectsTruncation = false
        let decoder: Decoder
        do {
            decoder = try packets.makeDecoder(threads: 1)
        } catch {
            switch error {
            case .decoderNotFound(let code, let message): throw .decoderNotFound(code: code, message: "\(url.path): \(message)")
            case .other(let code, let message): throw .failedToParse(code: code, message: "\(url.path): \(message)")
            default: throw error
            }
        }
        loop = DecodeLoop(decoder: decoder, tolerance: .consecutive(AudioStreamReader.tolerableFailures), cancellation: cancellation)
        self.output = output
        resampler = try AudioResampler(output: output, quality: quality)
        let first = stream.startTime
        originFrames = fromFirstSample && first.isNumeric && first > .zero
            ? CMTimeConvertScale(first, timescale: Int32(output.sampleRate), method: .roundHalfAwayFromZero).value : 0
    }

    /// Positions reading at `start` (times before it are dropped) and stops at `end` (exclusive;
    /// `.positiveInfinity` or invalid for the end of the stream). Called again, it repositions:
    /// everything decoded so far is dropped.
    package func start(from start: CMTime, to end: CMTime) throws(MediaError) {
        if started {
            loop.flush()
            resampler.reset()
            headIndex = nil
            drained = false
            framesDecoded = 0
        }
        started = true
        let rate = Int32(output.sampleRate)
        startIndex = start.isNumeric && start > .zero
            ? CMTimeConvertScale(start, timescale: rate, method: .roundTowardPositiveInfinity).value.saturatingAdding(originFrames) : .min
        endIndex = end.isNumeric
            ? CMTimeConvertScale(end, timescale: rate, method: .roundTowardPositiveInfinity).value.saturatingAdding(originFrames) : .max
        let from = originFrames > 0 && start.isNumeric ? CMTimeAdd(start, CMTime(value: originFrames, timescale: rate)) : start
        try packets.position(decodingFrom: from, preroll: AudioStreamReader.preroll)
    }

    /// Stops any blocking read (from another thread); later reads fail with `.cancelled`.
    package func cancel() { packets.cancel() }

    /// The next frames in `[start, end)`, at most `maxFrames`; nil when there are no more.
    package func read(maxFrames: Int) throws(MediaError) -> AudioPCMBlock? {
        if !started { try start(from: .zero, to: .positiveInfinity) }
        while true {
            if let head = headIndex, resampler.bufferedFrameCount > 0 {
                if head < startIndex {
                    // Positions derive from the file's timestamps: differences saturate, never trap.
                    let drop = Int(min(Int64(resampler.bufferedFrameCount), startIndex.saturatingSubtracting(head)))
                    resampler.discard(frameCount: drop)
                    headIndex = head + Int64(drop)
                    continue
                }
                if head >= endIndex { return nil }
                let left = endIndex.saturatingSubtracting(head)
                let available = Int(min(Int64(resampler.bufferedFrameCount), left))
                if available >= maxFrames || (drained && available > 0) || (left <= Int64(available)) {
                    let n = min(available, maxFrames)
                    let data = resampler.read(frameCount: n)
                    headIndex = head + Int64(n)
                    return AudioPCMBlock(startIndex: head.saturatingSubtracting(originFrames), frameCount: n, data: data)
                }
            }
            if drained { return nil }
            try pump()
        }
    }

    /// Decodes the next frame into the resampler (or drains it at the end).
    private func pump() throws(MediaError) {
        let decoded: DecodeLoop.Frame?
        do {
            decoded = try loop.next(feed: { () throws(MediaError) -> DemuxerPacket? in try packets.next() })
        } catch {
            switch error {
            case .cancelled:
                throw .cancelled(code: MediaError.exitCode, message: "reading was cancelled")
            case .reading(let error):
                throw error
            case .decoding(let error) where error == .outOfMemory:
                throw .other(code: error.code, message: "out of memory decoding audio")
            case .decoding(let error):
                throw .failedToParse(code: error.code, message: "\(packets.url.path): damaged \(stream.codecName) audio (\(error.message))")
            }
        }
        guard let frame = decoded?.frame else {
            if loop.packetsSent > 0, framesDecoded == 0 {
                throw .failedToParse(code: MediaError.invalidDataCode,
                                     message: "\(packets.url.path): the \(stream.codecName) audio could not be decoded")
            }
            try resampler.finish()
            drained = true
            return
        }
        guard frame.audioFrameCount > 0 else { return }
        framesDecoded += 1
        if headIndex == nil {
            headIndex = firstIndex(of: frame).saturatingSubtracting(Int64(resampler.bufferedFrameCount))
        }
        try resampler.append(frame)
    }

    /// Where the first decoded frame sits on the output timeline.
    private func firstIndex(of frame: DecodedFrame) -> Int64 {
        let time = frame.presentationTime
        guard time.isNumeric else { return startIndex == .min ? 0 : startIndex }
        return CMTimeConvertScale(time, timescale: Int32(output.sampleRate), method: .roundHalfAwayFromZero).value
    }
}
