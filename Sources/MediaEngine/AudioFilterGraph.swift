// AudioFilterGraph: planar Float32 sound through a graph of libavfilter's audio filters (the
// equalizer's biquads: equalizer, lowpass, highpass, bandpass, bandreject, lowshelf, highshelf;
// volume; the reverb's convolution with a generated impulse response: aevalsrc, asplit, afir,
// amix) — per-sample work in FFmpeg's C, block by block, as the engine's effect nodes need it.
// libavfilter is loaded on first use (CFFmpeg's `cffmpeg_avfilter()`), not linked.
internal import CFFmpeg
import Foundation

/// A filter chain on planar Float32 sound of one rate and channel count. Not thread-safe (one owner).
package final class AudioFilterGraph: @unchecked Sendable {
    // @unchecked Sendable: owns the filter graph (FFmpeg handles), used by one owner at a time.
    private let api: cffmpeg_avfilter_api
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    package let sampleRate: Int
    package let channels: Int
    private var pts: Int64 = 0
    /// Filtered sound not yet handed out, per channel (it starts with `latency` frames of silence).
    private var backlog: [[Float]]

    /// A graph running `chain` (libavfilter's syntax, e.g. "equalizer=f=1000:t=o:w=1:g=6,volume=-3dB";
    /// empty: pass-through; a graph with several inputs labels its ends `[in]` and `[out]`) on
    /// `channels` channels at `sampleRate`. `latency`: frames of silence the output starts with,
    /// at least what the filters hold back at any time (a convolution's partition), so that each
    /// block in gives a block out.
    package init(chain: String, sampleRate: Int, channels: Int, latency: Int = 0) throws(MediaError) {
        MediaEngine.configure()
        guard let loaded = cffmpeg_avfilter()?.pointee else {
            throw MediaError.decoderNotFound(code: -1, message: "libavfilter (libavfilter.so.8, from FFmpeg 5.1) cannot be loaded")
        }
        api = loaded
        guard let made = api.graph_alloc() else { throw MediaError.other(code: -12, message: "out of memory") }
        graph = made
        self.sampleRate = sampleRate
        self.channels = channels
        backlog = Array(repeating: [Float](repeating: 0, count: max(0, latency)), count: channels)
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channels))
        var layoutName = [CChar](repeating: 0, count: 64)
        av_channel_layout_describe(&layout, &layoutName, 64)
        av_channel_layout_uninit(&layout)
        let name = String(decoding: layoutName.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let arguments = "sample_rate=\(sampleRate):sample_fmt=fltp:channel_layout=\(name):time_base=1/\(sampleRate)"
        var src: UnsafeMutablePointer<AVFilterContext>?
        var snk: UnsafeMutablePointer<AVFilterContext>?
        var result = api.graph_create_filter(&src, api.get_by_name("abuffer"), "in", arguments, nil, made)
        if result >= 0 { result = api.graph_create_filter(&snk, api.get_by_name("abuffersink"), "out", nil, nil, made) }
        guard result >= 0, let src, let snk else {
            api.graph_free(&graph)
            throw MediaError.other(code: result, message: "cannot make the audio filter graph's ends")
        }
        source = src
        sink = snk
        var outputs = api.inout_alloc(), inputs = api.inout_alloc()
        defer {
            api.inout_free(&outputs)
            api.inout_free(&inputs)
        }
        outputs?.pointee.name = av_strdup("in")
        outputs?.pointee.filter_ctx = src
        inputs?.pointee.name = av_strdup("out")
        inputs?.pointee.filter_ctx = snk
        let description = chain.isEmpty ? "anull" : chain
        result = api.graph_parse_ptr(made, description, &inputs, &outputs, nil)
        if result >= 0 { result = api.graph_config(made, nil) }
        guard result >= 0 else {
            api.graph_free(&graph)
            throw MediaError.invalidArgument(message: "the audio filters \"\(description)\" cannot run: \(FFmpegError(code: result))")
        }
    }

    deinit { api.graph_free(&graph) }

    /// Filters `frames` frames of `planes` (one pointer per channel) in place: the next `frames`
    /// frames of the filtered stream (which lags the input by `latency`; the biquads have none).
    package func process(_ planes: [UnsafeMutablePointer<Float>], frames: Int) throws(MediaError) {
        guard frames > 0, planes.count >= channels else { return }
        guard let frame = av_frame_alloc() else { throw MediaError.other(code: -12, message: "out of memory") }
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&owned) }
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&frame.pointee.ch_layout, Int32(channels))
        frame.pointee.nb_samples = Int32(frames)
        frame.pointee.pts = pts
        pts += Int64(frames)
        guard av_frame_get_buffer(frame, 0) >= 0 else { throw MediaError.other(code: -12, message: "out of memory") }
        for c in 0..<channels {
            frame.pointee.extended_data[c]!.withMemoryRebound(to: Float.self, capacity: frames) { $0.update(from: planes[c], count: frames) }
        }
        let result = api.buffersrc_add_frame_flags(source, frame, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        guard result >= 0 else { throw MediaError.other(code: result, message: "the audio filters refused a block") }
        guard let out = av_frame_alloc() else { throw MediaError.other(code: -12, message: "out of memory") }
        var ownedOut: UnsafeMutablePointer<AVFrame>? = out
        defer { av_frame_free(&ownedOut) }
        // Everything the filters give now joins the backlog.
        while api.buffersink_get_frame(sink, out) >= 0 {
            let n = Int(out.pointee.nb_samples)
            for c in 0..<channels {
                out.pointee.extended_data[c]!.withMemoryRebound(to: Float.self, capacity: n) {
                    backlog[c].append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
                }
            }
            av_frame_unref(out)
        }
        let ready = min(frames, backlog.first?.count ?? 0)
        for c in 0..<channels {
            backlog[c].withUnsafeBufferPointer { planes[c].update(from: $0.baseAddress!, count: ready) }
            // Held back longer than the latency allows (not expected): silence, not stale input.
            if ready < frames { (planes[c] + ready).update(repeating: 0, count: frames - ready) }
            backlog[c].removeFirst(ready)
        }
    }
}
