// MovieHeaderTrimmer: cuts a finished QuickTime/MPEG-4 movie's presentation at a time by
// rewriting the durations in its movie header (mvhd, tkhd, elst) in place — what the Muxer does
// for a writer session that ends before its last samples. The boxes are found with the one box
// reader (ISOBoxWalker over the file, ISOBoxReader over the movie box).
import CoreMedia
import Foundation

/// Rewrites the duration fields of a finished, unfragmented ISO-BMFF movie so that it presents
/// `end` (movie time) at most: each track's edit list is shortened (later edits dropped to zero
/// length, the edit that crosses `end` cut), the track header durations become their edits' sum,
/// and the movie header's duration the longest track. Box sizes never change, so the file is
/// patched where it lies. Tracks shorter than `end` are left alone.
package enum MovieHeaderTrimmer {
    /// The largest movie box patched.
    static let maximumMovieBoxSize: UInt64 = 64 << 20

    package static func trim(path: String, to end: CMTime) throws(MediaError) {
        let file: MediaFile
        do {
            file = try MediaFile(path: path, writable: true)
        } catch {
            throw MediaError.other(code: -1, message: "\(path): cannot reopen the movie to set its duration")
        }
        defer { file.close() }
        // The moov box among the top-level boxes; one that overruns the file is left alone.
        var walker = file.boxes(maximumBoxes: 1_000_000)
        var moov: ISOBoxHeader?
        while let box = try? walker.next(), box.fits {
            if box.type == FourCC.code("moov") { moov = box; break }
        }
        guard let moov, moov.size < maximumMovieBoxSize else { return }
        do {
            var bytes = try file.read(count: Int(moov.size), at: moov.offset)
            if patch(&bytes, end: end) { try file.write(bytes, at: moov.offset) }
        } catch {
            throw MediaError.other(code: -1, message: "\(path): cannot set the movie's duration: \(error)")
        }
    }

    /// Patches a moov box (header included) held in `bytes`; false when nothing changed.
    static func patch(_ bytes: inout [UInt8], end: CMTime) -> Bool {
        let reader = ISOBoxReader(bytes: bytes)
        guard let movie = reader.children(from: 0, to: bytes.count).first else { return false }
        let boxes = reader.children(of: movie)
        guard let mvhd = boxes.first(where: { $0.type == FourCC.code("mvhd") }),
              let (mvhdVersion, _) = reader.fullBox(mvhd),
              let (movieTimescale, mvhdDuration) = reader.timescaleAndDuration(mvhd), movieTimescale > 0 else {
            return false
        }
        let limit = CMTimeConvertScale(end, timescale: Int32(clamping: movieTimescale), method: .roundHalfAwayFromZero).value
        guard limit > 0 else { return false }
        var changed = false
        /// Writes a version 0 (32-bit) or 1 (64-bit) field when it differs.
        func set(_ value: Int64, at: Int, wide: Bool, current: Int64) {
            guard value != current else { return }
            let field = wide ? BoxBytes.be64(UInt64(bitPattern: value)) : BoxBytes.be32(UInt32(clamping: value))
            bytes.replaceSubrange(at..<(at + field.count), with: field)
            changed = true
        }
        var longest: Int64 = 0
        for trak in boxes where trak.type == FourCC.code("trak") {
            var total: Int64?
            if let elst = reader.descend(trak, ["edts", "elst"]), let (version, _) = reader.fullBox(elst),
               let entries = EditListBox.entries(reader, elst, upToEnd: true) {
                let entrySize = version == 1 ? 20 : 12
                var sum: Int64 = 0
                for (index, entry) in entries.enumerated() {
                    let duration = Int64(bitPattern: entry.segmentDuration)
                    let kept = max(0, min(duration, limit - sum))
                    set(kept, at: elst.payloadStart + 8 + index * entrySize, wide: version == 1, current: duration)
                    sum += kept
                }
                total = sum
            }
            if let tkhd = reader.child("tkhd", of: trak), let (version, _) = reader.fullBox(tkhd),
               let stored = reader.versionedField(tkhd, version0: 20, version1: 28) {
                let current = Int64(bitPattern: stored)
                let wanted = total.map { min(current, $0) } ?? min(current, limit)
                set(wanted, at: tkhd.payloadStart + (version == 1 ? 28 : 20), wide: version == 1, current: current)
                longest = max(longest, wanted)
            }
        }
        let current = Int64(bitPattern: mvhdDuration)
        let wanted = min(current, longest > 0 ? longest : limit)
        set(wanted, at: mvhd.payloadStart + (mvhdVersion == 1 ? 24 : 16), wide: mvhdVersion == 1, current: current)
        return changed
    }
}
