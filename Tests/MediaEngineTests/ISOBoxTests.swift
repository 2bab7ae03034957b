// The one ISO-BMFF box reader and writer: headers (32-bit, 64-bit largesize, size 0 to the end),
// full-box version and flags, child iteration, bounded file walks, and the editable tree's
// serialisation with its sizes fixed up. Hostile sizes — truncated, oversized, smaller than the
// header, endless runs of empty boxes — end a walk with a BoxError that says where, never a trap,
// a read past the end or a hang.
import Foundation
@testable import MediaEngine
import Testing

struct ISOBoxTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { BoxBytes.box(type, payload) }

    /// Every header a walk over `bytes` returns, and the error that ended it.
    static func walk(_ bytes: [UInt8], maximumBoxes: Int = 1000) -> (boxes: [ISOBoxHeader], error: BoxError?) {
        var walker = ISOBoxReader(bytes: bytes).walker(from: 0, to: bytes.count, maximumBoxes: maximumBoxes)
        var boxes: [ISOBoxHeader] = []
        do {
            while let box = try walker.next() { boxes.append(box) }
            return (boxes, nil)
        } catch {
            return (boxes, error)
        }
    }

    @Test func headersOfEverySize() throws {
        let large = BoxBytes.be32(1) + Array("mdat".utf8) + BoxBytes.be64(24) + [UInt8](repeating: 7, count: 8)
        let toEnd = BoxBytes.be32(0) + Array("free".utf8) + [1, 2, 3]
        let (boxes, error) = Self.walk(Self.box("ftyp", Array("isom".utf8)) + large + toEnd)
        #expect(error == nil)
        #expect(boxes.map(\.typeName) == ["ftyp", "mdat", "free"])
        #expect(boxes.map(\.offset) == [0, 12, 36] && boxes.map(\.headerLength) == [8, 16, 8])
        #expect(boxes.map(\.size) == [12, 24, 11] && boxes.allSatisfy(\.fits))
        #expect(boxes[2].runsToEnd && boxes[1].payloadOffset == 28)
    }

    @Test func hostileSizesEndTheWalkWithAReason() throws {
        let moov = Self.box("moov", [])
        // Smaller than its header.
        let tiny = BoxBytes.be32(4) + Array("trak".utf8)
        let (_, tinyError) = Self.walk(moov + tiny)
        #expect(tinyError?.kind == .impossibleSize && tinyError?.reason.contains("'trak' box at byte 8") == true)
        // A 64-bit size cut off by the end.
        let cut = BoxBytes.be32(1) + Array("mdat".utf8) + [0, 0]
        #expect(Self.walk(moov + cut).error?.kind == .truncatedHeader)
        // Past the parent: returned once, not fitting, and the walk ends there.
        let over = BoxBytes.be32(1) + Array("mdat".utf8) + BoxBytes.be64(.max) + moov
        let (boxes, overError) = Self.walk(over)
        #expect(overError == nil && boxes.count == 1 && boxes[0].fits == false && boxes[0].end == UInt64(over.count))
        #expect(ISOBoxWalker.overrun(boxes[0]).reason.contains("claims 18446744073709551615 bytes"))
        // An endless run of empty boxes stops at the walk's bound.
        let many = [UInt8]((0..<2000).flatMap { _ in Self.box("free", []) })
        let (visited, manyError) = Self.walk(many, maximumBoxes: 1000)
        #expect(visited.count == 1000 && manyError?.kind == .tooMany)
        // Fewer than 8 bytes left: the walk ends and leaves them.
        var walker = ISOBoxReader(bytes: moov + [0, 0, 0]).walker(from: 0, to: 11)
        #expect(try walker.next()?.typeName == "moov")
        #expect(try walker.next() == nil && walker.remaining == 3)
    }

    @Test func theLenientReaderCutsToTheParentAndReadsFullBoxes() throws {
        let mvhd = BoxBytes.fullBox("mvhd", version: 1, flags: 0x000102, BoxBytes.be64(1) + BoxBytes.be64(2) + BoxBytes.be32(600)
                                    + BoxBytes.be64(1200))
        // The trak claims more than the moov has: its children are read up to the moov's end.
        let trak = BoxBytes.be32(4000) + Array("trak".utf8) + Self.box("tkhd", [0, 0, 0, 1])
        let moov = Self.box("moov", mvhd + trak)
        let reader = ISOBoxReader(bytes: moov)
        let root = try #require(reader.children(from: 0, to: moov.count).first)
        let children = reader.children(of: root)
        #expect(children.map { FourCC.string($0.type) } == ["mvhd", "trak"])
        #expect(children[1].end == moov.count)
        #expect(reader.child("tkhd", of: children[1])?.payloadLength == 4)
        let header = try #require(reader.fullBox(children[0]))
        #expect(header.version == 1 && header.flags == 0x000102)
        #expect(reader.versionedField(children[0], version0: 16, version1: 24) == 1200)
        #expect(reader.descend(root, ["trak", "mdia"]) == nil)
        #expect(reader.u32(moov.count - 2) == nil && reader.u64(-1) == nil)
    }

    @Test func theTreeSerialisesWithItsSizesFixedUp() throws {
        let udta = Self.box("udta", Self.box("©nam", [0, 5] + Array("title".utf8)) + [0, 0, 0, 0])
        let payload = Self.box("mvhd", [UInt8](repeating: 0, count: 100)) + Self.box("trak", Self.box("tkhd", [0, 0, 0, 3])) + udta
        var movie = try ISOBoxNode.parseMovie(payload)
        // Unchanged, it serialises to the same bytes (the udta terminator kept as its tail).
        #expect(movie.bytes == Self.box("moov", payload))
        #expect(movie.child("udta")?.tail == [0, 0, 0, 0])
        // A grown child grows every ancestor.
        movie.children![1].children!.append(EditListBox.edts([EditListEntry(segmentDuration: 10, mediaTime: 0)]))
        let bytes = movie.bytes
        let reader = ISOBoxReader(bytes: bytes)
        let root = try #require(reader.children(from: 0, to: bytes.count).first)
        #expect(root.end == bytes.count && bytes.count == payload.count + 8 + 36)
        let elst = try #require(reader.descend(root, ["trak", "edts", "elst"]))
        #expect(EditListBox.entries(reader, elst) == [EditListEntry(segmentDuration: 10, mediaTime: 0)])
        // Strict parsing refuses a child that overruns its parent, saying which.
        let damaged = Self.box("trak", BoxBytes.be32(100) + Array("tkhd".utf8))
        #expect { try ISOBoxNode.parseMovie(damaged) } throws: { error in
            (error as? BoxError)?.kind == .overrun && "\(error)".contains("'tkhd'")
        }
    }

    @Test func fileWalksReadOnlyHeadersAndBoundedPayloads() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("boxes-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        let mdat = BoxBytes.box("mdat", [UInt8](repeating: 1, count: 1000))
        let moov = Self.box("moov", Self.box("mvhd", [0, 0, 0, 0]))
        try Data(Self.box("ftyp", Array("isom".utf8)) + mdat + moov + BoxBytes.be32(500) + Array("free".utf8)).write(to: url)
        let file = try MediaFile(url: url)
        var walker = file.boxes(maximumBoxes: 10)
        var found: [ISOBoxHeader] = []
        while let box = try walker.next() { found.append(box) }
        #expect(found.map(\.typeName) == ["ftyp", "mdat", "moov", "free"])
        #expect(found.last?.fits == false && found.last?.room == 8)
        #expect(try file.payload(of: found[2], maximum: 1 << 20) == Self.box("mvhd", [0, 0, 0, 0]))
        #expect { try file.payload(of: found[1], maximum: 100) } throws: { ($0 as? BoxError)?.kind == .tooMany }
        #expect(file.read(upTo: 100, at: file.length - 4).count == 4 && file.read(upTo: 4, at: file.length).isEmpty)
        #expect(throws: MediaError.self) { try file.read(count: 8, at: file.length - 4) }
        #expect(throws: MediaError.self) { try MediaFile(path: url.path + ".missing") }
    }
}
