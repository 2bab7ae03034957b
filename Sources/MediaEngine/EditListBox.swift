// Edit lists ('edts'/'elst') of ISO base media files, read and written with the one box reader
// and writer. FFmpeg 5.1's mov muxer writes at most one edit per track (plus a leading empty
// edit); a movie presenting several pieces of its media — a composition exported by
// passthrough — has its tracks' edit lists rewritten here after muxing, with as many entries as
// it needs: empty edits (media time −1), media edits at any rate, version 1 when a value
// outgrows 32 bits. The track and movie header durations follow the new lists.
import CoreMedia
import Foundation

/// One edit of a track in times rather than timescale units: `duration` of movie time showing
/// the media from `mediaStart` at `rate` (nil `mediaStart`: an empty edit). Converted to an
/// `EditListEntry` in the movie's own timescales when it is written.
package struct MovieEdit: Sendable, Equatable {
    package var duration: CMTime
    package var mediaStart: CMTime?
    /// The media rate (16.16 fixed point when written): 1 plays the media as it is.
    package var rate: Double

    package init(duration: CMTime, mediaStart: CMTime?, rate: Double = 1) {
        self.duration = duration
        self.mediaStart = mediaStart
        self.rate = rate
    }
}

/// One entry of an 'elst' box, as stored.
package struct EditListEntry: Sendable, Equatable {
    /// The entry's length in the movie timeline, in the movie timescale.
    package var segmentDuration: UInt64
    /// Where the entry starts in the media, in the media timescale; -1 for an empty edit.
    package var mediaTime: Int64
    /// The integer part of the playback rate (16.16 fixed point with `mediaRateFraction`).
    package var mediaRateInteger: Int16
    /// The fractional part of the playback rate, in 1/65536.
    package var mediaRateFraction: Int16

    package init(segmentDuration: UInt64, mediaTime: Int64, mediaRateInteger: Int16 = 1, mediaRateFraction: Int16 = 0) {
        self.segmentDuration = segmentDuration
        self.mediaTime = mediaTime
        self.mediaRateInteger = mediaRateInteger
        self.mediaRateFraction = mediaRateFraction
    }

    /// An empty edit: `duration` of movie time that presents nothing.
    package static func empty(duration: UInt64) -> EditListEntry {
        EditListEntry(segmentDuration: duration, mediaTime: -1)
    }

    /// Whether the entry is an empty edit (presents no media).
    package var isEmpty: Bool { mediaTime == -1 }
}

