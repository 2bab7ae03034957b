// MediaFile: the one wrapper of a file the engine reads or rewrites itself (box walks, the movie
// rewriter, metadata): positioned POSIX reads and writes that fail with the errno as a
// MediaError, bounded lenient reads for parsers that treat a short file as fewer boxes, and the
// walk over its boxes.
import Foundation

/// A regular file opened with POSIX calls. Not thread-safe for writing; reads are positioned
/// (`pread`), so concurrent readers never disturb each other.
package final class MediaFile: @unchecked Sendable {
    private var descriptor: Int32
    package let path: String
    /// The length when opened.
    package let length: UInt64

    /// Opens an existing regular file for reading (and writing).
    package init(path: String, writable: Bool = false) throws(MediaError) {
        self.path = path
        descriptor = open(path, writable ? O_RDWR : O_RDONLY)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: throw .fileNotFound(code: -code, message: "\(path): \(String(cString: strerror(code)))")
            case EACCES, EPERM: throw .permissionDenied(code: -code, message: "\(path): \(String(cString: strerror(code)))")
            default: throw .other(code: -code, message: "\(path): \(String(cString: strerror(code)))")
            }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Foundation.close(descriptor)
            descriptor = -1
            throw .formatNotRecognized(code: -EISDIR, message: "\(path): not a regular file")
        }
        length = UInt64(info.st_size)
    }

    package convenience init(url: URL, writable: Bool = false) throws(MediaError) {
        try self.init(path: url.path, writable: writable)
    }

    /// Creates a new file (never replacing one: an existing file fails with `EEXIST`).
    package init(creating url: URL) throws(MediaError) {
        path = url.path
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            throw .other(code: -code, message: "\(path): cannot create the file: \(String(cString: strerror(code)))")
        }
        length = 0
    }

    deinit { close() }

    package func close() {
        if descriptor >= 0 { Foundation.close(descriptor) }
        descriptor = -1
    }

    private func failure(_ action: String) -> MediaError {
        let code = errno
        return .other(code: -code, message: "\(path): \(action): \(String(cString: strerror(code)))")
    }

    /// Exactly `count` bytes at `offset`; a file that ends first is a parse failure.
    package func read(count: Int, at offset: UInt64) throws(MediaError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try read(into: &bytes, count: count, at: offset)
        return bytes
    }

    package func read(into buffer: inout [UInt8], count: Int, at offset: UInt64) throws(MediaError) {
        let done = try readAvailable(into: &buffer, count: count, at: offset)
        if done < count { throw MediaError.failedToParse(code: -EIO, message: "\(path): the file ended early (changed while being read?)") }
    }

    /// Up to `count` bytes at `offset`: fewer at the end of the file, none past it or when
    /// reading fails (for parsers to which a short file means fewer boxes, never an error).
    package func read(upTo count: Int, at offset: UInt64) -> [UInt8] {
        guard count > 0, offset < length else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(min(UInt64(count), length - offset)))
        guard let done = try? readAvailable(into: &bytes, count: bytes.count, at: offset) else { return [] }
        if done < bytes.count { bytes.removeSubrange(done...) }
        return bytes
    }

    private func readAvailable(into buffer: inout [UInt8], count: Int, at offset: UInt64) throws(MediaError) -> Int {
        precondition(count <= buffer.count)
        var done = 0
        while done < count {
            let result = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read")
            }
            if result == 0 { break }
            done += result
        }
        return done
    }

    package func write(_ bytes: some Collection<UInt8>, at offset: UInt64) throws(MediaError) {
        let array = Array(bytes)
        var done = 0
        while done < array.count {
            let result = array.withUnsafeBytes { raw in
                pwrite(descriptor, raw.baseAddress! + done, array.count - done, off_t(offset) + off_t(done))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write")
            }
            done += result
        }
    }

    package func truncate(_ length: UInt64) throws(MediaError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw failure("cannot set the file's length") }
    }

    package func synchronize() throws(MediaError) {
        guard fsync(descriptor) == 0 else { throw failure("cannot write") }
    }

    /// A walk over the boxes laid end to end in `start..<end` of the file (its end by default),
    /// reading only their headers. A read failure ends the walk with a `.io` BoxError.
    package func boxes(from start: UInt64 = 0, to end: UInt64? = nil, maximumBoxes: Int) -> ISOBoxWalker {
        let limit = min(end ?? length, length)
        return ISOBoxWalker(from: start, to: limit, maximumBoxes: maximumBoxes) { [self] (at: UInt64) throws(BoxError) in
            ArraySlice(try boxBytes(count: Int(min(16, limit - at)), at: at))
        }
    }

    /// `read(count:at:)` for the box walks: a failure is a `.io` BoxError.
    private func boxBytes(count: Int, at offset: UInt64) throws(BoxError) -> [UInt8] {
        do {
            return try read(count: count, at: offset)
        } catch {
            throw BoxError(.io, reason: error.message, underlying: error)
        }
    }

    /// The payload of the first top-level box of `type` (a 'moov' cut by the end of the file is
    /// read as far as it goes), or nil when there is none, it is larger than `maximum`, or the
    /// top-level boxes before it are damaged.
    package func topLevelPayload(_ type: String, maximum: UInt64, maximumBoxes: Int = 10_000) -> [UInt8]? {
        var walker = boxes(maximumBoxes: maximumBoxes)
        let code = FourCC.code(type)
        while let box = try? walker.next() {
            if box.type == code { return try? payload(of: box, maximum: maximum) }
        }
        return nil
    }

    /// The payload of a box found by a walk, when it fits in the file and is at most `maximum`
    /// bytes.
    package func payload(of box: ISOBoxHeader, maximum: UInt64) throws(BoxError) -> [UInt8] {
        let length = box.size - box.headerLength
        guard length <= maximum else {
            throw BoxError(.tooMany, reason: "its '\(box.typeName)' box is larger than \(maximum >> 20) MiB")
        }
        return try boxBytes(count: Int(length), at: box.payloadOffset)
    }
}
