// An AIFF or AIFF-C file being written keeps zero in its sizes (the FORM size, the COMM chunk's
// frame count, the SSND size) until libavformat writes its trailer, and a file whose sizes are zero
// is unreadable. Patching them after each flush keeps a recording killed at any moment readable up
// to that flush, as WAV's and CAF's readers are without help. The trailer writes the same fields
// the same way (frames = sound bytes ÷ block align), so a finished file is unchanged by this.
internal import CFFmpeg
import Foundation

enum AIFFSizePatch {
    /// The most chunks walked before the sound data (an AIFF header has three to five).
    static let maximumChunks = 32

    /// Writes the sizes of `path`, `length` bytes long (everything flushed), whose sound samples
    /// come in blocks of `blockAlign` bytes. Throws when the header is not an AIFF header with its
    /// COMM chunk before its SSND chunk.
    static func update(path: String, length: Int64, blockAlign: Int) throws(MediaError) {
        guard blockAlign > 0, length > 12 else { return }
        let fd = open(path, O_RDWR)
        guard fd >= 0 else { throw Muxer.ioError(code: cffmpeg_averror(errno), path: path, action: "cannot update the AIFF header") }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 4096)
        let read = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard read >= 12, header[0..<4] == [0x46, 0x4F, 0x52, 0x4D] else {   // "FORM"
            throw MediaError.invalidArgument(message: "\(path) does not start with an AIFF FORM chunk")
        }
        func be32(_ offset: Int) -> Int { header[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 12, framesField: Int?, soundChunk: Int?
        for _ in 0..<maximumChunks where offset + 8 <= read {
            let id = String(decoding: header[offset..<(offset + 4)], as: UTF8.self)
            if id == "COMM" { framesField = offset + 10 }   // after the id, size and channel count
            if id == "SSND" { soundChunk = offset; break }
            offset += 8 + be32(offset + 4) + (be32(offset + 4) & 1)
        }
        guard let framesField, let soundChunk, framesField + 4 <= read else {
            throw MediaError.invalidArgument(message: "\(path) has no COMM chunk before its SSND chunk")
        }
        // Sound bytes follow the SSND chunk's header (id, size) and its offset and block size.
        let soundBytes = max(0, length - Int64(soundChunk) - 16)
        let fields: [(at: Int, value: Int64)] = [
            (4, length - 8), (framesField, soundBytes / Int64(blockAlign)), (soundChunk + 4, soundBytes + 8),
        ]
        for field in fields {
            let value = UInt32(clamping: field.value)
            var bytes = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            guard bytes.withUnsafeMutableBytes({ pwrite(fd, $0.baseAddress, 4, off_t(field.at)) }) == 4 else {
                throw Muxer.ioError(code: cffmpeg_averror(errno), path: path, action: "cannot update the AIFF header")
            }
        }
    }
}
