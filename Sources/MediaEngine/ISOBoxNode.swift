// ISOBoxNode: a box tree to edit and serialise, for rewriting a movie box (metadata, edit lists).
// Unlike the lenient reader (ISOBoxReader), parsing is strict: a box whose size runs past its
// parent or is smaller than its header makes the whole tree refused, so a damaged movie is never
// rewritten into a different damaged movie. Serialising fixes every size up (64-bit where a box
// outgrows 32 bits).
import Foundation

/// One box of a tree: a leaf with its payload, or a container with parsed children.
package struct ISOBoxNode: Sendable {
    /// The four-character type.
    package var type: UInt32
    /// A leaf's whole payload, or the bytes a container has before its children (version and
    /// flags of a full box).
    package var payload: [UInt8]
    /// A container's children; nil for a leaf.
    package var children: [ISOBoxNode]?
    /// Bytes after a container's last child too short to be a box (QuickTime's 32-bit zero
    /// terminator of `udta`), kept as they were.
    package var tail: [UInt8] = []

    /// The boxes whose children are parsed (what the movie rewriters edit or walk to chunk offsets).
    package static let containerTypes: Set<UInt32> = Set(["moov", "trak", "mdia", "minf", "stbl", "udta"].map(FourCC.code))
    /// The deepest nesting parsed.
    package static let maximumDepth = 12

    package init(type: UInt32, payload: [UInt8]) {
        self.type = type
        self.payload = payload
        children = nil
    }

    package init(type: String, payload: [UInt8]) { self.init(type: FourCC.code(type), payload: payload) }

    package init(container type: UInt32, prefix: [UInt8] = [], children: [ISOBoxNode]) {
        self.type = type
        payload = prefix
        self.children = children
    }

    /// The size of the box when serialized (header included).
    package var size: Int {
        let body = payload.count + tail.count + (children?.reduce(0) { $0 + $1.size } ?? 0)
        return body + (body + 8 > Int(UInt32.max) ? 16 : 8)
    }

    /// Appends the box's bytes.
    package func serialize(into out: inout [UInt8]) {
        let total = size
        if total > Int(UInt32.max) {
            out += BoxBytes.be32(1) + BoxBytes.be32(type) + BoxBytes.be64(UInt64(total))
        } else {
            out += BoxBytes.be32(UInt32(total)) + BoxBytes.be32(type)
        }
        out += payload
        for child in children ?? [] { child.serialize(into: &out) }
        out += tail
    }

    package var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size)
        serialize(into: &out)
        return out
    }

    /// The first child of a type.
    package func child(_ type: String) -> ISOBoxNode? {
        let code = FourCC.code(type)
        return children?.first { $0.type == code }
    }

    /// The children of a type.
    package func children(_ type: String) -> [ISOBoxNode] {
        let code = FourCC.code(type)
        return children?.filter { $0.type == code } ?? []
    }

    // MARK: Parsing

    /// Parses the boxes laid end to end in `bytes[range]`; children of `containerTypes` are
    /// parsed too. Returns the boxes and the short tail.
    package static func parseList(_ bytes: [UInt8], _ range: Range<Int>, depth: Int = 0) throws(BoxError)
        -> (boxes: [ISOBoxNode], tail: [UInt8]) {
        guard depth < maximumDepth else { throw BoxError(.tooMany, reason: "boxes are nested too deeply") }
        var walker = ISOBoxReader(bytes: bytes).walker(from: range.lowerBound, to: range.upperBound)
        var boxes: [ISOBoxNode] = []
        var tailStart: Int?
        while let header = try walker.next() {
            // QuickTime's 32-bit zero terminator: a "box" of size 0 and type 0 in the last 8 bytes.
            if header.runsToEnd && header.type == 0 && header.room <= 8 { tailStart = Int(header.offset); break }
            guard header.fits else { throw ISOBoxWalker.overrun(header, in: "the movie box") }
            let start = Int(header.payloadOffset), end = Int(header.end)
            if containerTypes.contains(header.type) {
                let (children, tail) = try parseList(bytes, start..<end, depth: depth + 1)
                var box = ISOBoxNode(container: header.type, children: children)
                box.tail = tail
                boxes.append(box)
            } else {
                boxes.append(ISOBoxNode(type: header.type, payload: Array(bytes[start..<end])))
            }
        }
        return (boxes, Array(bytes[(tailStart ?? Int(walker.offset))..<range.upperBound]))
    }

    /// Parses a `moov` box's payload.
    package static func parseMovie(_ payload: [UInt8]) throws(BoxError) -> ISOBoxNode {
        let (children, tail) = try parseList(payload, 0..<payload.count, depth: 1)
        var movie = ISOBoxNode(container: FourCC.code("moov"), children: children)
        movie.tail = tail
        return movie
    }

    /// Splits a `meta` leaf into its version/flags prefix (ISO full box; none in QuickTime's
    /// form) and children; nil when its payload is not a box list.
    package static func parseMeta(_ meta: ISOBoxNode) -> ISOBoxNode? {
        let buffer = ISOBoxReader(bytes: meta.payload)
        let prefix = buffer.u32(4) == FourCC.code("hdlr") ? 0 : 4
        guard meta.payload.count >= prefix,
              let (children, tail) = try? parseList(meta.payload, prefix..<meta.payload.count, depth: 3) else { return nil }
        var box = ISOBoxNode(container: meta.type, prefix: Array(meta.payload.prefix(prefix)), children: children)
        box.tail = tail
        return box
    }

    /// A `meta` box's handler type.
    package var handlerType: UInt32? {
        guard let hdlr = child("hdlr") else { return nil }
        return ISOBoxReader(bytes: hdlr.payload).u32(8)
    }
}
