// HeifContainer: the boxes of a HEIF (ISO/IEC 23008-12) still-image file read into a model —
// items (infe), where their bytes are (iloc, idat), how they refer to each other (iref: dimg,
// thmb, cdsc, auxl), their properties (iprp: hvcC, ispe, colr, pixi, clap, irot, imir) — and the
// primary image's geometry. Parsing is bounded and never traps: damaged files give nil or an
// image that reports itself incomplete.
import Foundation

/// A parsed HEIF file.
package struct HeifContainer: Sendable {
    /// One entry of the item information box.
    package struct Item: Sendable, Equatable {
        package var id: UInt32
        /// The four-character item type ("hvc1", "grid", "Exif", "mime", …).
        package var type: String
        /// Hidden items (grid tiles) are not shown on their own.
        package var isHidden: Bool
    }

    /// One byte range of an item.
    package struct Extent: Sendable, Equatable {
        package var offset: Int
        package var length: Int
    }

    /// Where an item's bytes are: in the file (construction method 0) or in `idat` (1).
    package struct Location: Sendable, Equatable {
        package var inIdat: Bool
        package var extents: [Extent]
    }

    /// The properties this reader understands.
    package enum Property: Sendable, Equatable {
        /// The HEVC decoder configuration record (the `hvcC` payload).
        case hvcC([UInt8])
        /// The coded picture size.
        case ispe(width: Int, height: Int)
        /// nclx colour: H.273 primaries, transfer, matrix and range.
        case nclx(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)
        /// An ICC profile.
        case icc([UInt8])
        /// Bits per channel.
        case pixi([Int])
        /// A clean aperture crop: width, height and centre offset, as fractions.
        case clap(width: Double, height: Double, horizontalOffset: Double, verticalOffset: Double)
        /// Rotation anticlockwise by `quarterTurns` × 90°.
        case irot(quarterTurns: Int)
        /// Mirroring: axis 0 mirrors about a vertical axis (left–right), 1 about a horizontal one.
        case imir(axis: Int)
        /// An auxiliary image's type URN (alpha, depth).
        case auxC(String)
        /// Anything else (kept so that property indices stay right).
        case other(String)
    }

    package var majorBrand: String
    package var compatibleBrands: [String]
    package var primaryID: UInt32
    package var items: [Item]
    package var locations: [UInt32: Location]
    /// References by type: from-item → to-items, in order.
    package var references: [String: [UInt32: [UInt32]]]
    /// Each item's properties in association order (with the essential flag).
    package var properties: [UInt32: [(property: Property, essential: Bool)]]
    /// The `idat` payload.
    package var idat: [UInt8]

    /// The item with `id`.
    package func item(_ id: UInt32) -> Item? { items.first { $0.id == id } }

    /// The items `id` refers to with a reference of `type` (dimg tiles, in grid order).
    package func referenced(from id: UInt32, type: String) -> [UInt32] { references[type]?[id] ?? [] }

    /// The items that refer to `id` with a reference of `type` (thumbnails, Exif, alpha).
    package func referring(to id: UInt32, type: String) -> [UInt32] {
        (references[type] ?? [:]).filter { $0.value.contains(id) }.map(\.key).sorted()
    }

    /// The first property of an item matching `pick`.
    package func property<T>(of id: UInt32, _ pick: (Property) -> T?) -> T? {
        for entry in properties[id] ?? [] { if let v = pick(entry.property) { return v } }
        return nil
    }

    /// The item's `hvcC` payload.
    package func hvcC(of id: UInt32) -> [UInt8]? { property(of: id) { if case .hvcC(let b) = $0 { b } else { nil } } }

    /// The item's `ispe` size.
    package func spatialExtent(of id: UInt32) -> (width: Int, height: Int)? {
        property(of: id) { if case .ispe(let w, let h) = $0 { (w, h) } else { nil } }
    }

    /// The item's bytes (all extents, concatenated); nil when they do not lie inside `file`.
    package func data(of id: UInt32, in file: [UInt8]) -> [UInt8]? {
        guard let location = locations[id] else { return nil }
        let source = location.inIdat ? idat : file
        var out: [UInt8] = []
        for extent in location.extents {
            // A zero length means "to the end of the source" (ISO/IEC 14496-12, iloc).
            let end = extent.length == 0 ? source.count : extent.offset + extent.length
            guard extent.offset >= 0, extent.offset <= end, end <= source.count else { return nil }
            out += source[extent.offset ..< end]
        }
        return out
    }

    /// Whether the bytes of `id` lie inside a file of `count` bytes.
    package func isPresent(_ id: UInt32, fileSize count: Int) -> Bool {
        guard let location = locations[id] else { return false }
        if location.inIdat {
            return location.extents.allSatisfy { $0.offset >= 0 && $0.offset + $0.length <= idat.count }
        }
        return location.extents.allSatisfy { $0.offset >= 0 && $0.length >= 0 && $0.offset + $0.length <= count }
    }

    // MARK: Images

    /// The top-level images: shown items of an image type that are no one's tile, thumbnail or
    /// auxiliary image; the primary first.
    package var topLevelImages: [UInt32] {
        let imageTypes: Set<String> = ["hvc1", "grid", "iden", "iovl"]
        var dependent = Set<UInt32>()
        for type in ["dimg", "thmb", "auxl"] {
            for (from, to) in references[type] ?? [:] {
                if type == "dimg" { dependent.formUnion(to) } else { dependent.insert(from) }
            }
        }
        let shown = items.filter { imageTypes.contains($0.type) && !$0.isHidden && !dependent.contains($0.id) }.map(\.id)
        return [primaryID] + shown.filter { $0 != primaryID }
    }

    /// The Exif item describing `id` (or the file's only Exif item).
    package func exifItem(for id: UInt32) -> UInt32? {
        let exif = items.filter { $0.type == "Exif" }.map(\.id)
        return exif.first { referenced(from: $0, type: "cdsc").contains(id) } ?? (exif.count == 1 ? exif.first : nil)
    }

    /// The TIFF structure of an Exif item's payload (after its 4-byte header offset).
    package func exifTIFF(of id: UInt32, in file: [UInt8]) -> [UInt8]? {
        guard let bytes = data(of: id, in: file), bytes.count > 4 else { return nil }
        let skip = Int(ISOBoxReader.be32(bytes, 0))
        guard skip >= 0, 4 + skip + 8 <= bytes.count else { return nil }
        var tiff = Array(bytes[(4 + skip)...])
        // Some writers leave the "Exif\0\0" marker in front of the TIFF header.
        if tiff.starts(with: Array("Exif\0\0".utf8)) { tiff.removeFirst(6) }
        return tiff
    }

    /// A grid item's layout.
    package struct Grid: Sendable, Equatable {
        package var rows: Int
        package var columns: Int
        package var outputWidth: Int
        package var outputHeight: Int
    }

    /// The layout in a grid item's data.
    package func grid(_ id: UInt32, in file: [UInt8]) -> Grid? {
        guard let b = data(of: id, in: file), b.count >= 8, b[0] == 0 else { return nil }
        let large = b[1] & 1 != 0
        guard b.count >= (large ? 12 : 8) else { return nil }
        let rows = Int(b[2]) + 1, columns = Int(b[3]) + 1
        let w = large ? Int(ISOBoxReader.be32(b, 4)) : Int(b[4]) << 8 | Int(b[5])
        let h = large ? Int(ISOBoxReader.be32(b, 8)) : Int(b[6]) << 8 | Int(b[7])
        return Grid(rows: rows, columns: columns, outputWidth: w, outputHeight: h)
    }

    /// What an image item shows, before its transforms: its picture size and the coded items
    /// that make it.
    package struct Geometry: Sendable, Equatable {
        /// The composed picture's size (ispe of the item, or the grid's output size).
        package var width: Int
        package var height: Int
        /// The clean aperture in the composed picture (x, y, width, height), when cropped.
        package var crop: (x: Int, y: Int, width: Int, height: Int)?
        /// The EXIF orientation (1…8) equal to the item's rotation and mirroring.
        package var orientation: Int
        /// Bits per luma sample and chroma format (0 grey, 1 4:2:0, 2 4:2:2, 3 4:4:4).
        package var bitDepth: Int
        package var chromaFormat: Int

        package static func == (l: Geometry, r: Geometry) -> Bool {
            l.width == r.width && l.height == r.height && l.orientation == r.orientation && l.bitDepth == r.bitDepth
                && l.chromaFormat == r.chromaFormat && l.crop?.x == r.crop?.x && l.crop?.y == r.crop?.y
                && l.crop?.width == r.crop?.width && l.crop?.height == r.crop?.height
        }

        /// The stored picture's size after the crop (before orientation).
        package var croppedSize: (width: Int, height: Int) { crop.map { ($0.width, $0.height) } ?? (width, height) }
    }

    /// The geometry of image item `id`; nil for items this reader cannot show.
    package func geometry(of id: UInt32, in file: [UInt8]) -> Geometry? {
        guard let item = item(id) else { return nil }
        var width: Int, height: Int
        let config: [UInt8]
        switch item.type {
        case "hvc1":
            guard let c = hvcC(of: id), let size = spatialExtent(of: id) else { return nil }
            config = c
            (width, height) = size
        case "grid":
            guard let g = grid(id, in: file), let first = referenced(from: id, type: "dimg").first,
                  let c = hvcC(of: first) else { return nil }
            config = c
            (width, height) = (g.outputWidth, g.outputHeight)
        default:
            return nil
        }
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16, config.count >= 23 else { return nil }
        // An essential property this reader does not know forbids showing the item (23008-12 §7.5.3).
        for entry in properties[id] ?? [] where entry.essential {
            if case .other = entry.property { return nil }
        }
        var geometry = Geometry(width: width, height: height, crop: nil, orientation: 1,
                                bitDepth: Int(config[17] & 7) + 8, chromaFormat: Int(config[16] & 3))
        // Transforms in association order: a matrix that takes stored coordinates to shown ones.
        var matrix = HeifOrientation.identity
        for entry in properties[id] ?? [] {
            switch entry.property {
            case .irot(let turns):
                for _ in 0 ..< turns & 3 { matrix = HeifOrientation.anticlockwise.after(matrix) }
            case .imir(let axis):
                matrix = (axis == 0 ? HeifOrientation.leftRight : HeifOrientation.topBottom).after(matrix)
            case .clap(let cw, let ch, let ho, let vo):
                // The crop in the current (shown) frame, mapped back to the stored picture.
                let base = geometry.croppedSize
                let shown = matrix.swapsAxes ? (base.height, base.width) : (base.width, base.height)
                guard cw.isFinite, ch.isFinite, ho.isFinite, vo.isFinite, cw >= 1, ch >= 1 else { continue }
                let left = ho + Double(shown.0 - 1) / 2 - (cw - 1) / 2
                let top = vo + Double(shown.1 - 1) / 2 - (ch - 1) / 2
                let rect = matrix.unmap(x: left, y: top, width: cw, height: ch, shownWidth: shown.0, shownHeight: shown.1)
                var x = Int(rect.x.rounded()), y = Int(rect.y.rounded())
                var w = Int(rect.width.rounded()), h = Int(rect.height.rounded())
                if let previous = geometry.crop { x += previous.x; y += previous.y }
                x = max(0, x); y = max(0, y)
                w = min(w, width - x); h = min(h, height - y)
                guard w > 0, h > 0 else { continue }
                geometry.crop = (x, y, w, h)
            default:
                break
            }
        }
        geometry.orientation = matrix.exifOrientation
        return geometry
    }

    // MARK: Parsing

    /// Parses the boxes of `file`; nil when it is not a HEIF file with a readable `meta` box.
    package init?(_ file: [UInt8]) {
        let reader = ISOBoxReader(bytes: file)
        let top = reader.children(from: 0, to: file.count)
        guard let ftyp = top.first, ftyp.type == FourCC.code("ftyp"), ftyp.payloadLength >= 8,
              let meta = top.first(where: { $0.type == FourCC.code("meta") }) else { return nil }
        majorBrand = Self.fourCC(reader.u32(ftyp.payloadStart) ?? 0)
        compatibleBrands = stride(from: ftyp.payloadStart + 8, to: ftyp.end - 3, by: 4).compactMap { reader.u32($0).map(Self.fourCC) }
        primaryID = 0
        items = []
        locations = [:]
        references = [:]
        properties = [:]
        idat = []
        let children = reader.children(of: meta, skip: 4)
        guard let hdlr = children.first(where: { $0.type == FourCC.code("hdlr") }),
              reader.handlerType(hdlr) == FourCC.code("pict") else { return nil }
        for box in children {
            switch Self.fourCC(box.type) {
            case "pitm":
                guard let (version, _) = reader.fullBox(box) else { return nil }
                let id = version == 0 ? reader.u16(box.payloadStart + 4).map(UInt32.init) : reader.u32(box.payloadStart + 4)
                guard let id else { return nil }
                primaryID = id
            case "iinf": parseItemInfo(reader, box)
            case "iloc": guard parseLocations(reader, box) else { return nil }
            case "iref": parseReferences(reader, box)
            case "iprp": parseProperties(reader, box)
            case "idat": idat = reader.slice(box.payloadStart, box.end)
            default: break
            }
        }
        guard primaryID != 0, item(primaryID) != nil else { return nil }
    }

    private static func fourCC(_ code: UInt32) -> String {
        String(decoding: BoxBytes.be32(code).map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
    }

    private mutating func parseItemInfo(_ r: ISOBoxReader, _ box: ISOBox) {
        guard let (version, _) = r.fullBox(box) else { return }
        let skip = version == 0 ? 6 : 8
        for infe in r.children(of: box, skip: skip) where infe.type == FourCC.code("infe") {
            guard let (v, flags) = r.fullBox(infe), v >= 2 else { continue }
            let p = infe.payloadStart + 4
            let id: UInt32?, typeAt: Int
            if v == 2 {
                id = r.u16(p).map(UInt32.init); typeAt = p + 4
            } else {
                id = r.u32(p); typeAt = p + 6
            }
            guard let id, typeAt + 4 <= infe.end, let type = r.u32(typeAt) else { continue }
            items.append(Item(id: id, type: Self.fourCC(type), isHidden: flags & 1 != 0))
        }
    }

    private mutating func parseLocations(_ r: ISOBoxReader, _ box: ISOBox) -> Bool {
        guard let (version, _) = r.fullBox(box), version <= 2, let sizes = r.u16(box.payloadStart + 4) else { return false }
        let offsetSize = Int(sizes >> 12), lengthSize = Int(sizes >> 8 & 0xF), baseSize = Int(sizes >> 4 & 0xF)
        let indexSize = version == 0 ? 0 : Int(sizes & 0xF)
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseSize),
              [0, 4, 8].contains(indexSize) else { return false }
        var p = box.payloadStart + 6
        func read(_ size: Int) -> Int? {
            defer { p += size }
            guard p + size <= box.end else { return nil }
            switch size {
            case 0: return 0
            case 2: return r.u16(p).map(Int.init)
            case 4: return r.u32(p).map(Int.init)
            default: return r.u64(p).flatMap { $0 < 1 << 48 ? Int($0) : nil }
            }
        }
        guard let count = read(version < 2 ? 2 : 4), count < 1 << 16 else { return false }
        for _ in 0 ..< count {
            guard let id = read(version < 2 ? 2 : 4) else { return false }
            var method = 0
            if version >= 1 { guard let m = read(2) else { return false }; method = m & 0xF }
            guard let _ = read(2), let base = read(baseSize), let extentCount = read(2) else { return false }
            var extents: [Extent] = []
            for _ in 0 ..< extentCount {
                if indexSize > 0 { guard read(indexSize) != nil else { return false } }
                guard let offset = read(offsetSize), let length = read(lengthSize) else { return false }
                extents.append(Extent(offset: base + offset, length: length))
            }
            // Construction method 2 (bytes of another item) is not used by still-image writers.
            if method <= 1 { locations[UInt32(id)] = Location(inIdat: method == 1, extents: extents) }
        }
        return true
    }

    private mutating func parseReferences(_ r: ISOBoxReader, _ box: ISOBox) {
        guard let (version, _) = r.fullBox(box) else { return }
        let idSize = version == 0 ? 2 : 4
        for ref in r.children(of: box, skip: 4) {
            var p = ref.payloadStart
            func id() -> UInt32? {
                defer { p += idSize }
                guard p + idSize <= ref.end else { return nil }
                return idSize == 2 ? r.u16(p).map(UInt32.init) : r.u32(p)
            }
            guard let from = id(), p + 2 <= ref.end, let count = r.u16(p) else { continue }
            p += 2
            var to: [UInt32] = []
            for _ in 0 ..< count { guard let t = id() else { break }; to.append(t) }
            references[Self.fourCC(ref.type), default: [:]][from, default: []] += to
        }
    }

    private mutating func parseProperties(_ r: ISOBoxReader, _ iprp: ISOBox) {
        guard let ipco = r.child("ipco", of: iprp) else { return }
        let list = r.children(of: ipco).map { Self.property(r, $0) }
        for ipma in r.children(of: iprp) where ipma.type == FourCC.code("ipma") {
            guard let (version, flags) = r.fullBox(ipma), var p = Optional(ipma.payloadStart + 4),
                  let count = r.u32(p) else { continue }
            p += 4
            for _ in 0 ..< min(Int(count), 1 << 16) {
                let id: UInt32?
                if version < 1 { id = r.u16(p).map(UInt32.init); p += 2 } else { id = r.u32(p); p += 4 }
                guard let id, p < ipma.end, let n = r.u8(p) else { return }
                p += 1
                for _ in 0 ..< n {
                    let essential: Bool, index: Int
                    if flags & 1 != 0 {
                        guard p + 2 <= ipma.end, let v = r.u16(p) else { return }
                        (essential, index) = (v & 0x8000 != 0, Int(v & 0x7FFF)); p += 2
                    } else {
                        guard p < ipma.end, let v = r.u8(p) else { return }
                        (essential, index) = (v & 0x80 != 0, Int(v & 0x7F)); p += 1
                    }
                    if index >= 1 && index <= list.count { properties[id, default: []].append((list[index - 1], essential)) }
                }
            }
        }
    }

    private static func property(_ r: ISOBoxReader, _ box: ISOBox) -> Property {
        let p = box.payloadStart
        func i32(_ at: Int) -> Double? { r.u32(at).map { Double(Int32(bitPattern: $0)) } }
        switch fourCC(box.type) {
        case "hvcC": return .hvcC(r.slice(p, box.end))
        case "ispe":
            guard let w = r.u32(p + 4), let h = r.u32(p + 8), p + 12 <= box.end else { break }
            return .ispe(width: Int(w), height: Int(h))
        case "colr":
            guard let kind = r.u32(p) else { break }
            if kind == FourCC.code("nclx"), p + 11 <= box.end, let cp = r.u16(p + 4), let tc = r.u16(p + 6),
               let mc = r.u16(p + 8), let range = r.u8(p + 10) {
                return .nclx(primaries: Int(cp), transfer: Int(tc), matrix: Int(mc), fullRange: range & 0x80 != 0)
            }
            if kind == FourCC.code("prof") || kind == FourCC.code("rICC") { return .icc(r.slice(p + 4, box.end)) }
        case "pixi":
            guard let n = r.u8(p + 4) else { break }
            return .pixi((0 ..< Int(n)).compactMap { r.u8(p + 5 + $0).map(Int.init) })
        case "clap":
            guard p + 32 <= box.end, let wn = r.u32(p), let wd = r.u32(p + 4), let hn = r.u32(p + 8), let hd = r.u32(p + 12),
                  let hon = i32(p + 16), let hod = r.u32(p + 20), let von = i32(p + 24), let vod = r.u32(p + 28),
                  wd > 0, hd > 0, hod > 0, vod > 0 else { break }
            return .clap(width: Double(wn) / Double(wd), height: Double(hn) / Double(hd),
                         horizontalOffset: hon / Double(hod), verticalOffset: von / Double(vod))
        case "irot":
            guard let b = r.u8(p), p < box.end else { break }
            return .irot(quarterTurns: Int(b & 3))
        case "imir":
            guard let b = r.u8(p), p < box.end else { break }
            return .imir(axis: Int(b & 1))
        case "auxC":
            let urn = r.slice(p + 4, box.end).prefix { $0 != 0 }
            return .auxC(String(decoding: urn, as: UTF8.self))
        default:
            break
        }
        return .other(fourCC(box.type))
    }
}

