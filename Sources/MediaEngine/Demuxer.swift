// Demuxer: one AVFormatContext over a media file — container facts, stream descriptions,
// zero-copy packets, seeking and per-stream discard.
internal import CFFmpeg
import CoreMedia
import Foundation

/// Reads a media file's container with libavformat. One instance per consumer: it owns one
/// `AVFormatContext` and is not safe to use from several threads at once (hand it from one
/// thread to another freely).
///
/// Every FFmpeg return code is checked; reading is bounded by the file and by the optional
/// `DemuxerCancellation`, so damaged or hostile input gives a `MediaError`, never a hang.
package final class Demuxer: @unchecked Sendable {
    /// The file (or URL) this demuxer reads.
    package let url: URL
    /// The demuxer's short name list, e.g. "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "wav".
    package let formatName: String
    /// The demuxer's descriptive name, e.g. "QuickTime / MOV".
    package let formatLongName: String
    /// The container's duration (FFmpeg's estimate, microsecond timescale); `.invalid` if unknown.
    package let duration: CMTime
    /// The presentation time of the container's first frame; `.invalid` if unknown.
    package let startTime: CMTime
    /// The container's overall bit rate in bits per second; 0 if unknown.
    package let bitRate: Int
    /// The file's size in bytes; nil when it cannot be determined (non-seekable input).
    package let fileSize: Int64?
    /// The streams, indexed by FFmpeg stream index.
    package let streams: [StreamInfo]
    /// File-level tags in file order, keys as FFmpeg reports them.
    package let tags: [(key: String, value: String)]
    /// Chapters in time order.
    package let chapters: [ChapterInfo]

    /// A chapter as FFmpeg reports it, with times in the file's timeline.
    package struct ChapterInfo: Sendable {
        /// FFmpeg's chapter id.
        package var id: Int64
        /// Start of the chapter.
        package var start: CMTime
        /// End of the chapter (exclusive).
        package var end: CMTime
        /// The chapter's tags ("title", …), in file order.
        package var tags: [(key: String, value: String)]
    }

    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// QuickTime family: video packet durations come from the sample table (see
    /// `takeDurationFromSampleTable`).
    private let sampleTableDurations: Bool
    private let cancellation: DemuxerCancellation
    private let cancellationBox: Unmanaged<DemuxerCancellation>

    /// Seconds a network read (http, https, HLS segments) may wait for data before it fails.
    package static let networkTimeout: Double = 8

    /// Opens `url` and probes its streams (`avformat_open_input` + `avformat_find_stream_info`).
    /// - Parameters:
    ///   - cancellation: polled during every blocking read; cancel it (or let its deadline pass)
    ///     to make the open or any later read fail with `MediaError.cancelled`.
    package init(url: URL, cancellation: DemuxerCancellation = DemuxerCancellation()) throws(MediaError) {
        MediaEngine.configure()
        self.url = url
        self.cancellation = cancellation
        let path = url.isFileURL ? url.path : url.absoluteString
        var probeKey: DemuxerProbeCache.Key?
        if url.isFileURL {
            // Distinguish a missing or unreadable file before FFmpeg collapses both into ENOENT/EACCES.
            var st = stat()
            if stat(path, &st) != 0 {
                let e = errno
                throw MediaError.opening(code: cffmpeg_averror(e), path: path)
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                throw MediaError.formatNotRecognized(code: cffmpeg_averror(EISDIR), message: "\(path) is a directory")
            }
            if access(path, R_OK) != 0 {
                throw MediaError.opening(code: cffmpeg_averror(errno), path: path)
            }
            probeKey = DemuxerProbeCache.Key(st)
        }
        cancellationBox = Unmanaged.passRetained(cancellation)
        guard let allocated = avformat_alloc_context() else {
            cancellationBox.release()
            throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory")
        }
        allocated.pointee.interrupt_callback = AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<DemuxerCancellation>.fromOpaque(opaque).takeUnretainedValue().shouldStop ? 1 : 0
            },
            opaque: cancellationBox.toOpaque())
        var ctx: UnsafeMutablePointer<AVFormatContext>? = allocated
        // A fragmented recording cut off mid-fragment is read up to its last complete fragment.
        let openPath = url.isFileURL ? DemuxerFragmentRecovery.readableLength(path: path)
            .map { DemuxerFragmentRecovery.url(path: path, length: $0) } ?? path : path
        // Over a network a server that stops answering is an error after `networkTimeout`, not a
        // read that blocks for ever (FFmpeg's default).
        var options: OpaquePointer?
        if !url.isFileURL {
            av_dict_set(&options, "rw_timeout", String(Int64(Demuxer.networkTimeout * 1_000_000)), 0)
        }
        defer { av_dict_free(&options) }
        let openResult = avformat_open_input(&ctx, openPath, nil, &options)  // frees the context on failure
        guard openResult >= 0, let ctx else {
            cancellationBox.release()
            let error = MediaError.opening(code: openResult, path: path)
            if case .formatNotRecognized = error, url.isFileURL, let name = Demuxer.probeFormatName(path: path) {
                // The bytes look like a known container, but it could not be opened: damaged, not foreign.
                throw MediaError.failedToParse(code: openResult,
                                               message: "\(path): damaged \(name) file (\(MediaError.ffmpegMessage(openResult)))")
            }
            throw error
        }
        // A QuickTime-family file this process has probed before, unchanged since, gets the
        // probe's findings without decoding again (DemuxerProbeCache).
        let cacheable = probeKey != nil
            && DemuxerProbeCache.isCacheable(formatName: ctx.pointee.iformat.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? "")
        let cached = cacheable && DemuxerProbeCache.shared.apply(probeKey!, to: ctx)
        let infoResult = cached ? 0 : avformat_find_stream_info(ctx, nil)
        if infoResult >= 0, cacheable, !cached { DemuxerProbeCache.shared.remember(probeKey!, from: ctx) }
        if infoResult < 0 {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&doomed)
            cancellationBox.release()
            if infoResult == MediaError.exitCode {
                throw MediaError.cancelled(code: infoResult, message: "\(path): probing was cancelled or timed out")
            }
            throw MediaError.failedToParse(code: infoResult,
                                           message: "\(path): cannot read stream information (\(MediaError.ffmpegMessage(infoResult)))")
        }
        context = ctx
        let fc = ctx.pointee
        formatName = fc.iformat.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? ""
        formatLongName = fc.iformat.flatMap { $0.pointee.long_name.map { String(cString: $0) } } ?? formatName
        duration = fc.duration != cffmpeg_nopts() && fc.duration >= 0
            ? CMTime(value: fc.duration, timescale: CMTimeScale(AV_TIME_BASE)) : .invalid
        startTime = fc.start_time != cffmpeg_nopts()
            ? CMTime(value: fc.start_time, timescale: CMTimeScale(AV_TIME_BASE)) : .invalid
        bitRate = fc.bit_rate > 0 ? Int(fc.bit_rate) : 0
        if let pb = fc.pb {
            let size = avio_size(pb)
            fileSize = size >= 0 ? size : nil
        } else {
            fileSize = nil
        }
        tags = Demuxer.dictionary(fc.metadata)
        let isQuickTime = formatName.contains("mov") || formatName.contains("mp4")
        sampleTableDurations = isQuickTime
        var infos: [StreamInfo] = []
        var usedIDs = Set<CMPersistentTrackID>()
        for i in 0..<Int(fc.nb_streams) {
            guard let stream = fc.streams[i] else { continue }
            var info = StreamInfo(stream: stream, index: i, useContainerID: isQuickTime)
            if usedIDs.contains(info.trackID) || info.trackID <= 0 {
                info.trackID = CMPersistentTrackID(i + 1)
                while usedIDs.contains(info.trackID) { info.trackID += 1 }
            }
            usedIDs.insert(info.trackID)
            if info.kind == .audio {
                info.gaplessFrameCount = Demuxer.gaplessFrameCount(of: info, format: formatName, fileTags: tags,
                                                                   path: url.isFileURL ? url.path : nil)
            }
            infos.append(info)
        }
        streams = infos
        var chapterList: [ChapterInfo] = []
        for i in 0..<Int(fc.nb_chapters) {
            guard let chapter = fc.chapters[i]?.pointee else { continue }
            let tb = chapter.time_base
            chapterList.append(ChapterInfo(id: chapter.id,
                                           start: StreamInfo.time(chapter.start, tb),
                                           end: StreamInfo.time(chapter.end, tb),
                                           tags: Demuxer.dictionary(chapter.metadata)))
        }
        chapters = chapterList.sorted { $0.start < $1.start }
    }

    /// The frames `stream`'s encoder was given, from gapless information in the file, when it
    /// is there and within the stream's duration (a tag never makes the stream longer).
    private static func gaplessFrameCount(of stream: StreamInfo, format: String, fileTags: [(key: String, value: String)],
                                          path: String?) -> Int64? {
        var count: Int64?
        if format == "mp3", let path {
            count = GaplessInfo.mp3FrameCount(path: path)
        } else if let smpb = (stream.tags + fileTags).first(where: { $0.key == "iTunSMPB" })?.value {
            count = GaplessInfo.iTunSMPBFrameCount(smpb)
        }
        guard let count, stream.sampleRate > 0 else { return nil }
        if stream.duration.isNumeric, Double(count) > (stream.duration.seconds * Double(stream.sampleRate)).rounded() { return nil }
        return count
    }

    deinit {
        if context != nil { avformat_close_input(&context) }
        cancellationBox.release()
    }

    /// The stream with a given track ID.
    package func stream(trackID: CMPersistentTrackID) -> StreamInfo? {
        streams.first { $0.trackID == trackID }
    }

    /// Calls `body` with the stream's codec parameters (for opening a decoder). The pointer is
    /// valid only inside `body`.
    func withCodecParameters<R>(stream index: Int, _ body: (UnsafePointer<AVCodecParameters>) -> R) throws(MediaError) -> R {
        guard let ctx = context, index >= 0, index < Int(ctx.pointee.nb_streams),
              let stream = ctx.pointee.streams[index], let par = stream.pointee.codecpar else {
            throw MediaError.invalidArgument(message: "no stream \(index)")
        }
        return body(UnsafePointer(par))
    }

    /// Reads the next packet of any stream not discarded, in file order. Returns nil at the end
    /// of the file. The packet's payload is FFmpeg's reference-counted buffer, not a copy.
    package func readPacket() throws(MediaError) -> DemuxerPacket? {
        guard let ctx = context else { return nil }
        guard let packet = av_packet_alloc() else {
            throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory")
        }
        let result = av_read_frame(ctx, packet)
        if result < 0 {
            var doomed: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&doomed)
            if result == cffmpeg_averror_eof() { return nil }
            if result == MediaError.exitCode {
                throw MediaError.cancelled(code: result, message: "reading was cancelled")
            }
            if result == MediaError.invalidDataCode {
                throw MediaError.failedToParse(code: result, message: "damaged data: \(MediaError.ffmpegMessage(result))")
            }
            throw MediaError.other(code: result, message: MediaError.ffmpegMessage(result))
        }
        let index = Int(packet.pointee.stream_index)
        guard index >= 0, index < streams.count else {
            var doomed: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&doomed)
            throw MediaError.failedToParse(code: MediaError.invalidDataCode, message: "packet for unknown stream \(index)")
        }
        if sampleTableDurations, streams[index].mediaType == kCMMediaType_Video, let stream = ctx.pointee.streams[index] {
            Demuxer.takeDurationFromSampleTable(packet, stream: stream)
        }
        return DemuxerPacket(taking: packet, timeBase: streams[index].timeBase)
    }

    /// A QuickTime video sample lasts until the next one's decode time (the sample table's
    /// meaning). FFmpeg 5.1 estimates the duration of a packet with a composition offset
    /// (B-frames) from the frame rate instead — one tick for movie-fragment tracks with
    /// timescales below 1000 — so the duration is taken from the stream's index, whose entries
    /// are the samples' decode times. The last sample keeps FFmpeg's duration unless that is
    /// far below the step before it (an estimate, not the file's).
    private static func takeDurationFromSampleTable(_ packet: UnsafeMutablePointer<AVPacket>, stream: UnsafeMutablePointer<AVStream>) {
        let dts = packet.pointee.dts
        guard dts != cffmpeg_nopts() else { return }
        let count = avformat_index_get_entries_count(stream)
        let i = av_index_search_timestamp(stream, dts, AVSEEK_FLAG_ANY | AVSEEK_FLAG_BACKWARD)
        guard count > 1, i >= 0, let entry = avformat_index_get_entry(stream, i), entry.pointee.timestamp == dts else { return }
        if i + 1 < count, let next = avformat_index_get_entry(stream, i + 1) {
            // Timestamps come from the file: a difference that overflows is no duration.
            let (step, overflow) = next.pointee.timestamp.subtractingReportingOverflow(dts)
            if !overflow, step > 0 { packet.pointee.duration = step }
        } else if i > 0, let previous = avformat_index_get_entry(stream, i - 1) {
            let (step, overflow) = dts.subtractingReportingOverflow(previous.pointee.timestamp)
            if !overflow, step > 0, packet.pointee.duration < step / 2 { packet.pointee.duration = step }
        }
    }

    /// Seeks so that the next packets read for `stream` start at the keyframe at or before
    /// `time` (in the stream's timeline). Other streams follow from the same file position.
    package func seek(stream index: Int, to time: CMTime) throws(MediaError) {
        guard index >= 0, index < streams.count else { throw MediaError.invalidArgument(message: "no stream \(index)") }
        guard time.isNumeric else { throw MediaError.invalidArgument(message: "seek time is not numeric") }
        try seek(stream: index, toTimestamp: streams[index].timestamp(for: time))
    }

    /// Seeks `stream` to the keyframe at or before `timestamp`, in the stream's time base.
    package func seek(stream index: Int, toTimestamp timestamp: Int64) throws(MediaError) {
        guard let ctx = context, index >= 0, index < streams.count else {
            throw MediaError.invalidArgument(message: "no stream \(index)")
        }
        var result = av_seek_frame(ctx, Int32(index), timestamp, AVSEEK_FLAG_BACKWARD)
        if result < 0 {
            // Before the first keyframe (or an index-less format): fall back to any position at or after.
            result = avformat_seek_file(ctx, Int32(index), Int64.min, timestamp, Int64.max, 0)
        }
        if result < 0 {
            throw MediaError.other(code: result, message: "cannot seek: \(MediaError.ffmpegMessage(result))")
        }
    }

    /// Seeks back to the first byte of media data (the start of the file).
    package func rewind() throws(MediaError) {
        guard let ctx = context else { return }
        let result = avformat_seek_file(ctx, -1, Int64.min, Int64.min, Int64.max, 0)
        if result < 0 {
            var fallback = av_seek_frame(ctx, -1, 0, AVSEEK_FLAG_BYTE)
            if fallback < 0 {
                // Formats that seek only by time to a real timestamp (HTTP Live Streaming): the start.
                let start = ctx.pointee.start_time == cffmpeg_nopts() ? 0 : ctx.pointee.start_time
                fallback = av_seek_frame(ctx, -1, start, AVSEEK_FLAG_BACKWARD)
            }
            if fallback < 0 { throw MediaError.other(code: fallback, message: "cannot rewind: \(MediaError.ffmpegMessage(fallback))") }
        }
    }

    /// Whether `readPacket()` returns packets of `stream` (all streams are read initially).
    package func setDiscarded(_ discarded: Bool, stream index: Int) {
        guard let ctx = context, index >= 0, index < Int(ctx.pointee.nb_streams), let stream = ctx.pointee.streams[index] else { return }
        stream.pointee.discard = discarded ? AVDISCARD_ALL : AVDISCARD_DEFAULT
    }

    /// Reads only the given streams; all others are discarded.
    package func selectStreams(_ indices: Set<Int>) {
        for i in streams.indices { setDiscarded(!indices.contains(i), stream: i) }
    }

    /// The name of the container format the first 64 KiB of a file look like, when FFmpeg's
    /// probe is confident (a content match, not just the file extension); nil otherwise.
    static func probeFormatName(path: String) -> String? {
        guard let file = try? MediaFile(path: path) else { return nil }
        defer { file.close() }
        let head = file.read(upTo: 65_536, at: 0)
        guard !head.isEmpty else { return nil }
        var buffer = head
        buffer.append(contentsOf: [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE)))
        return buffer.withUnsafeMutableBufferPointer { bytes -> String? in
            var probe = AVProbeData()
            probe.buf = bytes.baseAddress
            probe.buf_size = Int32(head.count)
            probe.filename = nil
            var score: Int32 = 0
            guard let format = av_probe_input_format3(&probe, 1, &score), score > AVPROBE_SCORE_EXTENSION else { return nil }
            return format.pointee.name.map { String(cString: $0) }
        }
    }

    /// The contents of an AVDictionary, in order.
    static func dictionary(_ dict: OpaquePointer?) -> [(key: String, value: String)] {
        guard let dict else { return [] }
        var out: [(key: String, value: String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        var guardCount = 0
        while guardCount < 100_000, let next = av_dict_get(dict, "", entry, AV_DICT_IGNORE_SUFFIX) {
            if let k = next.pointee.key, let v = next.pointee.value {
                out.append((String(cString: k), String(cString: v)))
            }
            entry = next
            guardCount += 1
        }
        return out
    }
}
