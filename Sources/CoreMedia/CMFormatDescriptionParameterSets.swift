// H.264 and HEVC parameter sets: reading SPS fields with an exp-Golomb bit reader, and building
// and parsing the avcC (ISO/IEC 14496-15 AVCDecoderConfigurationRecord) and hvcC
// (HEVCDecoderConfigurationRecord) atoms that carry them in format descriptions.

/// Reads bits, most significant first, from an RBSP (emulation-prevention bytes removed).
/// Also used by MediaEngine to read slice headers.
package struct RBSPBitReader {
    private let bytes: [UInt8]
    private var bit = 0

    /// A reader over a NAL unit's payload, dropping `00 00 03` emulation-prevention bytes.
    init(nalUnit: Data, skippingHeaderBytes header: Int) {
        self = nalUnit.withUnsafeBytes { RBSPBitReader(nalUnit: $0, skippingHeaderBytes: header) }
    }

    /// A reader over a NAL unit's payload, dropping `00 00 03` emulation-prevention bytes; at
    /// most `limit` payload bytes are kept (enough for the headers a caller reads).
    package init(nalUnit: UnsafeRawBufferPointer, skippingHeaderBytes header: Int, limit: Int = .max) {
        var out: [UInt8] = []
        out.reserveCapacity(min(limit, max(0, nalUnit.count - header)))
        var zeros = 0
        var i = header
        while i < nalUnit.count && out.count < limit {
            let b = nalUnit[i]
            i += 1
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        bytes = out
    }

    /// Reads `n` bits (n ≤ 32); nil past the end.
    package mutating func bits(_ n: Int) -> UInt32? {
        var v: UInt32 = 0
        for _ in 0..<n {
            guard bit < bytes.count * 8 else { return nil }
            v = v << 1 | UInt32(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            bit += 1
        }
        return v
    }

    /// Skips `n` bits; false past the end.
    package mutating func skip(_ n: Int) -> Bool {
        guard bit + n <= bytes.count * 8 else { return false }
        bit += n
        return true
    }

    /// An unsigned exp-Golomb value, ue(v); nil past the end or when longer than 32 bits.
    package mutating func ue() -> UInt32? {
        var zeros = 0
        while true {
            guard let b = bits(1) else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return UInt32((UInt64(1) << zeros) - 1 + UInt64(rest))
    }

    /// A signed exp-Golomb value, se(v).
    package mutating func se() -> Int32? {
        guard let k = ue() else { return nil }
        return k & 1 == 1 ? Int32((k + 1) / 2) : -Int32(k / 2)
    }
}

/// What a sequence parameter set says about the picture.
struct SequenceParameters {
    var width: Int32
    var height: Int32
    var chromaFormatIDC: UInt32
    var bitDepthLumaMinus8: UInt32
    var bitDepthChromaMinus8: UInt32
}

/// Parsing SPS NAL units and building/parsing avcC and hvcC.
package enum NALParameterSets {
    // MARK: H.264

    /// The NAL unit type of an H.264 NAL unit.
    static func h264Type(_ nal: Data) -> UInt8? { nal.first.map { $0 & 0x1F } }

    /// Parses an H.264 SPS (with its one-byte NAL header): cropped size and chroma format.
    static func parseH264SPS(_ nal: Data) -> SequenceParameters? {
        guard nal.count >= 4, h264Type(nal) == 7 else { return nil }
        var r = RBSPBitReader(nalUnit: nal, skippingHeaderBytes: 1)
        guard let profile = r.bits(8), r.skip(16), r.ue() != nil else { return nil }
        var chroma: UInt32 = 1, separate = false, depthY: UInt32 = 0, depthC: UInt32 = 0
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let c = r.ue(), c <= 3 else { return nil }
            chroma = c
            if c == 3 { guard let s = r.bits(1) else { return nil }; separate = s == 1 }
            guard let dy = r.ue(), let dc = r.ue(), r.skip(1), let scaling = r.bits(1) else { return nil }
            depthY = dy
            depthC = dc
            if scaling == 1 {
                for i in 0..<(chroma != 3 ? 8 : 12) {
                    guard let present = r.bits(1) else { return nil }
                    if present == 1 {
                        let size = i < 6 ? 16 : 64
                        var last: Int32 = 8, next: Int32 = 8
                        for _ in 0..<size where next != 0 {
                            guard let delta = r.se() else { return nil }
                            next = (last + delta + 256) % 256
                            last = next == 0 ? last : next
                        }
                    }
                }
            }
        }
        guard r.ue() != nil, let pocType = r.ue() else { return nil }
        if pocType == 0 {
            guard r.ue() != nil else { return nil }
        } else if pocType == 1 {
            guard r.skip(1), r.se() != nil, r.se() != nil, let cycle = r.ue(), cycle < 256 else { return nil }
            for _ in 0..<cycle { guard r.se() != nil else { return nil } }
        }
        guard r.ue() != nil, r.skip(1), let wMbs = r.ue(), let hMaps = r.ue(), let frameMbsOnly = r.bits(1) else { return nil }
        if frameMbsOnly == 0 { guard r.skip(1) else { return nil } }
        guard r.skip(1), let cropping = r.bits(1) else { return nil }
        var cl: UInt32 = 0, cr: UInt32 = 0, ct: UInt32 = 0, cb: UInt32 = 0
        if cropping == 1 {
            guard let a = r.ue(), let b = r.ue(), let c = r.ue(), let d = r.ue() else { return nil }
            (cl, cr, ct, cb) = (a, b, c, d)
        }
        let arrayType = separate ? 0 : chroma
        let subW: Int64 = (arrayType == 1 || arrayType == 2) ? 2 : 1
        let subH: Int64 = arrayType == 1 ? 2 : 1
        let cropX: Int64 = arrayType == 0 ? 1 : subW
        let cropY: Int64 = (arrayType == 0 ? 1 : subH) * (2 - Int64(frameMbsOnly))
        let width = (Int64(wMbs) + 1) * 16 - cropX * (Int64(cl) + Int64(cr))
        let height = (2 - Int64(frameMbsOnly)) * (Int64(hMaps) + 1) * 16 - cropY * (Int64(ct) + Int64(cb))
        guard width > 0, height > 0, width <= Int64(Int32.max), height <= Int64(Int32.max) else { return nil }
        return SequenceParameters(width: Int32(width), height: Int32(height), chromaFormatIDC: chroma,
                                  bitDepthLumaMinus8: depthY, bitDepthChromaMinus8: depthC)
    }

    /// Builds an avcC record from SPS and PPS NAL units.
    static func makeAVCC(sps: [Data], pps: [Data], nalUnitHeaderLength: Int, parsed: SequenceParameters) -> Data {
        let first = [UInt8](sps[0])
        var out: [UInt8] = [1, first[1], first[2], first[3], 0xFC | UInt8(nalUnitHeaderLength - 1), 0xE0 | UInt8(sps.count)]
        for s in sps { out += [UInt8(s.count >> 8), UInt8(s.count & 0xFF)] + [UInt8](s) }
        out.append(UInt8(pps.count))
        for p in pps { out += [UInt8(p.count >> 8), UInt8(p.count & 0xFF)] + [UInt8](p) }
        if [100, 110, 122, 144].contains(first[1]) {
            out += [0xFC | UInt8(parsed.chromaFormatIDC), 0xF8 | UInt8(parsed.bitDepthLumaMinus8 & 7),
                    0xF8 | UInt8(parsed.bitDepthChromaMinus8 & 7), 0]
        }
        return Data(out)
    }

    /// The SPS and PPS units of an avcC record, in that order, and its NAL length size.
    package static func parseAVCC(_ atom: Data) -> (sets: [Data], nalUnitHeaderLength: Int)? {
        let b = [UInt8](atom)
        guard b.count >= 7, b[0] == 1 else { return nil }
        let nalLength = Int(b[4] & 3) + 1
        var i = 5
        var sets: [Data] = []
        for countMask in [UInt8(0x1F), UInt8(0xFF)] {
            guard i < b.count else { return nil }
            let n = Int(b[i] & countMask)
            i += 1
            guard readLengthPrefixed(n, from: b, at: &i, into: &sets) else { return nil }
        }
        return (sets, nalLength)
    }

    // MARK: HEVC

    /// The NAL unit type of an HEVC NAL unit.
    static func hevcType(_ nal: Data) -> UInt8? { nal.first.map { ($0 >> 1) & 0x3F } }

    /// Parses an HEVC SPS (with its two-byte NAL header): cropped size and chroma format.
    static func parseHEVCSPS(_ nal: Data) -> (params: SequenceParameters, ptl: [UInt8], maxSubLayersMinus1: UInt32,
                                                temporalIdNesting: UInt32)? {
        guard nal.count >= 15, hevcType(nal) == 33 else { return nil }
        var r = RBSPBitReader(nalUnit: nal, skippingHeaderBytes: 2)
        guard r.skip(4), let maxSub = r.bits(3), let nesting = r.bits(1) else { return nil }
        var ptl: [UInt8] = []
        for _ in 0..<12 { guard let byte = r.bits(8) else { return nil }; ptl.append(UInt8(byte)) }
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<maxSub {
            guard let p = r.bits(1), let l = r.bits(1) else { return nil }
            profilePresent.append(p == 1)
            levelPresent.append(l == 1)
        }
        if maxSub > 0 { guard r.skip(2 * (8 - Int(maxSub))) else { return nil } }
        for i in 0..<Int(maxSub) {
            if profilePresent[i] { guard r.skip(88) else { return nil } }
            if levelPresent[i] { guard r.skip(8) else { return nil } }
        }
        guard r.ue() != nil, let chroma = r.ue(), chroma <= 3 else { return nil }
        if chroma == 3 { guard r.skip(1) else { return nil } }
        guard let w = r.ue(), let h = r.ue(), let window = r.bits(1) else { return nil }
        var cl: UInt32 = 0, cr: UInt32 = 0, ct: UInt32 = 0, cb: UInt32 = 0
        if window == 1 {
            guard let a = r.ue(), let b = r.ue(), let c = r.ue(), let d = r.ue() else { return nil }
            (cl, cr, ct, cb) = (a, b, c, d)
        }
        guard let dy = r.ue(), let dc = r.ue() else { return nil }
        let subW: Int64 = (chroma == 1 || chroma == 2) ? 2 : 1
        let subH: Int64 = chroma == 1 ? 2 : 1
        let width = Int64(w) - subW * (Int64(cl) + Int64(cr))
        let height = Int64(h) - subH * (Int64(ct) + Int64(cb))
        guard width > 0, height > 0, width <= Int64(Int32.max), height <= Int64(Int32.max) else { return nil }
        return (SequenceParameters(width: Int32(width), height: Int32(height), chromaFormatIDC: chroma,
                                   bitDepthLumaMinus8: dy, bitDepthChromaMinus8: dc), ptl, maxSub, nesting)
    }

    /// Builds an hvcC record from VPS, SPS and PPS NAL units (arrays in that order).
    static func makeHVCC(arrays: [(type: UInt8, units: [Data])], nalUnitHeaderLength: Int,
                         sps: (params: SequenceParameters, ptl: [UInt8], maxSubLayersMinus1: UInt32, temporalIdNesting: UInt32)) -> Data {
        var out: [UInt8] = [1]
        out += sps.ptl                                       // profile/tier/idc, 32 compat flags, 48 constraint bits, level
        out += [0xF0, 0x00, 0xFC]                            // min_spatial_segmentation 0, parallelismType 0
        out.append(0xFC | UInt8(sps.params.chromaFormatIDC))
        out.append(0xF8 | UInt8(sps.params.bitDepthLumaMinus8 & 7))
        out.append(0xF8 | UInt8(sps.params.bitDepthChromaMinus8 & 7))
        out += [0, 0]                                        // avgFrameRate
        out.append(UInt8((sps.maxSubLayersMinus1 + 1) << 3) | UInt8(sps.temporalIdNesting << 2) | UInt8(nalUnitHeaderLength - 1))
        out.append(UInt8(arrays.count))
        for array in arrays {
            out.append(0x80 | array.type)
            out += [UInt8(array.units.count >> 8), UInt8(array.units.count & 0xFF)]
            for u in array.units { out += [UInt8(u.count >> 8), UInt8(u.count & 0xFF)] + [UInt8](u) }
        }
        return Data(out)
    }

    /// The parameter set units of an hvcC record, in record order, and its NAL length size.
    static func parseHVCC(_ atom: Data) -> (sets: [Data], nalUnitHeaderLength: Int)? {
        let b = [UInt8](atom)
        guard b.count >= 23, b[0] == 1 else { return nil }
        let nalLength = Int(b[21] & 3) + 1
        var i = 23
        var sets: [Data] = []
        for _ in 0..<Int(b[22]) {
            guard i + 3 <= b.count else { return nil }
            let n = Int(b[i + 1]) << 8 | Int(b[i + 2])
            i += 3
            guard readLengthPrefixed(n, from: b, at: &i, into: &sets) else { return nil }
        }
        return (sets, nalLength)
    }
}

/// Reads `count` parameter sets, each preceded by a 16-bit big-endian length, from `b` starting
/// at `i` (advanced past them), as avcC and hvcC store them. False when the bytes run out.
private func readLengthPrefixed(_ count: Int, from b: [UInt8], at i: inout Int, into sets: inout [Data]) -> Bool {
    for _ in 0..<count {
        guard i + 2 <= b.count else { return false }
        let len = Int(b[i]) << 8 | Int(b[i + 1])
        i += 2
        guard i + len <= b.count else { return false }
        sets.append(Data(b[i..<i + len]))
        i += len
    }
    return true
}
