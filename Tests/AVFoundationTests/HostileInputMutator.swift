// The structure-aware mutation engine behind HostileInputTests and scripts/fuzz.sh (which compiles
// this file and Tests/TestSupport/SplitMix64.swift on their own with swiftc, so it uses Foundation only). A mutant is a valid seed file with
// one to three hostile edits chosen by a seeded PRNG: the ISO-BMFF box tree is walked and a box
// size, an entry count, a table entry, a timescale, a duration, a fragment or edit-list time, a
// version byte is set to an extreme value; an ID3v2 tag gets hostile tag/frame sizes, flags and
// encodings; any file may be truncated or have bytes flipped. The same (seed file, mutant seed)
// always gives the same bytes, so a failing mutant is reproduced from the seed it is named by.
import Foundation
#if canImport(TestSupport)
import TestSupport  // SplitMix64 (scripts/fuzz.sh compiles Tests/TestSupport/SplitMix64.swift with this file)
#endif

/// The mutants' generator: SplitMix64, the same on every platform.
typealias HostileRandom = SplitMix64

/// One ISO-BMFF box found in a seed: where its header starts, its header and total length, its type.
struct HostileBox {
    var offset: Int
    var headerLength: Int
    var size: Int
    var type: String
    var payload: Int { offset + headerLength }
}

