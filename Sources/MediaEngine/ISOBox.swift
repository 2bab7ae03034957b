// The one reader of ISO base media file format boxes (QuickTime atoms), in memory or in a file.
// A box header is parsed in one place (ISOBoxWalker): 32-bit sizes, size 1 with a 64-bit
// largesize, size 0 running to the end of the parent, sizes smaller than their header and sizes
// past the parent's end. Each walk is bounded in the boxes it visits, so hostile sizes end it
// with a BoxError — never a trap, a read past the end or an endless loop. Built on it: the
// lenient in-memory reader (ISOBoxReader), the strict editable tree (ISOBoxNode) and the file
// walks of the movie rewriter, the header trimmer, fragment recovery and the asset's box scan.
import Foundation

/// Four-character codes.
package enum FourCC {
    /// The code of a type string of one to four Latin-1 characters ("©nam" included); nil when
    /// it has other characters.
    package static func code(exactly string: String) -> UInt32? {
        let scalars = Array(string.unicodeScalars)
        guard (1...4).contains(scalars.count), scalars.allSatisfy({ $0.value <= 0xFF }) else { return nil }
        return scalars.reduce(UInt32(0)) { ($0 << 8) | $1.value }
    }

    /// The code of a type string of four Latin-1 characters; 0 when it is not one.
    package static func code(_ string: String) -> UInt32 { code(exactly: string) ?? 0 }

    /// A code as four Latin-1 characters ("moov", "©nam").
    package static func string(_ code: UInt32) -> String {
        String(String.UnicodeScalarView([24, 16, 8, 0].map { Unicode.Scalar(UInt8(truncatingIfNeeded: code >> $0)) }))
    }
}

/// Why boxes cannot be read or rewritten: what is wrong, where.
package struct BoxError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The bytes end inside a box header.
        case truncatedHeader
        /// A size smaller than the header it is part of.
        case impossibleSize
        /// A box claims more bytes than its parent (or the file) has left.
        case overrun
        /// More boxes, or deeper nesting, than a walk visits.
        case tooMany
        /// The bytes are not an ISO base media file at all.
        case notRecognized
        /// Anything else wrong with the structure (a table shorter than its count, …).
        case damaged
        /// Reading or writing the file failed (the MediaError is `underlying`).
        case io
    }

    package var kind: Kind
    /// What is wrong, for an error's failure reason ("the 'trak' box at byte 40 claims …").
    package var reason: String
    /// The I/O failure behind a `.io` error.
    package var underlying: MediaError?

    package init(_ kind: Kind = .damaged, reason: String, underlying: MediaError? = nil) {
        self.kind = kind
        self.reason = reason
        self.underlying = underlying
    }

    package init(reason: String, notRecognized: Bool) {
        self.init(notRecognized ? .notRecognized : .damaged, reason: reason)
    }

    package var notRecognized: Bool { kind == .notRecognized }
    package var description: String { "BoxError(\(kind)): \(reason)" }
}

/// A box header as stored, located in its source (a buffer or a file).
package struct ISOBoxHeader: Sendable, Equatable {
    /// The four-character type.
    package var type: UInt32
    /// Where the box starts.
    package var offset: UInt64
    /// 8, or 16 with a 64-bit largesize.
    package var headerLength: UInt64
    /// The size the header declares (size 0 resolved to the rest of the parent).
    package var declaredSize: UInt64
    /// The bytes from `offset` to the end of the parent.
    package var room: UInt64
    /// Whether the header said size 0 (the box runs to the end of its parent).
    package var runsToEnd: Bool

    /// Whether the box lies inside its parent.
    package var fits: Bool { declaredSize <= room }
    /// The size, cut to the parent's end.
    package var size: UInt64 { min(declaredSize, room) }
    /// Where the payload starts.
    package var payloadOffset: UInt64 { offset + headerLength }
    /// Just past the box (cut to the parent's end).
    package var end: UInt64 { offset + size }
    package var typeName: String { FourCC.string(type) }
}

