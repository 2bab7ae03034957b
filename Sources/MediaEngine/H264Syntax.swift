// H264Syntax: the few H.264 syntax elements reference handling depends on — parameter sets and
// slice headers up to the reference picture marking — read from packets without decoding.
// Used by H264ReferencePlan to prove which reference pictures a wanted frame needs.
import CoreMedia
import Foundation

/// Why a bitstream could not be read for planning. Never shown to users: planning just stops.
struct H264SyntaxError: Error {}

/// CoreMedia's RBSP reader with the reads this file needs, throwing past the end.
struct H264BitReader {
    private var reader: RBSPBitReader

    /// A reader over a NAL unit's payload (after its header byte); at most `limit` payload
    /// bytes are unescaped.
    init(nal: UnsafeRawBufferPointer, limit: Int = .max) {
        reader = RBSPBitReader(nalUnit: nal, skippingHeaderBytes: 1, limit: limit)
    }

    /// `n` bits (n ≤ 32) as an unsigned number.
    mutating func bits(_ n: Int) throws(H264SyntaxError) -> UInt32 {
        guard let v = reader.bits(n) else { throw H264SyntaxError() }
        return v
    }

    /// One bit as a flag.
    mutating func flag() throws(H264SyntaxError) -> Bool { try bits(1) == 1 }

    /// An unsigned Exp-Golomb code (ue(v)).
    mutating func ue() throws(H264SyntaxError) -> UInt32 {
        guard let v = reader.ue() else { throw H264SyntaxError() }
        return v
    }

    /// A ue(v) that must not exceed `limit`, as an Int.
    mutating func ue(max limit: Int) throws(H264SyntaxError) -> Int {
        let v = Int(try ue())
        guard v <= limit else { throw H264SyntaxError() }
        return v
    }

    /// A signed Exp-Golomb code (se(v)).
    mutating func se() throws(H264SyntaxError) -> Int {
        guard let v = reader.se() else { throw H264SyntaxError() }
        return Int(v)
    }
}

/// The sequence parameter set fields reference handling uses.
struct H264SequenceParameters: Equatable {
    var id = 0
    var chromaFormatIdc = 1
    var log2MaxFrameNum = 4
    var pocType = 0
    var log2MaxPocLsb = 4
    var deltaPicOrderAlwaysZero = false
    var offsetForNonRefPic = 0
    var offsetForTopToBottomField = 0
    var offsetForRefFrame: [Int] = []
    /// max_num_ref_frames.
    var refFrameCount = 0
    var gapsInFrameNumAllowed = false
    var frameMbsOnly = true

    /// Parses an SPS, as FFmpeg 5.1 reads it.
    init(_ reader: H264BitReader) throws(H264SyntaxError) {
        var r = reader
        let profile = Int(try r.bits(8))
        _ = try r.bits(16)  // constraint flags, level
        id = try r.ue(max: 31)
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 144].contains(profile) {
            chromaFormatIdc = try r.ue(max: 3)
            if chromaFormatIdc == 3, try r.flag() { throw H264SyntaxError() }  // separate colour planes
            _ = try r.ue(max: 6)  // bit depths
            _ = try r.ue(max: 6)
            _ = try r.flag()      // transform bypass
            if try r.flag() {      // scaling matrices
                let lists = chromaFormatIdc == 3 ? 12 : 8
                for i in 0 ..< lists where try r.flag() {
                    try Self.skipScalingList(&r, size: i < 6 ? 16 : 64)
                }
            }
        }
        log2MaxFrameNum = try r.ue(max: 12) + 4
        pocType = try r.ue(max: 2)
        if pocType == 0 {
            log2MaxPocLsb = try r.ue(max: 12) + 4
        } else if pocType == 1 {
            deltaPicOrderAlwaysZero = try r.flag()
            offsetForNonRefPic = try r.se()
            offsetForTopToBottomField = try r.se()
            let cycle = try r.ue(max: 255)
            for _ in 0 ..< cycle { offsetForRefFrame.append(try r.se()) }
        }
        refFrameCount = try r.ue(max: 16)
        gapsInFrameNumAllowed = try r.flag()
        _ = try r.ue()  // width in macroblocks
        _ = try r.ue()  // height in map units
        frameMbsOnly = try r.flag()
    }

    private static func skipScalingList(_ r: inout H264BitReader, size: Int) throws(H264SyntaxError) {
        var last = 8, next = 8
        for i in 0 ..< size {
            if next != 0 {
                let delta = try r.se()
                guard delta >= -128, delta <= 127 else { throw H264SyntaxError() }
                next = (last + delta) & 0xFF
            }
            if i == 0 && next == 0 { break }
            last = next == 0 ? last : next
        }
    }
}

