// Muxer: one libavformat output context writing a media file — streams described by encoders or
// by Core Media format descriptions, interleaved packets, fast start, movie fragments, the
// movie timescale, track languages, display matrices and container tags.
internal import CFFmpeg
import CoreGraphics
import CoreMedia
import Foundation

/// Writes a media container with libavformat.
///
/// Life cycle: `init` creates the file (exclusively: an existing file is never replaced) and
/// opens it for writing; streams are added with `addStream`; `start()` writes the header; packets
/// go through `write(_:stream:)` (`av_interleaved_write_frame`, which interleaves the streams by
/// decode time); `finish()` writes the trailer (the second pass of a fast-start movie happens
/// here) and closes the file. `abort()` closes and deletes the file at any point.
///
/// Two ways of writing movie fragments (QuickTime family, `Options.fragmentInterval`):
/// `.automatic` lets libavformat cut a fragment every interval and holds the movie header back
/// until the first fragment (`delay_moov`), so it can carry the edit list B-frame decode delay
/// needs — the file has no movie header until the first interval has passed. `.custom` writes an
/// empty movie header at once (`empty_moov`, `default_base_moof`, `frag_custom`) and cuts a
/// fragment only when the caller says (`cutFragment()`), flushing it to disk — the recording
/// mode: a process killed at any moment leaves a file readable up to its last cut. The empty
/// header cannot hold an edit list, so `.custom` is for media without decode delay (no B-frames).
///
/// Every FFmpeg return code and the I/O context's error are checked, so a full disk (`ENOSPC`),
/// a file-size limit (`EFBIG`) or a vanished directory fails the call that hit it with a
/// `MediaError` carrying the POSIX code. Not thread-safe: callers serialize access.
package final class Muxer: @unchecked Sendable {
    /// How the container is written.
    package struct Options: Sendable {
        /// libavformat's muxer name ("mov", "mp4", "ipod", "3gp", "3g2", "wav", "aiff", "caf").
        package var formatName: String
        /// QuickTime family: put the movie header before the media data (a second pass at the end).
        package var fastStart = false
        /// QuickTime family: write movie fragments of at most this duration (the movie header with
        /// the first fragment, then `moof`/`mdat` pairs), so a file cut anywhere stays readable to
        /// its last complete fragment. Nil or not positive: no fragments.
        package var fragmentInterval: CMTime?
        /// How fragments are cut when `fragmentInterval` is set.
        package var fragmentMode: FragmentMode = .automatic
        /// `.custom` fragments: when writing fails (a full disk, a size limit), or `abortKeepingFragments()`
        /// is called, the file is cut back to its last complete fragment and kept instead of deleted.
        package var keepsFragmentsOnFailure = false
        /// QuickTime family: the movie header's timescale (nil: libavformat's default, 1000).
        package var movieTimescale: Int32?
        /// File-level tags (libavformat names: "title", "artist", "album", "comment", "date"…).
        package var metadata: [(key: String, value: String)] = []

        package init(formatName: String) {
            self.formatName = formatName
        }
    }

    /// How movie fragments are cut.
    package enum FragmentMode: Sendable {
        /// libavformat cuts a fragment every `fragmentInterval`; the movie header comes with the
        /// first fragment (`delay_moov`).
        case automatic
        /// An empty movie header at once; fragments are cut by `cutFragment()` and flushed to disk.
        case custom
    }

    /// Per-stream container properties.
    package struct StreamOptions: Sendable {
        /// The requested time base is 1/`timescale` (the container may pick a multiple).
        package var timescale: Int32
        /// ISO 639-2 language code ("eng"), nil for undetermined.
        package var language: String?
        /// The track matrix (QuickTime tkhd), identity for none.
        package var transform: CGAffineTransform = .identity
        /// Forces the sample entry's four-character code ('hvc1', 'apcn'…); nil lets the muxer choose.
        package var codecTag: FourCharCode?
        /// Display aspect: the pixel aspect ratio the track is shown with (nil: the codec's).
        package var displayAspect: (num: Int32, den: Int32)?
        /// Stream tags ("title", "handler_name"…).
        package var metadata: [(key: String, value: String)] = []

        package init(timescale: Int32) {
            self.timescale = timescale
        }
    }

    /// The file being written.
    package let url: URL
    /// The muxer's name.
    package let formatName: String
    /// Whether the header has been written.
    package private(set) var isStarted = false
    /// Whether the trailer has been written and the file closed.
    package private(set) var isFinished = false

    /// Bytes on disk after the header (custom fragments: after the last cut), with what the I/O
    /// buffer holds.
    package private(set) var bytesFlushed: Int64 = 0
    /// Payload bytes handed to the muxer since the last cut (custom fragments hold them in memory
    /// until the cut; otherwise they are already counted in `bytesFlushed` as they are written).
    package private(set) var pendingBytes: Int64 = 0
    /// The file's length at the end of the last complete fragment (custom fragments); 0 before.
    package private(set) var lastFragmentEnd: Int64 = 0
    /// Fragments cut and flushed so far (custom fragments).
    package private(set) var fragmentCount = 0

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let options: Options
    /// Custom fragments, by stream: the first packet's decode time (stream time base). Each stream
    /// is written from 0 (the empty movie header cannot hold the edit that would shift it: AAC
    /// priming before 0, a track starting late); the edit lists put them back when finishing.
    private var firstDecodeTimes: [Int: Int64] = [:]
    /// Custom fragments, by stream: the latest presentation end, in the stream's time base,
    /// before the shift to 0.
    private var presentationEnds: [Int: Int64] = [:]
    private var customFragments: Bool {
        options.fragmentMode == .custom && options.fragmentInterval.map { $0.isNumeric && $0 > .zero } == true
    }
    private var requestedTimeBases: [AVRational] = []
    private var fileCreated = false

    /// Creates `url` (failing when it exists, with `AVERROR(EEXIST)`) and prepares a `formatName`
    /// container over it.
    package init(url: URL, options: Options) throws(MediaError) {
        MediaEngine.configure()
        self.url = url
        self.options = options
        formatName = options.formatName
        let path = url.path
        // Exclusive creation: an existing file is refused atomically, never truncated.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 {
            let e = errno
            throw Muxer.ioError(code: cffmpeg_averror(e), path: path, action: "cannot create")
        }
        close(fd)
        fileCreated = true
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        let allocated = avformat_alloc_output_context2(&ctx, nil, options.formatName, path)
        guard allocated >= 0, let ctx else {
            unlink(path)
            throw MediaError.invalidArgument(message: "no \(options.formatName) muxer: \(MediaError.ffmpegMessage(allocated))")
        }
        context = ctx
        var pb: UnsafeMutablePointer<AVIOContext>?
        let opened = avio_open2(&pb, path, AVIO_FLAG_WRITE, nil, nil)
        if opened < 0 {
            avformat_free_context(ctx)
            context = nil
            unlink(path)
            throw Muxer.ioError(code: opened, path: path, action: "cannot open")
        }
        ctx.pointee.pb = pb
        for (key, value) in options.metadata {
            av_dict_set(&ctx.pointee.metadata, key, value, 0)
        }
    }

    deinit {
        if !isFinished { abort() }
    }

    /// The number of streams added.
    package var streamCount: Int { requestedTimeBases.count }

    /// Adds a stream encoded by `encoder`, video or audio (its parameters, extradata included,
    /// are copied).
    @discardableResult
    package func addStream(encodedBy encoder: Encoder, options streamOptions: StreamOptions) throws(MediaError) -> Int {
        try addStream(encodedByContext: encoder, options: streamOptions)
    }

    /// Adds a stream encoded by the audio `encoder` (its parameters, extradata included, are
    /// copied; linear PCM, stored as bytes without a codec, is described by its layout).
    @discardableResult
    package func addStream(encodedBy encoder: EncoderAudio, options streamOptions: StreamOptions) throws(MediaError) -> Int {
        if let pcm = encoder.outputPCM {
            var asbd = pcm.streamBasicDescription
            var description: CMFormatDescription?
            CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                           magicCookie: nil, extensions: nil, formatDescriptionOut: &description)
            guard let description else { throw MediaError.invalidArgument(message: "invalid PCM format \(pcm)") }
            return try addStream(formatDescription: description, options: streamOptions)
        }
        return try addStream(encodedByContext: encoder, options: streamOptions)
    }

    private func addStream(encodedByContext encoder: some EncoderContext, options streamOptions: StreamOptions) throws(MediaError) -> Int {
        let st = try newStream(streamOptions)
        let result = encoder.copyParameters(to: st.pointee.codecpar)
        if result < 0 { throw MediaError.other(code: result, message: "cannot describe the encoded stream: \(MediaError.ffmpegMessage(result))") }
        return try configure(st, streamOptions)
    }

    /// Adds a stream whose packets are copied as they are (passthrough), described by a Core Media
    /// format description: H.264/HEVC (avcC/hvcC atoms), ProRes, JPEG, AV1, linear PCM, AAC
    /// (from the esds magic cookie), ALAC, MP3, AC-3, E-AC-3, µ-law and A-law.
    @discardableResult
    package func addStream(formatDescription: CMFormatDescription, options streamOptions: StreamOptions) throws(MediaError) -> Int {
        let st = try newStream(streamOptions)
        try MuxerStreamFormat.describe(formatDescription, into: st.pointee.codecpar)
        return try configure(st, streamOptions)
    }

    private func newStream(_ streamOptions: StreamOptions) throws(MediaError) -> UnsafeMutablePointer<AVStream> {
        guard let ctx = context, !isStarted else { throw MediaError.invalidArgument(message: "streams must be added before the header") }
        guard streamOptions.timescale > 0 else { throw MediaError.invalidArgument(message: "timescale must be positive") }
        guard let st = avformat_new_stream(ctx, nil) else {
            throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory")
        }
        return st
    }

    private func configure(_ st: UnsafeMutablePointer<AVStream>, _ o: StreamOptions) throws(MediaError) -> Int {
        let tb = AVRational(num: 1, den: o.timescale)
        st.pointee.time_base = tb
        if let tag = o.codecTag {
            // FFmpeg stores tags with the first character in the low byte (MKTAG).
            st.pointee.codecpar.pointee.codec_tag = tag.byteSwapped
        } else {
            st.pointee.codecpar.pointee.codec_tag = 0
        }
        if let language = o.language, language.count == 3 {
            // QuickTime movies store Macintosh language codes; libavformat finds them by the
            // spelling of its table, which for these languages is not the ISO 639-2/T code.
            let spelled = formatName == "mov" ? (Muxer.quickTimeSpelling[language] ?? language) : language
            av_dict_set(&st.pointee.metadata, "language", spelled, 0)
        }
        for (key, value) in o.metadata { av_dict_set(&st.pointee.metadata, key, value, 0) }
        if let aspect = o.displayAspect, aspect.num > 0, aspect.den > 0 {
            // Both levels: QuickTime movies show it through the 'pasp' atom, MPEG-4 files also
            // through the track header's width.
            st.pointee.sample_aspect_ratio = AVRational(num: aspect.num, den: aspect.den)
            st.pointee.codecpar.pointee.sample_aspect_ratio = st.pointee.sample_aspect_ratio
        }
        if !o.transform.isIdentity {
            guard let raw = av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 36) else {
                throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory")
            }
            let t = o.transform
            let fixed = { (v: CGFloat) -> Int32 in Int32(clamping: Int64((Double(v) * 65536).rounded())) }
            let matrix: [Int32] = [fixed(t.a), fixed(t.b), 0, fixed(t.c), fixed(t.d), 0, fixed(t.tx), fixed(t.ty), 1 << 30]
            for (i, v) in matrix.enumerated() {
                UnsafeMutableRawPointer(raw).storeBytes(of: v, toByteOffset: i * 4, as: Int32.self)
            }
        }
        requestedTimeBases.append(tb)
        return requestedTimeBases.count - 1
    }

    /// ISO 639-2/T codes → the spelling libavformat's QuickTime language table uses for them.
    static let quickTimeSpelling: [String: String] = [
        "deu": "ger", "nld": "dut", "swe": "sve", "nob": "nor", "nno": "nor", "ell": "gre", "isl": "ice", "zho": "chi",
        "sqi": "alb", "mkd": "mac", "hye": "arm", "kat": "geo", "bod": "tib", "mya": "bur", "msa": "may", "cym": "wel",
        "eus": "baq", "fas": "per",
    ]

    /// The time base packets of `stream` are written in (valid after `start()`).
    func timeBase(ofStream index: Int) -> AVRational {
        guard let ctx = context, index >= 0, index < Int(ctx.pointee.nb_streams), let st = ctx.pointee.streams[index] else {
            return AVRational(num: 1, den: 1)
        }
        return st.pointee.time_base
    }

    /// Writes the container header (`avformat_write_header`).
    package func start() throws(MediaError) {
        guard let ctx = context, !isStarted else { return }
        var dict: OpaquePointer?
        defer { av_dict_free(&dict) }
        let quickTime = ["mov", "mp4", "ipod", "3gp", "3g2", "ismv", "psp", "f4v"].contains(formatName)
        if quickTime {
            var flags: [String] = []
            if let interval = options.fragmentInterval, interval.isNumeric, interval > .zero {
                if customFragments {
                    // An empty movie header on disk at once; fragments where the caller cuts them.
                    flags += ["empty_moov", "default_base_moof", "frag_custom"]
                } else {
                    let micros = CMTimeConvertScale(interval, timescale: 1_000_000, method: .roundHalfAwayFromZero).value
                    av_dict_set(&dict, "frag_duration", String(max(1, min(Int64(Int32.max), micros))), 0)
                    // The movie header goes out with the first fragment, so it can carry the edit
                    // list that starts presentation at 0 despite B-frame decode delay.
                    flags += ["delay_moov", "default_base_moof"]
                }
            } else if options.fastStart {
                flags.append("faststart")
            }
            if !flags.isEmpty { av_dict_set(&dict, "movflags", flags.map { "+" + $0 }.joined(), 0) }
            if let timescale = options.movieTimescale, timescale > 0 {
                av_dict_set(&dict, "movie_timescale", String(timescale), 0)
            }
            // The media timescale of a (single) video track is the one asked for, not a multiple
            // above 10000 as libavformat would pick.
            let video = (0..<Int(ctx.pointee.nb_streams)).filter {
                ctx.pointee.streams[$0]?.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
            }
            if video.count == 1 {
                av_dict_set(&dict, "video_track_timescale", String(requestedTimeBases[video[0]].den), 0)
            }
        }
        let result = avformat_write_header(ctx, &dict)
        if result < 0 { throw writeError(result, action: "cannot write the header") }
        if let pb = ctx.pointee.pb, pb.pointee.error < 0 { throw writeError(pb.pointee.error, action: "cannot write the header") }
        if customFragments, let pb = ctx.pointee.pb {
            // Room for the movie header to grow when it is rewritten at the end (edit lists,
            // durations, metadata) without moving the fragments: a `free` box the rewrite
            // absorbs. Fragments address their data from their own `moof` (default_base_moof),
            // and the fragment index records real offsets, so the box moves nothing.
            var free = [UInt8](repeating: 0, count: Muxer.movieHeaderReserve)
            let size = UInt32(Muxer.movieHeaderReserve)
            free.replaceSubrange(0..<8, with: [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF),
                                               0x66, 0x72, 0x65, 0x65])
            avio_write(pb, free, Int32(free.count))
            // The empty movie header reaches the disk before any sample.
            avio_flush(pb)
            if pb.pointee.error < 0 { throw writeError(pb.pointee.error, action: "cannot write the header") }
        }
        bytesFlushed = ctx.pointee.pb.map { avio_tell($0) } ?? 0
        isStarted = true
    }

    /// Custom fragments: ends the open fragment — every packet handed over so far is written in
    /// one `moof`/`mdat` pair — and flushes it to disk. Nothing to do when no packet is waiting.
    package func cutFragment() throws(MediaError) {
        guard let ctx = context, isStarted, !isFinished, customFragments, pendingBytes > 0 else { return }
        // Empty the interleaving queue into the fragment, then cut it.
        var result = av_interleaved_write_frame(ctx, nil)
        if result < 0 { throw writeError(result, action: "cannot write media data") }
        result = av_write_frame(ctx, nil)
        if result < 0 { throw writeError(result, action: "cannot write a movie fragment") }
        guard let pb = ctx.pointee.pb else { return }
        avio_flush(pb)
        if pb.pointee.error < 0 { throw writeError(pb.pointee.error, action: "cannot write a movie fragment") }
        bytesFlushed = avio_tell(pb)
        lastFragmentEnd = bytesFlushed
        pendingBytes = 0
        fragmentCount += 1
    }

    /// Puts everything handed over so far on disk, so a process killed afterwards leaves it
    /// readable: a fragment cut (custom fragments), else the interleaving queue and the I/O
    /// buffer written out (WAV and CAF headers read to the end of the file; see AudioFileWriter;
    /// AIFF's sizes are patched in).
    package func flushToDisk() throws(MediaError) {
        guard let ctx = context, isStarted, !isFinished else { return }
        if customFragments { return try cutFragment() }
        let result = av_interleaved_write_frame(ctx, nil)
        if result < 0 { throw writeError(result, action: "cannot write media data") }
        guard let pb = ctx.pointee.pb else { return }
        avio_flush(pb)
        if pb.pointee.error < 0 { throw writeError(pb.pointee.error, action: "cannot write media data") }
        bytesFlushed = avio_tell(pb)
        if formatName == "aiff", let stream = ctx.pointee.streams?[0] {
            // AIFF's sizes are written with the trailer: put them in now (AIFFSizePatch).
            try AIFFSizePatch.update(path: url.path, length: bytesFlushed, blockAlign: Int(stream.pointee.codecpar.pointee.block_align))
        }
    }

    /// Custom fragments: the size of the `free` box written after the empty movie header.
    static let movieHeaderReserve = 64 << 10

    /// Custom fragments: moves `packet` so its stream starts at 0 (see `firstDecodeTimes`).
    private func shiftToZero(_ packet: EncodedPacket, stream index: Int) {
        guard let time = packet.dts ?? packet.pts else { return }
        let first = firstDecodeTimes[index] ?? time
        firstDecodeTimes[index] = first
        if let pts = packet.pts {
            let end = pts.addingReportingOverflow(packet.duration)
            if !end.overflow { presentationEnds[index] = max(presentationEnds[index] ?? end.partialValue, end.partialValue) }
        }
        guard first != 0 else { return }
        packet.pts = packet.pts.map { $0 &- first }
        packet.dts = packet.dts.map { $0 &- first }
    }

    /// Custom fragments: the edit list that shows each stream at its own times again (media from
    /// the priming's end; a late start as an empty edit), lasting to its presentation end, or to
    /// `ending` when that comes first (an encoder's padding after the last frame is not shown).
    private func customFragmentEdits(ending: CMTime?) -> [Int32: [MovieEdit]] {
        var edits: [Int32: [MovieEdit]] = [:]
        for (index, first) in firstDecodeTimes {
            guard let end = presentationEnds[index] else { continue }
            let tb = timeBase(ofStream: index)
            guard tb.num > 0, tb.den > 0 else { continue }
            let scale = tb.den
            func time(_ units: Int64) -> CMTime { CMTime(value: units * Int64(tb.num), timescale: scale) }
            var shown = end.saturatingSubtracting(max(first, 0))
            if let ending, ending.isNumeric, ending > .zero {
                // Timestamps come from the file: saturate, never trap.
                let limit = CMTimeConvertScale(ending, timescale: scale, method: .roundHalfAwayFromZero).value / Int64(max(tb.num, 1))
                shown = min(shown, limit.saturatingSubtracting(max(first, 0)))
            }
            guard shown > 0 else { continue }
            var list: [MovieEdit] = []
            if first > 0 { list.append(MovieEdit(duration: time(first), mediaStart: nil)) }
            list.append(MovieEdit(duration: time(shown), mediaStart: time(max(0, -first))))
            edits[Int32(index + 1)] = list
        }
        return edits
    }

    /// The decode time of `packet` in seconds (its presentation time when it has no decode time).
    package func seconds(of packet: EncodedPacket) -> Double? {
        guard let t = packet.dts ?? packet.pts, packet.timeBase.den != 0 else { return nil }
        return Double(t) * Double(packet.timeBase.num) / Double(packet.timeBase.den)
    }

    /// Writes one packet of `stream`; its timestamps are rescaled from the packet's time base to
    /// the stream's. The packet's data is consumed (it is left blank).
    package func write(_ packet: EncodedPacket, stream index: Int) throws(MediaError) {
        guard let ctx = context, isStarted, !isFinished else { throw MediaError.invalidArgument(message: "the muxer is not writing") }
        guard index >= 0, index < requestedTimeBases.count else { throw MediaError.invalidArgument(message: "no stream \(index)") }
        packet.rescale(to: timeBase(ofStream: index))
        packet.pointer.pointee.stream_index = Int32(index)
        let size = Int64(packet.size)
        if customFragments { shiftToZero(packet, stream: index) }
        let result = av_interleaved_write_frame(ctx, packet.pointer)
        if result < 0 { throw writeError(result, action: "cannot write media data") }
        if let pb = ctx.pointee.pb, pb.pointee.error < 0 { throw writeError(pb.pointee.error, action: "cannot write media data") }
        if customFragments {
            pendingBytes += size
        } else if let pb = ctx.pointee.pb {
            bytesFlushed = avio_tell(pb)
        }
    }

    /// Flushes the interleaving queue, writes the trailer and closes the file.
    ///
    /// `presentationEnd` (QuickTime family, not fragmented): the movie ends there (movie time,
    /// from 0) — every track's edit list stops at it, and the track and movie durations with it,
    /// so samples kept after it only for decoding (a reference frame a B-frame before the end
    /// needs, an audio packet reaching past it) are not shown. libavformat sizes the edit lists
    /// from the samples, so the finished header is patched in place (same sizes).
    ///
    /// `edits` (QuickTime family, not fragmented): edit lists by stream index, written over
    /// libavformat's (which has one edit per track) once the file is finished — several entries,
    /// empty edits, rates — with the track and movie durations they give (EditListBox).
    package func finish(presentationEnd: CMTime? = nil, edits: [Int: [MovieEdit]] = [:]) throws(MediaError) {
        guard let ctx = context, !isFinished else { return }
        let movie = options.fragmentInterval == nil && ["mov", "mp4", "ipod", "3gp", "3g2"].contains(formatName)
        guard edits.isEmpty || movie else {
            throw MediaError.invalidArgument(message: "edit lists are written into unfragmented QuickTime-family movies only")
        }
        if !isStarted { try start() }
        let trimEnd = presentationEnd.flatMap { $0.isNumeric && $0 > .zero ? $0 : nil }
        let trims = trimEnd != nil && movie
        // Every track gets an edit list, so that each one can be cut.
        if trims, let priv = ctx.pointee.priv_data { av_opt_set(priv, "use_editlist", "1", 0) }
        let fragmentEdits = customFragments ? customFragmentEdits(ending: trimEnd) : [:]
        let trailer = av_write_trailer(ctx)
        var pbError: Int32 = 0
        if let pb = ctx.pointee.pb {
            avio_flush(pb)
            pbError = pb.pointee.error
        }
        let closed = avio_closep(&ctx.pointee.pb)
        avformat_free_context(ctx)
        context = nil
        isFinished = true
        for code in [trailer, pbError, closed] where code < 0 {
            if keepsFragments {
                cutBackToLastFragment()
            } else {
                unlink(url.path)
            }
            throw writeError(code, action: "cannot finish the file")
        }
        if !fragmentEdits.isEmpty {
            // The movie header written first was empty: now it gets the tracks' edit lists and
            // durations (the file stays readable if this fails: it is replaced only when done).
            do {
                try EditListBox.rewrite(url, edits: fragmentEdits)
            } catch {
                if let failure = error as? MediaError { throw failure }
                throw MediaError.other(code: -1, message: "\(url.path): cannot write the edit lists: \(error)")
            }
        }
        if let size = fileLength() { bytesFlushed = size }
        pendingBytes = 0
        if trims, let trimEnd {
            do {
                try MovieHeaderTrimmer.trim(path: url.path, to: trimEnd)
            } catch {
                unlink(url.path)
                throw error
            }
        }
        if !edits.isEmpty {
            // libavformat's mov muxer numbers the tracks from 1 in stream order.
            let byTrack = Dictionary(uniqueKeysWithValues: edits.map { (Int32($0.key + 1), $0.value) })
            do {
                try EditListBox.rewrite(url, edits: byTrack)
            } catch {
                unlink(url.path)
                if let failure = error as? MediaError { throw failure }
                throw MediaError.other(code: -1, message: "\(url.path): cannot write the edit lists: \(error)")
            }
        }
    }

    private var keepsFragments: Bool { customFragments && options.keepsFragmentsOnFailure }

    /// Stops writing without a trailer. With custom fragments and `keepsFragmentsOnFailure`, the
    /// file is cut back to the end of its last complete fragment and kept when it has one (true);
    /// otherwise it is deleted (false), as `abort()` does.
    @discardableResult
    package func abortKeepingFragments() -> Bool {
        guard keepsFragments else {
            abort()
            return false
        }
        if let ctx = context {
            // Whatever the I/O buffer still holds belongs to the unfinished fragment.
            if ctx.pointee.pb != nil { avio_closep(&ctx.pointee.pb) }
            avformat_free_context(ctx)
            context = nil
        }
        isFinished = true
        return cutBackToLastFragment()
    }

    /// Truncates the file to its last complete fragment; deletes it when there is none.
    @discardableResult
    private func cutBackToLastFragment() -> Bool {
        guard fileCreated else { return false }
        fileCreated = false
        if lastFragmentEnd > 0, truncate(url.path, off_t(lastFragmentEnd)) == 0 {
            bytesFlushed = lastFragmentEnd
            pendingBytes = 0
            return true
        }
        unlink(url.path)
        return false
    }

    private func fileLength() -> Int64? {
        var st = stat()
        return stat(url.path, &st) == 0 ? Int64(st.st_size) : nil
    }

    /// Stops writing: closes the file and deletes it (never leaves a partial file behind).
    /// `removingFinishedFile`: delete the file even when writing had completed.
    package func abort(removingFinishedFile: Bool = false) {
        let completed = context == nil && isFinished && isStarted
        if let ctx = context {
            if ctx.pointee.pb != nil { avio_closep(&ctx.pointee.pb) }
            avformat_free_context(ctx)
            context = nil
        }
        if fileCreated && (!completed || removingFinishedFile) { unlink(url.path) }
        fileCreated = false
        isFinished = true
    }

    private func writeError(_ code: Int32, action: String) -> MediaError {
        Muxer.ioError(code: code, path: url.path, action: action)
    }

    /// A write failure: the POSIX code when there is one, with FFmpeg's text.
    static func ioError(code: Int32, path: String, action: String) -> MediaError {
        let text = MediaError.ffmpegMessage(code)
        switch code {
        case cffmpeg_averror(EACCES), cffmpeg_averror(EPERM), cffmpeg_averror(EROFS):
            return .permissionDenied(code: code, message: "\(path): \(action): \(text)")
        case cffmpeg_averror(ENOENT), cffmpeg_averror(ENOTDIR):
            return .fileNotFound(code: code, message: "\(path): \(action): \(text)")
        default:
            return .other(code: code, message: "\(path): \(action): \(text)")
        }
    }
}
