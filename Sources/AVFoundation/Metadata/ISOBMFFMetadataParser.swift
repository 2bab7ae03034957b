// Metadata from the boxes of an ISO base media file (MP4, M4A, MOV, 3GP): iTunes `ilst`,
// QuickTime user data, QuickTime metadata (`mdta` keys), ISO user data, Nero `chpl` chapters
// and QuickTime chapter tracks (`tref`/`chap` → a text track's samples), file and track level.
import Foundation
internal import MediaEngine

/// What a track's header boxes say, for chapters and media selection.
struct ISOTrackInfo: Sendable {
    /// The track ID (tkhd).
    var trackID: CMPersistentTrackID
    /// Whether tkhd's enabled flag is set.
    var isEnabled: Bool
    /// tkhd's alternate group (0: none).
    var alternateGroup: Int
    /// The handler type (hdlr in mdia), e.g. "vide", "soun", "text", "sbtl".
    var handlerType: String
    /// The media language as a BCP 47 tag (mdhd), nil when undetermined.
    var languageTag: String?
    /// The media timescale (mdhd).
    var timescale: Int32
    /// Track IDs this track's `tref/chap` names.
    var chapterTrackIDs: [CMPersistentTrackID]
}

struct ISOBMFFMetadataParser {
    let file: MediaFile

    /// The largest `moov` read into memory.
    static let maximumMovieBoxSize: UInt64 = 256 << 20
    /// The most top-level boxes walked.
    static let maximumTopLevelBoxes = 10_000
    /// The most chapters read from a chapter track.
    static let maximumChapters = 10_000

    /// Finds `moov` among the top-level boxes and reads it.
    func parse(into metadata: inout AssetMetadata) {
        guard let moov = readMovieBox() else { return }
        let buffer = ISOBoxReader(bytes: moov)
        let root = ISOBox(type: FourCC.code("moov"), payloadStart: 0, end: moov.count)
        var movieDuration = CMTime.invalid
        var tracks: [ISOTrackInfo] = []
        var trackBoxes: [CMPersistentTrackID: ISOBox] = [:]

        for box in buffer.children(of: root) {
            switch box.type {
            case FourCC.code("mvhd"): movieDuration = Self.movieDuration(buffer, box)
            case FourCC.code("udta"):
                for (format, items) in userData(buffer, box) { metadata.add(items, format: format) }
            case FourCC.code("meta"):
                for (format, items) in metaItems(buffer, box) { metadata.add(items, format: format) }
            case FourCC.code("trak"):
                guard let info = trackInfo(buffer, box) else { continue }
                tracks.append(info)
                trackBoxes[info.trackID] = box
                for child in buffer.children(of: box) {
                    let groups: [(AVMetadataFormat, [AVMetadataItem])]
                    if child.type == FourCC.code("udta") { groups = userData(buffer, child) }
                    else if child.type == FourCC.code("meta") { groups = metaItems(buffer, child) }
                    else { continue }
                    for (format, items) in groups { metadata.addTrackItems(items, format: format, trackID: info.trackID) }
                }
            default: continue
            }
        }
        metadata.isoTracks = tracks

        // Chapters: QuickTime chapter tracks (what Apple reads), else Nero chpl.
        for track in tracks {
            for chapterID in track.chapterTrackIDs {
                guard let chapterTrack = tracks.first(where: { $0.trackID == chapterID }),
                      let box = trackBoxes[chapterID] else { continue }
                let groups = chapterTrackGroups(buffer, box, timescale: chapterTrack.timescale)
                metadata.addChapters(groups, locale: Locale(identifier: chapterTrack.languageTag ?? "und"))
            }
            if !metadata.chapterGroupsByLocale.isEmpty { break }
        }
        if metadata.chapterGroupsByLocale.isEmpty,
           let udta = buffer.child("udta", of: root), let chpl = buffer.child("chpl", of: udta) {
            metadata.addChapters(neroChapters(buffer, chpl, movieDuration: movieDuration),
                                 locale: Locale(identifier: "und"))
        }
    }

