// H264ReferenceModel: FFmpeg 5.1's H.264 reference bookkeeping, replayed from slice headers
// alone — the decoded picture buffer, frame_num gap filling, picture order counts and the
// reference lists each slice is decoded with — so a plan to leave some pictures undecoded can be
// checked against decoding them all before a single macroblock is decoded.
//
// It follows libavcodec/h264_refs.c, h264_slice.c (h264_field_start, h264_slice_init) and
// h264_parse.c (ff_h264_init_poc) behaviour for frame pictures, quirks included (list order by
// insertion, frame_num matching, gap frames that share the previous picture's buffer), because
// the question is what FFmpeg will do, not what the standard says.

/// What one slice of a decoded picture refers to.
struct H264SliceReferences: Equatable {
    /// Per list, per active index: the referenced picture's decode index (nil: a gap-filling
    /// picture, never decoded from the stream), whether it is a long-term reference, and the POC
    /// FFmpeg uses for it.
    var lists: [[Entry]]
    /// Per list, per active index: the identifier FFmpeg's deblocking filter compares
    /// (`ref2frm`: position of the picture's buffer in the reference arrays, and its parity).
    var filterIDs: [[Int]]

    struct Entry: Equatable {
        var decodeIndex: Int?
        var isLong: Bool
        var poc: Int32?
    }
}

/// What decoding one picture used.
struct H264DecodedPictureState: Equatable {
    var poc: Int32?
    var fieldPoc: [Int32]
    var slices: [H264SliceReferences]
}

/// FFmpeg's reference state for one decoder, fed the pictures it decodes in decode order.
struct H264ReferenceModel {
    /// A picture in the model: decoded from the stream (`decodeIndex`) or a gap filler.
    private struct Picture {
        var decodeIndex: Int?
        var frameNum: Int
        var poc: Int32?
        var fieldPoc: [Int32] = [Int32.max, Int32.max]
        /// Identity of the pixel buffer (gap fillers share the previous picture's).
        var buffer: Int
        var isLong = false
        var reference = 0
        var invalidGap = false
        var picID = 0
    }

    /// Raised when the model meets something it does not replay (the planner then skips nothing).
    struct Unsupported: Error {}

    private var pictures: [Picture] = []
    private var shortRefs: [Int] = []                 // picture indices, newest first
    private var longRefs = [Int?](repeating: nil, count: 32)
    private var longCount = 0
    private var sps: H264SequenceParameters?
    private var prevFrameNum = -1
    private var prevFrameNumOffset = 0
    private var prevPocMsb = 1 << 16
    private var prevPocLsb = -1
    private var pocMsb = 0

    init() {}

    /// The short-term reference pictures, newest first, as FFmpeg's `-debug mmco` lists them:
    /// frame_num and POC (nil: a gap filler with no known POC). For tests.
    var shortTermReferences: [(frameNum: Int, poc: Int32?)] {
        shortRefs.map { (pictures[$0].frameNum, pictures[$0].poc) }
    }

    /// The long-term reference pictures by index: frame_num and POC. For tests.
    var longTermReferences: [Int: (frameNum: Int, poc: Int32?)] {
        var out: [Int: (frameNum: Int, poc: Int32?)] = [:]
        for (i, p) in longRefs.enumerated() { if let p { out[i] = (pictures[p].frameNum, pictures[p].poc) } }
        return out
    }

