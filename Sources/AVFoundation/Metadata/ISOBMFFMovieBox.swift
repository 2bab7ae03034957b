// The movie box (`moov`) as an editable tree, for the metadata writer. Unlike the lenient
// reader (ISOBMFFBuffer), parsing is strict: a box whose size runs past its parent or is smaller
// than its header makes the whole file refused, so a damaged movie is never rewritten into a
// different damaged movie.
import Foundation

/// Why a file cannot be rewritten (turned into an AVError by the writer).
struct ISOBMFFWriteFailure: Error {
    /// What is wrong with the file, for the error's failure reason.
    let reason: String
    /// The file is not an ISO base media file at all.
    var notRecognized = false
}

/// One box of the movie tree: a leaf with its payload, or a container with parsed children.
struct MovieBox {
    /// The four-character type.
    var type: UInt32
    /// A leaf's whole payload, or the bytes a container has before its children (version and
    /// flags of a full box).
    var payload: [UInt8]
    /// A container's children; nil for a leaf.
    var children: [MovieBox]?
    /// Bytes after a container's last child too short to be a box (QuickTime's 32-bit zero
    /// terminator of `udta`), kept as they were.
    var tail: [UInt8] = []

    /// The boxes whose children the writer edits or walks to chunk offsets.
    static let containerTypes: Set<UInt32> = Set(["moov", "trak", "mdia", "minf", "stbl", "udta"].map(FourCC.code))
    /// The deepest nesting parsed.
    static let maximumDepth = 12

    init(type: UInt32, payload: [UInt8]) {
        self.type = type
        self.payload = payload
        children = nil
    }

    init(type: String, payload: [UInt8]) { self.init(type: FourCC.code(type), payload: payload) }

    init(container type: UInt32, prefix: [UInt8] = [], children: [MovieBox]) {
        self.type = type
        payload = prefix
        self.children = children
    }

    /// The size of the box when serialized (header included).
    var size: Int {
        let body = payload.count + tail.count + (children?.reduce(0) { $0 + $1.size } ?? 0)
        return body + (body + 8 > Int(UInt32.max) ? 16 : 8)
    }

    /// Appends the box's bytes.
    func serialize(into out: inout [UInt8]) {
        let total = size
        if total > Int(UInt32.max) {
            out += ISOBMFFBytes.be32(1) + MetadataKeyCoding.bytes(type) + ISOBMFFBytes.be64(UInt64(total))
        } else {
            out += ISOBMFFBytes.be32(UInt32(total)) + MetadataKeyCoding.bytes(type)
        }
        out += payload
        for child in children ?? [] { child.serialize(into: &out) }
        out += tail
    }

    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size)
        serialize(into: &out)
        return out
    }

    /// The first child of a type.
    func child(_ type: String) -> MovieBox? {
        let code = FourCC.code(type)
        return children?.first { $0.type == code }
    }

    // MARK: Parsing

    /// Parses the boxes laid end to end in `bytes[range]`; children of `containerTypes` and of
    /// `meta` inside them are parsed too. Returns the boxes and the short tail.
    static func parseList(_ bytes: [UInt8], _ range: Range<Int>, depth: Int = 0) throws(ISOBMFFWriteFailure)
        -> (boxes: [MovieBox], tail: [UInt8]) {
        guard depth < maximumDepth else { throw ISOBMFFWriteFailure(reason: "boxes are nested too deeply") }
        let buffer = ISOBMFFBuffer(bytes: bytes)
        var boxes: [MovieBox] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            let left = range.upperBound - offset
            guard let size32 = buffer.u32(offset), left >= 8 else {
                // Fewer than 8 bytes: a terminator (zeros) or padding, kept as is.
                return (boxes, Array(bytes[offset..<range.upperBound]))
            }
            if size32 == 0 && left <= 8 && buffer.u32(offset + 4) == 0 {
                return (boxes, Array(bytes[offset..<range.upperBound]))
            }
            guard let type = buffer.u32(offset + 4) else { break }
            var size = UInt64(size32), header = 8
            if size32 == 1 {
                guard let large = buffer.u64(offset + 8) else {
                    throw ISOBMFFWriteFailure(reason: "a '\(MetadataKeyCoding.string(type))' box is cut short")
                }
                size = large
                header = 16
            } else if size32 == 0 {
                size = UInt64(left)
            }
            guard size >= UInt64(header), size <= UInt64(left) else {
                throw ISOBMFFWriteFailure(reason: "the '\(MetadataKeyCoding.string(type))' box at byte \(offset) of the movie box "
                                              + "claims \(size) bytes where \(left) remain")
            }
            let end = offset + Int(size)
            let payloadStart = offset + header
            if containerTypes.contains(type) {
                let (children, tail) = try parseList(bytes, payloadStart..<end, depth: depth + 1)
                var box = MovieBox(container: type, children: children)
                box.tail = tail
                boxes.append(box)
            } else {
                boxes.append(MovieBox(type: type, payload: Array(bytes[payloadStart..<end])))
            }
            offset = end
            if boxes.count > ISOBMFFBuffer.maximumChildren { throw ISOBMFFWriteFailure(reason: "too many boxes") }
        }
        return (boxes, [])
    }

    /// Parses a `moov` box's payload.
    static func parseMovie(_ payload: [UInt8]) throws(ISOBMFFWriteFailure) -> MovieBox {
        let (children, tail) = try parseList(payload, 0..<payload.count, depth: 1)
        var movie = MovieBox(container: FourCC.code("moov"), children: children)
        movie.tail = tail
        return movie
    }

    /// Splits a `meta` leaf into its version/flags prefix (ISO full box; none in QuickTime's
    /// form) and children; nil when its payload is not a box list.
    static func parseMeta(_ meta: MovieBox) -> MovieBox? {
        let buffer = ISOBMFFBuffer(bytes: meta.payload)
        let prefix = buffer.u32(4) == FourCC.code("hdlr") ? 0 : 4
        guard meta.payload.count >= prefix,
              let (children, tail) = try? parseList(meta.payload, prefix..<meta.payload.count, depth: 3) else { return nil }
        var box = MovieBox(container: meta.type, prefix: Array(meta.payload.prefix(prefix)), children: children)
        box.tail = tail
        return box
    }

    /// A `meta` box's handler type.
    var handlerType: UInt32? {
        guard let hdlr = child("hdlr") else { return nil }
        return ISOBMFFBuffer(bytes: hdlr.payload).u32(8)
    }
}

/// Big-endian byte building.
enum ISOBMFFBytes {
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func be32(_ value: UInt32) -> [UInt8] { MetadataKeyCoding.bytes(value) }
    static func be64(_ value: UInt64) -> [UInt8] { be32(UInt32(value >> 32)) + be32(UInt32(value & 0xFFFF_FFFF)) }

    /// A box: 32-bit size, type, payload.
    static func box(_ type: UInt32, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + MetadataKeyCoding.bytes(type) + payload
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(FourCC.code(type), payload) }
}