    // MARK: Top level

    /// The payload of the first top-level 'moov' box (at most `maximumMovieBoxSize` bytes), or
    /// nil when there is none or the top-level boxes are damaged. Shared with the edit-list reader.
    func readMovieBox() -> [UInt8]? {
        file.topLevelPayload("moov", maximum: Self.maximumMovieBoxSize, maximumBoxes: Self.maximumTopLevelBoxes)
    }

    private static func movieDuration(_ buffer: ISOBoxReader, _ mvhd: ISOBox) -> CMTime {
        guard let (timescale, duration) = buffer.timescaleAndDuration(mvhd), timescale > 0, timescale <= UInt32(Int32.max),
              duration < UInt64(Int64.max) else { return .invalid }
        return CMTime(value: Int64(duration), timescale: Int32(timescale))
    }

    // MARK: Tracks

    private func trackInfo(_ buffer: ISOBoxReader, _ trak: ISOBox) -> ISOTrackInfo? {
        guard let tkhd = buffer.child("tkhd", of: trak), let version = buffer.u8(tkhd.payloadStart),
              let flags = buffer.u32(tkhd.payloadStart) else { return nil }
        let p = tkhd.payloadStart
        let idOffset = version == 1 ? p + 20 : p + 12
        let groupOffset = version == 1 ? p + 46 : p + 34
        guard let trackID = buffer.u32(idOffset), trackID > 0, trackID <= UInt32(Int32.max) else { return nil }
        var info = ISOTrackInfo(trackID: CMPersistentTrackID(trackID), isEnabled: flags & 1 != 0,
                                alternateGroup: Int(buffer.u16(groupOffset) ?? 0), handlerType: "",
                                languageTag: nil, timescale: 0, chapterTrackIDs: [])
        if let mdia = buffer.child("mdia", of: trak) {
            if let hdlr = buffer.child("hdlr", of: mdia), let handler = buffer.handlerType(hdlr) {
                info.handlerType = MetadataKeyCoding.string(handler)
            }
            if let mdhd = buffer.child("mdhd", of: mdia), let mdhdVersion = buffer.u8(mdhd.payloadStart) {
                let q = mdhd.payloadStart
                let timescale = buffer.u32(mdhdVersion == 1 ? q + 20 : q + 12) ?? 0
                info.timescale = timescale <= UInt32(Int32.max) ? Int32(timescale) : 0
                if let language = buffer.u16(mdhdVersion == 1 ? q + 32 : q + 20) {
                    info.languageTag = ISO639.tag(fromPacked: language)
                }
            }
        }
        if let tref = buffer.child("tref", of: trak), let chap = buffer.child("chap", of: tref) {
            var offset = chap.payloadStart
            while offset + 4 <= chap.end, let id = buffer.u32(offset) {
                if id > 0 && id <= UInt32(Int32.max) { info.chapterTrackIDs.append(CMPersistentTrackID(id)) }
                offset += 4
            }
        }
        return info
    }

