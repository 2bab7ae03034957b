// Edits the metadata inside a parsed movie box: the iTunes list (`moov/udta/meta` with handler
// 'mdir', `ilst`), QuickTime user data (`moov/udta/©xxx`) and QuickTime metadata (`moov/meta`
// with handler 'mdta', `keys` + `ilst`). Existing entries are kept byte for byte unless an item
// with the same meaning replaces them; boxes that are not metadata (chapters, vendor boxes) are
// never touched.
import Foundation
internal import MediaEngine

/// How items meet the metadata a file already has.
package enum ISOBMFFMetadataMode: Sendable {
    /// Keep the file's items, except those an item with the same meaning (common key, shared
    /// meaning or identifier) replaces. An item without a value only removes.
    case adding
    /// Drop every item the file has; write only the given ones.
    case replacing
}

/// Which key spaces a file's metadata is written in.
enum ISOBMFFMetadataStyle: Sendable {
    /// QuickTime movie: QuickTime metadata (mdta keys), QuickTime user data and iTunes items.
    case quickTimeMovie
    /// MPEG-4 family (MP4, M4V, M4A, 3GP): iTunes items, with user data (©xyz, ©mak, ©mod) and
    /// QuickTime metadata only for meanings iTunes has no atom for.
    case mpeg4
}

struct ISOBMFFMetadataEditor {
    let style: ISOBMFFMetadataStyle

    /// Where an entry lives.
    private enum Store: Hashable {
        case iTunes(String)      // ilst atom type
        case freeform(String)    // ilst '----' "mean.name"
        case userData(String)    // udta box type
        case quickTime(String)   // mdta key
    }

    /// The user data box types that are metadata (text): QuickTime's © boxes and 'name', and the
    /// ISO (3GPP) strings. Other user data (chapters, vendor boxes) is not metadata here.
    private static let isoUserDataTypes: Set<UInt32> = Set(["titl", "auth", "cprt", "dscp", "perf", "gnre", "albm",
                                                            "yrrc", "loci", "kywd", "clsf", "rtng"].map(FourCC.code))

