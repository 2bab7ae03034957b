// `avtool meta FILE [--json]`: a file's metadata by key space, as AVAsset reads it.
// `avtool meta FILE --set NAME=VALUE … -o OUT [--replace]`: writes a copy with changed metadata
// through a passthrough AVAssetExportSession (packets copied unchanged): the session's metadata is
// the --set items, which replace the source's items of the same meaning; `--set NAME=` removes.
// The export goes to a hidden file beside OUT that is then moved into place, so OUT may be FILE.
//
// JSON (stable): file, metadata: { keySpace: [ { identifier, key, commonKey, dataType, language,
// value } ] } — value as text, a number, or "<image/jpeg, N bytes>" for binary data.
import ArgumentParser
import AVFoundation
import Foundation

struct Meta: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meta",
        abstract: "Show a file's metadata by key space, or write a copy with changed metadata.",
        discussion: "Names for --set: \(MetadataSettingNames.names.joined(separator: ", ")). "
            + "trackNumber and discNumber take N or N/M, location an ISO 6709 string (+35.6895+139.6917/), "
            + "artwork an image file; an empty value removes the item.")

    @Argument(help: "The media file (MP4, M4V, M4A, MOV, 3GP to write; any to read).")
    var file: String

    @Flag(help: "Print JSON.")
    var json = false

    @Option(name: .customLong("set"), parsing: .upToNextOption, help: "NAME=VALUE to write (repeatable).")
    var settings: [String] = []

    @Option(name: .shortAndLong, help: "Where to write the copy (with --set).")
    var output: String?

    @Flag(help: "Replace OUT if it exists.")
    var replace = false

    func run() throws {
        if settings.isEmpty { return try show() }
        guard let output else { throw ValidationError("--set needs -o OUT") }
        let items: [AVMetadataItem]
        do {
            items = try settings.map(MetadataSettingNames.item)
        } catch {
            throw ValidationError(error.description)
        }
        try export(items, to: URL(fileURLWithPath: output))
    }

    /// A passthrough export of FILE with `items` as the session's metadata, into `destination`.
    private func export(_ items: [AVMetadataItem], to destination: URL) throws {
        func fail(_ message: String) -> ExitCode {
            FileHandle.standardError.write(Data("avtool: \(destination.path): \(message)\n".utf8))
            return ExitCode(1)
        }
        guard let fileType = Convert.fileType(forExtension: destination.pathExtension) else {
            throw fail("cannot tell the file type from the extension (use .mov, .mp4, .m4v, .m4a…)")
        }
        if !replace, FileManager.default.fileExists(atPath: destination.path) { throw fail("the file exists (--replace replaces it)") }
        let asset = AVURLAsset(url: URL(fileURLWithPath: file))
        guard let session = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough) else {
            throw fail("no passthrough export session")
        }
        if session.supportedFileTypes.isEmpty { throw fail("cannot copy \(file): \(exportRefusalText(asset))") }
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.deletingPathExtension().lastPathComponent).\(UUID().uuidString).\(destination.pathExtension)")
        session.outputURL = temporary
        session.outputFileType = fileType
        session.metadata = items
        session.shouldOptimizeForNetworkUse = true
        let done = DispatchSemaphore(value: 0)
        session.exportAsynchronously { done.signal() }
        done.wait()
        guard session.status == .completed else {
            try? FileManager.default.removeItem(at: temporary)
            // A source that cannot be read is the reason, not the file type the export refused.
            if let loading = assetLoadingError(asset) { throw fail("cannot read \(file): \(errorText(loading))") }
            throw fail(errorText(session.error ?? AVError(.exportFailed)))
        }
        // Into place: rename replaces (also FILE itself); link never replaces a file that appeared meanwhile.
        let moved = replace ? rename(temporary.path, destination.path) == 0 : link(temporary.path, destination.path) == 0
        let code = errno
        if !replace || !moved { unlink(temporary.path) }
        guard moved else { throw fail(code == EEXIST ? "the file exists (--replace replaces it)" : String(cString: strerror(code))) }
    }

    private func show() throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: file))
        let done = DispatchSemaphore(value: 0)
        asset.loadValuesAsynchronously(forKeys: ["metadata"]) { done.signal() }
        done.wait()
        var error: NSError?
        guard asset.statusOfValue(forKey: "metadata", error: &error) == .loaded else {
            FileHandle.standardError.write(Data("avtool: \(file): \(error.map(errorText) ?? "the metadata could not be loaded")\n".utf8))
            throw ExitCode(1)
        }
        var spaces: [String] = []
        var bySpace: [String: [[String: Any]]] = [:]
        for item in asset.metadata {
            let space = item.keySpace?.rawValue ?? ""
            if bySpace[space] == nil { spaces.append(space) }
            var entry: [String: Any] = [:]
            entry["identifier"] = item.identifier?.rawValue
            entry["key"] = item.key.map(Self.keyText)
            entry["commonKey"] = item.commonKey?.rawValue
            entry["dataType"] = item.dataType
            entry["language"] = item.extendedLanguageTag
            entry["value"] = Self.valueText(item)
            bySpace[space, default: []].append(entry)
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: ["file": file, "metadata": bySpace],
                                                  options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        if spaces.isEmpty { print("\(file): no metadata") }
        for space in spaces {
            print("\(space):")
            for entry in bySpace[space] ?? [] {
                let type = (entry["dataType"] as? String)?.replacingOccurrences(of: "com.apple.metadata.datatype.", with: "") ?? "-"
                var line = "  \(entry["identifier"] as? String ?? "?")  [\(type)]"
                if let language = entry["language"] as? String { line += " (\(language))" }
                print("\(line)  \(entry["value"].map { "\($0)" } ?? "")")
            }
        }
    }

    /// A key as text: a string key itself, a four-character code as its characters.
    private static func keyText(_ key: any NSCopying & NSObjectProtocol) -> String {
        if let number = key as? NSNumber, !(key is NSString) {
            let code = number.uint32Value
            return String(String.UnicodeScalarView([24, 16, 8, 0].compactMap { Unicode.Scalar((code >> $0) & 0xFF) }.filter { $0.value != 0 }))
        }
        return "\(key)"
    }

    /// Text, a number, or "<image/jpeg, N bytes>".
    private static func valueText(_ item: AVMetadataItem) -> Any? {
        if let data = item.dataValue {
            let head = [UInt8](data.prefix(8))
            let type = head.starts(with: [0xFF, 0xD8, 0xFF]) ? "image/jpeg" : head.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png"
                : head.starts(with: Array("GIF8".utf8)) ? "image/gif" : head.starts(with: Array("BM".utf8)) ? "image/bmp"
                : "application/octet-stream"
            return "<\(type), \(data.count) bytes>"
        }
        if let number = item.value as? NSNumber { return number }
        return item.stringValue
    }
}
