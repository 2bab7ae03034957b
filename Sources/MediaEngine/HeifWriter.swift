// HeifWriter: a HEIF still-image file (ISO/IEC 23008-12) around HEVC-coded pictures — `ftyp`
// (heic, mif1), `meta` (hdlr 'pict', pitm, iinf, iref, iprp with hvcC/ispe/colr/pixi/clap/
// irot/imir, iloc, idat) and `mdat` — laid out as Apple's HEIC photos are: one 'hvc1' item, or
// a 'grid' item of hidden 'hvc1' tiles, and an 'Exif' item describing the primary image. Also
// builds the hvcC decoder configuration record from the encoder's parameter sets.
import Foundation

/// An HEVC-coded still picture, ready to be boxed: one coded picture or a grid of tiles.
package struct HeifPicture: Sendable {
    /// Each coded picture's NAL units, 4-byte length-prefixed, parameter sets left out (row-major tiles).
    package var tiles: [[UInt8]]
    /// The HEVC decoder configuration record shared by every coded picture.
    package var hvcC: [UInt8]
    /// The size of each coded picture.
    package var codedWidth: Int
    package var codedHeight: Int
    /// Tile rows and columns; nil for a single coded picture.
    package var grid: (rows: Int, columns: Int)?
    /// The picture's size (the grid's output size, or the clean aperture of a single picture).
    package var width: Int
    package var height: Int
    /// H.273 colour: primaries, transfer characteristics, matrix coefficients, full range.
    package var colour: (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)
}