    /// Applies `items` to `movie`'s file-level metadata.
    func apply(_ items: [AVMetadataItem], mode: ISOBMFFMetadataMode, to movie: inout ISOBoxNode) throws(BoxError) {
        var children = movie.children ?? []

        // The three stores as they are.
        let udtaIndex = children.firstIndex { $0.type == FourCC.code("udta") }
        var udta = udtaIndex.map { children[$0] } ?? ISOBoxNode(container: FourCC.code("udta"), children: [])
        var udtaChildren = udta.children ?? []
        let iTunesIndex = udtaChildren.firstIndex {
            $0.type == FourCC.code("meta") && ISOBoxNode.parseMeta($0)?.handlerType == FourCC.code("mdir")
        }
        var iTunesMeta = iTunesIndex.flatMap { ISOBoxNode.parseMeta(udtaChildren[$0]) }
        var iTunesEntries: [ISOBoxNode] = []
        if let meta = iTunesMeta { iTunesEntries = try Self.listEntries(meta) }
        let mdtaIndex = children.firstIndex {
            $0.type == FourCC.code("meta") && ISOBoxNode.parseMeta($0)?.handlerType == FourCC.code("mdta")
        }
        var mdtaMeta = mdtaIndex.flatMap { ISOBoxNode.parseMeta(children[$0]) }
        var mdtaKeys = mdtaMeta.map(Self.quickTimeKeys) ?? []
        var mdtaEntries: [ISOBoxNode] = []
        if let meta = mdtaMeta { mdtaEntries = try Self.listEntries(meta) }

        // What goes: same meanings (adding) or all metadata (replacing).
        let removals = Set(items.compactMap { item in item.key.flatMap { key in
            item.keySpace.flatMap { CommonKeyMapping.meaning(key: key, keySpace: $0) } } })
        func removes(_ meaning: String?) -> Bool { mode == .replacing || meaning.map(removals.contains) == true }

        iTunesEntries.removeAll { removes(Self.iTunesMeaning($0)) }
        udtaChildren.removeAll { box in
            if box.type >> 24 == 0xA9 || box.type == FourCC.code("name") {
                return removes(CommonKeyMapping.meaning(key: MetadataKeyCoding.numberKey(box.type), keySpace: .quickTimeUserData))
            }
            if Self.isoUserDataTypes.contains(box.type) {
                return removes(CommonKeyMapping.meaning(key: MetadataKeyCoding.numberKey(box.type), keySpace: .isoUserData))
            }
            return false
        }
        mdtaEntries.removeAll { entry in
            let index = Int(entry.type)
            guard index >= 1, index <= mdtaKeys.count else { return true } // dangling: dropped
            return removes(mdtaKeys[index - 1].namespace == FourCC.code("mdta")
                           ? CommonKeyMapping.meaning(key: mdtaKeys[index - 1].name as NSString, keySpace: .quickTimeMetadata)
                           : nil)
        }

        // What is written where, natively placed items first so they keep their own key.
        var planned: [(store: Store, item: AVMetadataItem)] = []
        var claimed = Set<Store>()
        let valued = items.filter { $0.value != nil && $0.key != nil && $0.keySpace != nil }
        for item in valued {
            guard let store = Self.nativeStore(item) else { continue }
            planned.append((store, item))
            claimed.insert(store)
        }
        var mappedOwners: [Store: String] = [:]
        for item in valued {
            guard let key = item.key, let keySpace = item.keySpace else { continue }
            let native = Self.nativeStore(item)
            if case .iTunes("gnre")? = native { continue } // a genre number has no text form
            let meaning = CommonKeyMapping.meaning(key: key, keySpace: keySpace)
            var stores: [Store] = []
            if let meaning, let targets = CommonKeyMapping.writeTargets(forMeaning: meaning) {
                let all: [Store?] = style == .quickTimeMovie
                    ? [targets.quickTime.map(Store.quickTime), targets.userData.map(Store.userData), targets.iTunes.map(Store.iTunes)]
                    : [targets.iTunes.map(Store.iTunes) ?? targets.userData.map(Store.userData) ?? targets.quickTime.map(Store.quickTime)]
                stores = all.compactMap { $0 }
            } else if native == nil, keySpace == .common, let name = (key as? NSString).map({ $0 as String }) {
                stores = [.freeform("com.apple.iTunes." + name)]
            }
            // Mapped items go where no native item of that key is; the first identifier mapped
            // to a key owns it (several artworks or languages of one identifier all go there).
            let owner = item.identifier?.rawValue ?? ""
            for store in stores where !claimed.contains(store) && Self.kind(store) != native.map(Self.kind) {
                guard mappedOwners[store, default: owner] == owner else { continue }
                mappedOwners[store] = owner
                planned.append((store, item))
            }
        }

        // Encode, grouping items of one store key into one entry.
        var order: [Store] = []
        var grouped: [Store: [AVMetadataItem]] = [:]
        for (store, item) in planned {
            if grouped[store] == nil { order.append(store) }
            grouped[store, default: []].append(item)
        }
        for store in order {
            let group = grouped[store] ?? []
            switch store {
            case .iTunes(let atom):
                let atoms = group.compactMap { ISOBMFFMetadataEncoding.iTunesData(atom: atom, $0) }
                if !atoms.isEmpty { iTunesEntries.append(ISOBoxNode(type: atom, payload: atoms.flatMap { $0 })) }
            case .freeform(let key):
                for item in group {
                    if let bytes = ISOBMFFMetadataEncoding.iTunesFreeform(key: key, item) {
                        iTunesEntries.append(ISOBoxNode(type: "----", payload: Array(bytes.dropFirst(8))))
                    }
                }
            case .userData(let type):
                if let payload = ISOBMFFMetadataEncoding.userDataPayload(group) {
                    udtaChildren.append(ISOBoxNode(type: type, payload: payload))
                }
            case .quickTime(let key):
                let atoms = group.compactMap(ISOBMFFMetadataEncoding.quickTimeData)
                guard !atoms.isEmpty else { continue }
                mdtaKeys.append((FourCC.code("mdta"), key))
                mdtaEntries.append(ISOBoxNode(type: UInt32(mdtaKeys.count), payload: atoms.flatMap { $0 }))
            }
        }

        // Put the stores back; empty ones disappear.
        if !iTunesEntries.isEmpty {
            var meta = iTunesMeta ?? ISOBoxNode(container: FourCC.code("meta"), prefix: [0, 0, 0, 0],
                                              children: [ISOBoxNode(type: "hdlr", payload: Self.handler("mdir", manufacturer: "appl"))])
            Self.setList(&meta, entries: iTunesEntries)
            iTunesMeta = meta
        } else if var meta = iTunesMeta {
            meta.children?.removeAll { $0.type == FourCC.code("ilst") }
            let rest = meta.children?.filter { $0.type != FourCC.code("hdlr") && $0.type != FourCC.code("free") } ?? []
            iTunesMeta = rest.isEmpty ? nil : meta
        }
        if iTunesIndex != nil {
            udtaChildren.removeAll { $0.type == FourCC.code("meta") && ISOBoxNode.parseMeta($0)?.handlerType == FourCC.code("mdir") }
        }
        if let meta = iTunesMeta { udtaChildren.append(ISOBoxNode(type: meta.type, payload: Array(meta.bytes.dropFirst(8)))) }
        udta.children = udtaChildren
        if let index = udtaIndex { children.remove(at: index) }
        let udtaPosition = udtaIndex ?? children.endIndex
        if !udtaChildren.isEmpty { children.insert(udta, at: min(udtaPosition, children.endIndex)) }

        if let index = children.firstIndex(where: { $0.type == FourCC.code("meta") && ISOBoxNode.parseMeta($0)?.handlerType == FourCC.code("mdta") }),
           mdtaIndex != nil {
            children.remove(at: index)
        }
        if !mdtaEntries.isEmpty {
            var meta = mdtaMeta ?? ISOBoxNode(container: FourCC.code("meta"),
                                            children: [ISOBoxNode(type: "hdlr", payload: Self.handler("mdta", manufacturer: nil))])
            // Renumber: only keys still used, in their order.
            var used: [(UInt32, String)] = []
            var renumbered: [ISOBoxNode] = []
            var newIndex: [Int: UInt32] = [:]
            for var entry in mdtaEntries {
                let old = Int(entry.type)
                if newIndex[old] == nil {
                    used.append(mdtaKeys[old - 1])
                    newIndex[old] = UInt32(used.count)
                }
                entry.type = newIndex[old]!
                renumbered.append(entry)
            }
            var keysPayload: [UInt8] = [0, 0, 0, 0] + BoxBytes.be32(UInt32(used.count))
            for (namespace, name) in used {
                keysPayload += BoxBytes.be32(UInt32(8 + name.utf8.count)) + MetadataKeyCoding.bytes(namespace) + Array(name.utf8)
            }
            var metaChildren = meta.children ?? []
            if let keysIndex = metaChildren.firstIndex(where: { $0.type == FourCC.code("keys") }) {
                metaChildren[keysIndex] = ISOBoxNode(type: "keys", payload: keysPayload)
            } else {
                let after = (metaChildren.firstIndex { $0.type == FourCC.code("hdlr") }).map { $0 + 1 } ?? 0
                metaChildren.insert(ISOBoxNode(type: "keys", payload: keysPayload), at: after)
            }
            meta.children = metaChildren
            Self.setList(&meta, entries: renumbered)
            mdtaMeta = meta
            let position = mdtaIndex.map { min($0, children.endIndex) } ?? children.endIndex
            children.insert(ISOBoxNode(type: meta.type, payload: Array(meta.bytes.dropFirst(8))), at: position)
        }
        movie.children = children
    }

