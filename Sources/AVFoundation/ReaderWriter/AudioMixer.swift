// AudioMixer: the audio mixer stage — N PCM streams (each a segment-walked track) into one PCM
// stream, each input scaled by its gain envelope (an audio mix's volume curve), summed, and
// converted once to the output format (libswresample).
import CoreMedia
import Foundation
internal import MediaEngine

/// Mixes PCM inputs on one timeline (the output rate's sample indices, target time).
///
/// Inputs deliver 32-bit float non-interleaved PCM at the output rate in `mixFormat(for:)`'s
/// channels. The mix runs from the earliest sample of any input to the last, in windows of up
/// to `framesPerBuffer` frames, with silence where an input has none (before its first sample,
/// in its gaps, after its end). Each window is converted to the output format by one
/// `AudioResampler` (clipping when that is integer; it has no delay, so nothing is left to drain).
final class AudioMixer {
    /// One input being mixed: its reader, its gains and the float frames read but not yet mixed.
    private final class Input {
        let reader: AudioSegmentReader
        let curve: AudioVolumeCurve?
        /// Float planes of frames read but not yet mixed, the first at `bufferStart`.
        var planes: [[Float]]
        var bufferStart: Int64?
        var ended = false

        init(reader: AudioSegmentReader, curve: AudioVolumeCurve?, channels: Int) {
            self.reader = reader
            self.curve = curve
            planes = Array(repeating: [], count: channels)
        }

        var bufferedFrames: Int { planes.first?.count ?? 0 }
        var bufferEnd: Int64? { bufferStart.map { $0 + Int64(bufferedFrames) } }

        /// Reads one more block into the float planes; false at the end of the input.
        func fill(maxFrames: Int) throws -> Bool {
            guard !ended, let block = try reader.read(maxFrames: maxFrames) else {
                ended = true
                return false
            }
            if let end = bufferEnd, end < block.startIndex {
                // A gap in the input's timeline (a later block never starts earlier): silence.
                let gap = Int(block.startIndex - end)
                for c in planes.indices { planes[c].append(contentsOf: repeatElement(0, count: gap)) }
            }
            if bufferStart == nil { bufferStart = block.startIndex }
            block.data.withUnsafeBytes { raw in
                let floats = raw.bindMemory(to: Float.self)
                for c in planes.indices {
                    planes[c].append(contentsOf: floats[(c * block.frameCount)..<((c + 1) * block.frameCount)])
                }
            }
            return true
        }

        /// Forgets the frames before `index`.
        func drop(before index: Int64) {
            guard let start = bufferStart, index > start else { return }
            let n = Int(min(Int64(bufferedFrames), index - start))
            for c in planes.indices { planes[c].removeFirst(n) }
            bufferStart = start + Int64(n)
        }
    }

    private let inputs: [Input]
    private let output: AudioPCMFormat
    private let framesPerBuffer: Int
    private let channelCount: Int
    private let converter: AudioResampler
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
        self.inputs = inputs.map { Input(reader: $0.reader, curve: $0.curve, channels: mix.channelCount) }
        self.output = output
        self.framesPerBuffer = framesPerBuffer
        do {
            converter = try AudioResampler(input: mix, output: output)
        } catch {
            throw AVError.from(error, url: nil)
        }
    }

    /// The next mixed block, in the output format; nil at the end of every input.
    func next() throws -> AudioPCMBlock? {
        guard !finished else { return nil }
        // Know where every input starts before choosing where the mix starts.
        for input in inputs where input.bufferStart == nil && !input.ended { _ = try input.fill(maxFrames: framesPerBuffer) }
        if position == nil {
            guard let first = inputs.compactMap(\.bufferStart).min() else { return try drain(at: nil) }
            position = first
        }
        let start = position!
        var windowEnd = start + Int64(framesPerBuffer)
        for input in inputs {
            while !input.ended, (input.bufferEnd ?? .min) < windowEnd { _ = try input.fill(maxFrames: framesPerBuffer) }
        }
        if inputs.allSatisfy(\.ended) {
            windowEnd = min(windowEnd, inputs.compactMap(\.bufferEnd).max() ?? start)
        }
        let frames = Int(windowEnd - start)
        guard frames > 0 else { return try drain(at: start) }
        var sum = [Float](repeating: 0, count: frames * channelCount)
        for input in inputs { add(input, to: &sum, from: start, to: windowEnd) }
        for input in inputs { input.drop(before: windowEnd) }
        position = windowEnd
        do {
            try sum.withUnsafeBytes { try converter.append(bytes: $0, frameCount: frames) }
        } catch let error as MediaError {
            throw AVError.from(error, url: nil)
        }
        return AudioPCMBlock(startIndex: start, frameCount: frames, data: converter.read(frameCount: converter.bufferedFrameCount))
    }

    /// Adds `input`'s frames of the window `[from, to)`, times its gains, into `sum` (planes of
    /// `to - from` frames).
    private func add(_ input: Input, to sum: inout [Float], from: Int64, to: Int64) {
        guard let start = input.bufferStart else { return }
        let first = max(from, start), last = min(to, input.bufferEnd ?? start)
        guard last > first else { return }
        let frames = Int(to - from)
        let count = Int(last - first), offset = Int(first - start), out = Int(first - from)
        let gains = input.curve?.volumes(first: first, count: count, rate: output.sampleRate)
        for c in 0..<channelCount {
            input.planes[c].withUnsafeBufferPointer { src in
                sum.withUnsafeMutableBufferPointer { dst in
                    let d = dst.baseAddress! + c * frames + out, s = src.baseAddress! + offset
                    if let gains {
                        for i in 0..<count { d[i] += s[i] * gains[i] }
                    } else {
                        for i in 0..<count { d[i] += s[i] }
                    }
                }
            }
        }
    }

    /// The end of the mix: what the converter still holds (nothing, as it has no delay).
    private func drain(at position: Int64?) throws -> AudioPCMBlock? {
        finished = true
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