    /// The chapters of a QuickTime text track: one group per sample, titled with its text.
    private func chapterTrackGroups(_ buffer: ISOBoxReader, _ trak: ISOBox, timescale: Int32) -> [AVTimedMetadataGroup] {
        guard timescale > 0, let stbl = buffer.descend(trak, ["mdia", "minf", "stbl"]) else { return [] }
        let durations = sampleDurations(buffer, stbl)
        let offsets = sampleOffsets(buffer, stbl)
        let sizes = sampleSizes(buffer, stbl)
        let count = min(durations.count, offsets.count, sizes.count, Self.maximumChapters)
        var groups: [AVTimedMetadataGroup] = []
        var time: Int64 = 0
        for index in 0..<count {
            let duration = Int64(durations[index])
            let sample = file.read(upTo: min(Int(sizes[index]), 1 << 16), at: offsets[index])
            let sampleBuffer = ISOBoxReader(bytes: sample)
            var title = ""
            if let length = sampleBuffer.u16(0) {
                let text = sampleBuffer.slice(2, 2 + Int(length))
                title = text.starts(with: [0xFE, 0xFF]) || text.starts(with: [0xFF, 0xFE])
                    ? MetadataText.utf16(text) : MetadataText.utf8(text)
            }
            let range = CMTimeRange(start: CMTime(value: time, timescale: timescale),
                                    duration: CMTime(value: duration, timescale: timescale))
            let item = AVMetadataItem(key: AVMetadataKey.commonKeyTitle.rawValue as NSString, keySpace: .common,
                                      value: MetadataText.trimmingNULs(title) as NSString,
                                      dataType: (kCMMetadataBaseDataType_UTF8 as String), time: range.start, duration: range.duration)
            groups.append(AVTimedMetadataGroup(items: [item], timeRange: range))
            let (sum, overflow) = time.addingReportingOverflow(duration)
            guard !overflow else { break }
            time = sum
        }
        return groups
    }

    private func sampleDurations(_ buffer: ISOBoxReader, _ stbl: ISOBox) -> [UInt32] {
        guard let stts = buffer.child("stts", of: stbl), let entries = buffer.u32(stts.payloadStart + 4) else { return [] }
        var result: [UInt32] = []
        for entry in 0..<Int(min(entries, UInt32(Self.maximumChapters))) {
            let at = stts.payloadStart + 8 + entry * 8
            guard at + 8 <= stts.end, let count = buffer.u32(at), let delta = buffer.u32(at + 4) else { break }
            result.append(contentsOf: repeatElement(delta, count: Int(min(count, UInt32(Self.maximumChapters - result.count)))))
            if result.count >= Self.maximumChapters { break }
        }
        return result
    }

    private func sampleSizes(_ buffer: ISOBoxReader, _ stbl: ISOBox) -> [UInt32] {
        guard let stsz = buffer.child("stsz", of: stbl), let fixed = buffer.u32(stsz.payloadStart + 4),
              let count = buffer.u32(stsz.payloadStart + 8) else { return [] }
        let limited = Int(min(count, UInt32(Self.maximumChapters)))
        if fixed != 0 { return Array(repeating: fixed, count: limited) }
        return (0..<limited).compactMap { index in
            let at = stsz.payloadStart + 12 + index * 4
            return at + 4 <= stsz.end ? buffer.u32(at) : nil
        }
    }

    private func sampleOffsets(_ buffer: ISOBoxReader, _ stbl: ISOBox) -> [UInt64] {
        var chunkOffsets: [UInt64] = []
        if let stco = buffer.child("stco", of: stbl), let count = buffer.u32(stco.payloadStart + 4) {
            for index in 0..<Int(min(count, UInt32(Self.maximumChapters))) {
                let at = stco.payloadStart + 8 + index * 4
                guard at + 4 <= stco.end, let offset = buffer.u32(at) else { break }
                chunkOffsets.append(UInt64(offset))
            }
        } else if let co64 = buffer.child("co64", of: stbl), let count = buffer.u32(co64.payloadStart + 4) {
            for index in 0..<Int(min(count, UInt32(Self.maximumChapters))) {
                let at = co64.payloadStart + 8 + index * 8
                guard at + 8 <= co64.end, let offset = buffer.u64(at) else { break }
                chunkOffsets.append(offset)
            }
        }
        // stsc: runs of chunks with a number of samples each.
        var runs: [(firstChunk: Int, samplesPerChunk: Int)] = []
        if let stsc = buffer.child("stsc", of: stbl), let count = buffer.u32(stsc.payloadStart + 4) {
            for index in 0..<Int(min(count, UInt32(Self.maximumChapters))) {
                let at = stsc.payloadStart + 8 + index * 12
                guard at + 12 <= stsc.end, let first = buffer.u32(at), let perChunk = buffer.u32(at + 4) else { break }
                runs.append((Int(min(first, UInt32(Int32.max))), Int(min(perChunk, UInt32(Self.maximumChapters)))))
            }
        }
        if runs.isEmpty { runs = [(1, 1)] }
        let sizes = sampleSizes(buffer, stbl)
        var offsets: [UInt64] = []
        for (chunkIndex, chunkOffset) in chunkOffsets.enumerated() {
            let chunkNumber = chunkIndex + 1
            let perChunk = runs.last(where: { $0.firstChunk <= chunkNumber })?.samplesPerChunk ?? 1
            var offset = chunkOffset
            for _ in 0..<perChunk {
                guard offsets.count < min(sizes.count, Self.maximumChapters) else { return offsets }
                offsets.append(offset)
                offset &+= UInt64(sizes[offsets.count - 1])
            }
        }
        return offsets
    }