    /// Decodes (in the model) `picture`, the packet at `decodeIndex`; returns what it referred to.
    mutating func decode(_ picture: H264CodedPicture, decodeIndex: Int) throws(Unsupported) -> H264DecodedPictureState {
        let sps = picture.sps
        if let known = self.sps, known != sps { throw Unsupported() }
        self.sps = sps
        let slice0 = picture.slices[0]
        let maxFrameNum = 1 << sps.log2MaxFrameNum
        if picture.isIDR { idr() }
        let frameNum = slice0.frameNum

        // h264_field_start: shorten long frame_num gaps, then fill the gap with copies.
        if frameNum != prevFrameNum {
            var unwrapped = prevFrameNum
            if unwrapped > frameNum { unwrapped -= maxFrameNum }
            if frameNum - unwrapped > sps.refFrameCount {
                unwrapped = frameNum - sps.refFrameCount - 1
                if unwrapped < 0 { unwrapped += maxFrameNum }
                prevFrameNum = unwrapped
            }
        }
        while frameNum != prevFrameNum && frameNum != (prevFrameNum + 1) % maxFrameNum {
            let previous = shortRefs.first
            prevFrameNum = (prevFrameNum + 1) % maxFrameNum
            let gap = add(Picture(decodeIndex: nil, frameNum: prevFrameNum, poc: nil, buffer: pictures.count,
                                  invalidGap: !sps.gapsInFrameNumAllowed))
            try mark(current: gap, explicit: false, operations: [])
            if let first = shortRefs.first {
                if let previous {
                    pictures[first].buffer = pictures[previous].buffer
                    pictures[first].poc = pictures[previous].poc.map { $0 &+ 2 }
                }
                pictures[first].frameNum = prevFrameNum
            }
        }

        // The picture itself and its picture order count (ff_h264_init_poc).
        let current = add(Picture(decodeIndex: decodeIndex, frameNum: frameNum, poc: nil, buffer: pictures.count))
        var frameNumOffset = prevFrameNumOffset
        if frameNum < prevFrameNum { frameNumOffset += maxFrameNum }
        var fieldPoc: [Int]
        switch sps.pocType {
        case 0:
            let maxLsb = 1 << sps.log2MaxPocLsb, lsb = slice0.pocLsb
            if prevPocLsb < 0 { prevPocLsb = lsb }
            if lsb < prevPocLsb && prevPocLsb - lsb >= maxLsb / 2 {
                pocMsb = prevPocMsb + maxLsb
            } else if lsb > prevPocLsb && prevPocLsb - lsb < -maxLsb / 2 {
                pocMsb = prevPocMsb - maxLsb
            } else {
                pocMsb = prevPocMsb
            }
            fieldPoc = [pocMsb + lsb, pocMsb + lsb + slice0.deltaPocBottom]
        case 1:
            let cycle = sps.offsetForRefFrame
            var absFrameNum = cycle.isEmpty ? 0 : frameNumOffset + frameNum
            if picture.nalRefIdc == 0 && absFrameNum > 0 { absFrameNum -= 1 }
            var expected = 0
            if absFrameNum > 0 {
                let perCycle = cycle.reduce(0, +)
                expected = (absFrameNum - 1) / cycle.count * perCycle
                for i in 0 ... (absFrameNum - 1) % cycle.count { expected += cycle[i] }
            }
            if picture.nalRefIdc == 0 { expected += sps.offsetForNonRefPic }
            let top = expected + slice0.deltaPoc[0]
            fieldPoc = [top, top + sps.offsetForTopToBottomField + slice0.deltaPoc[1]]
        default:
            var poc = 2 * (frameNumOffset + frameNum)
            if picture.nalRefIdc == 0 { poc -= 1 }
            fieldPoc = [poc, poc]
        }
        guard let f0 = Int32(exactly: fieldPoc[0]), let f1 = Int32(exactly: fieldPoc[1]) else { throw Unsupported() }
        pictures[current].fieldPoc = [f0, f1]
        pictures[current].poc = min(f0, f1)

        // h264_slice_init for each slice: the reference lists, before the picture is marked.
        var slices: [H264SliceReferences] = []
        for slice in picture.slices {
            slices.append(try references(for: slice, current: current, maxPicNum: maxFrameNum))
        }

        // ff_h264_field_end.
        if picture.nalRefIdc != 0 {
            try mark(current: current, explicit: slice0.explicitMarking, operations: slice0.memoryOperations)
            prevPocMsb = pocMsb
            prevPocLsb = sps.pocType == 0 ? slice0.pocLsb : 0
        }
        prevFrameNumOffset = frameNumOffset
        prevFrameNum = frameNum
        return H264DecodedPictureState(poc: pictures[current].poc, fieldPoc: [f0, f1], slices: slices)
    }

    // MARK: Picture buffer

    private mutating func add(_ picture: Picture) -> Int {
        pictures.append(picture)
        return pictures.count - 1
    }

    private mutating func idr() {
        for i in 0 ..< 16 { removeLong(i) }
        for p in shortRefs { pictures[p].reference = 0 }
        shortRefs.removeAll()
        prevFrameNum = 0
        prevFrameNumOffset = 0
        prevPocMsb = 1 << 16
        prevPocLsb = -1
    }

    private func findShort(_ frameNum: Int) -> Int? {
        shortRefs.firstIndex { pictures[$0].frameNum == frameNum }
    }

