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
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 16 else { return nil }
        var offset: UInt64 = 0
        var sawFragment = false
        // End of the last complete box that is not a fragment header waiting for its data.
        var safeEnd: UInt64 = 0
        var count = 0
        while offset + 8 <= size, count < maximumBoxes {
            count += 1
            guard (try? handle.seek(toOffset: offset)) != nil,
                  let header = try? handle.read(upToCount: 16), header.count >= 8 else { return nil }
            let bytes = [UInt8](header)
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            if count == 1, !["ftyp", "styp", "moov", "free", "skip", "wide"].contains(type) { return nil }
            var boxSize = UInt64(bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if boxSize == 1 {
                guard bytes.count >= 16 else { break }
                boxSize = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else if boxSize == 0 {
                boxSize = size - offset  // runs to the end of the file: complete by definition
            }
            guard boxSize >= 8 else { return nil }  // not a box structure we can walk
            if type == "moof" { sawFragment = true }
            let (end, overflow) = offset.addingReportingOverflow(boxSize)
            if overflow || end > size { break }  // the cut box
            if type != "moof" { safeEnd = end }
            offset = end
        }
        guard sawFragment, offset < size, safeEnd > 0 else { return nil }
        return Int64(safeEnd)
    }

    /// The libavformat URL that reads only the first `length` bytes of the file at `path`.
    static func url(path: String, length: Int64) -> String {
        "subfile,,start,0,end,\(length),,:file:\(path)"
    }
}