/// Walks boxes laid end to end between two offsets of a source, reading each header through
/// `head` (up to 16 bytes at an offset; fewer at the end). Every header is checked: a size
/// smaller than its header or a header cut by the end throws; a box running past the end is
/// returned once (`fits` false, for callers that read what is there) and ends the walk.
package struct ISOBoxWalker {
    /// Where the next box starts (after the walk: where it stopped).
    package private(set) var offset: UInt64
    /// The end of the parent.
    package let limit: UInt64
    /// The most boxes the walk returns.
    package let maximumBoxes: Int
    private(set) var count = 0
    private var finished = false
    private let head: (UInt64) throws(BoxError) -> ArraySlice<UInt8>

    package init(from start: UInt64, to limit: UInt64, maximumBoxes: Int,
                 head: @escaping (UInt64) throws(BoxError) -> ArraySlice<UInt8>) {
        offset = start
        self.limit = limit
        self.maximumBoxes = maximumBoxes
        self.head = head
    }

    /// The bytes left after `offset` (what a walk leaves when fewer than 8 remain).
    package var remaining: UInt64 { limit > offset ? limit - offset : 0 }

    /// The next box; nil when fewer than 8 bytes remain or after a box that overruns the end.
    /// Throws when a header is cut short, declares an impossible size, or the walk has visited
    /// `maximumBoxes` boxes with more to go.
    package mutating func next() throws(BoxError) -> ISOBoxHeader? {
        guard !finished, offset < limit, limit - offset >= 8 else { return nil }
        guard count < maximumBoxes else {
            throw BoxError(.tooMany, reason: "more than \(maximumBoxes) boxes follow each other at byte \(offset)")
        }
        let room = limit - offset
        let bytes = try head(offset)
        guard bytes.count >= 8 else {
            throw BoxError(.truncatedHeader, reason: "it ends inside a box header at byte \(offset)")
        }
        let start = bytes.startIndex
        let size32 = ISOBoxReader.be32(bytes, start)
        let type = ISOBoxReader.be32(bytes, start + 4)
        var header = ISOBoxHeader(type: type, offset: offset, headerLength: 8, declaredSize: UInt64(size32), room: room,
                                  runsToEnd: false)
        if size32 == 1 {
            guard bytes.count >= 16, room >= 16 else {
                throw BoxError(.truncatedHeader, reason: "the '\(header.typeName)' box at byte \(offset) ends inside its 64-bit size")
            }
            header.declaredSize = ISOBoxReader.be64(bytes, start + 8)
            header.headerLength = 16
        } else if size32 == 0 {
            header.declaredSize = room
            header.runsToEnd = true
        }
        guard header.declaredSize >= header.headerLength else {
            throw BoxError(.impossibleSize, reason: "the '\(header.typeName)' box at byte \(offset) has an impossible size (\(header.declaredSize))")
        }
        count += 1
        // A 64-bit size may be near 2^64: `end` is cut to the limit, never added past it.
        if header.fits { offset += header.declaredSize } else { finished = true }
        return header
    }

    /// The error for a box that overruns its parent.
    package static func overrun(_ header: ISOBoxHeader, in what: String = "its parent") -> BoxError {
        BoxError(.overrun, reason: "the '\(header.typeName)' box at byte \(header.offset) claims \(header.declaredSize) bytes "
                     + "where \(what) has \(header.room) left")
    }
}

/// One box located in a buffer: where its payload lies.
package struct ISOBox: Sendable, Equatable {
    /// The four-character type.
    package let type: UInt32
    /// The offset of the box's first header byte.
    package let start: Int
    /// The offset of the payload (after the size/type/largesize header).
    package let payloadStart: Int
    /// The offset just past the box.
    package let end: Int

    package init(type: UInt32, start: Int? = nil, payloadStart: Int, end: Int) {
        self.type = type
        self.start = start ?? max(0, payloadStart - 8)
        self.payloadStart = payloadStart
        self.end = end
    }

    /// The payload's length.
    package var payloadLength: Int { end - payloadStart }
}

