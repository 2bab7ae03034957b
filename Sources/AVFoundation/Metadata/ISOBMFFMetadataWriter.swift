// Our own ISO base media metadata writer: rewrites a finished MP4 / M4V / M4A / 3GP / MOV file's
// movie box with new metadata and copies everything else unchanged.
//
// The movie box is read into memory (at most 256 MiB) and edited (ISOBMFFMetadataEditor); media
// data is copied in 1 MiB pieces. When the movie box changes size, every chunk offset (`stco`,
// `co64`; `stco` becomes `co64` when an offset no longer fits 32 bits), every explicit fragment
// base offset (`tfhd`) and every fragment random access offset (`tfra`) is moved with the bytes it
// points at, so every media sample is the same before and after. A smaller movie box leaves a
// `free` box behind and a `free` box after the movie box absorbs growth, so offsets often stay.
// Damaged files are refused with an AVError before anything is written; the source is only
// read, except in the in-place mode meant for files the caller owns (AVAssetWriter's output).
import Foundation
internal import MediaEngine

package enum ISOBMFFMetadataWriter {
    /// Where the movie box goes.
    package enum Layout: Sendable {
        /// Where it is.
        case keep
        /// Before the media data (fast start).
        case movieFirst
    }

    /// The largest movie box rewritten.
    static let maximumMovieBoxSize: UInt64 = 256 << 20
    /// The largest movie fragment box read to patch its offsets.
    static let maximumFragmentBoxSize: UInt64 = 64 << 20
    /// The most top-level boxes walked.
    static let maximumTopLevelBoxes = 1_000_000
    /// The piece size media data is copied in.
    static let copyChunk = 1 << 20

    /// Writes a copy of `source` with `items` as its file-level metadata to `destination`.
    ///
    /// `replacingDestination`: an existing destination is replaced (atomically, also when it is
    /// the source); otherwise an existing destination fails with `AVError.fileAlreadyExists`.
    /// Throws an AVError for a damaged or foreign file, or a failure to read or write; nothing is
    /// left at `destination` then, and the source is never changed.
    package static func write(_ items: [AVMetadataItem], mode: ISOBMFFMetadataMode = .adding, from source: URL,
                              to destination: URL, layout: Layout = .keep, replacingDestination: Bool = false) throws {
        try rewrite(items, mode: mode, source: source, destination: destination, layout: layout,
                    replacing: replacingDestination, inPlace: false)
    }

    /// Rewrites a file the caller owns: when the media stays where it is (the movie box is last,
    /// or fits where it was) only the movie box is written; otherwise a new file replaces it.
    package static func rewriteInPlace(_ url: URL, items: [AVMetadataItem], mode: ISOBMFFMetadataMode = .adding,
                                       layout: Layout = .keep) throws {
        try rewrite(items, mode: mode, source: url, destination: url, layout: layout, replacing: true, inPlace: true)
    }

    /// The style a file's metadata is written in, from its `ftyp` major brand ('qt  ': QuickTime).
    static func style(forMajorBrand brand: UInt32?) -> ISOBMFFMetadataStyle {
        brand == FourCC.code("qt  ") ? .quickTimeMovie : .mpeg4
    }

    // MARK: The rewrite

    /// A top-level box of the source.
    struct TopBox {
        let type: UInt32
        let offset: UInt64
        let size: UInt64
        var end: UInt64 { offset + size }
    }

    /// A piece of the output: bytes of the source, new bytes, or (while planning) the place of
    /// the new movie box and the free box padding it.
    enum Piece {
        case source(offset: UInt64, length: UInt64)
        case bytes([UInt8])
        case movie(size: UInt64, padding: UInt64)

        var length: UInt64 {
            switch self {
            case .source(_, let length): return length
            case .bytes(let bytes): return UInt64(bytes.count)
            case .movie(let size, let padding): return size + padding
            }
        }
    }

    private static func rewrite(_ items: [AVMetadataItem], mode: ISOBMFFMetadataMode, source: URL, destination: URL,
                                layout: Layout, replacing: Bool, inPlace: Bool) throws {
        let input: FileDescriptor
        do {
            input = try FileDescriptor(url: source, writable: inPlace)
        } catch {
            throw AVError.from(error, url: source)
        }
        defer { input.close() }
        let plan: (pieces: [Piece], length: UInt64)
        do {
            plan = try makePlan(items, mode: mode, file: input, layout: layout)
        } catch let failure as ISOBMFFWriteFailure {
            throw damaged(failure, url: source)
        } catch let error as MediaError {
            throw AVError.from(error, url: source)
        }

        // In place when every source piece stays where it is: write the new bytes over the old.
        if inPlace {
            var position: UInt64 = 0
            var stays = true
            for piece in plan.pieces {
                if case .source(let offset, _) = piece, offset != position { stays = false; break }
                position += piece.length
            }
            if stays {
                do {
                    position = 0
                    for piece in plan.pieces {
                        if case .bytes(let bytes) = piece { try input.write(bytes, at: position) }
                        position += piece.length
                    }
                    try input.truncate(plan.length)
                } catch {
                    throw AVError.from(error, writingTo: destination)
                }
                return
            }
        }

        if !replacing, FileManager.default.fileExists(atPath: destination.path) {
            throw WriterError.fileAlreadyExists(url: destination)
        }
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            let output = try FileDescriptor(creating: temporary)
            do {
                defer { output.close() }
                var position: UInt64 = 0
                for piece in plan.pieces {
                    switch piece {
                    case .bytes(let bytes):
                        try output.write(bytes, at: position)
                    case .source(let offset, let length):
                        try copy(from: input, offset: offset, length: length, to: output, at: position)
                    case .movie:
                        preconditionFailure("the movie box is placed when planning")
                    }
                    position += piece.length
                }
                try output.synchronize()
            }
            if replacing {
                guard rename(temporary.path, destination.path) == 0 else {
                    throw MediaError.other(code: -errno, message: "\(destination.path): cannot replace the file")
                }
            } else {
                // link() fails if the destination appeared meanwhile: never replaces a file.
                guard link(temporary.path, destination.path) == 0 else {
                    let code = errno
                    if code == EEXIST { throw WriterError.fileAlreadyExists(url: destination) }
                    throw MediaError.other(code: -code, message: "\(destination.path): cannot create the file")
                }
                unlink(temporary.path)
            }
        } catch let error as MediaError {
            unlink(temporary.path)
            throw AVError.from(error, writingTo: destination)
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    private static func copy(from input: FileDescriptor, offset: UInt64, length: UInt64, to output: FileDescriptor,
                             at position: UInt64) throws(MediaError) {
        var done: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: copyChunk)
        while done < length {
            let count = Int(min(UInt64(copyChunk), length - done))
            try input.read(into: &buffer, count: count, at: offset + done)
            try output.write(buffer[0..<count], at: position + done)
            done += UInt64(count)
        }
    }

    private static func damaged(_ failure: ISOBMFFWriteFailure, url: URL) -> AVError {
        let code: AVError.Code = failure.notRecognized ? .fileFormatNotRecognized : .fileFailedToParse
        return AVError(code, userInfo: [
            NSLocalizedDescriptionKey: failure.notRecognized ? "Cannot Open" : "The file is damaged",
            NSLocalizedFailureReasonErrorKey: "The metadata of \(url.lastPathComponent) cannot be written: \(failure.reason).",
            NSURLErrorKey: url, NSFilePathErrorKey: url.path,
        ])
    }

    // MARK: Planning

    /// The output as pieces: the source's top-level boxes in order (the movie box moved first for
    /// `.movieFirst`), the new movie box and any patched fragment boxes as bytes.
    static func makePlan(_ items: [AVMetadataItem], mode: ISOBMFFMetadataMode, file: FileDescriptor, layout: Layout) throws
        -> (pieces: [Piece], length: UInt64) {
        let boxes = try topLevelBoxes(file)
        guard let movieIndex = boxes.firstIndex(where: { $0.type == FourCC.code("moov") }) else {
            throw ISOBMFFWriteFailure(reason: "it has no movie box ('moov')")
        }
        guard boxes.filter({ $0.type == FourCC.code("moov") }).count == 1 else {
            throw ISOBMFFWriteFailure(reason: "it has more than one movie box")
        }
        let oldMovie = boxes[movieIndex]
        guard oldMovie.size <= maximumMovieBoxSize else {
            throw ISOBMFFWriteFailure(reason: "its movie box is larger than \(maximumMovieBoxSize >> 20) MiB")
        }
        let movieBytes = try file.read(count: Int(oldMovie.size), at: oldMovie.offset)
        let header = ISOBMFFBuffer(bytes: movieBytes).u32(0) == 1 ? 16 : 8
        var movie = try MovieBox.parseMovie(Array(movieBytes[header...]))
        guard movie.child("mvhd") != nil else { throw ISOBMFFWriteFailure(reason: "its movie box has no movie header") }

        var brand: UInt32?
        if let ftyp = boxes.first, ftyp.type == FourCC.code("ftyp") {
            brand = ISOBMFFBuffer(bytes: try file.read(count: 4, at: ftyp.offset + 8)).u32(0)
        }
        try ISOBMFFMetadataEditor(style: style(forMajorBrand: brand)).apply(items, mode: mode, to: &movie)

        // Fragmented files: fragments are found after the movie box; they keep their place.
        let fragmented = movie.child("mvex") != nil || boxes.contains { $0.type == FourCC.code("moof") }
        let moveFirst = layout == .movieFirst && !fragmented
            && boxes[..<movieIndex].contains { $0.type == FourCC.code("mdat") }

        // The movie box's size depends on which chunk offset tables must become 64-bit, which
        // depends on where the media lands: repeat until nothing more needs widening.
        var widened = Set<[Int]>()
        while true {
            let pieces = arrange(boxes, movieIndex: movieIndex, movieSize: UInt64(movie.size), moveFirst: moveFirst)
            let map = OffsetMap(pieces: pieces)
            var needed: [[Int]] = []
            for (path, table) in chunkOffsetTables(movie) where table.type == FourCC.code("stco") && !widened.contains(path) {
                if try chunkOffsets(table).contains(where: { try map.map($0) > UInt64(UInt32.max) }) { needed.append(path) }
            }
            if !needed.isEmpty {
                widened.formUnion(needed)
                for path in needed { try widen(&movie, at: path) }
                continue
            }
            for (path, table) in chunkOffsetTables(movie) {
                let moved = try chunkOffsets(table).map { offset throws(ISOBMFFWriteFailure) in try map.map(offset) }
                setChunkOffsets(&movie, at: path, moved, wide: table.type == FourCC.code("co64"))
            }
            var result: [Piece] = []
            for piece in pieces {
                guard case .movie(_, let padding) = piece else { result.append(piece); continue }
                result.append(.bytes(movie.bytes))
                if padding > 0 { result.append(.bytes(freeBox(padding))) }
            }
            let patched = try patchFragments(result, boxes: boxes, movieIndex: movieIndex, map: map, file: file)
            return (patched, patched.reduce(0) { $0 + $1.length })
        }
    }

    /// The pieces around a movie box of `movieSize` bytes.
    static func arrange(_ boxes: [TopBox], movieIndex: Int, movieSize: UInt64, moveFirst: Bool) -> [Piece] {
        let old = boxes[movieIndex]
        var pieces: [Piece] = []
        if moveFirst {
            let firstMedia = boxes.firstIndex { $0.type == FourCC.code("mdat") } ?? movieIndex
            for (index, box) in boxes.enumerated() where index != movieIndex {
                if index == firstMedia { pieces.append(.movie(size: movieSize, padding: 0)) }
                pieces.append(.source(offset: box.offset, length: box.size))
            }
            return pieces
        }
        var skipNext = false
        for (index, box) in boxes.enumerated() {
            if skipNext { skipNext = false; continue }
            guard index == movieIndex else { pieces.append(.source(offset: box.offset, length: box.size)); continue }
            var padding: UInt64 = 0
            if movieSize + 8 <= old.size {
                // Smaller: a free box keeps everything after it in place.
                padding = old.size - movieSize
            } else if movieSize > old.size, index + 1 < boxes.count, isFree(boxes[index + 1].type) {
                // Larger: a free box right after it absorbs the growth.
                let growth = movieSize - old.size, free = boxes[index + 1].size
                if growth == free || growth + 8 <= free {
                    skipNext = true
                    padding = free - growth
                }
            }
            pieces.append(.movie(size: movieSize, padding: padding))
        }
        return pieces
    }

    private static func isFree(_ type: UInt32) -> Bool { type == FourCC.code("free") || type == FourCC.code("skip") }

    private static func freeBox(_ size: UInt64) -> [UInt8] {
        ISOBMFFBytes.be32(UInt32(size)) + Array("free".utf8) + [UInt8](repeating: 0, count: Int(size) - 8)
    }

    /// Where each copied source byte lands in the output.
    struct OffsetMap {
        /// (source start, source end, output start) of each copied piece.
        private(set) var ranges: [(start: UInt64, end: UInt64, output: UInt64)] = []

        init(pieces: [Piece]) {
            var position: UInt64 = 0
            for piece in pieces {
                if case .source(let offset, let length) = piece { ranges.append((offset, offset + length, position)) }
                position += piece.length
            }
        }

        /// Whether every copied byte stays where it was.
        var isIdentity: Bool { ranges.allSatisfy { $0.start == $0.output } }

        func map(_ offset: UInt64) throws(ISOBMFFWriteFailure) -> UInt64 {
            for range in ranges where offset >= range.start && offset < range.end {
                return range.output + (offset - range.start)
            }
            throw ISOBMFFWriteFailure(reason: "an offset (\(offset)) points outside the file's media data")
        }
    }

    // MARK: Chunk offsets

    /// The `stco`/`co64` boxes of every track, with their paths of child indexes.
    static func chunkOffsetTables(_ movie: MovieBox) -> [([Int], MovieBox)] {
        var result: [([Int], MovieBox)] = []
        let path = ["trak", "mdia", "minf", "stbl"].map(FourCC.code)
        func walk(_ box: MovieBox, _ depth: Int, _ indexes: [Int]) {
            for (index, child) in (box.children ?? []).enumerated() {
                if depth == path.count {
                    if child.type == FourCC.code("stco") || child.type == FourCC.code("co64") { result.append((indexes + [index], child)) }
                } else if child.type == path[depth] {
                    walk(child, depth + 1, indexes + [index])
                }
            }
        }
        walk(movie, 0, [])
        return result
    }

    /// The entries of a chunk offset table.
    static func chunkOffsets(_ table: MovieBox) throws(ISOBMFFWriteFailure) -> [UInt64] {
        let buffer = ISOBMFFBuffer(bytes: table.payload)
        let wide = table.type == FourCC.code("co64")
        guard let count = buffer.u32(4), UInt64(count) * (wide ? 8 : 4) + 8 <= UInt64(table.payload.count) else {
            throw ISOBMFFWriteFailure(reason: "a chunk offset table is shorter than its entry count")
        }
        return (0..<Int(count)).map { wide ? buffer.u64(8 + $0 * 8)! : UInt64(buffer.u32(8 + $0 * 4)!) }
    }

    private static func modify(_ movie: inout MovieBox, at path: [Int], _ body: (inout MovieBox) -> Void) {
        guard let first = path.first else { body(&movie); return }
        modify(&movie.children![first], at: Array(path.dropFirst()), body)
    }

    static func setChunkOffsets(_ movie: inout MovieBox, at path: [Int], _ offsets: [UInt64], wide: Bool) {
        modify(&movie, at: path) { table in
            var payload = Array(table.payload.prefix(4)) + ISOBMFFBytes.be32(UInt32(offsets.count))
            payload.reserveCapacity(8 + offsets.count * (wide ? 8 : 4))
            for offset in offsets { payload += wide ? ISOBMFFBytes.be64(offset) : ISOBMFFBytes.be32(UInt32(offset)) }
            table = MovieBox(type: wide ? "co64" : "stco", payload: payload)
        }
    }

    /// Turns an `stco` into a `co64` with the same offsets.
    private static func widen(_ movie: inout MovieBox, at path: [Int]) throws(ISOBMFFWriteFailure) {
        var table: MovieBox?
        modify(&movie, at: path) { table = $0 }
        guard let table else { return }
        setChunkOffsets(&movie, at: path, try chunkOffsets(table), wide: true)
    }

    // MARK: Fragments

    /// Movie fragments after a movie box that changed size: explicit `tfhd` base data offsets and
    /// `tfra` fragment offsets are absolute and move with their fragments (`trun` offsets are
    /// relative and stay). A segment index before the movie box cannot be kept right: refused.
    private static func patchFragments(_ pieces: [Piece], boxes: [TopBox], movieIndex: Int, map: OffsetMap,
                                       file: FileDescriptor) throws -> [Piece] {
        guard !map.isIdentity else { return pieces }
        if boxes[..<movieIndex].contains(where: { $0.type == FourCC.code("sidx") || $0.type == FourCC.code("moof") }) {
            throw ISOBMFFWriteFailure(reason: "fragments or a segment index come before its movie box")
        }
        let byOffset = Dictionary(boxes.map { ($0.offset, $0) }, uniquingKeysWith: { first, _ in first })
        var result: [Piece] = []
        for piece in pieces {
            guard case .source(let offset, _) = piece, let box = byOffset[offset],
                  box.type == FourCC.code("moof") || box.type == FourCC.code("mfra") else {
                result.append(piece)
                continue
            }
            guard box.size <= maximumFragmentBoxSize else {
                throw ISOBMFFWriteFailure(reason: "a '\(MetadataKeyCoding.string(box.type))' box is larger than \(maximumFragmentBoxSize >> 20) MiB")
            }
            let bytes = try file.read(count: Int(box.size), at: box.offset)
            let header = ISOBMFFBuffer(bytes: bytes).u32(0) == 1 ? 16 : 8
            var patched = bytes
            var changed = false
            let (children, _) = try MovieBox.parseList(bytes, header..<bytes.count, depth: 1)
            var position = header
            for child in children {
                let childHeader = child.bytes.count - child.payload.count
                let payloadStart = position + childHeader
                if box.type == FourCC.code("moof"), child.type == FourCC.code("traf") {
                    let (trafChildren, _) = try MovieBox.parseList(child.payload, 0..<child.payload.count, depth: 2)
                    var inner = 0
                    for grandchild in trafChildren {
                        let grandHeader = grandchild.bytes.count - grandchild.payload.count
                        if grandchild.type == FourCC.code("tfhd") {
                            let tfhd = ISOBMFFBuffer(bytes: grandchild.payload)
                            if let flags = tfhd.u32(0), flags & 1 != 0 {
                                guard let base = tfhd.u64(8) else { throw ISOBMFFWriteFailure(reason: "a 'tfhd' box is cut short") }
                                let at = payloadStart + inner + grandHeader + 8
                                patched.replaceSubrange(at..<(at + 8), with: ISOBMFFBytes.be64(try map.map(base)))
                                changed = true
                            }
                        }
                        inner += grandchild.size
                    }
                } else if box.type == FourCC.code("mfra"), child.type == FourCC.code("tfra") {
                    try patchRandomAccess(&patched, payloadStart: payloadStart, payload: child.payload, map: map)
                    changed = true
                }
                position += child.size
            }
            result.append(changed ? .bytes(patched) : piece)
        }
        return result
    }

    /// Moves the fragment offsets of a `tfra` box.
    private static func patchRandomAccess(_ bytes: inout [UInt8], payloadStart: Int, payload: [UInt8], map: OffsetMap)
        throws(ISOBMFFWriteFailure) {
        let buffer = ISOBMFFBuffer(bytes: payload)
        guard let version = buffer.u8(0), let sizes = buffer.u32(8), let count = buffer.u32(12) else {
            throw ISOBMFFWriteFailure(reason: "a 'tfra' box is cut short")
        }
        let wide = version == 1
        let entryLength = (wide ? 16 : 8) + Int((sizes >> 4) & 3) + Int((sizes >> 2) & 3) + Int(sizes & 3) + 3
        guard UInt64(count) * UInt64(entryLength) + 16 <= UInt64(payload.count) else {
            throw ISOBMFFWriteFailure(reason: "a 'tfra' box is shorter than its entry count")
        }
        for index in 0..<Int(count) {
            let at = 16 + index * entryLength + (wide ? 8 : 4)
            let old = wide ? buffer.u64(at)! : UInt64(buffer.u32(at)!)
            let new = try map.map(old)
            if wide {
                bytes.replaceSubrange((payloadStart + at)..<(payloadStart + at + 8), with: ISOBMFFBytes.be64(new))
            } else {
                guard new <= UInt64(UInt32.max) else { throw ISOBMFFWriteFailure(reason: "a fragment offset no longer fits 32 bits") }
                bytes.replaceSubrange((payloadStart + at)..<(payloadStart + at + 4), with: ISOBMFFBytes.be32(UInt32(new)))
            }
        }
    }

    /// The top-level boxes, checked: each lies inside the file; size 0 only for the last.
    static func topLevelBoxes(_ file: FileDescriptor) throws -> [TopBox] {
        let length = file.length
        var boxes: [TopBox] = []
        var offset: UInt64 = 0
        while offset < length {
            guard boxes.count < maximumTopLevelBoxes else { throw ISOBMFFWriteFailure(reason: "it has too many top-level boxes") }
            let head = ISOBMFFBuffer(bytes: try file.read(count: Int(min(16, length - offset)), at: offset))
            guard head.bytes.count >= 8, let size32 = head.u32(0), let type = head.u32(4) else {
                throw ISOBMFFWriteFailure(reason: "it ends inside a box header at byte \(offset)")
            }
            if boxes.isEmpty && !ISOBMFFMetadataParser.looksLikeISOBMFF(head.bytes) {
                throw ISOBMFFWriteFailure(reason: "it is not an ISO base media (MPEG-4 or QuickTime) file", notRecognized: true)
            }
            var size = UInt64(size32), headerLength: UInt64 = 8
            if size32 == 1 {
                guard let large = head.u64(8) else { throw ISOBMFFWriteFailure(reason: "it ends inside a box header") }
                size = large
                headerLength = 16
            } else if size32 == 0 {
                size = length - offset
            }
            guard size >= headerLength else {
                throw ISOBMFFWriteFailure(reason: "the '\(MetadataKeyCoding.string(type))' box at byte \(offset) has an impossible size (\(size))")
            }
            guard size <= length - offset else {
                throw ISOBMFFWriteFailure(reason: "the '\(MetadataKeyCoding.string(type))' box at byte \(offset) claims \(size) bytes "
                                              + "but the file ends \(length - offset) bytes later (truncated?)")
            }
            boxes.append(TopBox(type: type, offset: offset, size: size))
            offset += size
        }
        return boxes
    }
}