/// The picture parameter set fields reference handling uses, with the SPS it was bound to when
/// read (as FFmpeg binds it).
struct H264PictureParameters: Equatable {
    var id = 0
    var sps: H264SequenceParameters
    var bottomFieldPicOrderInFramePresent = false
    /// num_ref_idx_l0/l1_default_active.
    var refCount = [1, 1]
    var weightedPred = false
    var weightedBipredIdc = 0
    var redundantPicCntPresent = false

    /// Parses a PPS against the known SPSs.
    init(_ reader: H264BitReader, sps table: [Int: H264SequenceParameters]) throws(H264SyntaxError) {
        var r = reader
        id = try r.ue(max: 255)
        let spsID = try r.ue(max: 31)
        guard let sps = table[spsID] else { throw H264SyntaxError() }
        self.sps = sps
        _ = try r.flag()  // entropy coding mode
        bottomFieldPicOrderInFramePresent = try r.flag()
        guard try r.ue() == 0 else { throw H264SyntaxError() }  // slice groups (FMO): FFmpeg refuses them
        refCount = [try r.ue(max: 31) + 1, try r.ue(max: 31) + 1]
        weightedPred = try r.flag()
        weightedBipredIdc = Int(try r.bits(2))
        _ = try r.se()  // pic_init_qp
        _ = try r.se()  // pic_init_qs
        _ = try r.se()  // chroma_qp_index_offset
        _ = try r.flag()  // deblocking filter control present
        _ = try r.flag()  // constrained intra pred
        redundantPicCntPresent = try r.flag()
    }
}

/// A memory management control operation, with FFmpeg's resolved arguments.
struct H264MemoryOperation: Equatable {
    /// 1 short→unused, 2 long→unused, 3 short→long, 4 max long index, 5 reset, 6 current→long.
    var opcode: Int
    /// For 1 and 3: the picture number (frame_num for frames) the operation names.
    var shortPicNum = 0
    /// For 2, 3, 4 and 6: the long-term index argument.
    var longArg = 0
}

/// One slice header, read up to (and including) the reference picture marking.
struct H264SliceHeader {
    enum Kind: Equatable { case i, p, b }

    var firstMb = 0
    var kind = Kind.i
    var ppsID = 0
    var frameNum = 0
    var pocLsb = 0
    var deltaPocBottom = 0
    var deltaPoc = [0, 0]
    var redundantPicCount = 0
    /// num_ref_idx_active for lists 0 and 1 (after the override).
    var refCount = [0, 0]
    var listCount = 0
    /// ref_pic_list_modification operations per list: (modification_of_pic_nums_idc, value).
    var modifications: [[(op: Int, value: Int)]] = [[], []]
    /// Whether the slice carries its own marking (adaptive marking, or always for IDR).
    var explicitMarking = false
    var memoryOperations: [H264MemoryOperation] = []

