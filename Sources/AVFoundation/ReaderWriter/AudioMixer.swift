// AudioMixer: the audio mixer stage — N PCM streams (each a segment-walked track) into one PCM
// stream, each input scaled by its gain envelope (an audio mix's volume curve and the track's
// preferred volume), summed, and converted once to the output format (libswresample). The
// per-sample gain and sum run in VOLK's vector kernels (AudioGainKernel); Swift only moves whole
// runs (memcpy/memmove), so the mixer is fast in any build configuration.
import CoreMedia
import Foundation
internal import MediaEngine

/// Mixes PCM inputs on one timeline (the output rate's sample indices, target time).
///
/// Inputs deliver 32-bit float non-interleaved PCM at the output rate in `mixFormat(for:)`'s
/// channels. The mix runs from the earliest sample of any input to the last, in windows of up
/// to `framesPerBuffer` frames, with silence where an input has none (before its first sample,
/// in its gaps, after its end). Each window is converted to the output format by one
/// `AudioResampler` (clipping when that is integer; it has no delay, so nothing is left to drain),
/// or delivered as it is when the output is the mix format.
final class AudioMixer {
    /// One input being mixed: its reader, its gains and the float frames read but not yet mixed.
    private final class Input {
        let reader: AudioSegmentReader
        let curve: AudioVolumeCurve?
        let channels: Int
        /// Planar float frames read but not yet mixed, the first at `bufferStart`: channel `c`
        /// at `planes + c·capacity`.
        private(set) var planes: UnsafeMutablePointer<Float>
        private(set) var capacity: Int
        private(set) var bufferedFrames = 0
        private(set) var bufferStart: Int64?
        /// A block read past a gap, not yet placed (the gap's silence is filled only up to the
        /// window being mixed, so a long gap costs no memory).
        private var pending: AudioPCMBlock?
        private var readerEnded = false

        init(reader: AudioSegmentReader, curve: AudioVolumeCurve?, channels: Int, capacity: Int) {
            self.reader = reader
            self.curve = curve
            self.channels = channels
            self.capacity = capacity
            planes = .allocate(capacity: capacity * channels)
        }

        deinit { planes.deallocate() }

        var ended: Bool { readerEnded && pending == nil }
        var bufferEnd: Int64? { bufferStart.map { $0 + Int64(bufferedFrames) } }

        /// Channel `c`'s first buffered frame.
        func plane(_ c: Int) -> UnsafeMutablePointer<Float> { planes + c * capacity }

        /// Reads until the frames (or silence) reach `windowEnd`, or the input ends.
        func fill(to windowEnd: Int64, maxFrames: Int) throws {
            while (bufferEnd ?? .min) < windowEnd {
                if pending == nil {
                    guard !readerEnded, let block = try reader.read(maxFrames: maxFrames) else {
                        readerEnded = true
                        return
                    }
                    pending = block
                }
                let block = pending!
                guard let end = bufferEnd, bufferedFrames > 0 else {
                    // Nothing buffered: the block starts the buffer wherever it starts.
                    bufferStart = block.startIndex
                    append(block)
                    continue
                }
                if end < block.startIndex {
                    // A gap (a later block never starts earlier): silence up to the block or the window.
                    let silenceEnd = min(block.startIndex, max(windowEnd, end))
                    appendSilence(Int(silenceEnd - end))
                    if silenceEnd < block.startIndex { return }
                }
                append(block)
            }
        }

        /// Reads the input's first block (to know where it starts).
        func prime(maxFrames: Int) throws {
            guard bufferStart == nil, pending == nil, !readerEnded else { return }
            guard let block = try reader.read(maxFrames: maxFrames) else {
                readerEnded = true
                return
            }
            bufferStart = block.startIndex
            append(block)
        }

        private func append(_ block: AudioPCMBlock) {
            pending = nil
            reserve(block.frameCount)
            block.data.withUnsafeBytes { raw in
                let floats = raw.baseAddress!.assumingMemoryBound(to: Float.self)
                for c in 0..<channels {
                    memcpy(plane(c) + bufferedFrames, floats + c * block.frameCount, block.frameCount * MemoryLayout<Float>.size)
                }
            }
            bufferedFrames += block.frameCount
        }

        private func appendSilence(_ frames: Int) {
            guard frames > 0 else { return }
            reserve(frames)
            for c in 0..<channels { memset(plane(c) + bufferedFrames, 0, frames * MemoryLayout<Float>.size) }
            bufferedFrames += frames
        }

        /// Room for `frames` more frames per channel.
        private func reserve(_ frames: Int) {
            guard bufferedFrames + frames > capacity else { return }
            let newCapacity = max(capacity * 2, bufferedFrames + frames)
            let grown = UnsafeMutablePointer<Float>.allocate(capacity: newCapacity * channels)
            for c in 0..<channels {
                memcpy(grown + c * newCapacity, plane(c), bufferedFrames * MemoryLayout<Float>.size)
            }
            planes.deallocate()
            planes = grown
            capacity = newCapacity
        }

        /// Forgets the frames before `index`.
        func drop(before index: Int64) {
            guard let start = bufferStart, index > start else { return }
            let n = Int(min(Int64(bufferedFrames), index - start))
            let rest = bufferedFrames - n
            if rest > 0 {
                for c in 0..<channels { memmove(plane(c), plane(c) + n, rest * MemoryLayout<Float>.size) }
            }
            bufferedFrames = rest
            bufferStart = start + Int64(n)
        }
    }