/// Writes HEIF files.
package enum HeifWriter {
    /// The file for `picture`: orientation 1…8 is written as `irot`/`imir` transforms of the
    /// primary image; `exifTIFF` (a TIFF structure, as `ExifWriter.tiffStructure` makes) becomes
    /// an 'Exif' item linked to it by a 'cdsc' reference; `thumbnail` (one coded picture) a
    /// 'hvc1' item linked by 'thmb', turned as the primary is. Nil when a picture is inconsistent.
    package static func file(_ picture: HeifPicture, orientation: Int = 1, exifTIFF: [UInt8]? = nil,
                             thumbnail: HeifPicture? = nil) -> Data? {
        if let thumbnail, thumbnail.grid != nil || thumbnail.tiles.count != 1 { return nil }
        let tileCount = picture.grid.map { $0.rows * $0.columns } ?? 1
        guard tileCount == picture.tiles.count, tileCount >= 1, tileCount < 0xFFFF - 2, (picture.grid?.rows ?? 1) <= 256,
              (picture.grid?.columns ?? 1) <= 256, picture.width > 0, picture.height > 0,
              picture.codedWidth > 0, picture.codedHeight > 0 else { return nil }
        let ftyp = BoxBytes.box("ftyp", Array("heic".utf8) + BoxBytes.be32(0) + Array("mif1heic".utf8))
        let exifPayload = exifTIFF.map { BoxBytes.be32(6) + Array("Exif\0\0".utf8) + $0 }
        // The meta box's size does not depend on the offsets it records (4-byte fields): build it
        // once to learn its size, then again with the real offsets.
        let draft = meta(picture, orientation: orientation, exif: exifPayload, thumbnail: thumbnail, mdatDataStart: 0)
        let mdatPayloadCount = picture.tiles.reduce(0) { $0 + $1.count } + (exifPayload?.count ?? 0)
            + (thumbnail?.tiles[0].count ?? 0)
        let mdatHeader = mdatPayloadCount + 8 > Int(UInt32.max) ? 16 : 8
        let dataStart = ftyp.count + draft.count + mdatHeader
        guard dataStart + mdatPayloadCount < Int(UInt32.max) else { return nil }
        let metaBox = meta(picture, orientation: orientation, exif: exifPayload, thumbnail: thumbnail, mdatDataStart: dataStart)
        var out = Data(capacity: dataStart + mdatPayloadCount)
        out.append(contentsOf: ftyp)
        out.append(contentsOf: metaBox)
        out.append(contentsOf: BoxBytes.be32(UInt32(mdatPayloadCount + 8)) + Array("mdat".utf8))
        for tile in picture.tiles { out.append(contentsOf: tile) }
        if let exifPayload { out.append(contentsOf: exifPayload) }
        if let thumbnail { out.append(contentsOf: thumbnail.tiles[0]) }
        return out
    }

    /// Item IDs: the primary image is 1; tiles 2…n+1; the Exif item and the thumbnail follow.
    private static func meta(_ p: HeifPicture, orientation: Int, exif: [UInt8]?, thumbnail: HeifPicture?,
                             mdatDataStart: Int) -> [UInt8] {
        let isGrid = p.grid != nil
        let tileIDs: [UInt16] = isGrid ? (0 ..< p.tiles.count).map { UInt16($0 + 2) } : []
        let codedIDs: [UInt16] = isGrid ? tileIDs : [1]
        let exifID: UInt16? = exif == nil ? nil : UInt16((tileIDs.last ?? 1) + 1)
        let thumbnailID: UInt16? = thumbnail == nil ? nil : (exifID ?? tileIDs.last ?? 1) + 1

        let hdlr = BoxBytes.fullBox("hdlr", version: 0, BoxBytes.be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = BoxBytes.fullBox("pitm", version: 0, BoxBytes.be16(1))

        // iinf
        func infe(_ id: UInt16, _ type: String, hidden: Bool = false) -> [UInt8] {
            BoxBytes.fullBox("infe", version: 2, flags: hidden ? 1 : 0, BoxBytes.be16(id) + BoxBytes.be16(0) + Array(type.utf8) + [0])
        }
        var entries = [infe(1, isGrid ? "grid" : "hvc1")]
        entries += tileIDs.map { infe($0, "hvc1", hidden: true) }
        if let exifID { entries.append(infe(exifID, "Exif")) }
        if let thumbnailID { entries.append(infe(thumbnailID, "hvc1")) }
        let iinf = BoxBytes.fullBox("iinf", version: 0, BoxBytes.be16(UInt16(entries.count)) + entries.flatMap { $0 })

        // iref
        var refs: [UInt8] = []
        if isGrid { refs += BoxBytes.box("dimg", BoxBytes.be16(1) + BoxBytes.be16(UInt16(tileIDs.count)) + tileIDs.flatMap(BoxBytes.be16)) }
        if let exifID { refs += BoxBytes.box("cdsc", BoxBytes.be16(exifID) + BoxBytes.be16(1) + BoxBytes.be16(1)) }
        if let thumbnailID { refs += BoxBytes.box("thmb", BoxBytes.be16(thumbnailID) + BoxBytes.be16(1) + BoxBytes.be16(1)) }
        let iref = refs.isEmpty ? [] : BoxBytes.fullBox("iref", version: 0, refs)

        // iprp: properties, then who has which (1-based indices; 0x80 marks essential ones).
        var ipco: [[UInt8]] = []
        func add(_ box: [UInt8]) -> UInt8 { ipco.append(box); return UInt8(ipco.count) }
        let hvcC = add(BoxBytes.box("hvcC", p.hvcC))
        let codedSize = add(BoxBytes.fullBox("ispe", version: 0, BoxBytes.be32(UInt32(p.codedWidth)) + BoxBytes.be32(UInt32(p.codedHeight))))
        let colr = add(BoxBytes.box("colr", Array("nclx".utf8) + BoxBytes.be16(UInt16(p.colour.primaries))
                                        + BoxBytes.be16(UInt16(p.colour.transfer)) + BoxBytes.be16(UInt16(p.colour.matrix))
                                        + [p.colour.fullRange ? 0x80 : 0]))
        let pixi = add(BoxBytes.fullBox("pixi", version: 0, [3, 8, 8, 8]))
        /// A clean aperture keeping the top-left width × height: centre offsets in half pixels.
        func clap(_ q: HeifPicture) -> UInt8? {
            guard q.width != q.codedWidth || q.height != q.codedHeight else { return nil }
            return add(BoxBytes.box("clap", BoxBytes.be32(UInt32(q.width)) + BoxBytes.be32(1) + BoxBytes.be32(UInt32(q.height))
                                        + BoxBytes.be32(1) + BoxBytes.be32(UInt32(bitPattern: Int32(q.width - q.codedWidth)))
                                        + BoxBytes.be32(2) + BoxBytes.be32(UInt32(bitPattern: Int32(q.height - q.codedHeight)))
                                        + BoxBytes.be32(2))) | 0x80
        }
        var primary: [UInt8] = []
        if isGrid {
            let outputSize = add(BoxBytes.fullBox("ispe", version: 0, BoxBytes.be32(UInt32(p.width)) + BoxBytes.be32(UInt32(p.height))))
            primary = [outputSize, colr, pixi]
        } else {
            primary = [hvcC | 0x80, codedSize, colr, pixi]
            if let crop = clap(p) { primary.append(crop) }
        }
        var turnings: [UInt8] = []
        let (turns, axis) = HeifOrientation.transforms(forExif: orientation)
        if turns != 0 { turnings.append(add(BoxBytes.box("irot", [UInt8(turns)])) | 0x80) }
        if let axis { turnings.append(add(BoxBytes.box("imir", [UInt8(axis)])) | 0x80) }
        var associations: [(UInt16, [UInt8])] = [(1, primary + turnings)]
        if isGrid { associations += tileIDs.map { ($0, [hvcC | 0x80, codedSize, colr, pixi]) } }
        if let thumbnail, let thumbnailID {
            var list = [add(BoxBytes.box("hvcC", thumbnail.hvcC)) | 0x80,
                        add(BoxBytes.fullBox("ispe", version: 0, BoxBytes.be32(UInt32(thumbnail.codedWidth))
                                                 + BoxBytes.be32(UInt32(thumbnail.codedHeight)))), colr, pixi]
            if let crop = clap(thumbnail) { list.append(crop) }
            associations.append((thumbnailID, list + turnings))
        }
        let ipma = BoxBytes.fullBox("ipma", version: 0, BoxBytes.be32(UInt32(associations.count))
                                        + associations.flatMap { BoxBytes.be16($0.0) + [UInt8($0.1.count)] + $0.1 })
        let iprp = BoxBytes.box("iprp", BoxBytes.box("ipco", ipco.flatMap { $0 }) + ipma)

        // idat: the grid's layout (version 0, 16-bit sizes).
        var idat: [UInt8] = []
        if let grid = p.grid {
            let large = p.width > 0xFFFF || p.height > 0xFFFF
            idat = [0, large ? 1 : 0, UInt8(grid.rows - 1), UInt8(grid.columns - 1)]
                + (large ? BoxBytes.be32(UInt32(p.width)) + BoxBytes.be32(UInt32(p.height))
                         : BoxBytes.be16(UInt16(p.width)) + BoxBytes.be16(UInt16(p.height)))
        }

        // iloc, version 1 (construction methods), 4-byte offsets and lengths, no base offset.
        var locations: [(id: UInt16, method: UInt16, offset: Int, length: Int)] = []
        var at = mdatDataStart
        for (id, tile) in zip(codedIDs, p.tiles) {
            locations.append((id, 0, at, tile.count))
            at += tile.count
        }
        if let exifID, let exif {
            locations.append((exifID, 0, at, exif.count))
            at += exif.count
        }
        if let thumbnailID, let thumbnail { locations.append((thumbnailID, 0, at, thumbnail.tiles[0].count)) }
        if isGrid { locations.append((1, 1, 0, idat.count)) }
        locations.sort { $0.id < $1.id }
        var iloc: [UInt8] = [0x44, 0x00] + BoxBytes.be16(UInt16(locations.count))
        for l in locations {
            iloc += BoxBytes.be16(l.id) + BoxBytes.be16(l.method) + BoxBytes.be16(0) + BoxBytes.be16(1)
                + BoxBytes.be32(UInt32(l.offset)) + BoxBytes.be32(UInt32(l.length))
        }
        var body = hdlr + pitm + iinf + iref + iprp + BoxBytes.fullBox("iloc", version: 1, iloc)
        if !idat.isEmpty { body += BoxBytes.box("idat", idat) }
        return BoxBytes.fullBox("meta", version: 0, body)
    }

    // MARK: NAL units and the decoder configuration record

    /// The NAL units of an Annex B byte stream (start codes removed).
    package static func nalUnits(annexB bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [(code: Int, payload: Int)] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var p = 2
            while p < buffer.count {
                // memchr finds the next 01 in C; a start code is 00 00 01 (or 00 00 00 01).
                guard let hit = memchr(base + p, 1, buffer.count - p) else { break }
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if bytes[at - 1] == 0 && bytes[at - 2] == 0 {
                    let code = at >= 3 && bytes[at - 3] == 0 ? at - 3 : at - 2
                    starts.append((code, at + 1))
                }
                p = at + 1
            }
        }
        var units: [ArraySlice<UInt8>] = []
        for (i, s) in starts.enumerated() {
            var end = i + 1 < starts.count ? starts[i + 1].code : bytes.count
            while end > s.payload && bytes[end - 1] == 0 { end -= 1 }  // trailing zero bytes
            if end > s.payload { units.append(bytes[s.payload ..< end]) }
        }
        return units
    }

    /// The NAL unit type of a unit (its first two bytes are the header).
    package static func nalType(_ unit: ArraySlice<UInt8>) -> Int { unit.isEmpty ? -1 : Int(unit[unit.startIndex] >> 1 & 0x3F) }

    /// Coded slices (types 0…31) as 4-byte length-prefixed units; parameter sets, delimiters and
    /// SEI are left out (the parameter sets live in hvcC).
    package static func lengthPrefixedSlices(annexB bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for unit in nalUnits(annexB: bytes) where (0 ... 31).contains(nalType(unit)) {
            out += BoxBytes.be32(UInt32(unit.count)) + unit
        }
        return out
    }

    /// The HEVCDecoderConfigurationRecord (ISO/IEC 14496-15 §8.3.3) for the VPS, SPS and PPS in
    /// an Annex B stream; nil without an SPS the record can be filled from.
    package static func hvcC(annexB bytes: [UInt8]) -> [UInt8]? {
        let units = nalUnits(annexB: bytes)
        let vps = units.filter { nalType($0) == 32 }, sps = units.filter { nalType($0) == 33 }, pps = units.filter { nalType($0) == 34 }
        guard let first = sps.first, let info = SPSInfo(Array(first)) else { return nil }
        var out: [UInt8] = [1]
        out += info.profileTierLevel                                     // 12 bytes: profile space … level
        out += [0xF0, 0x00, 0xFC, 0xFC | UInt8(info.chromaFormat & 3),  // no segmentation/parallelism info
                0xF8 | UInt8((info.bitDepthLuma - 8) & 7), 0xF8 | UInt8((info.bitDepthChroma - 8) & 7), 0, 0]
        // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3.
        out.append(UInt8((info.maxSubLayers & 7) << 3) | (info.temporalIdNesting ? 4 : 0) | 3)
        let arrays = [(32, vps), (33, sps), (34, pps)].filter { !$0.1.isEmpty }
        out.append(UInt8(arrays.count))
        for (type, list) in arrays {
            out.append(0x80 | UInt8(type))
            out += BoxBytes.be16(UInt16(list.count))
            for unit in list { out += BoxBytes.be16(UInt16(unit.count)) + unit }
        }
        return out
    }

    /// What hvcC needs from a sequence parameter set.
    struct SPSInfo {
        var profileTierLevel: [UInt8]
        var maxSubLayers: Int
        var temporalIdNesting: Bool
        var chromaFormat: Int
        var bitDepthLuma: Int
        var bitDepthChroma: Int

        init?(_ nal: [UInt8]) {
            // The RBSP: header dropped, emulation prevention bytes (00 00 03) removed.
            var rbsp: [UInt8] = []
            var zeros = 0
            for b in nal.dropFirst(2) {
                if zeros >= 2 && b == 3 { zeros = 0; continue }
                rbsp.append(b)
                zeros = b == 0 ? zeros + 1 : 0
            }
            guard rbsp.count >= 13 else { return nil }
            maxSubLayers = Int(rbsp[0] >> 1 & 7) + 1
            temporalIdNesting = rbsp[0] & 1 != 0
            profileTierLevel = Array(rbsp[1 ..< 13])
            var bits = BitReader(bytes: rbsp, position: 13 * 8)
            let subLayers = maxSubLayers - 1
            var profilePresent: [Bool] = [], levelPresent: [Bool] = []
            for _ in 0 ..< subLayers { profilePresent.append(bits.bit()); levelPresent.append(bits.bit()) }
            if subLayers > 0 { for _ in subLayers ..< 8 { bits.skip(2) } }
            for i in 0 ..< subLayers {
                if profilePresent[i] { bits.skip(88) }
                if levelPresent[i] { bits.skip(8) }
            }
            _ = bits.ue()  // sps_seq_parameter_set_id
            chromaFormat = bits.ue()
            if chromaFormat == 3 { bits.skip(1) }
            _ = bits.ue(); _ = bits.ue()  // width, height
            if bits.bit() { for _ in 0 ..< 4 { _ = bits.ue() } }
            bitDepthLuma = bits.ue() + 8
            bitDepthChroma = bits.ue() + 8
            guard !bits.overrun, chromaFormat <= 3, bitDepthLuma <= 16, bitDepthChroma <= 16 else { return nil }
        }
    }

    /// Reads bits most significant first; reading past the end gives zeros and sets `overrun`.
    struct BitReader {
        let bytes: [UInt8]
        var position: Int
        var overrun = false

        mutating func bit() -> Bool {
            guard position / 8 < bytes.count else { overrun = true; position += 1; return false }
            defer { position += 1 }
            return bytes[position / 8] >> (7 - position % 8) & 1 != 0
        }

        mutating func skip(_ n: Int) { position += n; if position > bytes.count * 8 { overrun = true } }

        /// An unsigned Exp-Golomb value.
        mutating func ue() -> Int {
            var zeros = 0
            while !bit() { zeros += 1; if zeros > 31 || overrun { overrun = true; return 0 } }
            var value = 0
            for _ in 0 ..< zeros { value = value << 1 | (bit() ? 1 : 0) }
            return (1 << zeros) - 1 + value
        }
    }
}