/// The eight EXIF orientations as integer matrices on pixel coordinates (x right, y down) that
/// take a stored picture to the shown one.
package struct HeifOrientation: Sendable, Equatable {
    var a: Int, b: Int, c: Int, d: Int  // (x, y) → (a·x + b·y, c·x + d·y)

    static let identity = HeifOrientation(a: 1, b: 0, c: 0, d: 1)
    /// A quarter turn anticlockwise as seen (irot 1).
    static let anticlockwise = HeifOrientation(a: 0, b: 1, c: -1, d: 0)
    /// Mirroring about a vertical axis (imir 0).
    static let leftRight = HeifOrientation(a: -1, b: 0, c: 0, d: 1)
    /// Mirroring about a horizontal axis (imir 1).
    static let topBottom = HeifOrientation(a: 1, b: 0, c: 0, d: -1)

    /// EXIF orientation n's matrix (index n − 1).
    static let exif: [HeifOrientation] = [
        identity, leftRight, HeifOrientation(a: -1, b: 0, c: 0, d: -1), topBottom,
        HeifOrientation(a: 0, b: 1, c: 1, d: 0), HeifOrientation(a: 0, b: -1, c: 1, d: 0),
        HeifOrientation(a: 0, b: -1, c: -1, d: 0), anticlockwise,
    ]

    /// `self` applied after `first`.
    func after(_ first: HeifOrientation) -> HeifOrientation {
        HeifOrientation(a: a * first.a + b * first.c, b: a * first.b + b * first.d,
                        c: c * first.a + d * first.c, d: c * first.b + d * first.d)
    }

    var swapsAxes: Bool { a == 0 }

    /// The EXIF orientation (1…8) equal to this matrix.
    var exifOrientation: Int { (Self.exif.firstIndex(of: self) ?? 0) + 1 }

    /// The `irot` quarter turns and `imir` axis (applied in that order) that show a picture as
    /// EXIF orientation `orientation` says.
    package static func transforms(forExif orientation: Int) -> (quarterTurns: Int, mirrorAxis: Int?) {
        guard (1 ... 8).contains(orientation) else { return (0, nil) }
        let target = exif[orientation - 1]
        for axis in [nil, 0] as [Int?] {
            for turns in 0 ..< 4 {
                var m = identity
                for _ in 0 ..< turns { m = anticlockwise.after(m) }
                if let axis { m = (axis == 0 ? leftRight : topBottom).after(m) }
                if m == target { return (turns, axis) }
            }
        }
        return (0, nil)
    }

    /// A rectangle of the shown picture (continuous coordinates) as a rectangle of the stored one.
    func unmap(x: Double, y: Double, width: Double, height: Double, shownWidth: Int, shownHeight: Int)
        -> (x: Double, y: Double, width: Double, height: Double) {
        let storedW = Double(swapsAxes ? shownHeight : shownWidth), storedH = Double(swapsAxes ? shownWidth : shownHeight)
        // p = Mᵀ (p' − c') + c (the matrix is orthogonal).
        func back(_ px: Double, _ py: Double) -> (Double, Double) {
            let dx = px - Double(shownWidth) / 2, dy = py - Double(shownHeight) / 2
            return (Double(a) * dx + Double(c) * dy + storedW / 2, Double(b) * dx + Double(d) * dy + storedH / 2)
        }
        let p1 = back(x, y), p2 = back(x + width, y + height)
        return (min(p1.0, p2.0), min(p1.1, p2.1), abs(p2.0 - p1.0), abs(p2.1 - p1.1))
    }
}
