// DemuxerProbeCache: what `avformat_find_stream_info` learned about a QuickTime-family file,
// kept per process so that the next demuxer over the same unchanged file need not probe again.
// Probing decodes a frame of every stream (a whole 1080p picture for H.264), and an asset,
// its packet index and each reader output open their own demuxer: an export or a read paid
// for that decode three or four times.
internal import CFFmpeg
import Foundation
import Synchronization

/// Stream parameters found by probing a file, keyed by the file's identity (device, inode,
/// size, modification time): a file that changes in any of these is probed again.
final class DemuxerProbeCache: Sendable {
    /// The identity of a file's contents as `stat` reports it.
    struct Key: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int

        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            modifiedSeconds = Int(st.st_mtim.tv_sec)
            modifiedNanoseconds = Int(st.st_mtim.tv_nsec)
        }
    }

    /// What probing set on one stream.
    fileprivate struct StreamFacts {
        var parameters: UnsafeMutablePointer<AVCodecParameters>
        var timeBase: AVRational
        var averageFrameRate: AVRational
        var realFrameRate: AVRational
        var startTime: Int64
        var duration: Int64
        var frameCount: Int64
    }

    /// What probing set on one file's format context.
    final class Entry: @unchecked Sendable {
        fileprivate let streams: [StreamFacts]
        fileprivate let startTime: Int64
        fileprivate let duration: Int64
        fileprivate let bitRate: Int64

        fileprivate init?(_ ctx: UnsafeMutablePointer<AVFormatContext>) {
            var facts: [StreamFacts] = []
            for i in 0..<Int(ctx.pointee.nb_streams) {
                guard let st = ctx.pointee.streams[i], let par = avcodec_parameters_alloc() else {
                    facts.forEach { var p: UnsafeMutablePointer<AVCodecParameters>? = $0.parameters; avcodec_parameters_free(&p) }
                    return nil
                }
                if avcodec_parameters_copy(par, st.pointee.codecpar) < 0 {
                    var p: UnsafeMutablePointer<AVCodecParameters>? = par
                    avcodec_parameters_free(&p)
                    facts.forEach { var p: UnsafeMutablePointer<AVCodecParameters>? = $0.parameters; avcodec_parameters_free(&p) }
                    return nil
                }
                let s = st.pointee
                facts.append(StreamFacts(parameters: par, timeBase: s.time_base, averageFrameRate: s.avg_frame_rate,
                                         realFrameRate: s.r_frame_rate, startTime: s.start_time, duration: s.duration,
                                         frameCount: s.nb_frames))
            }
            streams = facts
            startTime = ctx.pointee.start_time
            duration = ctx.pointee.duration
            bitRate = ctx.pointee.bit_rate
        }

        deinit {
            for facts in streams {
                var p: UnsafeMutablePointer<AVCodecParameters>? = facts.parameters
                avcodec_parameters_free(&p)
            }
        }

        /// Sets the probed facts on a freshly opened context of the same file; false (nothing
        /// changed) when its streams do not match the ones probed.
        fileprivate func apply(to ctx: UnsafeMutablePointer<AVFormatContext>) -> Bool {
            guard Int(ctx.pointee.nb_streams) == streams.count else { return false }
            for (i, facts) in streams.enumerated() {
                guard let st = ctx.pointee.streams[i], let par = st.pointee.codecpar,
                      par.pointee.codec_id == facts.parameters.pointee.codec_id,
                      par.pointee.codec_type == facts.parameters.pointee.codec_type,
                      st.pointee.time_base.num == facts.timeBase.num, st.pointee.time_base.den == facts.timeBase.den
                else { return false }
            }
            for (i, facts) in streams.enumerated() {
                guard let st = ctx.pointee.streams[i], avcodec_parameters_copy(st.pointee.codecpar, facts.parameters) >= 0 else {
                    return false
                }
                st.pointee.avg_frame_rate = facts.averageFrameRate
                st.pointee.r_frame_rate = facts.realFrameRate
                st.pointee.start_time = facts.startTime
                st.pointee.duration = facts.duration
                st.pointee.nb_frames = facts.frameCount
            }
            ctx.pointee.start_time = startTime
            ctx.pointee.duration = duration
            ctx.pointee.bit_rate = bitRate
            return true
        }
    }

    static let shared = DemuxerProbeCache()

    /// The most files remembered (the oldest is forgotten first).
    let capacity = 16
    /// The entries by file, and the files oldest first.
    private let table = Mutex<(entries: [Key: Entry], order: [Key])>(([:], []))

    /// Whether probing a context of this format can be replaced by the cache: the QuickTime
    /// family, whose demuxer reads every stream's layout from the movie box; the probe only adds
    /// what decoding a frame tells (pixel format, profile, colour, frame size…), the same each time.
    static func isCacheable(formatName: String) -> Bool {
        formatName.hasPrefix("mov,mp4")
    }

    /// Applies the facts remembered for `key` to `ctx`; false when there are none (or they do
    /// not fit), in which case the caller probes.
    func apply(_ key: Key, to ctx: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        guard let entry = table.withLock({ $0.entries[key] }) else { return false }
        return entry.apply(to: ctx)
    }

    /// Remembers what probing `ctx` found for the file `key`.
    func remember(_ key: Key, from ctx: UnsafeMutablePointer<AVFormatContext>) {
        guard let entry = Entry(ctx) else { return }
        table.withLock { t in
            if t.entries.updateValue(entry, forKey: key) == nil { t.order.append(key) }
            while t.order.count > capacity { t.entries[t.order.removeFirst()] = nil }
        }
    }

    /// Forgets every file (tests).
    func removeAll() {
        table.withLock { $0 = ([:], []) }
    }
}
