// H264ReferencePlanner: which packets a decoder heading for wanted H.264 frames may leave
// undecoded, proven against FFmpeg's own reference handling before anything is skipped.

/// Plans, for one decoder since its last seek, which packets to decode on the way to the
/// wanted frames, and proves the plan exact.
///
/// Non-reference pictures that are not wanted are never needed. Reference pictures made only of
/// B slices (b-pyramid) usually are not needed either when the wanted frame is an I or P frame,
/// or a B frame of a later group, and decoding them is a third of the work of a long GOP. But
/// FFmpeg, told to skip them (`AVDISCARD_BIDIR`), never sees their memory management commands
/// and fills the `frame_num` gap they leave with copies of other pictures, so the reference
/// lists of later pictures can change. So the plan is checked with `H264ReferenceModel`, which
/// replays FFmpeg's reference bookkeeping from the slice headers: every picture the plan
/// decodes must be decoded with exactly the same references (same pictures, long-term marking,
/// picture order counts and deblocking identities) as when every picture is decoded. Where that
/// fails, the skipped pictures the failing one needs (or, failing that, the nearest skipped one
/// before it) are decoded after all, until the plan holds; a plan that cannot be proven is not
/// used at all.
///
/// The history (what was actually sent since the last seek) is part of every proof, so
/// decoding may go on forward through several plans. It only works from an IDR picture.
package final class H264ReferencePlanner {
    /// What to do with one packet.
    package enum Decision: Equatable, Sendable {
        /// Decode it.
        case decode
        /// Drop it: a non-reference picture (`AVDISCARD_NONREF`).
        case skipUnreferenced
        /// Drop it: a reference picture made of B slices that nothing wanted needs
        /// (`AVDISCARD_BIDIR`).
        case skipReference
    }

    private var reader: H264SyntaxReader
    private let initialReader: H264SyntaxReader
    private var parsed: [Int: H264CodedPicture] = [:]
    private var history: [(decodeIndex: Int, decision: Decision)] = []
    private var historyDecisions: [Int: Decision] = [:]
    /// False once something since the last seek could not be read (or decoding did not start at
    /// an IDR picture): no more plans until `reset()`.
    package private(set) var isUsable = true
    /// Whether a reference picture has been skipped since the last seek (the decoder's state is
    /// then only right for the pictures the plans proved).
    package private(set) var hasSkippedReferences = false

    /// A planner for a stream with this codec extradata; nil when it is not H.264 configuration
    /// the planner can read.
    package init?(extradata: [UInt8]) {
        guard let reader = H264SyntaxReader(extradata: extradata) else { return nil }
        self.reader = reader
        initialReader = reader
    }

    /// Forgets everything since the last seek.
    package func reset() {
        reader = initialReader
        parsed.removeAll(keepingCapacity: true)
        history.removeAll(keepingCapacity: true)
        historyDecisions.removeAll(keepingCapacity: true)
        isUsable = true
        hasSkippedReferences = false
    }

    /// Reads the packet at `decodeIndex` (once; packets must be read in decode order). Returns
    /// false when it cannot be read, which ends planning until the next reset.
    @discardableResult
    package func read(decodeIndex: Int, packet: UnsafeRawBufferPointer) -> Bool {
        if parsed[decodeIndex] != nil { return true }
        guard isUsable else { return false }
        do {
            parsed[decodeIndex] = try reader.picture(in: packet)
            return true
        } catch {
            isUsable = false
            return false
        }
    }

    /// Whether the packet at `decodeIndex` (already read) is a reference picture.
    package func isReference(_ decodeIndex: Int) -> Bool? { parsed[decodeIndex]?.isReference }

    /// Ends planning until the next reset (something was sent that the planner could not read).
    package func invalidate() { isUsable = false }

    /// Records what was done with a packet sent to (or dropped before) the decoder.
    package func record(decodeIndex: Int, decision: Decision) {
        guard isUsable, parsed[decodeIndex] != nil, historyDecisions[decodeIndex] == nil else {
            isUsable = false
            return
        }
        if history.isEmpty && !(parsed[decodeIndex]!.isIDR) { isUsable = false }
        history.append((decodeIndex, decision))
        historyDecisions[decodeIndex] = decision
        if decision == .skipReference { hasSkippedReferences = true }
    }

    /// Decisions for `upcoming` (decode indices in decode order, all read, following the
    /// history; may be empty) such that every picture in `wanted` comes out exactly as if every
    /// picture had been decoded; nil when that cannot be proven.
    package func plan(upcoming: [Int], wanted: Set<Int>) -> [Int: Decision]? {
        guard isUsable else { return nil }
        let sequence = history.map(\.decodeIndex) + upcoming
        guard let first = sequence.first, parsed[first]?.isIDR == true,
              sequence.allSatisfy({ parsed[$0] != nil }) else { return nil }
        // What every picture is decoded with when all of them are.
        var full = H264ReferenceModel()
        var reference: [Int: H264DecodedPictureState] = [:]
        for d in sequence {
            guard let state = try? full.decode(parsed[d]!, decodeIndex: d) else { return nil }
            reference[d] = state
        }
        // The pictures that must come out right: the wanted ones and, transitively, what they
        // refer to. (The others may be decoded wrongly or not at all: nothing wanted uses them,
        // and reference bookkeeping never depends on picture content.)
        var needed = Set<Int>()
        var stack = Array(wanted.filter { reference[$0] != nil })
        while let d = stack.popLast() {
            guard needed.insert(d).inserted else { continue }
            for slice in reference[d]!.slices {
                for list in slice.lists {
                    for e in list {
                        guard let r = e.decodeIndex else { return nil }  // refers to a gap filler
                        stack.append(r)
                    }
                }
            }
        }
        guard needed.allSatisfy({ historyDecisions[$0].map { $0 == .decode } ?? true }) else { return nil }
        var decisions: [Int: Decision] = [:]
        for d in upcoming {
            let picture = parsed[d]!
            if needed.contains(d) {
                decisions[d] = .decode
            } else if !picture.isReference {
                decisions[d] = .skipUnreferenced
            } else if picture.isAllB {
                decisions[d] = .skipReference
            } else {
                decisions[d] = .decode
            }
        }
        // Check the plan; where a needed picture would be decoded differently (a skipped
        // picture's marking mattered), decode the nearest skipped picture before it too.
        let position = Dictionary(uniqueKeysWithValues: sequence.enumerated().map { ($0.element, $0.offset) })
        for _ in 0 ... upcoming.count {
            var model = H264ReferenceModel()
            var failure: Int?
            for d in sequence where (historyDecisions[d] ?? decisions[d]!) == .decode {
                let state = try? model.decode(parsed[d]!, decodeIndex: d)
                if needed.contains(d), !(state.map { Self.same($0, reference[d]!) } ?? false) {
                    failure = d
                    break
                }
                if state == nil { failure = d; break }
            }
            guard let failure else { return decisions }
            guard let d = upcoming.last(where: { position[$0]! < position[failure]! && decisions[$0] == .skipReference })
            else { return nil }
            decisions[d] = .decode
        }
        return nil
    }

    /// Whether a picture decoded under a plan uses what it uses when everything is decoded.
    private static func same(_ planned: H264DecodedPictureState, _ full: H264DecodedPictureState) -> Bool {
        guard planned.poc == full.poc, planned.fieldPoc == full.fieldPoc, planned.slices.count == full.slices.count
        else { return false }
        var forward: [Int: Int] = [:], backward: [Int: Int] = [:]
        for (a, b) in zip(planned.slices, full.slices) {
            for list in 0 ..< 2 {
                guard a.lists[list].count == b.lists[list].count,
                      a.filterIDs[list].count == b.filterIDs[list].count else { return false }
                for (x, y) in zip(a.lists[list], b.lists[list]) {
                    guard let dx = x.decodeIndex, dx == y.decodeIndex, x.isLong == y.isLong, x.poc == y.poc else { return false }
                }
                for (x, y) in zip(a.filterIDs[list], b.filterIDs[list]) {
                    if let known = forward[x], known != y { return false }
                    if let known = backward[y], known != x { return false }
                    forward[x] = y
                    backward[y] = x
                }
            }
        }
        return true
    }
}
