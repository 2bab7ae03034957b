// A fragmented ISO-BMFF file cut off while it was being written (a recording interrupted by a
// crash, a full disk, a pulled cable) ends inside its last fragment. FFmpeg 5.1's QuickTime demuxer
// reads every fragment header when it opens a seekable file and gives up on the whole file when
// the last track run is cut; a cut inside the last media data makes reading fail on its partial
// packet. Such a file is opened as if it ended after its last complete fragment, so everything
// up to there reads as a clean file.
import Foundation

enum DemuxerFragmentRecovery {
    /// The most top-level boxes walked before giving up on recovery (an hour of 0.1 s fragments
    /// is 72,000 boxes).
    static let maximumBoxes = 200_000

    /// The byte length a cut fragmented ISO-BMFF file should be read as: the end of its last
    /// complete fragment. Nil when the file is not ISO-BMFF, not fragmented, or not cut.
    static func readableLength(path: String) -> Int64? {
        guard let file = try? MediaFile(path: path), file.length >= 16 else { return nil }
        var walker = file.boxes(maximumBoxes: maximumBoxes)
        var sawFragment = false
        // End of the last complete box that is not a fragment header waiting for its data.
        var safeEnd: UInt64 = 0
        var first = true
        do {
            while let box = try walker.next() {
                if first, !["ftyp", "styp", "moov", "free", "skip", "wide"].map(FourCC.code).contains(box.type) { return nil }
                first = false
                if box.type == FourCC.code("moof") { sawFragment = true }
                guard box.fits else { break }  // the cut box
                if box.type != FourCC.code("moof") { safeEnd = box.end }
            }
        } catch where error.kind == .truncatedHeader || error.kind == .tooMany {
            // A header cut by the end is the cut box; past the walk's bound, the file is read up
            // to the last complete box seen.
        } catch {
            return nil  // not a box structure we can walk
        }
        guard sawFragment, walker.offset < file.length, safeEnd > 0 else { return nil }
        return Int64(safeEnd)
    }

    /// The libavformat URL that reads only the first `length` bytes of the file at `path`.
    static func url(path: String, length: Int64) -> String {
        "subfile,,start,0,end,\(length),,:file:\(path)"
    }
}