    /// Nero chapters: version/flags, (version 1: 4 reserved bytes), a count byte, then per
    /// chapter a 64-bit start in 100 ns units and a length-prefixed UTF-8 title.
    private func neroChapters(_ buffer: ISOBoxReader, _ chpl: ISOBox, movieDuration: CMTime) -> [AVTimedMetadataGroup] {
        guard let version = buffer.u8(chpl.payloadStart) else { return [] }
        var offset = chpl.payloadStart + 4 + (version == 1 ? 4 : 0)
        guard let count = buffer.u8(offset) else { return [] }
        offset += 1
        var entries: [(start: Int64, title: String)] = []
        for _ in 0..<Int(count) {
            guard let start = buffer.u64(offset), let length = buffer.u8(offset + 8),
                  offset + 9 + Int(length) <= chpl.end else { break }
            entries.append((Int64(truncatingIfNeeded: min(start, UInt64(Int64.max))),
                            MetadataText.utf8(buffer.slice(offset + 9, offset + 9 + Int(length)))))
            offset += 9 + Int(length)
        }
        return entries.enumerated().map { index, entry in
            let start = CMTime(value: entry.start, timescale: 10_000_000)
            let end = index + 1 < entries.count ? CMTime(value: entries[index + 1].start, timescale: 10_000_000)
                : (movieDuration.isValid ? movieDuration : start)
            let range = CMTimeRange(start: start, end: end)
            let item = AVMetadataItem(key: AVMetadataKey.commonKeyTitle.rawValue as NSString, keySpace: .common,
                                      value: entry.title as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String),
                                      time: range.start, duration: range.duration)
            return AVTimedMetadataGroup(items: [item], timeRange: range)
        }
    }

    // MARK: udta

    /// The ISO user data box types (full boxes with a packed language and a string).
    private static let isoStringTypes: Set<UInt32> = Set(["titl", "auth", "cprt", "dscp", "perf", "gnre", "albm",
                                                          "kywd", "clsf"].map(FourCC.code))

    /// Items in a `udta`: QuickTime user data text (©xxx, name), ISO user data, nested meta.
    private func userData(_ buffer: ISOBoxReader, _ udta: ISOBox) -> [(AVMetadataFormat, [AVMetadataItem])] {
        var quickTime: [AVMetadataItem] = [], iso: [AVMetadataItem] = []
        var result: [(AVMetadataFormat, [AVMetadataItem])] = []
        for box in buffer.children(of: udta) {
            let key = MetadataKeyCoding.numberKey(box.type)
            if box.type == FourCC.code("meta") {
                result.append(contentsOf: metaItems(buffer, box))
            } else if box.type >> 24 == 0xA9 {
                quickTime.append(contentsOf: quickTimeTextItems(buffer, box, key: key))
            } else if box.type == FourCC.code("name") {
                quickTime.append(AVMetadataItem(key: key, keySpace: .quickTimeUserData,
                                                value: MetadataText.utf8(buffer.slice(box.payloadStart, box.end)) as NSString,
                                                dataType: (kCMMetadataBaseDataType_UTF8 as String)))
            } else if Self.isoStringTypes.contains(box.type) {
                if let item = isoStringItem(buffer, box, key: key) { iso.append(item) }
            } else if box.type == FourCC.code("yrrc") {
                if let year = buffer.u16(box.payloadStart + 4) {
                    iso.append(AVMetadataItem(key: key, keySpace: .isoUserData, value: NSNumber(value: year),
                                              dataType: (kCMMetadataBaseDataType_UInt16 as String)))
                }
            }
        }
        if !quickTime.isEmpty { result.insert((.quickTimeUserData, quickTime), at: 0) }
        if !iso.isEmpty { result.append((.isoUserData, iso)) }
        return result
    }

    /// A QuickTime international text list: entries of 16-bit length, 16-bit language, text.
    /// A box whose payload is not such a list is taken as plain UTF-8 text.
    private func quickTimeTextItems(_ buffer: ISOBoxReader, _ box: ISOBox, key: NSNumber) -> [AVMetadataItem] {
        var items: [AVMetadataItem] = []
        var offset = box.payloadStart
        while offset + 4 <= box.end, let length = buffer.u16(offset), let language = buffer.u16(offset + 2),
              offset + 4 + Int(length) <= box.end {
            let text = buffer.slice(offset + 4, offset + 4 + Int(length))
            let isUTF16 = text.starts(with: [0xFE, 0xFF]) || text.starts(with: [0xFF, 0xFE])
            let tag = ISO639.tag(fromPacked: language)
            items.append(AVMetadataItem(key: key, keySpace: .quickTimeUserData,
                                        value: MetadataText.trimmingNULs(isUTF16 ? MetadataText.utf16(text)
                                                                                 : MetadataText.utf8(text)) as NSString,
                                        dataType: isUTF16 ? (kCMMetadataBaseDataType_UTF16 as String) : (kCMMetadataBaseDataType_UTF8 as String),
                                        extendedLanguageTag: tag))
            offset += 4 + Int(length)
        }
        if items.isEmpty && box.payloadLength > 0 {
            items.append(AVMetadataItem(key: key, keySpace: .quickTimeUserData,
                                        value: MetadataText.trimmingNULs(MetadataText.utf8(buffer.slice(box.payloadStart, box.end))) as NSString,
                                        dataType: (kCMMetadataBaseDataType_UTF8 as String)))
        }
        return items
    }

    /// An ISO user data string box: version/flags, packed language, NUL-terminated UTF-8 or
    /// BOM-led UTF-16.
    private func isoStringItem(_ buffer: ISOBoxReader, _ box: ISOBox, key: NSNumber) -> AVMetadataItem? {
        guard let language = buffer.u16(box.payloadStart + 4) else { return nil }
        var text = buffer.slice(box.payloadStart + 6, box.end)
        let isUTF16 = text.starts(with: [0xFE, 0xFF]) || text.starts(with: [0xFF, 0xFE])
        if !isUTF16, let nul = text.firstIndex(of: 0) { text = Array(text[..<nul]) }
        let value = MetadataText.trimmingNULs(isUTF16 ? MetadataText.utf16(text) : MetadataText.utf8(text))
        return AVMetadataItem(key: key, keySpace: .isoUserData, value: value as NSString,
                              dataType: isUTF16 ? (kCMMetadataBaseDataType_UTF16 as String) : (kCMMetadataBaseDataType_UTF8 as String),
                              extendedLanguageTag: ISO639.tag(fromPacked: language & 0x7FFF))
    }

    // MARK: meta

    /// Items of a `meta` box: iTunes (`mdir` handler) or QuickTime metadata (`mdta`).
    private func metaItems(_ buffer: ISOBoxReader, _ meta: ISOBox) -> [(AVMetadataFormat, [AVMetadataItem])] {
        let children = buffer.metaChildren(meta)
        let handler = children.first { $0.type == FourCC.code("hdlr") }.flatMap(buffer.handlerType)
        guard let ilst = children.first(where: { $0.type == FourCC.code("ilst") }) else { return [] }
        if handler == FourCC.code("mdta") {
            let keys = children.first { $0.type == FourCC.code("keys") }.map { mdtaKeys(buffer, $0) } ?? []
            return [(.quickTimeMetadata, quickTimeMetadataItems(buffer, ilst, keys: keys))]
        }
        return [(.iTunesMetadata, iTunesItems(buffer, ilst))]
    }

    /// The key names of a `keys` box, in order (index 0 is key 1).
    private func mdtaKeys(_ buffer: ISOBoxReader, _ keys: ISOBox) -> [String] {
        guard let count = buffer.u32(keys.payloadStart + 4) else { return [] }
        var names: [String] = []
        var offset = keys.payloadStart + 8
        for _ in 0..<min(Int(count), 100_000) {
            guard let size = buffer.u32(offset), size >= 8, offset + Int(size) <= keys.end else { break }
            names.append(MetadataText.utf8(buffer.slice(offset + 8, offset + Int(size))))
            offset += Int(size)
        }
        return names
    }

    private func quickTimeMetadataItems(_ buffer: ISOBoxReader, _ ilst: ISOBox, keys: [String]) -> [AVMetadataItem] {
        var items: [AVMetadataItem] = []
        for entry in buffer.children(of: ilst) {
            let index = Int(entry.type)
            guard index >= 1, index <= keys.count else { continue }
            let key = keys[index - 1] as NSString
            for data in buffer.children(of: entry) where data.type == FourCC.code("data") {
                if let item = dataItem(buffer, data, key: key, keySpace: .quickTimeMetadata, atom: 0) { items.append(item) }
            }
        }
        return items
    }

    private func iTunesItems(_ buffer: ISOBoxReader, _ ilst: ISOBox) -> [AVMetadataItem] {
        var items: [AVMetadataItem] = []
        for entry in buffer.children(of: ilst) {
            let children = buffer.children(of: entry)
            if entry.type == FourCC.code("----") {
                // Freeform: mean + name → key space "itlk", key "<mean>.<name>".
                func text(_ type: String) -> String? {
                    children.first { $0.type == FourCC.code(type) }
                        .map { MetadataText.utf8(buffer.slice($0.payloadStart + 4, $0.end)) }
                }
                guard let name = text("name") else { continue }
                let key = ((text("mean").map { $0 + "." } ?? "") + name) as NSString
                for data in children where data.type == FourCC.code("data") {
                    if let item = dataItem(buffer, data, key: key, keySpace: AVMetadataKeySpace("itlk"), atom: 0) {
                        items.append(item)
                    }
                }
                continue
            }
            for data in children where data.type == FourCC.code("data") {
                if let item = dataItem(buffer, data, key: MetadataKeyCoding.numberKey(entry.type), keySpace: .iTunes,
                                       atom: entry.type) {
                    items.append(item)
                }
            }
        }
        return items
    }

    /// One `data` atom: 32-bit type indicator (well-known type), 32-bit locale, payload.
    private func dataItem(_ buffer: ISOBoxReader, _ data: ISOBox, key: any NSCopying & NSObjectProtocol,
                          keySpace: AVMetadataKeySpace, atom: UInt32) -> AVMetadataItem? {
        guard let typeIndicator = buffer.u32(data.payloadStart) else { return nil }
        let type = typeIndicator & 0x00FF_FFFF
        let payload = buffer.slice(data.payloadStart + 8, data.end)
        guard let (value, dataType) = DataAtomValue.decode(type: type, payload: payload, atom: atom) else { return nil }
        var languageTag: String?
        if let locale = buffer.u32(data.payloadStart + 4), locale != 0 {
            let language = UInt16(locale & 0xFFFF)
            if language >= 0x400 { languageTag = ISO639.tag(fromPacked: language) }
        }
        return AVMetadataItem(key: key, keySpace: keySpace, value: value, dataType: dataType,
                              extendedLanguageTag: languageTag)
    }
}

