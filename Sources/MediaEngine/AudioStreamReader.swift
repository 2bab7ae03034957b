// AudioStreamReader: one audio stream of a file decoded and converted to one PCM format, its
// samples placed on the output rate's timeline and trimmed to a time range, sample-accurately.
import CFFmpeg
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

/// Decodes one audio stream with the shared `Demuxer` and `Decoder` and converts it with an
/// `AudioResampler`.
///
/// Timing: the first decoded frame's presentation time places the stream on the output
/// timeline (FFmpeg has already removed encoder priming and applied the container's edit-list
/// start through skip-samples side data); later samples follow contiguously. Only samples whose
/// times lie in `[start, end)` are returned. Reading starts by seeking half a second before
/// `start` (so codecs with overlapping transforms or bit reservoirs decode the first wanted
/// sample correctly) in containers whose timestamps stay exact after a seek, and at the top of
/// the file otherwise or when `start` is that close to it.
///
/// Damaged input: a packet the decoder rejects is skipped, as FFmpeg's tools do; more than 32
/// in a row, or a stream that yields no audio at all while the container says it has packets,
/// fail with `MediaError.failedToParse`.
///
/// Not thread-safe; single use (one `start`).
package final class AudioStreamReader: @unchecked Sendable {
    /// The stream being read.
    package let stream: StreamInfo
    /// What the samples are converted to.
    package let output: AudioPCMFormat
    private let demuxer: Demuxer
    private let decoder: Decoder
    private let resampler: AudioResampler
    private let cancellation: DemuxerCancellation
    private var headIndex: Int64?          // output index of the resampler FIFO's first frame
    private var startIndex: Int64 = .min
    private var endIndex: Int64 = .max
    private var started = false
    private var inputEnded = false
    private var drained = false
    private var consecutiveFailures = 0
    private var packetsSent = 0
    private var framesDecoded = 0

    /// The longest run of packets the decoder may reject before the stream counts as damaged.
    static let tolerableFailures = 32
    /// How far before the wanted start decoding begins after a seek.
    static let preroll = CMTime(value: 1, timescale: 2)

    /// Opens `url` and a decoder for its stream `streamIndex`, converting to `output`.
    package init(url: URL, streamIndex: Int, output: AudioPCMFormat, quality: AudioResampler.Quality = .medium,
                 cancellation: DemuxerCancellation = DemuxerCancellation()) throws(MediaError) {
        self.cancellation = cancellation
        demuxer = try Demuxer(url: url, cancellation: cancellation)
        guard streamIndex >= 0, streamIndex < demuxer.streams.count, demuxer.streams[streamIndex].kind == .audio else {
            throw MediaError.invalidArgument(message: "\(url.path): stream \(streamIndex) is not an audio stream")
        }
        stream = demuxer.streams[streamIndex]
        demuxer.selectStreams([streamIndex])
        let timeBase = stream.timeBase
        do {
            decoder = try demuxer.withCodecParameters(stream: streamIndex) { parameters in
                try Decoder(parameters: parameters, timeBase: timeBase, threads: 1)
            }
        } catch let error as FFmpegError {
            if error.code == Decoder.decoderNotFound {
                throw MediaError.decoderNotFound(code: error.code, message: "\(url.path): no decoder for \(stream.codecName) audio")
            }
            throw MediaError.failedToParse(code: error.code, message: "\(url.path): cannot open the \(stream.codecName) decoder: \(error.message)")
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError.other(code: cffmpeg_averror(EINVAL), message: "\(error)")
        }
        self.output = output
        resampler = try AudioResampler(output: output, quality: quality)
    }

    /// Positions reading at `start` (times before it are dropped) and stops at `end` (exclusive;
    /// `.positiveInfinity` or invalid for the end of the stream).
    package func start(from start: CMTime, to end: CMTime) throws(MediaError) {
        guard !started else { throw MediaError.invalidArgument(message: "an audio stream reader starts once") }
        started = true
        let rate = Int32(output.sampleRate)
        if start.isNumeric, start > .zero {
            startIndex = CMTimeConvertScale(start, timescale: rate, method: .roundTowardPositiveInfinity).value
        }
        if end.isNumeric {
            endIndex = CMTimeConvertScale(end, timescale: rate, method: .roundTowardPositiveInfinity).value
        }
        if start.isNumeric, start > AudioStreamReader.preroll, seeksExactly {
            let target = start - AudioStreamReader.preroll
            do {
                try demuxer.seek(stream: stream.index, to: target)
            } catch {
                // Unseekable input: decode from the top and drop what comes before `start`.
                try? demuxer.rewind()
            }
        }
    }

    /// Containers whose packets carry exact timestamps after a seek. Elsewhere (MP3, ADTS AAC,
    /// AC-3 and other raw streams) FFmpeg estimates the position it seeks to — from a VBR table of
    /// contents or the bit rate — and the timestamps after it, so reading decodes from the top.
    static let exactSeekingFormats: Set<String> = ["mov", "mp4", "matroska", "webm", "ogg", "wav", "w64", "aiff", "caf", "flac"]

    private var seeksExactly: Bool {
        demuxer.formatName.split(separator: ",").contains { AudioStreamReader.exactSeekingFormats.contains(String($0)) }
    }

    /// Stops any blocking read (from another thread); later reads fail with `.cancelled`.
    package func cancel() { cancellation.cancel() }

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
                    return AudioPCMBlock(startIndex: head, frameCount: n, data: data)
                }
            }
            if drained { return nil }
            try pump()
        }
    }

    /// Decodes the next packet (or drains at the end) into the resampler.
    private func pump() throws(MediaError) {
        if !inputEnded {
            guard let packet = try demuxer.readPacket() else {
                inputEnded = true
                try? decoder.sendEndOfStream()
                try receiveFrames()
                return
            }
            guard packet.streamIndex == stream.index else { return }
            packetsSent += 1
            do {
                var accepted = try decoder.send(packet.pointer)
                while !accepted {
                    // The decoder's output is full: take its frames, then resend.
                    try receiveFrames()
                    accepted = try decoder.send(packet.pointer)
                }
                consecutiveFailures = 0
            } catch let error as FFmpegError {
                try rejected(error)
            } catch let error as MediaError {
                throw error
            } catch {
                throw MediaError.other(code: cffmpeg_averror(EINVAL), message: "\(error)")
            }
            try receiveFrames()
        } else {
            try receiveFrames()
            if decoder.isDraining {
                if packetsSent > 0, framesDecoded == 0 {
                    throw MediaError.failedToParse(code: MediaError.invalidDataCode,
                                                   message: "\(demuxer.url.path): the \(stream.codecName) audio could not be decoded")
                }
                try resampler.finish()
                drained = true
            }
        }
    }

    private func receiveFrames() throws(MediaError) {
        while true {
            let output: Decoder.Output
            do {
                output = try decoder.receive()
            } catch {
                try rejected(error)
                return
            }
            switch output {
            case .frame(let frame):
                guard frame.audioFrameCount > 0 else { continue }
                framesDecoded += 1
                if headIndex == nil {
                    headIndex = firstIndex(of: frame).saturatingSubtracting(Int64(resampler.bufferedFrameCount))
                }
                try resampler.append(frame)
            case .needsInput, .endOfStream:
                return
            }
        }
    }

    /// Where the first decoded frame sits on the output timeline.
    private func firstIndex(of frame: DecodedFrame) -> Int64 {
        let time = frame.presentationTime
        guard time.isNumeric else { return startIndex == .min ? 0 : startIndex }
        return CMTimeConvertScale(time, timescale: Int32(output.sampleRate), method: .roundHalfAwayFromZero).value
    }

    /// A packet or frame the decoder refused: tolerated unless it keeps happening.
    private func rejected(_ error: FFmpegError) throws(MediaError) {
        if error.code == cffmpeg_averror(ENOMEM) {
            throw MediaError.other(code: error.code, message: "out of memory decoding audio")
        }
        consecutiveFailures += 1
        if consecutiveFailures > AudioStreamReader.tolerableFailures {
            throw MediaError.failedToParse(code: error.code,
                                           message: "\(demuxer.url.path): damaged \(stream.codecName) audio (\(error.message))")
        }
    }
}