package enum EditListBox {
    /// The most entries honoured in one edit list; longer lists are ignored.
    package static let maximumEntries = 100_000

    /// The entries of an 'elst' box; nil when its version is unknown or `entry_count` claims
    /// more entries than the box holds — unless `upToEnd`, which reads the entries that are there.
    package static func entries(_ buffer: ISOBoxReader, _ elst: ISOBox, upToEnd: Bool = false) -> [EditListEntry]? {
        guard let (version, _) = buffer.fullBox(elst), version <= 1, var count = buffer.u32(elst.payloadStart + 4).map(Int.init) else {
            return nil
        }
        let entrySize = version == 1 ? 20 : 12
        let available = max(0, elst.end - (elst.payloadStart + 8)) / entrySize
        if upToEnd { count = min(count, available) }
        guard count <= maximumEntries, count <= available else { return nil }
        var entries: [EditListEntry] = []
        entries.reserveCapacity(count)
        var at = elst.payloadStart + 8
        for _ in 0..<count {
            let duration: UInt64, mediaTime: Int64
            if version == 1 {
                guard let d = buffer.u64(at), let m = buffer.u64(at + 8) else { return nil }
                duration = d; mediaTime = Int64(bitPattern: m)
            } else {
                guard let d = buffer.u32(at), let m = buffer.u32(at + 4) else { return nil }
                duration = UInt64(d); mediaTime = Int64(Int32(bitPattern: m))
            }
            let rateAt = at + entrySize - 4
            guard let rateInteger = buffer.u16(rateAt), let rateFraction = buffer.u16(rateAt + 2) else { return nil }
            entries.append(EditListEntry(segmentDuration: duration, mediaTime: mediaTime,
                                         mediaRateInteger: Int16(bitPattern: rateInteger),
                                         mediaRateFraction: Int16(bitPattern: rateFraction)))
            at += entrySize
        }
        return entries
    }

    /// The 'elst' box of `entries`: version 0 when every duration and media time fits 32 bits,
    /// else version 1.
    package static func elst(_ entries: [EditListEntry]) -> [UInt8] {
        let wide = entries.contains { $0.segmentDuration > UInt64(UInt32.max) || $0.mediaTime > Int64(Int32.max) || $0.mediaTime < Int64(Int32.min) }
        var payload = BoxBytes.be32(UInt32(entries.count))
        payload.reserveCapacity(4 + entries.count * (wide ? 20 : 12))
        for entry in entries {
            if wide {
                payload += BoxBytes.be64(entry.segmentDuration) + BoxBytes.be64(UInt64(bitPattern: entry.mediaTime))
            } else {
                payload += BoxBytes.be32(UInt32(entry.segmentDuration)) + BoxBytes.be32(UInt32(bitPattern: Int32(entry.mediaTime)))
            }
            payload += BoxBytes.be16(UInt16(bitPattern: entry.mediaRateInteger)) + BoxBytes.be16(UInt16(bitPattern: entry.mediaRateFraction))
        }
        return BoxBytes.fullBox("elst", version: wide ? 1 : 0, payload)
    }

    /// The 'edts' box holding the 'elst' of `entries`.
    package static func edts(_ entries: [EditListEntry]) -> ISOBoxNode {
        ISOBoxNode(type: "edts", payload: elst(entries))
    }

    /// Rewrites the edit lists of tracks of the finished movie at `url` (a file the caller owns),
    /// by track ID (tkhd): each listed track's 'edts' is replaced (or added), its track header
    /// duration becomes the sum of its entries, and the movie header duration the longest
    /// track's. Media data stays byte for byte (its offsets are moved if the movie box moves it).
    /// Throws a BoxError for a damaged movie, an unknown track ID or a list with no entries, a
    /// MediaError when the file cannot be read or written.
    package static func rewrite(_ url: URL, editLists: [Int32: [EditListEntry]]) throws {
        guard editLists.values.allSatisfy({ !$0.isEmpty }) else { throw BoxError(reason: "an edit list has no entries") }
        try MovieBoxRewriter.rewriteInPlace(url) { movie, _ throws(BoxError) in
            try apply(editLists, to: &movie)
        }
    }

    /// Rewrites the edit lists of tracks given in times (see `rewrite(_:editLists:)`), each
    /// converted into the movie (mvhd) and media (mdhd) timescales the file has.
    package static func rewrite(_ url: URL, edits: [Int32: [MovieEdit]]) throws {
        guard edits.values.allSatisfy({ !$0.isEmpty }) else { throw BoxError(reason: "an edit list has no entries") }
        try MovieBoxRewriter.rewriteInPlace(url) { movie, _ throws(BoxError) in
            try apply(try entries(edits, in: movie), to: &movie)
        }
    }

    /// The entries of edits in the timescales of `movie`'s header and its tracks' media headers.
    package static func entries(_ edits: [Int32: [MovieEdit]], in movie: ISOBoxNode) throws(BoxError) -> [Int32: [EditListEntry]] {
        func timescale(_ box: ISOBoxNode?) throws(BoxError) -> Int32 {
            let reader = ISOBoxReader(bytes: box?.payload ?? [])
            guard let (value, _) = reader.timescaleAndDuration(ISOBox(type: box?.type ?? 0, payloadStart: 0, end: reader.bytes.count)),
                  let scale = Int32(exactly: value), scale > 0 else { throw BoxError(reason: "a movie or media header has no timescale") }
            return scale
        }
        func units(_ time: CMTime, _ scale: Int32) throws(BoxError) -> Int64 {
            let converted = CMTimeConvertScale(time, timescale: scale, method: .roundHalfAwayFromZero)
            guard time.isNumeric, converted.isNumeric, converted.value >= 0 else {
                throw BoxError(reason: "an edit's time (\(time.seconds) s) cannot be written")
            }
            return converted.value
        }
        let movieScale = try timescale(movie.child("mvhd"))
        var result: [Int32: [EditListEntry]] = [:]
        for trak in movie.children("trak") {
            let tkhd = ISOBoxReader(bytes: trak.child("tkhd")?.payload ?? [])
            guard let version = tkhd.u8(0), let id = tkhd.u32(version == 1 ? 20 : 12), let trackID = Int32(exactly: id),
                  let trackEdits = edits[trackID] else { continue }
            let mediaScale = try timescale(trak.child("mdia")?.child("mdhd"))
            result[trackID] = try trackEdits.map { edit throws(BoxError) in
                let duration = UInt64(try units(edit.duration, movieScale))
                guard let start = edit.mediaStart else { return .empty(duration: duration) }
                let fixed = (edit.rate * 65536).rounded()
                guard edit.rate > 0, fixed <= Double(Int32.max) else { throw BoxError(reason: "an edit's rate (\(edit.rate)) cannot be written") }
                let rate = Int32(fixed)
                return EditListEntry(segmentDuration: duration, mediaTime: try units(start, mediaScale),
                                     mediaRateInteger: Int16(truncatingIfNeeded: rate >> 16),
                                     mediaRateFraction: Int16(truncatingIfNeeded: rate & 0xFFFF))
            }
        }
        // Tracks the movie does not have are refused by `apply`.
        for trackID in edits.keys where result[trackID] == nil { result[trackID] = [] }
        return result
    }

    /// Puts the edit lists into a parsed movie box and fixes the header durations.
    package static func apply(_ editLists: [Int32: [EditListEntry]], to movie: inout ISOBoxNode) throws(BoxError) {
        guard var children = movie.children, let mvhdIndex = children.firstIndex(where: { $0.type == FourCC.code("mvhd") }) else {
            throw BoxError(reason: "its movie box has no movie header")
        }
        var remaining = Set(editLists.keys)
        var longest: UInt64 = 0
        for index in children.indices where children[index].type == FourCC.code("trak") {
            var trak = children[index]
            guard var parts = trak.children, let tkhdIndex = parts.firstIndex(where: { $0.type == FourCC.code("tkhd") }) else {
                throw BoxError(reason: "a track has no track header")
            }
            let tkhd = ISOBoxReader(bytes: parts[tkhdIndex].payload)
            guard let version = tkhd.u8(0), version <= 1,
                  let id = tkhd.u32(version == 1 ? 20 : 12),
                  let duration = version == 1 ? tkhd.u64(28) : tkhd.u32(20).map(UInt64.init) else {
                throw BoxError(reason: "a track header is cut short")
            }
            guard let trackID = Int32(exactly: id), let entries = editLists[trackID] else {
                longest = max(longest, duration)
                continue
            }
            remaining.remove(trackID)
            let (total, overflow) = entries.reduce((UInt64(0), false)) { sum, entry in
                let (value, carry) = sum.0.addingReportingOverflow(entry.segmentDuration)
                return (value, sum.1 || carry)
            }
            guard !overflow, version == 1 || total <= UInt64(UInt32.max) else {
                throw BoxError(reason: "the edit list of track \(trackID) is longer than its track header can say")
            }
            parts[tkhdIndex].payload.replaceSubrange(version == 1 ? 28..<36 : 20..<24,
                                                     with: version == 1 ? BoxBytes.be64(total) : BoxBytes.be32(UInt32(total)))
            parts.removeAll { $0.type == FourCC.code("edts") }
            // 'edts' goes after 'tkhd' (and a 'tapt'/'clip'/'matt' that follows it), before 'mdia'.
            let mediaIndex = parts.firstIndex { $0.type == FourCC.code("mdia") } ?? parts.endIndex
            parts.insert(edts(entries), at: mediaIndex)
            trak.children = parts
            children[index] = trak
            longest = max(longest, total)
        }
        if let missing = remaining.min() { throw BoxError(reason: "it has no track with ID \(missing)") }
        let mvhd = ISOBoxReader(bytes: children[mvhdIndex].payload)
        guard let version = mvhd.u8(0), version <= 1, mvhd.bytes.count >= (version == 1 ? 32 : 20) else {
            throw BoxError(reason: "its movie header is cut short")
        }
        guard version == 1 || longest <= UInt64(UInt32.max) else { throw BoxError(reason: "the movie is longer than its header can say") }
        children[mvhdIndex].payload.replaceSubrange(version == 1 ? 24..<32 : 16..<20,
                                                    with: version == 1 ? BoxBytes.be64(longest) : BoxBytes.be32(UInt32(longest)))
        movie.children = children
    }
}