    @discardableResult
    private mutating func removeShort(_ frameNum: Int) -> Int? {
        guard let i = findShort(frameNum) else { return nil }
        let p = shortRefs[i]
        pictures[p].reference = 0
        shortRefs.remove(at: i)
        return p
    }

    private mutating func removeLong(_ i: Int) {
        guard let p = longRefs[i] else { return }
        pictures[p].reference = 0
        pictures[p].isLong = false
        longRefs[i] = nil
        longCount -= 1
    }

    /// ff_h264_execute_ref_pic_marking for a frame.
    private mutating func mark(current: Int, explicit: Bool, operations given: [H264MemoryOperation]) throws(Unsupported) {
        guard let sps else { throw Unsupported() }
        var operations = given
        if !explicit {
            operations = []
            if let oldest = shortRefs.last, longCount + shortRefs.count >= sps.refFrameCount {
                operations = [H264MemoryOperation(opcode: 1, shortPicNum: pictures[oldest].frameNum)]
            }
        }
        var currentAssigned = false
        for op in operations {
            var found: (index: Int, picture: Int)?
            if op.opcode == 1 || op.opcode == 3 {
                guard let i = findShort(op.shortPicNum) else { continue }
                found = (i, shortRefs[i])
            }
            switch op.opcode {
            case 1:
                removeShort(op.shortPicNum)
            case 3:
                let (i, p) = found!
                if longRefs[op.longArg] != p { removeLong(op.longArg) }
                shortRefs.remove(at: i)
                longRefs[op.longArg] = p
                pictures[p].isLong = true
                longCount += 1
            case 2:
                removeLong(op.longArg)
            case 6:
                if shortRefs.first == current { shortRefs.removeFirst() }
                if pictures[current].isLong {
                    for j in 0 ..< 32 where longRefs[j] == current { removeLong(j) }
                }
                if longRefs[op.longArg] != current {
                    removeLong(op.longArg)
                    longRefs[op.longArg] = current
                    pictures[current].isLong = true
                    longCount += 1
                }
                pictures[current].reference = 3
                currentAssigned = true
            case 4:
                for j in op.longArg ..< 16 { removeLong(j) }
            default:
                throw Unsupported()  // 5 (reset) renumbers pictures: not replayed
            }
        }
        if !currentAssigned {
            if shortRefs.first == current {
                pictures[current].reference = 3
            } else if pictures[current].isLong {
                throw Unsupported()
            } else {
                removeShort(pictures[current].frameNum)
                shortRefs.insert(current, at: 0)
                pictures[current].reference = 3
            }
        }
        if longCount + shortRefs.count > max(sps.refFrameCount, 1) {
            if longCount > 0 && shortRefs.isEmpty {
                if let i = longRefs.prefix(16).firstIndex(where: { $0 != nil }) { removeLong(i) }
            } else if let oldest = shortRefs.last {
                removeShort(pictures[oldest].frameNum)
            }
        }
        let maxFrameNum = 1 << sps.log2MaxFrameNum
        var i = 0
        while i < shortRefs.count {
            let p = shortRefs[i]
            if pictures[p].invalidGap {
                let d = ((pictures[current].frameNum - pictures[p].frameNum) % maxFrameNum + maxFrameNum) % maxFrameNum
                if d > sps.refFrameCount { removeShort(pictures[p].frameNum) }
            }
            i += 1
        }
    }

    // MARK: Reference lists

    private struct ListEntry {
        var picture: Int
        var picID: Int
        var reference: Int
        var poc: Int32?
    }

    private func entry(_ p: Int) -> ListEntry {
        ListEntry(picture: p, picID: pictures[p].picID, reference: pictures[p].reference, poc: pictures[p].poc)
    }

    /// add_sorted: short-term pictures by POC from `limit`, descending (`descending`) or ascending.
    private func sorted(from limit: Int32, descending: Bool) throws(Unsupported) -> [Int] {
        var out: [Int] = []
        var limit = Int64(limit)
        while true {
            var best: Int64 = descending ? Int64(Int32.min) : Int64(Int32.max)
            var chosen: Int?
            for p in shortRefs {
                guard let poc32 = pictures[p].poc else { throw Unsupported() }
                let poc = Int64(poc32)
                if descending ? (poc <= limit && poc >= best) : (poc > limit && poc < best) {
                    best = poc
                    chosen = p
                }
            }
            guard let chosen, best != (descending ? Int64(Int32.min) : Int64(Int32.max)) else { break }
            out.append(chosen)
            limit = best - (descending ? 1 : 0)
        }
        return out
    }

