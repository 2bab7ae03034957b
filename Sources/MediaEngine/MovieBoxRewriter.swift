// MovieBoxRewriter: rewrites a finished, unfragmented or fragmented ISO base media file (MP4,
// M4V, M4A, 3GP, MOV) with an edited movie box and copies everything else unchanged — the
// machinery under the metadata writer and the edit-list writer.
//
// The movie box is read into memory (at most 256 MiB), parsed strictly into an ISOBoxNode tree
// and handed to the caller's edit; media data is copied in 1 MiB pieces. When the movie box
// changes size, every chunk offset (`stco`, `co64`; `stco` becomes `co64` when an offset no
// longer fits 32 bits), every explicit fragment base offset (`tfhd`) and every fragment random
// access offset (`tfra`) is moved with the bytes it points at, so every media sample is the same
// before and after. A smaller movie box leaves a `free` box behind and a `free` box after the
// movie box absorbs growth, so offsets often stay. Damage is a BoxError before anything is
// written; I/O failures are MediaErrors.
import Foundation

package enum MovieBoxRewriter {
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

    /// What an edit is given: the movie box and the file's `ftyp` major brand.
    package typealias Edit = (_ movie: inout ISOBoxNode, _ majorBrand: UInt32?) throws -> Void

    /// The output of a rewrite, planned: pieces of the source and new bytes, in order.
    package struct Plan {
        var pieces: [Piece]
        /// The output's length.
        package var length: UInt64

        /// Whether every source byte stays where it is, so only new bytes need writing.
        package var keepsSourceInPlace: Bool {
            var position: UInt64 = 0
            for piece in pieces {
                if case .source(let offset, _) = piece, offset != position { return false }
                position += piece.length
            }
            return true
        }
    }

    /// Rewrites `url` in place (the caller owns it): when the media stays where it is only the
    /// new bytes are written; otherwise a new file replaces it. Damage throws a BoxError.
    package static func rewriteInPlace(_ url: URL, layout: Layout = .keep, edit: Edit) throws {
        let file = try MediaFile(url: url, writable: true)
        defer { file.close() }
        let plan = try makePlan(file: file, layout: layout, edit: edit)
        if plan.keepsSourceInPlace {
            try writeInPlace(plan, file: file)
        } else {
            try write(plan, from: file, to: url, replacing: true)
        }
    }

    /// Writes the new bytes of a plan that keeps the source in place over `file`.
    package static func writeInPlace(_ plan: Plan, file: MediaFile) throws(MediaError) {
        var position: UInt64 = 0
        for piece in plan.pieces {
            if case .bytes(let bytes) = piece { try file.write(bytes, at: position) }
            position += piece.length
        }
        try file.truncate(plan.length)
    }

    /// Writes a plan to `destination` through a temporary file in its directory. `replacing`:
    /// an existing destination is replaced atomically; otherwise one appearing fails with
    /// `EEXIST` (never replaced). Nothing is left at `destination` on failure.
    package static func write(_ plan: Plan, from input: MediaFile, to destination: URL, replacing: Bool) throws(MediaError) {
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        do throws(MediaError) {
            let output = try MediaFile(creating: temporary)
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
                    throw MediaError.other(code: -code, message: "\(destination.path): cannot create the file")
                }
                unlink(temporary.path)
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
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


    private static func copy(from input: MediaFile, offset: UInt64, length: UInt64, to output: MediaFile,
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


    // MARK: Planning

    /// The output as pieces: the source's top-level boxes in order (the movie box moved first for
    /// `.movieFirst`), the new movie box and any patched fragment boxes as bytes.
    package static func makePlan(file: MediaFile, layout: Layout, edit: Edit) throws -> Plan {
        let boxes = try topLevelBoxes(file)
        guard let movieIndex = boxes.firstIndex(where: { $0.type == FourCC.code("moov") }) else {
            throw BoxError(reason: "it has no movie box ('moov')")
        }
        guard boxes.filter({ $0.type == FourCC.code("moov") }).count == 1 else {
            throw BoxError(reason: "it has more than one movie box")
        }
        let oldMovie = boxes[movieIndex]
        guard oldMovie.size <= maximumMovieBoxSize else {
            throw BoxError(reason: "its movie box is larger than \(maximumMovieBoxSize >> 20) MiB")
        }
        let movieBytes = try file.read(count: Int(oldMovie.size), at: oldMovie.offset)
        let header = ISOBoxReader(bytes: movieBytes).u32(0) == 1 ? 16 : 8
        var movie = try ISOBoxNode.parseMovie(Array(movieBytes[header...]))
        guard movie.child("mvhd") != nil else { throw BoxError(reason: "its movie box has no movie header") }

        var brand: UInt32?
        if let ftyp = boxes.first, ftyp.type == FourCC.code("ftyp") {
            brand = ISOBoxReader(bytes: try file.read(count: 4, at: ftyp.offset + 8)).u32(0)
        }
        try edit(&movie, brand)

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
                let moved = try chunkOffsets(table).map { offset throws(BoxError) in try map.map(offset) }
                setChunkOffsets(&movie, at: path, moved, wide: table.type == FourCC.code("co64"))
            }
            var result: [Piece] = []
            for piece in pieces {
                guard case .movie(_, let padding) = piece else { result.append(piece); continue }
                result.append(.bytes(movie.bytes))
                if padding > 0 { result.append(.bytes(freeBox(padding))) }
            }
            let patched = try patchFragments(result, boxes: boxes, movieIndex: movieIndex, map: map, file: file)
            return Plan(pieces: patched, length: patched.reduce(0) { $0 + $1.length })
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
        BoxBytes.be32(UInt32(size)) + Array("free".utf8) + [UInt8](repeating: 0, count: Int(size) - 8)
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

        func map(_ offset: UInt64) throws(BoxError) -> UInt64 {
            for range in ranges where offset >= range.start && offset < range.end {
                return range.output + (offset - range.start)
            }
            throw BoxError(reason: "an offset (\(offset)) points outside the file's media data")
        }
    }

    // MARK: Chunk offsets

    /// The `stco`/`co64` boxes of every track, with their paths of child indexes.
    static func chunkOffsetTables(_ movie: ISOBoxNode) -> [([Int], ISOBoxNode)] {
        var result: [([Int], ISOBoxNode)] = []
        let path = ["trak", "mdia", "minf", "stbl"].map(FourCC.code)
        func walk(_ box: ISOBoxNode, _ depth: Int, _ indexes: [Int]) {
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
    static func chunkOffsets(_ table: ISOBoxNode) throws(BoxError) -> [UInt64] {
        let buffer = ISOBoxReader(bytes: table.payload)
        let wide = table.type == FourCC.code("co64")
        guard let count = buffer.u32(4), UInt64(count) * (wide ? 8 : 4) + 8 <= UInt64(table.payload.count) else {
            throw BoxError(reason: "a chunk offset table is shorter than its entry count")
        }
        return (0..<Int(count)).map { wide ? buffer.u64(8 + $0 * 8)! : UInt64(buffer.u32(8 + $0 * 4)!) }
    }

    private static func modify(_ movie: inout ISOBoxNode, at path: [Int], _ body: (inout ISOBoxNode) -> Void) {
        guard let first = path.first else { body(&movie); return }
        modify(&movie.children![first], at: Array(path.dropFirst()), body)
    }

    static func setChunkOffsets(_ movie: inout ISOBoxNode, at path: [Int], _ offsets: [UInt64], wide: Bool) {
        modify(&movie, at: path) { table in
            var payload = Array(table.payload.prefix(4)) + BoxBytes.be32(UInt32(offsets.count))
            payload.reserveCapacity(8 + offsets.count * (wide ? 8 : 4))
            for offset in offsets { payload += wide ? BoxBytes.be64(offset) : BoxBytes.be32(UInt32(offset)) }
            table = ISOBoxNode(type: wide ? "co64" : "stco", payload: payload)
        }
    }

    /// Turns an `stco` into a `co64` with the same offsets.
    private static func widen(_ movie: inout ISOBoxNode, at path: [Int]) throws(BoxError) {
        var table: ISOBoxNode?
        modify(&movie, at: path) { table = $0 }
        guard let table else { return }
        setChunkOffsets(&movie, at: path, try chunkOffsets(table), wide: true)
    }

    // MARK: Fragments

    /// Movie fragments after a movie box that changed size: explicit `tfhd` base data offsets and
    /// `tfra` fragment offsets are absolute and move with their fragments (`trun` offsets are
    /// relative and stay). A segment index before the movie box cannot be kept right: refused.
    private static func patchFragments(_ pieces: [Piece], boxes: [TopBox], movieIndex: Int, map: OffsetMap,
                                       file: MediaFile) throws -> [Piece] {
        guard !map.isIdentity else { return pieces }
        if boxes[..<movieIndex].contains(where: { $0.type == FourCC.code("sidx") || $0.type == FourCC.code("moof") }) {
            throw BoxError(reason: "fragments or a segment index come before its movie box")
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
                throw BoxError(reason: "a '\(FourCC.string(box.type))' box is larger than \(maximumFragmentBoxSize >> 20) MiB")
            }
            let bytes = try file.read(count: Int(box.size), at: box.offset)
            let header = ISOBoxReader(bytes: bytes).u32(0) == 1 ? 16 : 8
            var patched = bytes
            var changed = false
            let (children, _) = try ISOBoxNode.parseList(bytes, header..<bytes.count, depth: 1)
            var position = header
            for child in children {
                let childHeader = child.bytes.count - child.payload.count
                let payloadStart = position + childHeader
                if box.type == FourCC.code("moof"), child.type == FourCC.code("traf") {
                    let (trafChildren, _) = try ISOBoxNode.parseList(child.payload, 0..<child.payload.count, depth: 2)
                    var inner = 0
                    for grandchild in trafChildren {
                        let grandHeader = grandchild.bytes.count - grandchild.payload.count
                        if grandchild.type == FourCC.code("tfhd") {
                            let tfhd = ISOBoxReader(bytes: grandchild.payload)
                            if let flags = tfhd.u32(0), flags & 1 != 0 {
                                guard let base = tfhd.u64(8) else { throw BoxError(reason: "a 'tfhd' box is cut short") }
                                let at = payloadStart + inner + grandHeader + 8
                                patched.replaceSubrange(at..<(at + 8), with: BoxBytes.be64(try map.map(base)))
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
        throws(BoxError) {
        let buffer = ISOBoxReader(bytes: payload)
        guard let version = buffer.u8(0), let sizes = buffer.u32(8), let count = buffer.u32(12) else {
            throw BoxError(reason: "a 'tfra' box is cut short")
        }
        let wide = version == 1
        let entryLength = (wide ? 16 : 8) + Int((sizes >> 4) & 3) + Int((sizes >> 2) & 3) + Int(sizes & 3) + 3
        guard UInt64(count) * UInt64(entryLength) + 16 <= UInt64(payload.count) else {
            throw BoxError(reason: "a 'tfra' box is shorter than its entry count")
        }
        for index in 0..<Int(count) {
            let at = 16 + index * entryLength + (wide ? 8 : 4)
            let old = wide ? buffer.u64(at)! : UInt64(buffer.u32(at)!)
            let new = try map.map(old)
            if wide {
                bytes.replaceSubrange((payloadStart + at)..<(payloadStart + at + 8), with: BoxBytes.be64(new))
            } else {
                guard new <= UInt64(UInt32.max) else { throw BoxError(reason: "a fragment offset no longer fits 32 bits") }
                bytes.replaceSubrange((payloadStart + at)..<(payloadStart + at + 4), with: BoxBytes.be32(UInt32(new)))
            }
        }
    }

    /// The top-level boxes, checked: each lies inside the file; size 0 only for the last.
    static func topLevelBoxes(_ file: MediaFile) throws(BoxError) -> [TopBox] {
        if file.length >= 8, !ISOBoxReader.looksLikeISOBMFF(file.read(upTo: 8, at: 0)) {
            throw BoxError(reason: "it is not an ISO base media (MPEG-4 or QuickTime) file", notRecognized: true)
        }
        var walker = file.boxes(maximumBoxes: maximumTopLevelBoxes)
        var boxes: [TopBox] = []
        while let box = try walker.next() {
            guard box.fits else { throw ISOBoxWalker.overrun(box, in: "the file (truncated?)") }
            boxes.append(TopBox(type: box.type, offset: box.offset, size: box.declaredSize))
        }
        if walker.remaining > 0 { throw BoxError(.truncatedHeader, reason: "it ends inside a box header at byte \(walker.offset)") }
        return boxes
    }
}
