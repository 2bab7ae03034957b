// `avtool info FILE [--json]`: what AV Foundation reports about a media file — container type,
// duration and every track — through the public asset API only.
//
// JSON keys (stable): file, fileType, duration (seconds), durationValue, durationTimescale,
// playable, providesPreciseDurationAndTiming, tracks[]: trackID, mediaType, codec (FourCC),
// enabled, playable, start, duration (seconds), naturalTimeScale, estimatedDataRate (bits/s),
// language, extendedLanguageTag, characteristics[]; video tracks add width, height,
// nominalFrameRate, transform [a, b, c, d, tx, ty], requiresFrameReordering; audio tracks add
// sampleRate, channels, framesPerPacket; tracks with metadata add metadata (as below).
// metadata: an object keyed by key space ("itsk", "udta", "mdta", "org.id3", "comn", …), each an
// array of items in file order: identifier, key, commonKey,
// dataType, language (extendedLanguageTag), value — a string for text, a number for numbers,
// a date as ISO 8601, binary data as "<N bytes image/png>" (the MIME type guessed from the
// bytes), an ID3 APIC picture likewise. chapterLocale, chapters[]: start, duration (seconds),
// title — the chapters best matching the user's preferred languages (else the first locale's).
// Absent values are omitted.
//
// The text output ends with the same metadata, one section per key space in the order the
// spaces first occur, and the chapters (start, duration, title).
import ArgumentParser
import AVFoundation
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a media file's container, duration and tracks as AVAsset reports them.")

    @Argument(help: "The media file.")
    var file: String

    @Flag(help: "Print JSON (stable keys, documented in the source).")
    var json = false

    func run() throws {
        let url = URL(fileURLWithPath: file)
        let asset = AVURLAsset(url: url)
        // Load with the classic API (this command is synchronous), then read the loaded values.
        let done = DispatchSemaphore(value: 0)
        asset.loadValuesAsynchronously(forKeys: ["duration", "tracks", "playable", "providesPreciseDurationAndTiming", "metadata",
                                                "availableChapterLocales"]) {
            done.signal()
        }
        done.wait()
        for key in ["tracks", "duration"] {
            var error: NSError?
            if asset.statusOfValue(forKey: key, error: &error) != .loaded {
                let text = error.map(errorText) ?? "the \(key) could not be loaded"
                FileHandle.standardError.write(Data("avtool: \(file): \(text)\n".utf8))
                throw ExitCode(1)
            }
        }
        var report: [String: Any] = [
            "file": file,
            "playable": asset.isPlayable,
            "providesPreciseDurationAndTiming": asset.providesPreciseDurationAndTiming,
        ]
        if asset.duration.isNumeric {
            report["duration"] = asset.duration.seconds
            report["durationValue"] = asset.duration.value
            report["durationTimescale"] = Int(asset.duration.timescale)
        }
        if let type = UTType(filenameExtension: url.pathExtension) { report["fileType"] = type.identifier }
        report["tracks"] = asset.tracks.map(describe)
        let metadata = Self.describe(asset.metadata)
        if !metadata.isEmpty { report["metadata"] = metadata }
        if let (locale, groups) = Self.chapters(of: asset), !groups.isEmpty {
            report["chapterLocale"] = locale.identifier
            report["chapters"] = groups.map { group -> [String: Any] in
                var chapter: [String: Any] = [:]
                if group.timeRange.start.isNumeric { chapter["start"] = group.timeRange.start.seconds }
                if group.timeRange.duration.isNumeric { chapter["duration"] = group.timeRange.duration.seconds }
                let title = AVMetadataItem.metadataItems(from: group.items, filteredByIdentifier: .commonIdentifierTitle).first
                if let text = title?.stringValue { chapter["title"] = text }
                return chapter
            }
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        } else {
            printText(report, keySpaces: Self.keySpaceOrder(asset.metadata))
        }
    }

    private func describe(_ track: AVAssetTrack) -> [String: Any] {
        var t: [String: Any] = [
            "trackID": Int(track.trackID),
            "mediaType": track.mediaType.rawValue,
            "enabled": track.isEnabled,
            "playable": track.isPlayable,
            "naturalTimeScale": Int(track.naturalTimeScale),
            "estimatedDataRate": Double(track.estimatedDataRate),
            "characteristics": track.mediaCharacteristics.map(\.rawValue),
        ]
        let range = track.timeRange
        if range.start.isNumeric && range.duration.isNumeric {
            t["start"] = range.start.seconds
            t["duration"] = range.duration.seconds
        }
        if let fd = track.formatDescriptions.first.map({ $0 as! CMFormatDescription }) {
            t["codec"] = fourCC(CMFormatDescriptionGetMediaSubType(fd))
            if let asbd = fd.audioStreamBasicDescription {
                t["sampleRate"] = asbd.mSampleRate
                t["channels"] = Int(asbd.mChannelsPerFrame)
                if asbd.mFramesPerPacket > 0 { t["framesPerPacket"] = Int(asbd.mFramesPerPacket) }
            }
        }
        if let language = track.languageCode { t["language"] = language }
        if let tag = track.extendedLanguageTag { t["extendedLanguageTag"] = tag }
        let metadata = Self.describe(track.metadata)
        if !metadata.isEmpty { t["metadata"] = metadata }
        if track.mediaType == .video {
            t["width"] = Double(track.naturalSize.width)
            t["height"] = Double(track.naturalSize.height)
            if track.nominalFrameRate.isFinite { t["nominalFrameRate"] = Double(track.nominalFrameRate) }
            let m = track.preferredTransform
            t["transform"] = [m.a, m.b, m.c, m.d, m.tx, m.ty].map { Double($0) }
            t["requiresFrameReordering"] = track.requiresFrameReordering
        }
        return t
    }

    /// The chapters to show: those best matching the preferred languages, else the first locale's.
    private static func chapters(of asset: AVAsset) -> (Locale, [AVTimedMetadataGroup])? {
        let locales = asset.availableChapterLocales
        guard let first = locales.first else { return nil }
        let best = asset.chapterMetadataGroups(bestMatchingPreferredLanguages: Locale.preferredLanguages)
        if !best.isEmpty {
            let locale = locales.first { asset.chapterMetadataGroups(withTitleLocale: $0, containingItemsWithCommonKeys: nil).count == best.count }
            return (locale ?? first, best)
        }
        return (first, asset.chapterMetadataGroups(withTitleLocale: first, containingItemsWithCommonKeys: nil))
    }

    /// Items grouped by key space.
    private static func describe(_ items: [AVMetadataItem]) -> [String: [[String: Any]]] {
        var result: [String: [[String: Any]]] = [:]
        for item in items {
            var entry: [String: Any] = [:]
            if let identifier = item.identifier { entry["identifier"] = identifier.rawValue }
            if let key = item.key { entry["key"] = keyText(key) }
            if let common = item.commonKey { entry["commonKey"] = common.rawValue }
            if let type = item.dataType { entry["dataType"] = type }
            if let language = item.extendedLanguageTag { entry["language"] = language }
            if let value = valueText(item) { entry["value"] = value }
            result[item.keySpace?.rawValue ?? "", default: []].append(entry)
        }
        return result
    }

    /// Key spaces in the order they first occur among `items`.
    private static func keySpaceOrder(_ items: [AVMetadataItem]) -> [String] {
        var order: [String] = []
        for item in items where !order.contains(item.keySpace?.rawValue ?? "") { order.append(item.keySpace?.rawValue ?? "") }
        return order
    }

    /// A key as text: a string key itself; a four-character code as its characters ('©' kept).
    private static func keyText(_ key: any NSCopying & NSObjectProtocol) -> String {
        if let string = key as? NSString { return string as String }
        if let number = key as? NSNumber {
            let code = number.uint32Value
            let bytes = [UInt8(code >> 24), UInt8((code >> 16) & 0xFF), UInt8((code >> 8) & 0xFF), UInt8(code & 0xFF)]
                .drop { $0 == 0 }
            return String(bytes.map { Character(Unicode.Scalar($0)) })
        }
        return "\(key)"
    }

    /// A value for display: text, a number, an ISO 8601 date, or "<N bytes type>" for data.
    private static func valueText(_ item: AVMetadataItem) -> Any? {
        switch item.value {
        case let string as NSString: return string as String
        case let number as NSNumber: return number
        case let date as NSDate: return ISO8601DateFormatter().string(from: date as Date)
        case let data as NSData: return bytesText(data as Data, mime: item.extraAttributes?[AVMetadataExtraAttributeKey("MIME")] as? String)
        case let dictionary as NSDictionary:
            if let data = dictionary["data"] as? Data { return bytesText(data, mime: dictionary["MIME"] as? String) }
            if let text = dictionary["text"] as? String { return text }
            return dictionary.description
        case nil: return nil
        case let other?: return "\(other)"
        }
    }

    private static func bytesText(_ data: Data, mime: String?) -> String {
        let bytes = [UInt8](data.prefix(12))
        var type = mime
        if type == nil || type?.isEmpty == true {
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { type = "image/png" }
            else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { type = "image/jpeg" }
            else if bytes.starts(with: Array("GIF8".utf8)) { type = "image/gif" }
            else if bytes.starts(with: Array("BM".utf8)) { type = "image/bmp" }
            else if bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50] { type = "image/webp" }
        }
        return "<\(data.count) bytes\(type.map { " \($0)" } ?? "")>"
    }

    private func printText(_ r: [String: Any], keySpaces: [String]) {
        print("File:      \(file)")
        if let type = r["fileType"] as? String { print("Type:      \(type)") }
        if let d = r["duration"] as? Double {
            print("Duration:  \(String(format: "%.3f", d)) s (\(r["durationValue"] ?? 0)/\(r["durationTimescale"] ?? 0))")
        } else {
            print("Duration:  unknown")
        }
        print("Playable:  \(r["playable"] as? Bool == true ? "yes" : "no")")
        for t in r["tracks"] as? [[String: Any]] ?? [] {
            var line = "Track \(t["trackID"] ?? 0): \(t["mediaType"] ?? "") \(t["codec"] ?? "?")"
            if let w = t["width"] as? Double, let h = t["height"] as? Double { line += String(format: " %gx%g", w, h) }
            if let f = t["nominalFrameRate"] as? Double, f > 0 { line += String(format: " %.3f fps", f) }
            if let s = t["sampleRate"] as? Double { line += String(format: " %g Hz", s) }
            if let c = t["channels"] as? Int { line += " \(c) ch" }
            if let l = t["language"] as? String { line += " [\(l)]" }
            if let b = t["estimatedDataRate"] as? Double, b > 0 { line += String(format: " %.0f kb/s", b / 1000) }
            if let m = t["transform"] as? [Double], m != [1, 0, 0, 1, 0, 0] { line += " transform \(m)" }
            if t["enabled"] as? Bool == false { line += " (disabled)" }
            print(line)
        }
        let metadata = r["metadata"] as? [String: [[String: Any]]] ?? [:]
        for space in keySpaces {
            print("Metadata (\(space)):")
            for item in metadata[space] ?? [] {
                var line = "  \(item["identifier"] as? String ?? item["key"] as? String ?? "?")"
                if let common = item["commonKey"] as? String { line += " [\(common)]" }
                if let language = item["language"] as? String { line += " (\(language))" }
                if let value = item["value"] { line += ": \(value)" }
                print(line)
            }
        }
        if let chapters = r["chapters"] as? [[String: Any]] {
            print("Chapters (\(r["chapterLocale"] as? String ?? "und")):")
            for chapter in chapters {
                let start = String(format: "%.3f", chapter["start"] as? Double ?? 0)
                let duration = String(format: "%.3f", chapter["duration"] as? Double ?? 0)
                print("  \(start) +\(duration) s  \(chapter["title"] as? String ?? "")")
            }
        }
    }
}
