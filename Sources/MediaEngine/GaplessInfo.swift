// Gapless information a file carries beside its packets: how many frames the encoder was given,
// so a reader can give exactly those — an MP3's LAME tag (in its first frame's Xing/Info header:
// the frame count, the encoder delay and the padding) and an MP4's iTunSMPB tag (iTunes' priming,
// padding and frame count). FFmpeg 5.1 skips the priming of both when decoding but reports the
// stream's duration with priming and padding in it; Apple's readers report the frames encoded.
import Foundation

enum GaplessInfo {
    /// The frames an MP3 encoder was given, from the LAME tag of the file at `path` (written by
    /// LAME and by FFmpeg's libmp3lame): Xing frames × samples per frame − delay − padding. Nil
    /// when the file has no such tag.
    static func mp3FrameCount(path: String) -> Int64? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard var bytes = try? handle.read(upToCount: 10), bytes.count == 10 else { return nil }
        var start = 0
        if bytes.starts(with: Array("ID3".utf8)) {
            // ID3v2: a syncsafe size after the header, and a footer when flagged.
            let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
            start = 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)
        }
        do {
            try handle.seek(toOffset: UInt64(start))
            bytes = try handle.read(upToCount: 512) ?? Data()
        } catch {
            return nil
        }
        let b = [UInt8](bytes)
        // The first frame's header: sync, MPEG version, layer III.
        guard b.count >= 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0, b[1] >> 1 & 3 == 1 else { return nil }
        let version = b[1] >> 3 & 3   // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
        guard version != 1 else { return nil }
        let mono = b[3] >> 6 == 3
        let sideInfo = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        let samplesPerFrame: Int64 = version == 3 ? 1152 : 576
        var at = 4 + sideInfo
        func be32(_ offset: Int) -> Int64 { b[offset..<(offset + 4)].reduce(Int64(0)) { $0 << 8 | Int64($1) } }
        guard at + 8 <= b.count, ["Xing", "Info"].contains(String(decoding: b[at..<(at + 4)], as: UTF8.self)) else { return nil }
        let flags = be32(at + 4)
        at += 8
        guard flags & 1 != 0, at + 4 <= b.count else { return nil }
        let frames = be32(at)
        at += 4
        if flags & 2 != 0 { at += 4 }
        if flags & 4 != 0 { at += 100 }
        if flags & 8 != 0 { at += 4 }
        // The LAME tag: its encoder string, then delay and padding (12 bits each) at +21.
        guard at + 24 <= b.count, ["LAME", "Lavf", "Lavc"].contains(String(decoding: b[at..<(at + 4)], as: UTF8.self)) else { return nil }
        let delay = Int64(b[at + 21]) << 4 | Int64(b[at + 22] >> 4)
        let padding = Int64(b[at + 22] & 0xF) << 8 | Int64(b[at + 23])
        let count = frames * samplesPerFrame - delay - padding
        return count > 0 ? count : nil
    }

    /// The frame count of an iTunSMPB tag (" 00000000 PRIMING PADDING COUNT …", hexadecimal);
    /// nil when it is not one or gives no count.
    static func iTunSMPBFrameCount(_ value: String) -> Int64? {
        let fields = value.split(separator: " ")
        guard fields.count >= 4, let count = Int64(fields[3], radix: 16), count > 0 else { return nil }
        return count
    }
}