/// A lenient, bounded reader of the boxes in a byte array: reads return nil instead of trapping,
/// a box whose size runs past its parent is cut to it, and a damaged header ends the list.
package struct ISOBoxReader: Sendable {
    package let bytes: [UInt8]

    /// The most children listed under one box.
    package static let maximumChildren = 100_000

    package init(bytes: [UInt8]) { self.bytes = bytes }

    package func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }

    package func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at <= bytes.count - 2 else { return nil }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    package func u32(_ at: Int) -> UInt32? {
        guard at >= 0, at <= bytes.count - 4 else { return nil }
        return Self.be32(bytes, at)
    }

    package func u64(_ at: Int) -> UInt64? {
        guard at >= 0, at <= bytes.count - 8 else { return nil }
        return Self.be64(bytes, at)
    }

    /// A big-endian 32-bit value at `at` (the caller has checked the bounds).
    package static func be32<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ at: C.Index) -> UInt32 {
        var value: UInt32 = 0
        var i = at
        for _ in 0..<4 { value = value << 8 | UInt32(bytes[i]); i = bytes.index(after: i) }
        return value
    }

    package static func be64<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ at: C.Index) -> UInt64 {
        UInt64(be32(bytes, at)) << 32 | UInt64(be32(bytes, bytes.index(at, offsetBy: 4)))
    }

    /// Bytes in a range clamped to the buffer.
    package func slice(_ start: Int, _ end: Int) -> [UInt8] {
        let lower = max(0, min(start, bytes.count)), upper = max(lower, min(end, bytes.count))
        return Array(bytes[lower..<upper])
    }

    /// A walk over `start..<end` of the buffer (clamped to it).
    package func walker(from start: Int, to end: Int, maximumBoxes: Int = maximumChildren) -> ISOBoxWalker {
        let limit = max(0, min(end, bytes.count))
        let bytes = bytes
        return ISOBoxWalker(from: UInt64(max(0, min(start, limit))), to: UInt64(limit), maximumBoxes: maximumBoxes) { at in
            bytes[Int(at)..<min(Int(at) + 16, limit)]
        }
    }

    /// The boxes laid end to end in `start..<end`: a box past the end is cut to it, and the list
    /// stops at the first damaged header.
    package func children(from start: Int, to end: Int) -> [ISOBox] {
        var walker = walker(from: start, to: end)
        var boxes: [ISOBox] = []
        while let header = try? walker.next() {
            boxes.append(ISOBox(type: header.type, start: Int(header.offset), payloadStart: Int(header.payloadOffset),
                                end: Int(header.end)))
        }
        return boxes
    }

    /// The children of a box, skipping `skip` bytes of its payload first (4 for a full box).
    package func children(of box: ISOBox, skip: Int = 0) -> [ISOBox] {
        children(from: box.payloadStart + skip, to: box.end)
    }

    /// The first child of a type.
    package func child(_ type: String, of box: ISOBox, skip: Int = 0) -> ISOBox? {
        let code = FourCC.code(type)
        return children(of: box, skip: skip).first { $0.type == code }
    }

    /// Follows a path of child types ("mdia", "minf", "stbl").
    package func descend(_ box: ISOBox, _ path: [String]) -> ISOBox? {
        var current = box
        for type in path {
            guard let next = child(type, of: current) else { return nil }
            current = next
        }
        return current
    }

    /// A full box's version and flags (the first four payload bytes).
    package func fullBox(_ box: ISOBox) -> (version: UInt8, flags: UInt32)? {
        guard box.payloadLength >= 4, let word = u32(box.payloadStart) else { return nil }
        return (UInt8(word >> 24), word & 0xFF_FFFF)
    }

    /// A version 0 (32-bit) or version 1 (64-bit) field of a full box at `offset0`/`offset1`
    /// bytes into its payload, checked against the box's end; nil for other versions.
    package func versionedField(_ box: ISOBox, version0 offset0: Int, version1 offset1: Int) -> UInt64? {
        guard let (version, _) = fullBox(box), version <= 1 else { return nil }
        let at = box.payloadStart + (version == 1 ? offset1 : offset0)
        guard at + (version == 1 ? 8 : 4) <= box.end else { return nil }
        return version == 1 ? u64(at) : u32(at).map(UInt64.init)
    }

    /// The timescale and duration of a movie or media header (mvhd, mdhd: 32-bit times in
    /// version 0, 64-bit in version 1), checked against the box's end.
    package func timescaleAndDuration(_ header: ISOBox) -> (timescale: UInt32, duration: UInt64)? {
        guard let duration = versionedField(header, version0: 16, version1: 24), let (version, _) = fullBox(header),
              let timescale = u32(header.payloadStart + (version == 1 ? 20 : 12)) else { return nil }
        return (timescale, duration)
    }

    /// The children of a `meta` box, which ISO makes a full box and QuickTime does not: the
    /// `hdlr` that starts the list says which.
    package func metaChildren(_ meta: ISOBox) -> [ISOBox] {
        if u32(meta.payloadStart + 4) == FourCC.code("hdlr") { return children(of: meta) }
        return children(of: meta, skip: 4)
    }

    /// The handler type of a `hdlr` box (after version/flags and pre_defined).
    package func handlerType(_ hdlr: ISOBox) -> UInt32? { u32(hdlr.payloadStart + 8) }

    /// Whether the first bytes of a file look like an ISO base media file (a first box type
    /// such files start with).
    package static func looksLikeISOBMFF(_ head: [UInt8]) -> Bool {
        guard head.count >= 8 else { return false }
        return ["ftyp", "moov", "mdat", "free", "wide", "skip", "pnot"].map(FourCC.code).contains(be32(head, 4))
    }
}

/// Big-endian byte building.
package enum BoxBytes {
    package static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    package static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
    package static func be64(_ value: UInt64) -> [UInt8] { be32(UInt32(value >> 32)) + be32(UInt32(value & 0xFFFF_FFFF)) }

    /// A box: size (64-bit when it does not fit 32), type, payload.
    package static func box(_ type: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt64(8 + payload.count)
        if size > UInt64(UInt32.max) { return be32(1) + be32(type) + be64(size + 8) + payload }
        return be32(UInt32(size)) + be32(type) + payload
    }

    package static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(FourCC.code(type), payload) }

    /// A full box: version and flags before the payload.
    package static func fullBox(_ type: String, version: UInt8, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, be32(UInt32(version) << 24 | (flags & 0xFF_FFFF)) + payload)
    }
}