/// The well-known types of iTunes / QuickTime metadata `data` atoms.
enum DataAtomValue {
    static func decode(type: UInt32, payload: [UInt8], atom: UInt32) -> ((any NSCopying & NSObjectProtocol), String)? {
        let buffer = ISOBoxReader(bytes: payload)
        switch type {
        case 1, 4: return (MetadataText.utf8(payload) as NSString, (kCMMetadataBaseDataType_UTF8 as String))
        case 2, 5: return (MetadataText.utf16(payload) as NSString, (kCMMetadataBaseDataType_UTF16 as String))
        case 12: return (Data(payload) as NSData, (kCMMetadataBaseDataType_GIF as String))
        case 13: return (Data(payload) as NSData, (kCMMetadataBaseDataType_JPEG as String))
        case 14: return (Data(payload) as NSData, (kCMMetadataBaseDataType_PNG as String))
        case 27: return (Data(payload) as NSData, (kCMMetadataBaseDataType_BMP as String))
        case 21:
            switch payload.count {
            case 1: return (NSNumber(value: Int8(bitPattern: payload[0])), (kCMMetadataBaseDataType_SInt8 as String))
            case 2: return (NSNumber(value: Int16(bitPattern: buffer.u16(0) ?? 0)), (kCMMetadataBaseDataType_SInt16 as String))
            case 3:
                let raw = Int32(payload[0]) << 16 | Int32(payload[1]) << 8 | Int32(payload[2])
                return (NSNumber(value: (raw << 8) >> 8), (kCMMetadataBaseDataType_SInt32 as String))
            case 4: return (NSNumber(value: Int32(bitPattern: buffer.u32(0) ?? 0)), (kCMMetadataBaseDataType_SInt32 as String))
            case 8: return (NSNumber(value: Int64(bitPattern: buffer.u64(0) ?? 0)), (kCMMetadataBaseDataType_SInt64 as String))
            default: return (Data(payload) as NSData, (kCMMetadataBaseDataType_RawData as String))
            }
        case 22:
            switch payload.count {
            case 1: return (NSNumber(value: payload[0]), (kCMMetadataBaseDataType_UInt8 as String))
            case 2: return (NSNumber(value: buffer.u16(0) ?? 0), (kCMMetadataBaseDataType_UInt16 as String))
            case 4: return (NSNumber(value: buffer.u32(0) ?? 0), (kCMMetadataBaseDataType_UInt32 as String))
            case 8: return (NSNumber(value: buffer.u64(0) ?? 0), (kCMMetadataBaseDataType_UInt64 as String))
            default: return (Data(payload) as NSData, (kCMMetadataBaseDataType_RawData as String))
            }
        case 23:
            guard payload.count == 4, let bits = buffer.u32(0) else { return nil }
            return (NSNumber(value: Float(bitPattern: bits)), (kCMMetadataBaseDataType_Float32 as String))
        case 24:
            guard payload.count == 8, let bits = buffer.u64(0) else { return nil }
            return (NSNumber(value: Double(bitPattern: bits)), (kCMMetadataBaseDataType_Float64 as String))
        default:
            // Implicit (0) and others: bytes; cover art written as implicit keeps its image type.
            if atom == FourCC.code("covr") {
                if payload.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return (Data(payload) as NSData, (kCMMetadataBaseDataType_PNG as String)) }
                if payload.starts(with: [0xFF, 0xD8]) { return (Data(payload) as NSData, (kCMMetadataBaseDataType_JPEG as String)) }
            }
            return (Data(payload) as NSData, (kCMMetadataBaseDataType_RawData as String))
        }
    }
}
