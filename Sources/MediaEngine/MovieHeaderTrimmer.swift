// MovieHeaderTrimmer: cuts a finished QuickTime/MPEG-4 movie's presentation at a time by
// rewriting the durations in its movie header (mvhd, tkhd, elst) in place — what the Muxer does
// for a writer session that ends before its last samples.
import CoreMedia
import Foundation

/// Rewrites the duration fields of a finished, unfragmented ISO-BMFF movie so that it presents
/// `end` (movie time) at most: each track's edit list is shortened (later edits dropped to zero
/// length, the edit that crosses `end` cut), the track header durations become their edits' sum,
/// and the movie header's duration the longest track. Box sizes never change, so the file is
/// patched where it lies. Tracks shorter than `end` are left alone.
package enum MovieHeaderTrimmer {
    package static func trim(path: String, to end: CMTime) throws(MediaError) {
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw MediaError.other(code: -1, message: "\(path): cannot reopen the movie to set its duration")
        }
        defer { try? handle.close() }
        do {
            let fileSize = try handle.seekToEnd()
            // Find the moov box among the top-level boxes.
            var offset: UInt64 = 0
            var moov: (offset: UInt64, size: UInt64)?
            while offset + 8 <= fileSize {
                try handle.seek(toOffset: offset)
                guard let header = try handle.read(upToCount: 16), header.count >= 8 else { break }
                var size = UInt64(be32(header, 0))
                let type = String(decoding: header[4..<8], as: UTF8.self)
                if size == 1, header.count >= 16 { size = be64(header, 8) } else if size == 0 { size = fileSize - offset }
                // Sizes are the file's: never step past its end (a 64-bit size may be near 2^64).
                guard size >= 8, size <= fileSize - offset else { break }
                if type == "moov" { moov = (offset, size); break }
                offset += size
            }
            guard let moov, moov.size < 64 << 20 else { return }
            try handle.seek(toOffset: moov.offset)
            guard var bytes = try handle.read(upToCount: Int(moov.size)), bytes.count == Int(moov.size) else { return }
            if patch(&bytes, end: end) {
                try handle.seek(toOffset: moov.offset)
                try handle.write(contentsOf: bytes)
            }
        } catch {
            throw MediaError.other(code: -1, message: "\(path): cannot set the movie's duration: \(error)")
        }
    }

    /// Patches a moov box held in `bytes`; false when nothing changed.
    static func patch(_ bytes: inout Data, end: CMTime) -> Bool {
        let base = bytes.startIndex
        guard let mvhd = children(of: bytes, from: base + 8, to: base + bytes.count).first(where: { $0.type == "mvhd" }) else { return false }
        // Every field read or written lies inside its box (the box tree is the file's).
        func inside(_ box: Box, _ at: Int, _ length: Int) -> Bool { at >= box.body && at <= box.end - length }
        guard inside(mvhd, mvhd.body, 1) else { return false }
        let mvhdVersion = bytes[mvhd.body]
        let timescaleAt = mvhd.body + (mvhdVersion == 1 ? 20 : 12)
        let mvhdDurationAt = mvhd.body + (mvhdVersion == 1 ? 24 : 16)
        guard inside(mvhd, mvhdDurationAt, mvhdVersion == 1 ? 8 : 4) else { return false }
        let movieTimescale = Int64(be32(bytes, timescaleAt - base))
        guard movieTimescale > 0 else { return false }
        let limit = CMTimeConvertScale(end, timescale: Int32(clamping: movieTimescale), method: .roundHalfAwayFromZero).value
        guard limit > 0 else { return false }
        var changed = false
        var longest: Int64 = 0
        for trak in children(of: bytes, from: base + 8, to: base + bytes.count) where trak.type == "trak" {
            let parts = children(of: bytes, from: trak.body, to: trak.end)
            var total: Int64?
            if let edts = parts.first(where: { $0.type == "edts" }),
               let elst = children(of: bytes, from: edts.body, to: edts.end).first(where: { $0.type == "elst" }),
               inside(elst, elst.body, 8) {
                let version = bytes[elst.body]
                let count = Int(be32(bytes, elst.body + 4 - base))
                let entrySize = version == 1 ? 20 : 12
                var position = elst.body + 8
                var sum: Int64 = 0
                for _ in 0..<count {
                    guard inside(elst, position, entrySize) else { break }
                    let duration = version == 1 ? Int64(bitPattern: be64(bytes, position - base)) : Int64(be32(bytes, position - base))
                    let kept = max(0, min(duration, limit - sum))
                    if kept != duration {
                        if version == 1 { put64(&bytes, position - base, UInt64(kept)) } else { put32(&bytes, position - base, UInt32(clamping: kept)) }
                        changed = true
                    }
                    sum += kept
                    position += entrySize
                }
                total = sum
            }
            if let tkhd = parts.first(where: { $0.type == "tkhd" }), inside(tkhd, tkhd.body, 1),
               inside(tkhd, tkhd.body + (bytes[tkhd.body] == 1 ? 28 : 20), bytes[tkhd.body] == 1 ? 8 : 4) {
                let version = bytes[tkhd.body]
                let at = tkhd.body + (version == 1 ? 28 : 20) - base
                let current = version == 1 ? Int64(bitPattern: be64(bytes, at)) : Int64(be32(bytes, at))
                let wanted = total.map { min(current, $0) } ?? min(current, limit)
                if wanted != current {
                    if version == 1 { put64(&bytes, at, UInt64(bitPattern: wanted)) } else { put32(&bytes, at, UInt32(clamping: wanted)) }
                    changed = true
                }
                longest = max(longest, wanted)
            }
        }
        let at = mvhdDurationAt - base
        let current = mvhdVersion == 1 ? Int64(bitPattern: be64(bytes, at)) : Int64(be32(bytes, at))
        let wanted = min(current, longest > 0 ? longest : limit)
        if wanted != current {
            if mvhdVersion == 1 { put64(&bytes, at, UInt64(bitPattern: wanted)) } else { put32(&bytes, at, UInt32(clamping: wanted)) }
            changed = true
        }
        return changed
    }

    struct Box {
        let type: String
        /// Index of the first byte after the header (version/flags for full boxes).
        let body: Int
        let end: Int
    }

    /// The boxes between `start` and `end` (indices into `bytes`).
    static func children(of bytes: Data, from start: Int, to end: Int) -> [Box] {
        var out: [Box] = []
        var i = start
        while i + 8 <= end {
            var size = Int(be32(bytes, i - bytes.startIndex))
            var header = 8
            if size == 1, i + 16 <= end {
                size = Int(clamping: be64(bytes, i + 8 - bytes.startIndex))
                header = 16
            } else if size == 0 {
                size = end - i
            }
            guard size >= header, size <= end - i else { break }
            let type = String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)
            out.append(Box(type: type, body: i + header, end: i + size))
            i += size
        }
        return out
    }

    static func be32(_ d: Data, _ offset: Int) -> UInt32 {
        let i = d.startIndex + offset
        return UInt32(d[i]) << 24 | UInt32(d[i + 1]) << 16 | UInt32(d[i + 2]) << 8 | UInt32(d[i + 3])
    }

    static func be64(_ d: Data, _ offset: Int) -> UInt64 {
        UInt64(be32(d, offset)) << 32 | UInt64(be32(d, offset + 4))
    }

    static func put32(_ d: inout Data, _ offset: Int, _ v: UInt32) {
        let i = d.startIndex + offset
        d[i] = UInt8(v >> 24); d[i + 1] = UInt8(v >> 16 & 0xFF); d[i + 2] = UInt8(v >> 8 & 0xFF); d[i + 3] = UInt8(v & 0xFF)
    }

    static func put64(_ d: inout Data, _ offset: Int, _ v: UInt64) {
        put32(&d, offset, UInt32(v >> 32))
        put32(&d, offset + 4, UInt32(v & 0xFFFF_FFFF))
    }
}
