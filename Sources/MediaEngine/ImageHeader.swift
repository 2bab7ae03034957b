// ImageHeader: what an image file's headers say (size, depth, alpha, orientation, resolution),
// read without decoding any pixels.
import Foundation

/// The facts an image file's headers state, read without decoding pixels. Fields a format does
/// not state in its headers are nil; callers decode the image to learn them.
package struct ImageHeader: Sendable {
    /// The colour model the file stores.
    package enum ColorModel: Sendable { case rgb, gray, cmyk }

    package var format: ImageFormat
    package var width: Int?
    package var height: Int?
    /// Bits per component (sample).
    package var depth: Int?
    package var hasAlpha: Bool?
    package var colorModel: ColorModel?
    package var isIndexed: Bool = false
    /// EXIF orientation, 1…8, when the file records one.
    package var orientation: Int?
    package var dpiWidth: Double?
    package var dpiHeight: Double?
    /// PNG: Adam7 interlacing; JPEG: progressive scan.
    package var isInterlaced: Bool = false
    /// PNG pHYs pixels per metre (x, y) when the unit is the metre.
    package var pixelsPerMeter: (x: Int, y: Int)?
    /// JFIF APP0 version and density.
    package var jfif: (major: Int, minor: Int, unit: Int, x: Int, y: Int)?
    /// The TIFF/EXIF tags this reader understands, by tag number.
    package var tiffTags: [Int: TIFFValue] = [:]
    /// The EXIF sub-IFD tags this reader understands, by tag number.
    package var exifTags: [Int: TIFFValue] = [:]
    /// Number of images in the file (GIF frames; 1 elsewhere).
    package var frameCount: Int = 1
    /// GIF: byte ranges of the packets that decode frame by frame (header + frame 0, then each frame).
    package var gifFramePackets: [Range<Int>] = []
    /// GIF: NETSCAPE2.0 loop count.
    package var gifLoopCount: Int?
    /// GIF: per-frame delay in seconds.
    package var gifDelays: [Double] = []
    /// HEIF: the file's boxes (items, locations, properties).
    package var heif: HeifContainer?
    /// Whether the file ends with its format's end marker (PNG IEND, JPEG EOI, GIF trailer).
    package var isComplete: Bool = true

    /// A value of a TIFF/EXIF tag.
    package enum TIFFValue: Sendable, Equatable {
        case int(Int)
        case double(Double)
        case string(String)
        case ints([Int])
    }

    /// Reads the headers of `data`; nil when the bytes carry no recognised signature.
    package init?(data: Data) {
        guard let format = ImageFormat(sniffing: data) else { return nil }
        self.format = format
        let bytes = [UInt8](data)
        switch format {
        case .png: parsePNG(bytes)
        case .jpeg: parseJPEG(bytes)
        case .gif: parseGIF(bytes)
        case .bmp: parseBMP(bytes)
        case .tiff:
            parseTIFF(bytes, base: 0, count: bytes.count, exif: false)
            fillFromTIFFTags()
        case .webp: parseWebP(bytes)
        case .heic: parseHEIF(bytes)
        }
    }

    // MARK: HEIF

    /// The primary image's size (after its clean aperture, before rotation: the rotation and
    /// mirroring are its orientation), depth and colour model, and the Exif item's tags.
    /// A file whose items lie past its end is incomplete; one whose primary image cannot be
    /// shown (no hvcC, no ispe, an unknown item type) has no width.
    private mutating func parseHEIF(_ b: [UInt8]) {
        guard let container = HeifContainer(b) else {
            // No readable meta box: cut short, or not a HEIF image at all.
            isComplete = false
            return
        }
        heif = container
        let primary = container.primaryID
        var needed = [primary] + container.referenced(from: primary, type: "dimg")
        if let exif = container.exifItem(for: primary) { needed.append(exif) }
        isComplete = needed.allSatisfy { container.isPresent($0, fileSize: b.count) }
        frameCount = container.topLevelImages.count
        if let exif = container.exifItem(for: primary), let tiff = container.exifTIFF(of: exif, in: b) {
            parseTIFF(tiff, base: 0, count: tiff.count, exif: true)
        }
        guard let geometry = container.geometry(of: primary, in: b) else { return }
        let size = geometry.croppedSize
        width = size.width
        height = size.height
        depth = geometry.bitDepth
        hasAlpha = false
        colorModel = geometry.chromaFormat == 0 ? .gray : .rgb
        // The container's rotation and mirroring are what HEIF readers apply (an Exif orientation
        // is informative only; Apple writes both, agreeing).
        orientation = geometry.orientation
    }

    // MARK: PNG

    private mutating func parsePNG(_ b: [UInt8]) {
        var p = 8
        isComplete = false
        while p + 8 <= b.count {
            let length = Int(b.be32(p))
            let type = String(decoding: b[p + 4 ..< p + 8], as: UTF8.self)
            let body = p + 8
            guard length >= 0, body + length + 4 <= b.count else { return }
            switch type {
            case "IHDR" where length >= 13:
                width = Int(b.be32(body))
                height = Int(b.be32(body + 4))
                depth = Int(b[body + 8])
                let colorType = b[body + 9]
                isIndexed = colorType == 3
                colorModel = (colorType == 0 || colorType == 4) ? .gray : .rgb
                hasAlpha = colorType == 4 || colorType == 6
                isInterlaced = b[body + 12] == 1
            case "tRNS":
                hasAlpha = true
            case "pHYs" where length >= 9:
                let x = Int(b.be32(body)), y = Int(b.be32(body + 4))
                if b[body + 8] == 1 {
                    pixelsPerMeter = (x, y)
                    dpiWidth = (Double(x) * 0.0254).rounded()
                    dpiHeight = (Double(y) * 0.0254).rounded()
                }
            case "eXIf":
                parseTIFF(b, base: body, count: length, exif: true)
                if case .int(let o)? = tiffTags[0x0112], (1 ... 8).contains(o) { orientation = o }
            case "IEND":
                isComplete = true
                return
            default:
                break
            }
            p = body + length + 4
        }
    }

    // MARK: JPEG

    private mutating func parseJPEG(_ b: [UInt8]) {
        var p = 2
        colorModel = .rgb
        depth = 8
        hasAlpha = false
        while p + 4 <= b.count {
            guard b[p] == 0xFF else { break }
            var marker = b[p + 1]
            while marker == 0xFF, p + 2 < b.count { p += 1; marker = b[p + 1] }
            p += 2
            if marker == 0xD8 || marker == 0x01 || (0xD0 ... 0xD7).contains(marker) { continue }
            guard p + 2 <= b.count else { break }
            let length = Int(b.be16(p))
            let body = p + 2
            guard length >= 2, p + length <= b.count else { break }
            switch marker {
            case 0xC0 ... 0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                if length >= 8 {
                    depth = Int(b[body])
                    height = Int(b.be16(body + 1))
                    width = Int(b.be16(body + 3))
                    let components = Int(b[body + 5])
                    colorModel = components == 1 ? .gray : components == 4 ? .cmyk : .rgb
                    isInterlaced = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
                }
            case 0xE0 where length >= 16 && Array(b[body ..< body + 5]) == Array("JFIF\0".utf8):
                let unit = Int(b[body + 7]), x = Int(b.be16(body + 8)), y = Int(b.be16(body + 10))
                jfif = (Int(b[body + 5]), Int(b[body + 6]), unit, x, y)
                if unit == 1 { dpiWidth = Double(x); dpiHeight = Double(y) }
                if unit == 2 { dpiWidth = (Double(x) * 2.54).rounded(); dpiHeight = (Double(y) * 2.54).rounded() }
            case 0xE1 where length >= 8 && Array(b[body ..< body + 6]) == Array("Exif\0\0".utf8):
                parseTIFF(b, base: body + 6, count: length - 8, exif: true)
                if case .int(let o)? = tiffTags[0x0112], (1 ... 8).contains(o) { orientation = o }
            case 0xDA:
                // Entropy-coded data follows; the image is complete when an EOI marker ends it.
                isComplete = false
                var q = b.count - 1
                while q > body {
                    if b[q] == 0xD9 && b[q - 1] == 0xFF { isComplete = true; break }
                    q -= 1
                }
                return
            default:
                break
            }
            p += length
        }
        isComplete = false
    }

    // MARK: GIF

    private mutating func parseGIF(_ b: [UInt8]) {
        guard b.count >= 13 else { isComplete = false; return }
        width = Int(b.le16(6))
        height = Int(b.le16(8))
        depth = 8
        colorModel = .rgb
        isIndexed = true
        hasAlpha = false
        var p = 13
        if b[10] & 0x80 != 0 { p += 3 << (Int(b[10] & 7) + 1) }
        var packetStart = 0
        var pendingDelay = 0.0
        var frames: [Range<Int>] = []
        isComplete = false
        func skipSubBlocks(_ q: inout Int) -> Bool {
            while q < b.count {
                let size = Int(b[q])
                q += 1
                if size == 0 { return true }
                q += size
            }
            return false
        }
        while p < b.count {
            switch b[p] {
            case 0x21:
                guard p + 2 < b.count else { return }
                let label = b[p + 1]
                if label == 0xF9, p + 7 < b.count {
                    if b[p + 3] & 1 != 0 { hasAlpha = true }
                    pendingDelay = Double(b.le16(p + 4)) / 100
                }
                if label == 0xFF, p + 18 < b.count, Array(b[p + 3 ..< p + 14]) == Array("NETSCAPE2.0".utf8),
                   b[p + 14] >= 3, b[p + 15] == 1 {
                    gifLoopCount = Int(b.le16(p + 16))
                }
                var q = p + 2
                guard skipSubBlocks(&q) else { frameCount = max(frames.count, 1); gifFramePackets = frames; return }
                p = q
            case 0x2C:
                guard p + 10 <= b.count else { return }
                var q = p + 10
                if b[p + 9] & 0x80 != 0 { q += 3 << (Int(b[p + 9] & 7) + 1) }
                q += 1  // LZW minimum code size
                guard q <= b.count, skipSubBlocks(&q) else { return }
                frames.append(packetStart ..< q)
                gifDelays.append(pendingDelay)
                pendingDelay = 0
                packetStart = q
                p = q
            case 0x3B:
                isComplete = true
                p = b.count
            default:
                p = b.count
            }
        }
        frameCount = max(frames.count, 1)
        gifFramePackets = frames
        if frames.isEmpty { isComplete = false }
    }

    // MARK: BMP

    private mutating func parseBMP(_ b: [UInt8]) {
        guard b.count >= 26 else { isComplete = false; return }
        let headerSize = Int(b.le32(14))
        colorModel = .rgb
        if headerSize == 12 {
            width = Int(b.le16(18))
            height = Int(b.le16(20))
            if b.count >= 26 { depth = Int(b.le16(24)) }
        } else if b.count >= 30 {
            width = Int(Int32(bitPattern: b.le32(18)))
            height = abs(Int(Int32(bitPattern: b.le32(22))))
            let bpp = Int(b.le16(28))
            isIndexed = bpp <= 8
            depth = bpp == 16 ? 5 : 8
        }
    }

    // MARK: WebP

    private mutating func parseWebP(_ b: [UInt8]) {
        guard b.count >= 30 else { isComplete = false; return }
        let chunk = String(decoding: b[12 ..< 16], as: UTF8.self)
        let body = 20
        depth = 8
        colorModel = .rgb
        switch chunk {
        case "VP8 " where b[body + 3] == 0x9D && b[body + 4] == 0x01 && b[body + 5] == 0x2A:
            width = Int(b.le16(body + 6) & 0x3FFF)
            height = Int(b.le16(body + 8) & 0x3FFF)
            hasAlpha = false
        case "VP8L" where b[body] == 0x2F:
            let bits = b.le32(body + 1)
            width = Int(bits & 0x3FFF) + 1
            height = Int((bits >> 14) & 0x3FFF) + 1
            hasAlpha = (bits >> 28) & 1 == 1
        case "VP8X":
            hasAlpha = b[body] & 0x10 != 0
            width = Int(b.le24(body + 4)) + 1
            height = Int(b.le24(body + 7)) + 1
        default:
            break
        }
    }

    // MARK: TIFF and EXIF

    /// Reads IFD0 (and the EXIF sub-IFD) of the TIFF structure at `base ..< base + count`.
    private mutating func parseTIFF(_ all: [UInt8], base: Int, count: Int, exif: Bool) {
        guard base >= 0, count >= 8, base + count <= all.count else { return }
        let b = Array(all[base ..< base + count])
        let little = b[0] == 0x49
        func u16(_ o: Int) -> Int { o + 2 <= b.count ? Int(little ? b.le16(o) : b.be16(o)) : 0 }
        func u32(_ o: Int) -> Int { o + 4 <= b.count ? Int(little ? b.le32(o) : b.be32(o)) : 0 }
        func readIFD(_ offset: Int) -> [Int: TIFFValue] {
            var out: [Int: TIFFValue] = [:]
            guard offset > 0, offset + 2 <= b.count else { return out }
            let n = u16(offset)
            for i in 0 ..< min(n, 512) {
                let e = offset + 2 + i * 12
                guard e + 12 <= b.count else { break }
                let tag = u16(e), type = u16(e + 2), cnt = u32(e + 4)
                let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8][type] ?? 0
                guard size > 0, cnt > 0, cnt < 1 << 20 else { continue }
                let at = size * cnt <= 4 ? e + 8 : u32(e + 8)
                guard at >= 0, at + size * cnt <= b.count else { continue }
                switch type {
                case 2:
                    let s = b[at ..< at + cnt].prefix { $0 != 0 }
                    out[tag] = .string(String(decoding: s, as: UTF8.self))
                case 3, 4, 1, 7, 9:
                    let values = (0 ..< min(cnt, 64)).map { k -> Int in
                        switch type {
                        case 3: return u16(at + k * 2)
                        case 4: return u32(at + k * 4)
                        case 9: return Int(Int32(truncatingIfNeeded: u32(at + k * 4)))
                        default: return Int(b[at + k])
                        }
                    }
                    out[tag] = values.count == 1 ? .int(values[0]) : .ints(values)
                case 5, 10:
                    let num = type == 10 ? Double(Int32(truncatingIfNeeded: u32(at))) : Double(u32(at))
                    let den = type == 10 ? Double(Int32(truncatingIfNeeded: u32(at + 4))) : Double(u32(at + 4))
                    if den != 0 { out[tag] = .double(num / den) }
                default:
                    break
                }
            }
            return out
        }
        guard (b[0] == 0x49 && b[1] == 0x49) || (b[0] == 0x4D && b[1] == 0x4D), u16(2) == 42 else { return }
        tiffTags = readIFD(u32(4))
        if case .int(let exifOffset)? = tiffTags[0x8769] { exifTags = readIFD(exifOffset) }
        _ = exif
    }

    private mutating func fillFromTIFFTags() {
        func int(_ tag: Int) -> Int? {
            switch tiffTags[tag] {
            case .int(let v)?: return v
            case .ints(let v)?: return v.first
            default: return nil
            }
        }
        width = int(256)
        height = int(257)
        depth = int(258) ?? 1
        let photometric = int(262) ?? 2
        let samples = int(277) ?? 1
        isIndexed = photometric == 3
        colorModel = photometric <= 1 ? .gray : photometric == 5 ? .cmyk : .rgb
        let colorSamples = photometric <= 1 || photometric == 3 ? 1 : photometric == 5 ? 4 : 3
        hasAlpha = samples > colorSamples
        if let o = int(274), (1 ... 8).contains(o) { orientation = o }
        if case .double(let x)? = tiffTags[282], case .double(let y)? = tiffTags[283] {
            let unit = int(296) ?? 2
            if unit == 2 { dpiWidth = x; dpiHeight = y }
            if unit == 3 { dpiWidth = x * 2.54; dpiHeight = y * 2.54 }
        }
    }
}

fileprivate extension Array where Element == UInt8 {
    /// Big-endian 16-bit value at `o` (caller checks bounds).
    func be16(_ o: Int) -> UInt16 { UInt16(self[o]) << 8 | UInt16(self[o + 1]) }
    /// Big-endian 32-bit value at `o`.
    func be32(_ o: Int) -> UInt32 { UInt32(be16(o)) << 16 | UInt32(be16(o + 2)) }
    /// Little-endian 16-bit value at `o`.
    func le16(_ o: Int) -> UInt16 { UInt16(self[o]) | UInt16(self[o + 1]) << 8 }
    /// Little-endian 24-bit value at `o`.
    func le24(_ o: Int) -> UInt32 { UInt32(le16(o)) | UInt32(self[o + 2]) << 16 }
    /// Little-endian 32-bit value at `o`.
    func le32(_ o: Int) -> UInt32 { UInt32(le16(o)) | UInt32(le16(o + 2)) << 16 }
}