    /// ff_h264_build_ref_list and the ref2frm table of h264_slice_init, for one slice.
    private mutating func references(for slice: H264SliceHeader, current: Int, maxPicNum: Int) throws(Unsupported) -> H264SliceReferences {
        var lists = [[ListEntry?]](repeating: [ListEntry?](repeating: nil, count: 32), count: 2)
        func build(_ order: [Int]) -> [ListEntry?] {
            var list: [ListEntry?] = []
            for p in order {
                pictures[p].picID = pictures[p].frameNum
                list.append(entry(p))
            }
            for i in 0 ..< 16 {
                if let p = longRefs[i] {
                    pictures[p].picID = i
                    list.append(entry(p))
                }
            }
            return list
        }
        if slice.kind == .b {
            guard let poc = pictures[current].poc else { throw Unsupported() }
            var lens = [0, 0]
            for list in 0 ..< 2 {
                let order = try sorted(from: poc, descending: list == 0) + sorted(from: poc, descending: list != 0)
                let built = build(order)
                guard built.count <= 32 else { throw Unsupported() }
                lens[list] = built.count
                for (i, e) in built.enumerated() { lists[list][i] = e }
            }
            if lens[0] == lens[1] && lens[1] > 1 {
                let same = (0 ..< lens[0]).allSatisfy {
                    pictures[lists[0][$0]!.picture].buffer == pictures[lists[1][$0]!.picture].buffer
                }
                if same { lists[1].swapAt(0, 1) }
            }
        } else {
            let built = build(shortRefs)
            guard built.count <= 32 else { throw Unsupported() }
            for (i, e) in built.enumerated() { lists[0][i] = e }
        }
        let defaults = [lists[0][0], lists[1][0]]

        for list in 0 ..< slice.listCount {
            var pred = slice.frameNum
            for (index, modification) in slice.modifications[list].enumerated() {
                var ref: Int?
                switch modification.op {
                case 0, 1:
                    let absDiff = modification.value + 1
                    guard absDiff <= maxPicNum else { throw Unsupported() }
                    pred = modification.op == 0 ? pred - absDiff : pred + absDiff
                    pred &= maxPicNum - 1
                    if let i = shortRefs.lastIndex(where: { pictures[$0].frameNum == pred }) {
                        ref = shortRefs[i]
                        pictures[shortRefs[i]].picID = pred
                    }
                default:
                    guard modification.value <= 31 else { throw Unsupported() }
                    if let p = longRefs[modification.value], pictures[p].reference != 0 {
                        ref = p
                        pictures[p].picID = modification.value
                    }
                }
                guard let ref else {
                    lists[list][index] = nil
                    continue
                }
                var i = index
                while i + 1 < slice.refCount[list] {
                    if let e = lists[list][i], pictures[ref].isLong == pictures[e.picture].isLong,
                       pictures[ref].picID == e.picID { break }
                    i += 1
                }
                while i > index {
                    lists[list][i] = lists[list][i - 1]
                    i -= 1
                }
                lists[list][index] = entry(ref)
            }
        }
        for list in 0 ..< slice.listCount {
            for index in 0 ..< slice.refCount[list] where lists[list][index].map({ $0.reference & 3 != 3 }) ?? true {
                guard let d = defaults[list], d.reference & 3 == 3 else { throw Unsupported() }
                lists[list][index] = d
            }
        }

        // What the slice decodes with, and ref2frm for the deblocking filter.
        var result = H264SliceReferences(lists: [[], []], filterIDs: [[], []])
        for list in 0 ..< 2 {
            let active = list < slice.listCount ? min(slice.refCount[list], 16) : 0
            for index in 0 ..< (list < slice.listCount ? slice.refCount[list] : 0) {
                let e = lists[list][index]!
                result.lists[list].append(.init(decodeIndex: pictures[e.picture].decodeIndex,
                                                isLong: pictures[e.picture].isLong, poc: e.poc))
            }
            for index in 0 ..< active {
                let e = lists[list][index]!
                let buffer = pictures[e.picture].buffer
                var id = 60
                if let k = shortRefs.firstIndex(where: { pictures[$0].buffer == buffer }) { id = k }
                for k in 0 ..< longCount {
                    if let p = longRefs[k], pictures[p].buffer == buffer {
                        id = shortRefs.count + k
                        break
                    }
                }
                result.filterIDs[list].append(4 * id + (e.reference & 3))
            }
        }
        return result
    }
}