    /// Parses a slice header.
    init(_ reader: H264BitReader, nalType: Int, nalRefIdc: Int, pps table: [Int: H264PictureParameters]) throws(H264SyntaxError) {
        var r = reader
        firstMb = Int(try r.ue())
        var type = try r.ue(max: 9)
        if type > 4 { type -= 5 }
        // FFmpeg's golomb→picture type: P, B, I, SP, SI; SP counts as P and SI as I.
        kind = [Kind.p, .b, .i, .p, .i][type]
        if nalType == 5 && kind != .i { throw H264SyntaxError() }
        ppsID = try r.ue(max: 255)
        guard let pps = table[ppsID] else { throw H264SyntaxError() }
        let sps = pps.sps
        guard sps.frameMbsOnly else { throw H264SyntaxError() }  // field coding is not planned
        frameNum = Int(try r.bits(sps.log2MaxFrameNum))
        let maxPicNum = 1 << sps.log2MaxFrameNum
        if nalType == 5 { _ = try r.ue() }  // idr_pic_id
        if sps.pocType == 0 {
            pocLsb = Int(try r.bits(sps.log2MaxPocLsb))
            if pps.bottomFieldPicOrderInFramePresent { deltaPocBottom = try r.se() }
        }
        if sps.pocType == 1 && !sps.deltaPicOrderAlwaysZero {
            deltaPoc[0] = try r.se()
            if pps.bottomFieldPicOrderInFramePresent { deltaPoc[1] = try r.se() }
        }
        if pps.redundantPicCntPresent { redundantPicCount = Int(try r.ue()) }
        if kind == .b { _ = try r.flag() }  // direct_spatial_mv_pred
        // num_ref_idx_active (FFmpeg's ff_h264_parse_ref_count for frames).
        refCount = pps.refCount
        if kind != .i {
            if try r.flag() {
                refCount[0] = Int(try r.ue()) + 1
                refCount[1] = kind == .b ? Int(try r.ue()) + 1 : 1
            }
            listCount = kind == .b ? 2 : 1
            guard refCount[0] - 1 <= 15, listCount == 1 || refCount[1] - 1 <= 15 else { throw H264SyntaxError() }
            if refCount[1] - 1 > 15 { refCount[1] = 0 }
        } else {
            refCount = [0, 0]
            listCount = 0
        }
        // ref_pic_list_modification.
        if kind != .i {
            for list in 0 ..< listCount where try r.flag() {
                while true {
                    let op = try r.ue(max: 3)
                    if op == 3 { break }
                    guard modifications[list].count < refCount[list] else { throw H264SyntaxError() }
                    modifications[list].append((op, Int(try r.ue())))
                }
            }
        }
        // pred_weight_table, skipped.
        if (pps.weightedPred && kind == .p) || (pps.weightedBipredIdc == 1 && kind == .b) {
            _ = try r.ue()
            if sps.chromaFormatIdc != 0 { _ = try r.ue() }
            for list in 0 ..< 2 {
                for _ in 0 ..< refCount[list] {
                    if try r.flag() { _ = try r.se(); _ = try r.se() }
                    if sps.chromaFormatIdc != 0, try r.flag() {
                        for _ in 0 ..< 4 { _ = try r.se() }
                    }
                }
                if kind != .b { break }
            }
        }
        // dec_ref_pic_marking.
        if nalRefIdc != 0 {
            if nalType == 5 {
                _ = try r.flag()  // no_output_of_prior_pics
                if try r.flag() { memoryOperations = [H264MemoryOperation(opcode: 6, longArg: 0)] }
                explicitMarking = true
            } else {
                explicitMarking = try r.flag()
                if explicitMarking {
                    for _ in 0 ..< 66 {
                        let opcode = try r.ue(max: 6)
                        if opcode == 0 { break }
                        var op = H264MemoryOperation(opcode: opcode)
                        if opcode == 1 || opcode == 3 {
                            let diff = Int(try r.ue())
                            op.shortPicNum = (frameNum - diff - 1) & (maxPicNum - 1)
                        }
                        if opcode == 2 || opcode == 3 || opcode == 6 || opcode == 4 {
                            op.longArg = try r.ue(max: 31)
                            guard op.longArg < 16 || (opcode == 4 && op.longArg == 16) else { throw H264SyntaxError() }
                        }
                        memoryOperations.append(op)
                    }
                }
            }
        }
    }
}

/// One coded picture (one packet), as far as reference handling is concerned.
struct H264CodedPicture {
    var isIDR: Bool
    var nalRefIdc: Int
    var sps: H264SequenceParameters
    var slices: [H264SliceHeader]
    /// Whether every slice is a B slice (so `AVDISCARD_BIDIR` drops the whole picture).
    var isAllB: Bool { slices.allSatisfy { $0.kind == .b } }
    var isReference: Bool { nalRefIdc != 0 }
}

/// Reads the parameter sets and slice headers of an H.264 stream's packets, in either of the
/// two bitstream layouts FFmpeg hands out: length-prefixed NAL units (MP4/MOV/Matroska, with an
/// `avcC` extradata) or Annex B start codes (MPEG-TS, raw .h264).
struct H264SyntaxReader {
    /// NAL length field size for length-prefixed packets; 0 for Annex B.
    private let lengthSize: Int
    private var spsTable: [Int: H264SequenceParameters] = [:]
    private var ppsTable: [Int: H264PictureParameters] = [:]