enum HostileMutator {
    /// Boxes whose payload is a sequence of boxes (after `containerSkip` bytes for full boxes and sample entries).
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "udta", "meta", "ilst", "moof",
                                          "traf", "mvex", "dinf", "stsd", "mp4a", "avc1", "gmhd", "tref", "sinf", "wave",
                                          "©nam", "©ART", "©alb", "©day", "©too", "covr", "trkn", "disk", "----", "mfra"]
    static func containerSkip(_ type: String) -> Int {
        switch type {
        case "meta": return 4
        case "stsd": return 8
        case "mp4a": return 28
        case "avc1": return 78
        default: return 0
        }
    }

    /// The box tree of `data`, depth first (a box before its children). Stops at anything inconsistent.
    static func boxes(_ data: [UInt8]) -> [HostileBox] {
        var found: [HostileBox] = []
        func walk(_ start: Int, _ end: Int, depth: Int) {
            var at = start
            while at + 8 <= end, depth < 12 {
                var size = Int(readU32(data, at))
                var header = 8
                if size == 1 {
                    guard at + 16 <= end else { return }
                    let large = readU64(data, at + 8)
                    guard large <= UInt64(end - at) else { return }
                    size = Int(large)
                    header = 16
                } else if size == 0 {
                    size = end - at
                }
                guard size >= header, at + size <= end else { return }
                let type = String(decoding: data[at + 4 ..< at + 8], as: UTF8.self)
                let box = HostileBox(offset: at, headerLength: header, size: size, type: type)
                found.append(box)
                // The ilst children's children ("data") and the udta/meta inside a QuickTime track.
                if containers.contains(type) || (depth >= 3 && found.dropLast().last?.type == "ilst") {
                    let skip = containerSkip(type)
                    // A QuickTime `meta` has no version/flags: look for a plausible child header.
                    var child = box.payload + skip
                    if type == "meta", box.payload + 8 <= at + size, isBoxType(data, box.payload + 4) { child = box.payload }
                    walk(child, at + size, depth: depth + 1)
                }
                at += size
            }
        }
        walk(0, data.count, depth: 0)
        return found
    }

    static func isBoxType(_ data: [UInt8], _ at: Int) -> Bool {
        guard at + 4 <= data.count else { return false }
        return data[at ..< at + 4].allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0xA9 }
    }

    static func readU32(_ d: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= d.count else { return 0 }
        return d[at ..< at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func readU64(_ d: [UInt8], _ at: Int) -> UInt64 {
        guard at >= 0, at + 8 <= d.count else { return 0 }
        return d[at ..< at + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func write32(_ d: inout [UInt8], _ at: Int, _ value: UInt32) {
        guard at >= 0, at + 4 <= d.count else { return }
        for i in 0 ..< 4 { d[at + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
    }

    static func write64(_ d: inout [UInt8], _ at: Int, _ value: UInt64) {
        guard at >= 0, at + 8 <= d.count else { return }
        for i in 0 ..< 8 { d[at + i] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(i))) }
    }

    /// Extreme 32-bit values.
    static func extreme32(_ rng: inout HostileRandom) -> UInt32 {
        [0, 1, 2, 7, 8, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF, 0x4000_0000, 0x0100_0000,
         UInt32.random(in: 0 ... .max, using: &rng)].randomElement(using: &rng)!
    }

    /// Extreme 64-bit values (times near 2^63 and 2^64, negative numbers as two's complement).
    static func extreme64(_ rng: inout HostileRandom) -> UInt64 {
        [0, 1, 0x7FFF_FFFF_FFFF_FFFF, 0x7FFF_FFFF_FFFF_FFF0, 0x8000_0000_0000_0000, 0x8000_0000_0000_0001,
         0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFF0, 0x4000_0000_0000_0000, 0x0000_0001_0000_0000,
         0x7FFF_FFFF_FFFF_FFFF - UInt64.random(in: 0 ..< 100_000, using: &rng),
         UInt64.random(in: 0 ... .max, using: &rng)].randomElement(using: &rng)!
    }

    /// The PRNG seed of mutant `n` of the seed file named `name` (FNV-1a of the name, mixed with `n`).
    static func mutantSeed(_ name: String, _ n: UInt64) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash ^ (n &* 0x9E37_79B9_7F4A_7C15)
    }

    /// A mutant of `seed` for `mutantSeed`, and what was done to it.
    static func mutate(_ seed: [UInt8], mutantSeed: UInt64) -> (bytes: [UInt8], description: String) {
        var rng = HostileRandom(seed: mutantSeed)
        var data = seed
        var done: [String] = []
        let isID3 = data.count >= 10 && data[0] == 0x49 && data[1] == 0x44 && data[2] == 0x33
        let edits = Int.random(in: 1 ... 3, using: &rng)
        for _ in 0 ..< edits {
            let roll = Int.random(in: 0 ..< 100, using: &rng)
            if roll < 6 {
                let cut = Int.random(in: 0 ..< max(1, data.count), using: &rng)
                data.removeSubrange(cut...)
                done.append("truncate@\(cut)")
            } else if roll < 12 {
                guard !data.isEmpty else { continue }
                let n = Int.random(in: 1 ... 8, using: &rng)
                for _ in 0 ..< n {
                    let at = Int.random(in: 0 ..< data.count, using: &rng)
                    data[at] = UInt8.random(in: 0 ... 255, using: &rng)
                }
                done.append("flip\(n)")
            } else if isID3 {
                guard data.count >= 10 else { continue }  // cut short by an earlier edit
                done.append(mutateID3(&data, &rng))
            } else {
                done.append(mutateBoxes(&data, &rng))
            }
        }
        return (data, done.joined(separator: ","))
    }

    // MARK: ISO-BMFF

    static func mutateBoxes(_ data: inout [UInt8], _ rng: inout HostileRandom) -> String {
        let all = boxes(data)
        guard !all.isEmpty else { return "none" }
        // Half the time go for a table or timing box, else any box.
        let interesting: Set<String> = ["stts", "stsz", "stz2", "stco", "co64", "stss", "ctts", "stsc", "elst", "trun", "tfdt",
                                        "tfhd", "mdhd", "mvhd", "tkhd", "mehd", "sidx", "data", "stsd", "hdlr", "esds", "avcC",
                                        "trex", "sgpd", "sbgp", "cslg", "keys", "chpl", "free", "mdat"]
        let pool = Bool.random(using: &rng) ? all.filter { interesting.contains($0.type) } : all
        guard let box = (pool.isEmpty ? all : pool).randomElement(using: &rng) else { return "none" }
        let p = box.payload
        let version = p < data.count ? data[p] : 0
        let choice = Int.random(in: 0 ..< 10, using: &rng)
        if choice < 3 {
            // The box's own size.
            let kind = Int.random(in: 0 ..< 7, using: &rng)
            switch kind {
            case 0 ..< 5:
                let value: UInt32 = [0, 1, 7, 8, 0xFFFF_FFFF, 0x7FFF_FFFF, UInt32(clamping: box.size + 1),
                                     UInt32(clamping: max(0, box.size - 1))].randomElement(using: &rng)!
                write32(&data, box.offset, value)
                return "\(box.type)@\(box.offset).size=\(value)"
            default:
                // A 64-bit size near 2^64 (or 2^63), written over the start of the payload.
                let large: UInt64 = [0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFF8, 0x8000_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF,
                                     15, 16].randomElement(using: &rng)!
                write32(&data, box.offset, 1)
                write64(&data, box.offset + 8, large)
                return "\(box.type)@\(box.offset).largesize=\(large)"
            }
        }
        if choice == 3 {
            // Flip between version 0 and 1 (the field widths change under the parser).
            guard p < data.count else { return "none" }
            let v = UInt8([0, 1, 2, 255].randomElement(using: &rng)!)
            data[p] = v
            return "\(box.type)@\(box.offset).version=\(v)"
        }
        let end = box.offset + box.size
        func u32(_ at: Int, _ label: String) -> String {
            guard at + 4 <= end else { return "none" }
            let v = extreme32(&rng)
            write32(&data, at, v)
            return "\(box.type)@\(box.offset).\(label)=\(v)"
        }
        func u64(_ at: Int, _ label: String) -> String {
            guard at + 8 <= end else { return "none" }
            let v = extreme64(&rng)
            write64(&data, at, v)
            return "\(box.type)@\(box.offset).\(label)=\(v)"
        }
        /// A field of a table entry: entry `index` of `width` bytes starting at `first`.
        func entry(_ first: Int, width: Int, fieldOffset: Int, wide: Bool, _ label: String) -> String {
            let count = max(1, (end - first) / max(1, width))
            let index = Int.random(in: 0 ..< min(count, 64), using: &rng)
            let at = first + index * width + fieldOffset
            return wide ? u64(at, "\(label)[\(index)]") : u32(at, "\(label)[\(index)]")
        }
        switch box.type {
        case "stts", "ctts", "stss", "stco", "co64", "stsc", "elst", "stsd", "sbgp", "dref":
            if choice < 6 { return u32(p + 4, "count") }
            switch box.type {
            case "stts": return entry(p + 8, width: 8, fieldOffset: Bool.random(using: &rng) ? 0 : 4, wide: false, "entry")
            case "ctts": return entry(p + 8, width: 8, fieldOffset: Bool.random(using: &rng) ? 0 : 4, wide: false, "entry")
            case "stss": return entry(p + 8, width: 4, fieldOffset: 0, wide: false, "sample")
            case "stco": return entry(p + 8, width: 4, fieldOffset: 0, wide: false, "offset")
            case "co64": return entry(p + 8, width: 8, fieldOffset: 0, wide: true, "offset")
            case "stsc": return entry(p + 8, width: 12, fieldOffset: 4 * Int.random(in: 0 ..< 3, using: &rng), wide: false, "entry")
            case "elst":
                if version == 1 {
                    return entry(p + 8, width: 20, fieldOffset: Bool.random(using: &rng) ? 0 : 8, wide: true, "segment")
                }
                return entry(p + 8, width: 12, fieldOffset: 4 * Int.random(in: 0 ..< 3, using: &rng), wide: false, "segment")
            default: return u32(p + 8 + 4 * Int.random(in: 0 ..< 4, using: &rng), "field")
            }
        case "stsz":
            switch choice {
            case 4, 5: return u32(p + 8, "count")
            case 6: return u32(p + 4, "sampleSize")
            default: return entry(p + 12, width: 4, fieldOffset: 0, wide: false, "size")
            }
        case "mdhd", "mvhd":
            let timescaleAt = version == 1 ? p + 20 : p + 12
            if choice < 7 {
                guard timescaleAt + 4 <= end else { return "none" }
                let v: UInt32 = [0, 1, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000, 90_000].randomElement(using: &rng)!
                write32(&data, timescaleAt, v)
                return "\(box.type)@\(box.offset).timescale=\(v)"
            }
            return version == 1 ? u64(p + 24, "duration") : u32(p + 16, "duration")
        case "tkhd":
            return version == 1 ? u64(p + 28, "duration") : u32(p + 20, "duration")
        case "mehd":
            return version == 1 ? u64(p + 4, "fragmentDuration") : u32(p + 4, "fragmentDuration")
        case "tfdt":
            return version == 1 ? u64(p + 4, "baseMediaDecodeTime") : u32(p + 4, "baseMediaDecodeTime")
        case "tfhd":
            // Whatever optional fields follow the track ID: base offset (64), description index, duration, size, flags.
            if Bool.random(using: &rng) { return u64(p + 8, "baseDataOffset") }
            return u32(p + 8 + 4 * Int.random(in: 0 ..< 5, using: &rng), "field")
        case "trun":
            if choice < 6 { return u32(p + 4, "count") }
            if choice == 6 { return u32(p + 8, "dataOffset") }
            return u32(p + 12 + 4 * Int.random(in: 0 ..< 16, using: &rng), "sampleField")
        case "sidx":
            return Bool.random(using: &rng) ? u32(p + 8, "timescale") : u64(p + 12, "earliestPTS")
        case "trex":
            return u32(p + 8 + 4 * Int.random(in: 0 ..< 4, using: &rng), "default")
        default:
            // Anything else: a 32-bit field somewhere in the first bytes of the payload.
            let span = max(1, min(end - p - 3, 32))
            return u32(p + Int.random(in: 0 ..< span, using: &rng), "field")
        }
    }

    // MARK: ID3v2

    /// The ID3v2 frames of a tag: (header offset, size) for v2.3/v2.4 (10-byte headers).
    static func id3Frames(_ data: [UInt8]) -> [(offset: Int, size: Int)] {
        guard data.count >= 10 else { return [] }
        let version = data[3]
        let tagSize = syncsafe(data, 6)
        let end = min(data.count, 10 + tagSize)
        var at = 10
        var frames: [(Int, Int)] = []
        while at + 10 <= end, data[at] != 0 {
            let size = version >= 4 ? syncsafe(data, at + 4) : Int(readU32(data, at + 4))
            frames.append((at, size))
            guard size > 0, at + 10 + size <= end else { break }
            at += 10 + size
        }
        return frames
    }

    static func syncsafe(_ d: [UInt8], _ at: Int) -> Int {
        guard at + 4 <= d.count else { return 0 }
        return d[at ..< at + 4].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
    }

    static func mutateID3(_ data: inout [UInt8], _ rng: inout HostileRandom) -> String {
        let frames = id3Frames(data)
        let choice = Int.random(in: 0 ..< 10, using: &rng)
        switch choice {
        case 0:
            let v: UInt32 = [0x7F7F_7F7F, 0, 1, 0xFFFF_FFFF, 10, UInt32(syncsafe(data, 6) + 1)].randomElement(using: &rng)!
            write32(&data, 6, v)
            return "id3.tagSize=\(v)"
        case 1:
            let v = UInt8([2, 3, 4, 5, 0xFF].randomElement(using: &rng)!)
            data[3] = v
            return "id3.version=\(v)"
        case 2:
            // Flags: unsynchronisation, extended header, experimental, footer, and junk.
            let v = UInt8([0x80, 0x40, 0x20, 0x10, 0xFF, 0x50].randomElement(using: &rng)!)
            data[5] = v
            if v & 0x40 != 0, data.count >= 14 { write32(&data, 10, extreme32(&rng)) }
            return "id3.flags=\(v)"
        default:
            guard let frame = frames.randomElement(using: &rng) else { return "none" }
            let id = String(decoding: data[frame.offset ..< frame.offset + 4], as: UTF8.self)
            switch choice {
            case 3, 4, 5:
                let v: UInt32 = [0xFFFF_FFFF, 0x7FFF_FFFF, 0x7F7F_7F7F, 0, 1, 0x8080_8080,
                                 UInt32(truncatingIfNeeded: frame.size + 1), UInt32(clamping: frame.size * 2)].randomElement(using: &rng)!
                write32(&data, frame.offset + 4, v)
                return "id3.\(id)@\(frame.offset).size=\(v)"
            case 6:
                // Frame flags: compression, encryption, grouping, unsync, data length indicator.
                let v = UInt8([0xFF, 0x0F, 0x01, 0x08, 0x04, 0x02, 0x80, 0x40].randomElement(using: &rng)!)
                data[frame.offset + 9] = v
                return "id3.\(id)@\(frame.offset).flags=\(v)"
            case 7:
                guard frame.offset + 10 < data.count else { return "none" }
                let v = UInt8.random(in: 0 ... 255, using: &rng)
                data[frame.offset + 10] = v
                return "id3.\(id)@\(frame.offset).encoding=\(v)"
            default:
                // Wipe terminators inside the payload: strings with no end.
                let end = min(data.count, frame.offset + 10 + frame.size)
                var wiped = 0
                for i in (frame.offset + 10) ..< max(frame.offset + 10, end) where data[i] == 0 {
                    data[i] = 0x41
                    wiped += 1
                }
                return "id3.\(id)@\(frame.offset).noTerminators(\(wiped))"
            }
        }
    }
}
