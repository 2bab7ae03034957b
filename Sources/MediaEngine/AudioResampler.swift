// AudioResampler: converts audio between any two PCM formats with libswresample (rate, channel
// layout, sample format), buffering the result so it can be read in any frame count — bytes in
// Apple's LPCM layouts for readers, FFmpeg frames at an encoder's frame size for writers.
internal import CFFmpeg
internal import CVolk
import CoreMedia
import Foundation

/// Converts a stream of audio to one output format.
///
/// Input arrives either as decoded frames (`append(_:)`, each frame's own format; a change of
/// format mid-stream drains the old conversion first, so nothing is lost) or as PCM bytes in a
/// fixed `AudioPCMFormat` given at creation (`append(bytes:frameCount:)`). Output collects in a
/// FIFO and is read as Apple-layout bytes (`read(frameCount:)`) or as `AVFrame`s in the output's
/// FFmpeg sample format (`readFrame(frameCount:)`, e.g. 1024-sample planar-float frames for the
/// AAC encoder). `finish()` drains libswresample's delay line at the end of the stream, so the
/// output holds every sample the input implies (N input frames give N × out rate ÷ in rate,
/// rounded) and nothing more.
///
/// Conversions: any rate to any rate; any channel set to any other (mono → stereo copies the
/// channel to both sides, stereo → mono averages them, everything else uses libswresample's
/// standard matrix, normalised so integer output cannot clip); any sample type to any other, with
/// float → integer rounding to nearest and clipping. Formats FFmpeg has no sample format for
/// (24-bit packed, signed 8-bit, big-endian, channel orders other than FFmpeg's native order) are
/// repacked in a byte-exact step around libswresample.
///
/// Not thread-safe: use one resampler from one thread at a time.
package final class AudioResampler: @unchecked Sendable {
    /// The sample-rate converter's quality (filter length); Apple's `AVAudioQuality` maps onto it.
    package enum Quality: Int, Sendable, CaseIterable {
        case minimum = 8, low = 16, medium = 32, high = 64, maximum = 128

        /// The quality for an `AVAudioQuality` raw value (0 min, 0x20 low, 0x40 medium, 0x60
        /// high, 0x7F max; values between round down).
        package init(audioQuality: Int) {
            switch audioQuality {
            case ..<0x20: self = .minimum
            case 0x20..<0x40: self = .low
            case 0x40..<0x60: self = .medium
            case 0x60..<0x7F: self = .high
            default: self = .maximum
            }
        }
    }

    /// What the output is converted to.
    package let output: AudioPCMFormat
    /// The format `append(bytes:frameCount:)` expects, when given at creation.
    package let input: AudioPCMFormat?
    /// The sample-rate converter's quality.
    package let quality: Quality
    /// Where each output channel comes from, when given: output channel `c` (buffer order) is a
    /// copy of input channel `channelMap[c]` (buffer order), or silence when that is negative or
    /// past the input's channels — Apple's converter channel map. nil: the channels are mixed.
    package let channelMap: [Int]?
    /// Triangular dither when the output has fewer bits than the input.
    package let dither: Bool

    private var swr: OpaquePointer?
    private var configured: InputKey?
    private var fifo: [ByteQueue] = []  // one per carrier plane
    private var fifoFrames = 0          // frames available
    private var finished = false
    private let outputLayout: AVChannelLayout
    private let carrierBytesPerSample: Int
    private let carrierPlanes: Int
    private let carrierBytesPerFrame: Int   // per plane
    private let inputRepacker: AudioRepacker?
    private let outputRepacker: AudioRepacker?

    /// Frames put into the output FIFO so far.
    package private(set) var producedFrameCount: Int64 = 0
    /// Frames read or discarded from the output FIFO so far.
    package private(set) var consumedFrameCount: Int64 = 0

    /// A resampler to `output`; `input` is required for `append(bytes:frameCount:)` and unused
    /// for decoded frames (which carry their own format).
    package init(input: AudioPCMFormat? = nil, output: AudioPCMFormat, quality: Quality = .medium,
                 channelMap: [Int]? = nil, dither: Bool = false) throws(MediaError) {
        MediaEngine.configure()
        if let problem = output.problem { throw MediaError.invalidArgument(message: "output format: \(problem)") }
        if let problem = input?.problem { throw MediaError.invalidArgument(message: "input format: \(problem)") }
        self.output = output
        self.input = input
        self.quality = quality
        if let channelMap, channelMap.count != output.channelCount {
            throw MediaError.invalidArgument(message: "a channel map of \(channelMap.count) entries for \(output.channelCount) output channels")
        }
        self.channelMap = channelMap
        self.dither = dither
        outputLayout = output.channels.nativeLayout()
        let carrier = output.carrierSampleFormat
        carrierBytesPerSample = Int(av_get_bytes_per_sample(carrier))
        let planar = av_sample_fmt_is_planar(carrier) != 0
        carrierPlanes = planar ? output.channelCount : 1
        carrierBytesPerFrame = planar ? carrierBytesPerSample : carrierBytesPerSample * output.channelCount
        fifo = (0..<carrierPlanes).map { _ in ByteQueue() }
        inputRepacker = try input.flatMap { (format) throws(MediaError) in
            format.needsRepacking ? try AudioRepacker(format: format, packs: false) : nil
        }
        outputRepacker = output.needsRepacking ? try AudioRepacker(format: output, packs: true) : nil
    }

    deinit {
        swr_free(&swr)
        var layout = outputLayout
        av_channel_layout_uninit(&layout)
    }

    /// Frames ready to read.
    package var bufferedFrameCount: Int { fifoFrames }
    /// Whether `finish()` was called (until `reset()`).
    package var isFinished: Bool { finished }

    // MARK: Input

    /// Converts a decoded audio frame (any sample format, rate and layout FFmpeg decodes to).
    package func append(_ frame: DecodedFrame) throws(MediaError) {
        let f = frame.frame
        guard f.pointee.nb_samples > 0 else { return }
        guard let key = InputKey(frame: f) else {
            throw MediaError.other(code: cffmpeg_averror(EINVAL), message: "decoded audio has an unusable format")
        }
        try configure(for: key)
        let count = Int(key.planar ? key.channels : 1)
        let sources: [UnsafePointer<UInt8>?] = (0..<count).map { UnsafePointer(f.pointee.extended_data[$0]) }
        try convert(sources, frameCount: Int(f.pointee.nb_samples))
    }

    /// Converts `frameCount` frames of PCM bytes in the `input` format given at creation, with
    /// non-interleaved buffers one after another (Apple's block-buffer layout).
    package func append(bytes: UnsafeRawBufferPointer, frameCount: Int) throws(MediaError) {
        guard let input else { throw MediaError.invalidArgument(message: "the resampler was created without an input format") }
        guard frameCount > 0 else { return }
        guard bytes.count >= frameCount * input.bytesPerFrame * input.bufferCount else {
            throw MediaError.invalidArgument(message: "\(bytes.count) bytes cannot hold \(frameCount) frames of \(input)")
        }
        let key = InputKey(format: input)
        try configure(for: key)
        if let inputRepacker {
            try inputRepacker.unpack(bytes, frameCount: frameCount) { (planes) throws(MediaError) in
                try convert(planes, frameCount: frameCount)
            }
        } else {
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let plane = frameCount * input.bytesPerFrame
            let pointers: [UnsafePointer<UInt8>?] = (0..<input.bufferCount).map { UnsafePointer(base + $0 * plane) }
            try convert(pointers, frameCount: frameCount)
        }
    }

    /// Drains the converter at the end of the stream: what it holds back (the resampling
    /// filter's delay) is output. Appending again afterwards starts a new stream.
    package func finish() throws(MediaError) {
        try drain()
        finished = true
    }

    /// Drops everything buffered, in the converter and the FIFO (for a seek).
    package func reset() {
        swr_free(&swr)
        configured = nil
        for queue in fifo { queue.removeAll() }
        fifoFrames = 0
        finished = false
    }

    // MARK: Output

    /// Removes up to `frameCount` frames from the front of the output unread.
    package func discard(frameCount: Int) {
        let n = max(0, min(frameCount, fifoFrames))
        for queue in fifo { queue.removeFirst(n * carrierBytesPerFrame) }
        fifoFrames -= n
        consumedFrameCount += Int64(n)
    }

    /// Reads up to `frameCount` frames in the output format: interleaved frames, or each
    /// channel's samples one buffer after another, in the output's channel order.
    package func read(frameCount: Int) -> Data {
        let n = max(0, min(frameCount, fifoFrames))
        guard n > 0 else { return Data() }
        let out: Data
        if let outputRepacker {
            out = outputRepacker.pack(fifo.map { UnsafePointer($0.head) }, frameCount: n)
        } else {
            var data = Data(capacity: n * carrierBytesPerFrame * carrierPlanes)
            for queue in fifo { data.append(queue.head, count: n * carrierBytesPerFrame) }
            out = data
        }
        discard(frameCount: n)
        return out
    }

    /// Reads up to `frameCount` frames as an `AVFrame` in the output's FFmpeg sample format
    /// (for an encoder), its `pts` the index of its first frame in the output stream (time base
    /// 1/sample rate). Fewer frames only when fewer are buffered; nil when none are. The output
    /// format must be one FFmpeg has (no 24-bit, signed 8-bit, big-endian or reordered channels).
    package func readFrame(frameCount: Int) throws(MediaError) -> DecodedFrame? {
        guard !output.needsRepacking else {
            throw MediaError.invalidArgument(message: "\(output) has no FFmpeg sample format to make frames in")
        }
        let n = max(0, min(frameCount, fifoFrames))
        guard n > 0 else { return nil }
        guard let frame = av_frame_alloc() else { throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory") }
        let owned = DecodedFrame(taking: frame, timeBase: AVRational(num: 1, den: Int32(output.sampleRate)))
        frame.pointee.format = output.carrierSampleFormat.rawValue
        frame.pointee.nb_samples = Int32(n)
        frame.pointee.sample_rate = Int32(output.sampleRate)
        var layout = outputLayout
        guard av_channel_layout_copy(&frame.pointee.ch_layout, &layout) >= 0, av_frame_get_buffer(frame, 0) >= 0 else {
            throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory")
        }
        frame.pointee.pts = consumedFrameCount
        for (i, queue) in fifo.enumerated() {
            guard let dst = frame.pointee.extended_data[i] else { continue }
            memcpy(dst, queue.head, n * carrierBytesPerFrame)
        }
        discard(frameCount: n)
        return owned
    }

    // MARK: Conversion

    /// The input side of the libswresample context: sample format, rate and channel set.
    private struct InputKey: Equatable {
        var format: AVSampleFormat
        var rate: Int32
        var channels: Int32
        var set: AudioChannelSet
        var planar: Bool { av_sample_fmt_is_planar(format) != 0 }

        init?(frame: UnsafeMutablePointer<AVFrame>) {
            let f = frame.pointee
            guard f.sample_rate > 0, f.ch_layout.nb_channels > 0, f.format >= 0,
                  let set = AudioChannelSet(f.ch_layout) else { return nil }
            format = AVSampleFormat(rawValue: f.format)
            rate = f.sample_rate
            channels = f.ch_layout.nb_channels
            // Positions in a custom order are handed to libswresample in native order; custom
            // orders from decoders are rare (Ambisonics) and treated as counts.
            self.set = set.isNativeOrder ? set : AudioChannelSet(count: set.count)
        }

        init(format input: AudioPCMFormat) {
            format = input.unpackedSampleFormat
            rate = Int32(input.sampleRate)
            channels = Int32(input.channelCount)
            set = input.channels.positions == nil ? input.channels : AudioChannelSet(positions: input.channels.positions!.sorted())!
        }
    }

    private func configure(for key: InputKey) throws(MediaError) {
        if finished {
            finished = false
            swr_free(&swr)
            configured = nil
        }
        if key == configured, swr != nil { return }
        if swr != nil { try drain() }
        swr_free(&swr)
        configured = nil
        var inLayout = key.set.nativeLayout()
        defer { av_channel_layout_uninit(&inLayout) }
        var outLayout = outputLayout
        var context: OpaquePointer?
        var result = swr_alloc_set_opts2(&context, &outLayout, output.carrierSampleFormat, Int32(output.sampleRate),
                                         &inLayout, key.format, key.rate, 0, nil)
        guard result >= 0, let context else {
            throw MediaError.other(code: result, message: "cannot convert audio: \(MediaError.ffmpegMessage(result))")
        }
        swr = context
        av_opt_set_int(UnsafeMutableRawPointer(context), "filter_size", Int64(quality.rawValue), 0)
        if dither { av_opt_set_int(UnsafeMutableRawPointer(context), "dither_method", Int64(SWR_DITHER_TRIANGULAR.rawValue), 0) }
        // Apple's converters copy mono to both sides of stereo and average stereo into mono.
        let inSet = key.set.resolved, outSet = output.channels.resolved
        if let channelMap {
            // A 0/1 matrix in native order (libswresample's): each output channel takes one input.
            let inCount = Int(key.channels), inNative = key.set.nativeIndices, outNative = output.channels.nativeIndices
            var matrix = [Double](repeating: 0, count: output.channelCount * inCount)
            for (c, source) in channelMap.enumerated() where source >= 0 && source < inCount {
                matrix[outNative[c] * inCount + inNative[source]] = 1
            }
            result = swr_set_matrix(context, &matrix, Int32(inCount))
        } else if inSet == .mono && outSet.positions.map(Set.init) == Set([0, 1]) {
            var matrix: [Double] = [1, 1]
            result = swr_set_matrix(context, &matrix, 1)
        } else if inSet.positions.map(Set.init) == Set([0, 1]) && outSet == .mono {
            var matrix: [Double] = [0.5, 0.5]
            result = swr_set_matrix(context, &matrix, 2)
        }
        if result >= 0 { result = swr_init(context) }
        guard result >= 0 else {
            swr_free(&swr)
            throw MediaError.other(code: result, message: "cannot convert audio from \(key.set) at \(key.rate) Hz to \(output): "
                                       + MediaError.ffmpegMessage(result))
        }
        configured = key
    }

    /// Runs libswresample on `frameCount` frames (nil pointers: drain) and appends the output.
    private func convert(_ sources: [UnsafePointer<UInt8>?], frameCount: Int) throws(MediaError) {
        guard let swr else { return }
        let capacity = Int(swr_get_out_samples(swr, Int32(frameCount))) + 16
        guard capacity > 0 else { return }
        // libswresample writes straight into the FIFO's free space.
        var outPointers: [UnsafeMutablePointer<UInt8>?] = fifo.map { $0.reserve(capacity * carrierBytesPerFrame) }
        var inPointers = sources
        let produced: Int32
        if frameCount == 0 {
            produced = swr_convert(swr, &outPointers, Int32(capacity), nil, 0)
        } else {
            produced = swr_convert(swr, &outPointers, Int32(capacity), &inPointers, Int32(frameCount))
        }
        guard produced >= 0 else {
            throw MediaError.other(code: produced, message: "audio conversion failed: \(MediaError.ffmpegMessage(produced))")
        }
        guard produced > 0 else { return }
        for queue in fifo { queue.commit(Int(produced) * carrierBytesPerFrame) }
        fifoFrames += Int(produced)
        producedFrameCount += Int64(produced)
    }

    private func drain() throws(MediaError) {
        guard swr != nil else { return }
        var rounds = 0
        while rounds < 64 {
            let before = producedFrameCount
            try convert([], frameCount: 0)
            if producedFrameCount == before { break }
            rounds += 1
        }
    }
}

/// A growable byte FIFO in one malloc'd block: written at the tail (reserve, then commit what
/// was written), read and removed at the head. Bytes move only when the tail needs room.
final class ByteQueue {
    private var storage: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    private var start = 0
    private var end = 0

    deinit { free(storage) }

    /// Bytes stored.
    var count: Int { end - start }
    /// The first stored byte (valid until the next mutation).
    var head: UnsafeMutablePointer<UInt8> { (storage ?? UnsafeMutablePointer(bitPattern: 1)!) + start }

    /// Room for `bytes` more bytes at the tail; write there, then `commit`.
    func reserve(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        if end + bytes > capacity {
            if start > 0 {
                if count > 0 { memmove(storage!, storage! + start, count) }
                end -= start
                start = 0
            }
            if end + bytes > capacity {
                capacity = max(end + bytes, capacity * 2, 4096)
                guard let grown = realloc(storage, capacity) else { fatalError("out of memory growing an audio buffer to \(capacity) bytes") }
                storage = grown.assumingMemoryBound(to: UInt8.self)
            }
        }
        return storage! + end
    }

    /// Makes `bytes` written after `reserve` part of the queue.
    func commit(_ bytes: Int) { end += bytes }

    /// Appends a copy of `bytes` bytes.
    func append(_ source: UnsafeRawPointer, count bytes: Int) {
        memcpy(reserve(bytes), source, bytes)
        commit(bytes)
    }

    /// Drops `bytes` bytes from the head.
    func removeFirst(_ bytes: Int) {
        start = min(end, start + max(0, bytes))
        if start == end { start = 0; end = 0 }
    }

    /// Drops everything (keeps the memory).
    func removeAll() { start = 0; end = 0 }
}

/// Byte-exact repacking between FFmpeg's carrier sample formats and the Apple LPCM layouts FFmpeg
/// has no sample format for, in library calls over whole buffers (no per-sample Swift):
///
/// - sample bytes, over all `frames × channels` samples at once (the Apple layout keeps
///   non-interleaved channels one after another, so interleaving does not matter here):
///   big-endian 16/32/64-bit ↔ native with VOLK's byteswap kernels (after a `memcpy`); 24-bit ↔
///   the 32-bit carrier (sample in the top three bytes, low byte 0) as a strided copy of 3-byte
///   rows (`av_image_copy_plane`) into a zeroed buffer, big-endian with a VOLK 32-bit byteswap
///   (libswscale's RGB24 → 0RGB shuffle would do the copy but fills the spare byte with 0xFF);
///   signed 8-bit → 16-bit (s × 256, `volk_8i_convert_16i`: exactly what libswresample makes of the
///   unsigned 8-bit carrier internally, so `unpackedSampleFormat` is 16-bit) and, packing, the
///   unsigned 8-bit carrier → 16-bit in libswresample, then `volk_16i_convert_8i` (s16 >> 8);
/// - channel order: non-interleaved buffers are reordered by pointer; interleaved frames by a
///   libswresample context with a channel map between two identical formats (an exact copy).
final class AudioRepacker {
    private let format: AudioPCMFormat
    /// Carrier → Apple layout (a resampler's output) or the reverse (its input).
    private let packs: Bool
    /// For each Apple-order channel, its index in native order.
    private let native: [Int]
    /// libswresample between two formats of the same rate and channel count: the interleaved
    /// channel reorder (a channel map) and, packing signed 8-bit, the unsigned 8-bit carrier → 16-bit.
    private var shuffle: OpaquePointer?
    private var shuffleOutput = AV_SAMPLE_FMT_NONE
    /// The shuffle's channel map: libswresample keeps the pointer, so it lives as long as the context.
    private var channelMap: UnsafeMutablePointer<Int32>?

    init(format: AudioPCMFormat, packs: Bool) throws(MediaError) {
        self.format = format
        self.packs = packs
        native = format.channels.nativeIndices
        let reorders = format.isInterleaved && !format.channels.isNativeOrder
        if packs, signed8 || reorders {
            // Output channel c (Apple order) takes native channel native[c].
            try makeShuffle(from: format.carrierSampleFormat,
                            to: signed8 ? (format.isInterleaved ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S16P) : format.carrierSampleFormat,
                            map: reorders ? native : nil)
        } else if !packs, reorders {
            // Native channel j takes the Apple channel c with native[c] == j.
            var map = [Int](repeating: 0, count: format.channelCount)
            for (c, j) in native.enumerated() { map[j] = c }
            try makeShuffle(from: format.unpackedSampleFormat, to: format.unpackedSampleFormat, map: map)
        }
    }

    deinit {
        swr_free(&shuffle)
        channelMap?.deallocate()
    }

    private var signed8: Bool { format.bitsPerSample == 8 && format.sampleType == .signedInteger }
    /// Bytes per sample of the stage the byte-level step reads (packing) or writes (unpacking).
    private var stageBytes: Int { signed8 ? 2 : Int(av_get_bytes_per_sample(format.carrierSampleFormat)) }
    /// Whether sample bytes change (else only the channel order does).
    private var changesBytes: Bool { format.bitsPerSample == 24 || signed8 || (format.isBigEndian && format.bitsPerSample > 8) }

    /// Carrier planes (native channel order; one interleaved plane or one per channel) → Apple
    /// layout bytes of `format` (its channel order, buffers one after another).
    func pack(_ planes: [UnsafePointer<UInt8>], frameCount n: Int) -> Data {
        let channels = format.channelCount, total = n * channels
        // Apple-order sources: planes by pointer, interleaved frames through the shuffle.
        var sources: [UnsafePointer<UInt8>] = format.isInterleaved ? [planes[0]] : native.map { planes[$0] }
        var count = format.isInterleaved ? total : n
        var stage: UnsafeMutableRawPointer?
        defer { free(stage) }
        if shuffle != nil {
            let buffer = Self.allocate(total * stageBytes)
            stage = buffer
            runShuffle(sources, into: buffer, frameCount: n)
            sources = [UnsafePointer(buffer.assumingMemoryBound(to: UInt8.self))]
            count = total
        }
        var data = Data(count: total * format.bytesPerSample)
        data.withUnsafeMutableBytes { raw in
            var out = raw.baseAddress!
            for source in sources {
                convert(UnsafeRawPointer(source), to: out, count: count)
                out += count * format.bytesPerSample
            }
        }
        return data
    }

    /// Apple layout bytes of `format` → carrier planes in native channel order (in
    /// `format.unpackedSampleFormat`), valid during `body`.
    func unpack(_ bytes: UnsafeRawBufferPointer, frameCount n: Int,
                _ body: ([UnsafePointer<UInt8>?]) throws(MediaError) -> Void) throws(MediaError) {
        let channels = format.channelCount, total = n * channels
        var stage = UnsafeRawPointer(bytes.baseAddress!)
        var owned: [UnsafeMutableRawPointer] = []
        defer { for buffer in owned { free(buffer) } }
        if changesBytes {
            let buffer = Self.allocate(total * stageBytes)
            owned.append(buffer)
            convert(stage, to: buffer, count: total)
            stage = UnsafeRawPointer(buffer)
        }
        let base = stage.assumingMemoryBound(to: UInt8.self)
        if !format.isInterleaved {
            // Native channel j is the Apple buffer c with native[c] == j.
            var planes = [UnsafePointer<UInt8>?](repeating: nil, count: channels)
            for (c, j) in native.enumerated() { planes[j] = base + c * n * stageBytes }
            try body(planes)
        } else if shuffle == nil {
            try body([base])
        } else {
            let buffer = Self.allocate(total * stageBytes)
            owned.append(buffer)
            runShuffle([base], into: buffer, frameCount: n)
            try body([UnsafePointer(buffer.assumingMemoryBound(to: UInt8.self))])
        }
    }

    private static func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
        guard let buffer = malloc(max(1, bytes)) else { fatalError("out of memory allocating \(bytes) bytes to repack audio") }
        return buffer
    }

    /// Converts `count` samples between the stage (carrier bytes, native endian) and Apple's bytes,
    /// in the repacker's direction.
    private func convert(_ src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer, count: Int) {
        let apple = format.bytesPerSample
        let s = src.assumingMemoryBound(to: UInt8.self), d = dst.assumingMemoryBound(to: UInt8.self)
        if format.bitsPerSample == 24 {
            if packs {
                var source = s
                var swapped: UnsafeMutableRawPointer?
                defer { free(swapped) }
                if format.isBigEndian {
                    // 0,s2,s1,s0 → s0,s1,s2,0, then the first three bytes of each word.
                    let buffer = Self.allocate(count * 4)
                    swapped = buffer
                    memcpy(buffer, src, count * 4)
                    avf_volk_byteswap32(buffer.assumingMemoryBound(to: UInt32.self), UInt32(count))
                    source = UnsafePointer(buffer.assumingMemoryBound(to: UInt8.self))
                } else {
                    source += 1
                }
                av_image_copy_plane(d, 3, source, 4, 3, Int32(count))
            } else {
                memset(dst, 0, count * 4)
                if format.isBigEndian {
                    av_image_copy_plane(d, 4, s, 3, 3, Int32(count))
                    avf_volk_byteswap32(dst.assumingMemoryBound(to: UInt32.self), UInt32(count))
                } else {
                    av_image_copy_plane(d + 1, 4, s, 3, 3, Int32(count))
                }
            }
        } else if signed8 {
            if packs {
                avf_volk_convert_16i_8i(dst.assumingMemoryBound(to: Int8.self), src.assumingMemoryBound(to: Int16.self), UInt32(count))
            } else {
                avf_volk_convert_8i_16i(dst.assumingMemoryBound(to: Int16.self), src.assumingMemoryBound(to: Int8.self), UInt32(count))
            }
        } else {
            memcpy(dst, src, count * apple)
            guard format.isBigEndian else { return }
            switch apple {
            case 2: avf_volk_byteswap16(dst.assumingMemoryBound(to: UInt16.self), UInt32(count))
            case 4: avf_volk_byteswap32(dst.assumingMemoryBound(to: UInt32.self), UInt32(count))
            case 8: avf_volk_byteswap64(dst.assumingMemoryBound(to: UInt64.self), UInt32(count))
            default: break
            }
        }
    }

    private func makeShuffle(from input: AVSampleFormat, to output: AVSampleFormat, map: [Int]?) throws(MediaError) {
        var inLayout = AVChannelLayout(), outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, Int32(format.channelCount))
        av_channel_layout_default(&outLayout, Int32(format.channelCount))
        defer { av_channel_layout_uninit(&inLayout); av_channel_layout_uninit(&outLayout) }
        var context: OpaquePointer?
        var result = swr_alloc_set_opts2(&context, &outLayout, output, Int32(format.sampleRate), &inLayout, input, Int32(format.sampleRate), 0, nil)
        if result >= 0, let map {
            let storage = UnsafeMutablePointer<Int32>.allocate(capacity: map.count)
            for (i, channel) in map.enumerated() { storage[i] = Int32(channel) }
            channelMap = storage
            result = swr_set_channel_mapping(context, storage)
        }
        if result >= 0 { result = swr_init(context) }
        guard result >= 0, context != nil else {
            swr_free(&context)
            throw MediaError.other(code: result, message: "cannot repack audio for \(format): \(MediaError.ffmpegMessage(result))")
        }
        shuffle = context
        shuffleOutput = output
    }

    /// Runs `n` frames through the shuffle (same rate, so exactly `n` come out at once) into the
    /// contiguous `buffer` (non-interleaved output: channels one after another).
    private func runShuffle(_ sources: [UnsafePointer<UInt8>], into buffer: UnsafeMutableRawPointer, frameCount n: Int) {
        let output = shuffleOutput
        let bytes = Int(av_get_bytes_per_sample(output))
        let base = buffer.assumingMemoryBound(to: UInt8.self)
        var outPointers: [UnsafeMutablePointer<UInt8>?] = av_sample_fmt_is_planar(output) != 0
            ? (0..<format.channelCount).map { base + $0 * n * bytes } : [base]
        var inPointers: [UnsafePointer<UInt8>?] = sources
        let produced = swr_convert(shuffle, &outPointers, Int32(n), &inPointers, Int32(n))
        // Same rate, no filter: libswresample converts all frames at once or fails only on
        // allocation.
        guard produced == Int32(n) else { fatalError("audio repacking for \(format) gave \(produced) of \(n) frames") }
    }
}

extension DecodedFrame {
    /// The number of audio frames (samples per channel) in a decoded audio frame.
    package var audioFrameCount: Int { Int(max(0, frame.pointee.nb_samples)) }
    /// The audio sample rate of a decoded audio frame.
    package var audioSampleRate: Int { Int(max(0, frame.pointee.sample_rate)) }
    /// The PCM format of a decoded audio frame's samples; nil for video frames and for sample
    /// formats Apple's LPCM has no equivalent of.
    package var audioFormat: AudioPCMFormat? {
        let f = frame.pointee
        guard f.nb_samples > 0, f.sample_rate > 0, let channels = AudioChannelSet(f.ch_layout) else { return nil }
        return AudioPCMFormat(sampleFormat: AVSampleFormat(rawValue: f.format), sampleRate: Int(f.sample_rate), channels: channels)
    }
}