    // MARK: Stores

    /// The store an item's own key space puts it in, when it is one of the three.
    private static func nativeStore(_ item: AVMetadataItem) -> Store? {
        guard let key = item.key, let keySpace = item.keySpace else { return nil }
        switch keySpace {
        case .iTunes, .quickTimeUserData:
            guard let code = codeOf(key) else { return nil }
            let atom = MetadataKeyCoding.string(code)
            guard MetadataKeyCoding.fourCharCode(atom) == code, atom.unicodeScalars.count == 4 else { return nil }
            if keySpace == .quickTimeUserData { return .userData(atom) }
            // A genre given as text is the user genre.
            if atom == "gnre", ISOBMFFMetadataEncoding.integer(item) == nil { return .iTunes("©gen") }
            return .iTunes(atom)
        case .quickTimeMetadata:
            return (key as? NSString).map { .quickTime($0 as String) }
        case AVMetadataKeySpace("itlk"):
            return (key as? NSString).map { .freeform($0 as String) }
        default:
            return nil
        }
    }

    private static func kind(_ store: Store) -> Int {
        switch store {
        case .iTunes, .freeform: return 0
        case .userData: return 1
        case .quickTime: return 2
        }
    }

    private static func codeOf(_ key: Any) -> UInt32? {
        if let number = key as? NSNumber, !(key is NSString) { return MetadataKeyCoding.code(ofNumber: number) }
        if let string = key as? NSString { return MetadataKeyCoding.fourCharCode(string as String) }
        if let string = key as? String { return MetadataKeyCoding.fourCharCode(string) }
        return nil
    }