    /// A reader for a stream with codec extradata `extradata`; nil when the extradata is not
    /// H.264 configuration this reader understands.
    init?(extradata: [UInt8]) {
        if let first = extradata.first, first == 1 {
            guard let avcC = NALParameterSets.parseAVCC(Data(extradata)), avcC.nalUnitHeaderLength != 3 else { return nil }
            lengthSize = avcC.nalUnitHeaderLength
            for nal in avcC.sets {
                guard storeParameterSet([UInt8](nal)) else { return nil }
            }
        } else {
            lengthSize = 0
            var units: [[UInt8]] = []
            extradata.withUnsafeBytes { buffer in Self.annexBUnits(buffer) { units.append(Array($0)) } }
            for nal in units {
                guard storeParameterSet(nal) else { return nil }
            }
        }
    }

    /// Reads one packet: parameter sets update the tables, slices make the picture. Throws
    /// when the packet is not one whole frame picture this reader can describe.
    mutating func picture(in packet: UnsafeRawBufferPointer) throws(H264SyntaxError) -> H264CodedPicture {
        var units: [UnsafeRawBufferPointer] = []
        if lengthSize > 0 {
            var p = 0
            while p + lengthSize <= packet.count {
                var n = 0
                for k in 0 ..< lengthSize { n = n << 8 | Int(packet[p + k]) }
                p += lengthSize
                guard n > 0, p + n <= packet.count else { throw H264SyntaxError() }
                units.append(UnsafeRawBufferPointer(rebasing: packet[p ..< p + n]))
                p += n
            }
        } else {
            Self.annexBUnits(packet) { units.append($0) }
        }
        var picture: H264CodedPicture?
        for nal in units {
            guard let header = nal.first else { continue }
            let type = Int(header & 0x1F), refIdc = Int(header >> 5 & 3)
            switch type {
            case 1, 5:
                let slice = try H264SliceHeader(H264BitReader(nal: nal, limit: 4096), nalType: type,
                                                nalRefIdc: refIdc, pps: ppsTable)
                guard slice.redundantPicCount == 0, let pps = ppsTable[slice.ppsID] else { throw H264SyntaxError() }
                if var current = picture {
                    // One picture per packet: later slices continue it.
                    guard slice.firstMb != 0, slice.frameNum == current.slices[0].frameNum,
                          (type == 5) == current.isIDR, refIdc == current.nalRefIdc, pps.sps == current.sps
                    else { throw H264SyntaxError() }
                    current.slices.append(slice)
                    picture = current
                } else {
                    guard slice.firstMb == 0 else { throw H264SyntaxError() }
                    picture = H264CodedPicture(isIDR: type == 5, nalRefIdc: refIdc, sps: pps.sps, slices: [slice])
                }
            case 7, 8:
                guard picture == nil else { throw H264SyntaxError() }
                try readParameterSet(nal)
            case 2, 3, 4, 20, 21:
                throw H264SyntaxError()  // data partitioning, MVC: not planned
            default:
                continue
            }
        }
        guard let picture else { throw H264SyntaxError() }
        return picture
    }

    /// Stores an SPS or PPS held in `nal`; false when it cannot be read.
    private mutating func storeParameterSet(_ nal: [UInt8]) -> Bool {
        var copy = self
        let ok = nal.withUnsafeBytes { buffer -> Bool in
            do {
                try copy.readParameterSet(buffer)
                return true
            } catch {
                return false
            }
        }
        self = copy
        return ok
    }

    /// Stores an SPS or PPS; a repeated set must be identical (a changed one is not planned).
    private mutating func readParameterSet(_ nal: UnsafeRawBufferPointer) throws(H264SyntaxError) {
        guard let header = nal.first else { return }
        let reader = H264BitReader(nal: nal)
        switch header & 0x1F {
        case 7:
            let sps = try H264SequenceParameters(reader)
            if let known = spsTable[sps.id], known != sps { throw H264SyntaxError() }
            spsTable[sps.id] = sps
        case 8:
            let pps = try H264PictureParameters(reader, sps: spsTable)
            if let known = ppsTable[pps.id], known != pps { throw H264SyntaxError() }
            ppsTable[pps.id] = pps
        default:
            return
        }
    }

    /// Calls `body` with each NAL unit of an Annex B byte stream.
    private static func annexBUnits(_ data: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var starts: [(payload: Int, code: Int)] = []
        var i = 0
        while i + 2 < data.count {
            if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 {
                starts.append((i + 3, i))
                i += 3
            } else {
                i += 1
            }
        }
        for (k, s) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1].code : data.count
            while end > s.payload && data[end - 1] == 0 { end -= 1 }  // trailing zero bytes
            if end > s.payload { body(UnsafeRawBufferPointer(rebasing: data[s.payload ..< end])) }
        }
    }
}