/// A file opened with POSIX calls: positioned reads and writes that fail with the errno.
final class FileDescriptor {
    private var descriptor: Int32
    private let path: String
    /// The length when opened.
    let length: UInt64

    /// Opens an existing file for reading (and writing).
    init(url: URL, writable: Bool = false) throws(MediaError) {
        path = url.path
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
            throw .formatNotRecognized(code: -EISDIR, message: "\(path): not a regular file")
        }
        length = UInt64(info.st_size)
    }

    /// Creates a new file (never replacing one).
    init(creating url: URL) throws(MediaError) {
        path = url.path
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            throw .other(code: -code, message: "\(path): cannot create the file: \(String(cString: strerror(code)))")
        }
        length = 0
    }

    deinit { close() }

    func close() {
        if descriptor >= 0 { Foundation.close(descriptor) }
        descriptor = -1
    }

    private func failure(_ action: String) -> MediaError {
        let code = errno
        return .other(code: -code, message: "\(path): \(action): \(String(cString: strerror(code)))")
    }

    /// Exactly `count` bytes at `offset`.
    func read(count: Int, at offset: UInt64) throws(MediaError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try read(into: &bytes, count: count, at: offset)
        return bytes
    }

    func read(into buffer: inout [UInt8], count: Int, at offset: UInt64) throws(MediaError) {
        var done = 0
        while done < count {
            let result = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read")
            }
            if result == 0 { throw MediaError.failedToParse(code: -EIO, message: "\(path): the file ended early (changed while being read?)") }
            done += result
        }
    }

    func write(_ bytes: some Collection<UInt8>, at offset: UInt64) throws(MediaError) {
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

    func truncate(_ length: UInt64) throws(MediaError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw failure("cannot set the file's length") }
    }

    func synchronize() throws(MediaError) {
        guard fsync(descriptor) == 0 else { throw failure("cannot write") }
    }
}
