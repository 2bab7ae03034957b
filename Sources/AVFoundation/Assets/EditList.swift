// Edit lists of ISO base media files (MP4, MOV, M4A, 3GP): each track's 'elst' read from the
// file's own bytes with the engine's box reader (EditListBox parses the entries), because FFmpeg
// applies edit lists while demuxing but does not expose them.
// They become the track's AVAssetTrackSegments: target ranges in the movie timeline (mvhd
// timescale), source ranges in the track's media timeline (mdhd timescale).
import CoreMedia
import Foundation
internal import MediaEngine

/// A track's edit list with the timescales its entries are counted in.
struct TrackEditList: Sendable, Equatable {
    /// The movie timescale (mvhd), which `segmentDuration` counts in.
    var movieTimescale: Int32
    /// The media timescale (mdhd), which `mediaTime` counts in.
    var mediaTimescale: Int32
    /// The media duration (mdhd), in the media timescale.
    var mediaDuration: UInt64
    /// The entries in file order.
    var entries: [EditListEntry]

    /// The entries as time mappings laid end to end from zero in the movie timeline, or nil when
    /// the list cannot be honoured (negative rates, overflowing durations, no non-empty edit).
    ///
    /// Zero-length entries are dropped, except that a zero-length final entry with media — how
    /// fragmented files say "to the end of the media" — lasts `openEndedDuration` when given.
    /// The source of a non-empty mapping starts at `mediaTime` in the media timescale and lasts
    /// the target duration times the rate (exact; expressed in the media timescale when that is
    /// exact); an empty edit's source start and duration are invalid, as `CMTimeMappingMakeEmpty`
    /// makes them.
    func timeMappings(openEndedDuration: CMTime? = nil) -> [CMTimeMapping]? {
        guard movieTimescale > 0, mediaTimescale > 0 else { return nil }
        var mappings: [CMTimeMapping] = []
        var position: Int64 = 0
        for (i, entry) in entries.enumerated() {
            guard entry.mediaTime >= -1, entry.segmentDuration <= UInt64(Int64.max) else { return nil }
            var targetDuration = CMTime(value: Int64(entry.segmentDuration), timescale: movieTimescale)
            if entry.segmentDuration == 0 {
                guard i == entries.count - 1, !entry.isEmpty, let open = openEndedDuration, open.isNumeric,
                      open > .zero else { continue }
                targetDuration = CMTimeConvertScale(open, timescale: movieTimescale, method: .roundTowardZero)
                guard targetDuration.isNumeric, targetDuration.value > 0 else { continue }
            }
            let (end, overflow) = position.addingReportingOverflow(targetDuration.value)
            guard !overflow else { return nil }
            let target = CMTimeRange(start: CMTime(value: position, timescale: movieTimescale), duration: targetDuration)
            position = end
            if entry.isEmpty {
                mappings.append(CMTimeMappingMakeEmpty(target: target))
                continue
            }
            // 16.16 fixed point (QuickTime's media rate); a negative rate cannot be honoured.
            guard entry.mediaRateInteger >= 0 else { return nil }
            let rate = Int64(entry.mediaRateInteger) << 16 | Int64(UInt16(bitPattern: entry.mediaRateFraction))
            guard let rate32 = Int32(exactly: rate) else { return nil }
            var sourceDuration = rate == 1 << 16 ? targetDuration
                : CMTimeMultiplyByRatio(targetDuration, multiplier: rate32, divisor: 1 << 16)
            guard sourceDuration.isNumeric else { return nil }
            sourceDuration = Self.inTimescale(sourceDuration, mediaTimescale)
            let source = CMTimeRange(start: CMTime(value: entry.mediaTime, timescale: mediaTimescale), duration: sourceDuration)
            mappings.append(CMTimeMapping(source: source, target: target))
        }
        guard mappings.contains(where: { !$0.isEmpty }) else { return nil }
        return mappings
    }

    /// `time` in `timescale` when that is exact, else unchanged.
    private static func inTimescale(_ time: CMTime, _ timescale: Int32) -> CMTime {
        guard time.timescale != timescale else { return time }
        let product = Int128(time.value) * Int128(timescale)
        guard product % Int128(time.timescale) == 0, let value = Int64(exactly: product / Int128(time.timescale)) else { return time }
        return CMTime(value: value, timescale: timescale)
    }
}

/// Reads the edit lists of an ISO base media file.
enum EditListReader {
    /// The edit lists of the file at `url` by track ID (tkhd): tracks without an 'elst', or
    /// whose 'elst' is damaged, are absent. Non-ISO files, unreadable files and files without a
    /// usable 'mvhd' give an empty map. Never throws, traps or reads past a box.
    static func read(url: URL) -> [CMPersistentTrackID: TrackEditList] {
        guard let file = try? MediaFile(url: url),
              ISOBoxReader.looksLikeISOBMFF(file.read(upTo: 8, at: 0)),
              let moov = ISOBMFFMetadataParser(file: file).readMovieBox() else { return [:] }
        return parse(movieBox: moov)
    }

    /// The edit lists in the payload of a 'moov' box.
    static func parse(movieBox moov: [UInt8]) -> [CMPersistentTrackID: TrackEditList] {
        let buffer = ISOBoxReader(bytes: moov)
        let root = ISOBox(type: FourCC.code("moov"), payloadStart: 0, end: moov.count)
        let boxes = buffer.children(of: root)
        guard let mvhd = boxes.first(where: { $0.type == FourCC.code("mvhd") }),
              let movieTimescale = movieTimescale(buffer, mvhd) else { return [:] }
        var lists: [CMPersistentTrackID: TrackEditList] = [:]
        for trak in boxes where trak.type == FourCC.code("trak") {
            guard let trackID = trackID(buffer, trak), lists[trackID] == nil,
                  let elst = buffer.descend(trak, ["edts", "elst"]),
                  let entries = EditListBox.entries(buffer, elst),
                  let mdhd = buffer.descend(trak, ["mdia", "mdhd"]),
                  let (mediaTimescale, mediaDuration) = mediaHeader(buffer, mdhd) else { continue }
            lists[trackID] = TrackEditList(movieTimescale: movieTimescale, mediaTimescale: mediaTimescale,
                                           mediaDuration: mediaDuration, entries: entries)
        }
        return lists
    }

    /// The mvhd timescale (version 0 or 1), when positive and within `Int32`.
    private static func movieTimescale(_ buffer: ISOBoxReader, _ mvhd: ISOBox) -> Int32? {
        guard let (timescale, _) = buffer.timescaleAndDuration(mvhd), timescale > 0, let value = Int32(exactly: timescale) else {
            return nil
        }
        return value
    }

    /// The tkhd track ID (version 0 or 1), when positive and within `Int32`.
    private static func trackID(_ buffer: ISOBoxReader, _ trak: ISOBox) -> CMPersistentTrackID? {
        guard let tkhd = buffer.child("tkhd", of: trak), let version = buffer.u8(tkhd.payloadStart), version <= 1 else { return nil }
        let at = tkhd.payloadStart + (version == 1 ? 20 : 12)
        guard at + 4 <= tkhd.end, let id = buffer.u32(at), id > 0, let value = Int32(exactly: id) else { return nil }
        return value
    }

    /// The mdhd timescale and duration (version 0 or 1).
    private static func mediaHeader(_ buffer: ISOBoxReader, _ mdhd: ISOBox) -> (Int32, UInt64)? {
        guard let (timescale, duration) = buffer.timescaleAndDuration(mdhd), timescale > 0,
              let value = Int32(exactly: timescale) else { return nil }
        return (value, duration)
    }
}