    /// The meaning of an `ilst` entry.
    private static func iTunesMeaning(_ entry: ISOBoxNode) -> String? {
        guard entry.type == FourCC.code("----") else {
            return CommonKeyMapping.meaning(key: MetadataKeyCoding.numberKey(entry.type), keySpace: .iTunes)
        }
        guard let (children, _) = try? ISOBoxNode.parseList(entry.payload, 0..<entry.payload.count, depth: 6) else { return nil }
        func text(_ type: String) -> String? {
            children.first { $0.type == FourCC.code(type) }.map { MetadataText.utf8($0.payload.dropFirst(4)) }
        }
        guard let name = text("name") else { return nil }
        let key = (text("mean").map { $0 + "." } ?? "") + name
        return CommonKeyMapping.meaning(key: key as NSString, keySpace: AVMetadataKeySpace("itlk"))
    }

    /// The entries of a meta box's `ilst` (each a leaf holding its data atoms).
    private static func listEntries(_ meta: ISOBoxNode) throws(BoxError) -> [ISOBoxNode] {
        guard let ilst = meta.child("ilst") else { return [] }
        return try ISOBoxNode.parseList(ilst.payload, 0..<ilst.payload.count, depth: 5).boxes
    }

    /// The (namespace, name) pairs of a QuickTime metadata `keys` box, in order.
    private static func quickTimeKeys(_ meta: ISOBoxNode) -> [(namespace: UInt32, name: String)] {
        guard let keys = meta.child("keys") else { return [] }
        let buffer = ISOBoxReader(bytes: keys.payload)
        guard let count = buffer.u32(4) else { return [] }
        var result: [(UInt32, String)] = []
        var offset = 8
        for _ in 0..<min(Int(count), 100_000) {
            guard let size = buffer.u32(offset), size >= 8, offset + Int(size) <= keys.payload.count,
                  let namespace = buffer.u32(offset + 4) else { break }
            result.append((namespace, MetadataText.utf8(keys.payload[(offset + 8)..<(offset + Int(size))])))
            offset += Int(size)
        }
        return result
    }

    /// Replaces (or adds) a meta box's `ilst`.
    private static func setList(_ meta: inout ISOBoxNode, entries: [ISOBoxNode]) {
        let ilst = ISOBoxNode(container: FourCC.code("ilst"), children: entries)
        let leaf = ISOBoxNode(type: ilst.type, payload: Array(ilst.bytes.dropFirst(8)))
        var children = meta.children ?? []
        if let index = children.firstIndex(where: { $0.type == FourCC.code("ilst") }) {
            children[index] = leaf
        } else {
            children.append(leaf)
        }
        meta.children = children
    }

    /// A metadata handler box payload: version/flags, pre-defined, handler type, three reserved
    /// words (the first is the manufacturer, 'appl' for iTunes metadata), empty name.
    private static func handler(_ type: String, manufacturer: String?) -> [UInt8] {
        [0, 0, 0, 0] + [0, 0, 0, 0] + Array(type.utf8) + (manufacturer.map { Array($0.utf8) } ?? [0, 0, 0, 0])
            + [UInt8](repeating: 0, count: 8) + [0]
    }
}