    private let inputs: [Input]
    private let output: AudioPCMFormat
    private let framesPerBuffer: Int
    private let channelCount: Int
    /// To the output format; nil when the mix is already in it (float planar, native order).
    private let converter: AudioResampler?
    private let kernel: AudioGainKernel
    /// One window's planar sum (`framesPerBuffer` frames per channel at most).
    private let sum: UnsafeMutablePointer<Float>
    private var position: Int64?
    private var finished = false

    /// The format inputs deliver for an `output`: 32-bit float non-interleaved at its rate, its
    /// channels in FFmpeg's native order (the final conversion puts them in the output's order).
    static func mixFormat(for output: AudioPCMFormat) -> AudioPCMFormat {
        var channels = output.channels
        if let positions = output.channels.positions, let native = AudioChannelSet(positions: positions.sorted()) { channels = native }
        return .float32Planar(sampleRate: output.sampleRate, channels: channels)
    }

    /// A mixer of `inputs` (readers delivering `mixFormat(for: output)`, each with its gains or
    /// nil for unity) into `output`, in windows of up to `framesPerBuffer` frames.
    init(inputs: [(reader: AudioSegmentReader, curve: AudioVolumeCurve?)], output: AudioPCMFormat, framesPerBuffer: Int) throws {
        let mix = Self.mixFormat(for: output)
        channelCount = mix.channelCount
        self.inputs = inputs.map { Input(reader: $0.reader, curve: $0.curve, channels: mix.channelCount, capacity: 2 * framesPerBuffer) }
        self.output = output
        self.framesPerBuffer = framesPerBuffer
        kernel = AudioGainKernel(capacity: framesPerBuffer)
        sum = .allocate(capacity: framesPerBuffer * mix.channelCount)
        do {
            converter = mix == output ? nil : try AudioResampler(input: mix, output: output)
        } catch {
            sum.deallocate()
            throw AVError.from(error, url: nil)
        }
    }

    deinit { sum.deallocate() }

    /// The next mixed block, in the output format; nil at the end of every input.
    func next() throws -> AudioPCMBlock? {
        guard !finished else { return nil }
        // Know where every input starts before choosing where the mix starts.
        for input in inputs { try input.prime(maxFrames: framesPerBuffer) }
        if position == nil {
            guard let first = inputs.compactMap(\.bufferStart).min() else { return try drain(at: nil) }
            position = first
        }
        let start = position!
        var windowEnd = start + Int64(framesPerBuffer)
        for input in inputs { try input.fill(to: windowEnd, maxFrames: framesPerBuffer) }
        if inputs.allSatisfy(\.ended) {
            windowEnd = min(windowEnd, inputs.compactMap(\.bufferEnd).max() ?? start)
        }
        let frames = Int(windowEnd - start)
        guard frames > 0 else { return try drain(at: start) }
        memset(sum, 0, frames * channelCount * MemoryLayout<Float>.size)
        for input in inputs { add(input, from: start, to: windowEnd) }
        for input in inputs { input.drop(before: windowEnd) }
        position = windowEnd
        let bytes = UnsafeRawBufferPointer(start: sum, count: frames * channelCount * MemoryLayout<Float>.size)
        guard let converter else { return AudioPCMBlock(startIndex: start, frameCount: frames, data: Data(bytes)) }
        do {
            try converter.append(bytes: bytes, frameCount: frames)
        } catch {
            throw AVError.from(error, url: nil)
        }
        return AudioPCMBlock(startIndex: start, frameCount: frames, data: converter.read(frameCount: converter.bufferedFrameCount))
    }

    /// Adds `input`'s frames of the window `[from, to)`, times its gains, into `sum` (planes of
    /// `to - from` frames).
    private func add(_ input: Input, from: Int64, to: Int64) {
        guard let start = input.bufferStart else { return }
        let first = max(from, start), last = min(to, input.bufferEnd ?? start)
        guard last > first else { return }
        let frames = Int(to - from)
        let count = Int(last - first), offset = Int(first - start), out = Int(first - from)
        let runs = input.curve?.runs(first: first, count: count) ?? [AudioVolumeCurve.Run(offset: 0, count: count, start: 1, step: 0)]
        for c in 0..<channelCount {
            let source = input.plane(c) + offset, destination = sum + c * frames + out
            for run in runs {
                kernel.add(source + run.offset, into: destination + run.offset, count: run.count, start: run.start, step: run.step)
            }
        }
    }

    /// The end of the mix: what the converter still holds (nothing, as it has no delay).
    private func drain(at position: Int64?) throws -> AudioPCMBlock? {
        finished = true
        guard let converter else { return nil }
        do { try converter.finish() } catch { throw AVError.from(error, url: nil) }
        let frames = converter.bufferedFrameCount
        guard frames > 0, let position else { return nil }
        return AudioPCMBlock(startIndex: position, frameCount: frames, data: converter.read(frameCount: frames))
    }

    /// Stops every input's read (from another thread).
    func cancel() {
        for input in inputs { input.reader.cancel() }
    }
}
