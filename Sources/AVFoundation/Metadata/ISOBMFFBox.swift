// A bounded reader of ISO base media file format boxes (QuickTime atoms) over bytes in memory.
// Every size is checked against its parent: size 0 runs to the parent's end, size 1 takes the
// 64-bit largesize, sizes smaller than the header end the walk, sizes past the parent are cut
// to it, and nesting stops at a fixed depth.
import Foundation

/// One box: its type and where its header and payload lie in the buffer.
struct ISOBMFFBox {
    /// The four-character type.
    let type: UInt32
    /// The offset of the payload (after the size/type/largesize header).
    let payloadStart: Int
    /// The offset just past the box.
    let end: Int

    /// The payload's length.
    var payloadLength: Int { end - payloadStart }
}

/// Big-endian reads over a byte array that return nil instead of trapping.
struct ISOBMFFBuffer {
    let bytes: [UInt8]

    /// The deepest nesting walked.
    static let maximumDepth = 16
    /// The most children listed under one box.
    static let maximumChildren = 100_000

    func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }

    func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at <= bytes.count - 2 else { return nil }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    func u32(_ at: Int) -> UInt32? {
        guard at >= 0, at <= bytes.count - 4 else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[at + $1]) }
    }

    func u64(_ at: Int) -> UInt64? {
        guard at >= 0, at <= bytes.count - 8 else { return nil }
        return (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) }
    }

    /// Bytes in a range clamped to the buffer.
    func slice(_ start: Int, _ end: Int) -> [UInt8] {
        let lower = max(0, min(start, bytes.count)), upper = max(lower, min(end, bytes.count))
        return Array(bytes[lower..<upper])
    }

    /// The boxes laid end to end in `start..<end`.
    func children(from start: Int, to end: Int) -> [ISOBMFFBox] {
        let limit = min(end, bytes.count)
        var boxes: [ISOBMFFBox] = []
        var offset = max(0, start)
        while offset + 8 <= limit && boxes.count < Self.maximumChildren {
            guard let size32 = u32(offset), let type = u32(offset + 4) else { break }
            var headerLength = 8
            var size: UInt64 = UInt64(size32)
            if size32 == 1 {
                guard let large = u64(offset + 8) else { break }
                size = large
                headerLength = 16
            } else if size32 == 0 {
                size = UInt64(limit - offset)
            }
            guard size >= UInt64(headerLength) else { break }
            let boxEnd = size > UInt64(limit - offset) ? limit : offset + Int(size)
            guard offset + headerLength <= boxEnd else { break }
            boxes.append(ISOBMFFBox(type: type, payloadStart: offset + headerLength, end: boxEnd))
            offset = boxEnd
        }
        return boxes
    }

    /// The children of a box, skipping `skip` bytes of its payload first (4 for a full box).
    func children(of box: ISOBMFFBox, skip: Int = 0) -> [ISOBMFFBox] {
        children(from: box.payloadStart + skip, to: box.end)
    }

    /// The first child of a type.
    func child(_ type: String, of box: ISOBMFFBox, skip: Int = 0) -> ISOBMFFBox? {
        let code = FourCC.code(type)
        return children(of: box, skip: skip).first { $0.type == code }
    }

    /// Follows a path of child types ("mdia", "minf", "stbl").
    func descend(_ box: ISOBMFFBox, _ path: [String]) -> ISOBMFFBox? {
        var current = box
        for type in path {
            guard let next = child(type, of: current) else { return nil }
            current = next
        }
        return current
    }

    /// The children of a `meta` box, which ISO makes a full box and QuickTime does not: the
    /// `hdlr` that starts the list says which.
    func metaChildren(_ meta: ISOBMFFBox) -> [ISOBMFFBox] {
        if u32(meta.payloadStart + 4) == FourCC.code("hdlr") { return children(of: meta) }
        return children(of: meta, skip: 4)
    }

    /// The handler type of a `hdlr` box (after version/flags and pre_defined).
    func handlerType(_ hdlr: ISOBMFFBox) -> UInt32? { u32(hdlr.payloadStart + 8) }
}

/// Four-character codes.
enum FourCC {
    /// The code of a type string of four Latin-1 characters ("©nam" included).
    static func code(_ string: String) -> UInt32 { MetadataKeyCoding.fourCharCode(string) ?? 0 }
}
