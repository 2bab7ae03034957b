// Helpers for the metadata suites: temp files, running the ffmpeg CLI, building byte fixtures.
import Foundation
@testable import AVFoundation
import TestSupport

enum MetadataTestSupport {
    /// Whether an executable is on PATH.
    static func has(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    static var hasFFmpeg: Bool { has("ffmpeg") }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL { try TestTools.temporaryDirectory("metadata-tests") }

    /// Runs a tool, returning its exit status and standard output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try TestTools.runText(tool, arguments)
    }

    /// Writes bytes to a temporary file and reads its metadata with an empty ContainerTags.
    static func read(bytes: [UInt8], name: String = "file.bin",
                     container: ContainerTags = ContainerTags(formatName: "")) throws -> AssetMetadata {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return try MetadataReader.read(url: url, container: container)
    }

    /// A box: 32-bit size, type, payload.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + latin1(type) + payload
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    static func latin1(_ string: String) -> [UInt8] { string.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } }

    /// An iTunes `data` atom.
    static func dataAtom(type: UInt32, _ payload: [UInt8]) -> [UInt8] { box("data", be32(type) + be32(0) + payload) }

    /// A minimal MP4 with moov/udta/meta(hdlr mdir)/ilst holding `entries`.
    static func iTunesFile(_ entries: [UInt8]) -> [UInt8] {
        let hdlr = box("hdlr", be32(0) + be32(0) + latin1("mdir") + latin1("appl") + [UInt8](repeating: 0, count: 9))
        let meta = box("meta", be32(0) + hdlr + box("ilst", entries))
        return box("ftyp", latin1("M4A ") + be32(0) + latin1("isom")) + box("moov", box("udta", meta))
    }

    /// A 1×1 PNG.
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
        0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
        0x42, 0x60, 0x82,
    ]

    /// The first item with an identifier.
    static func first(_ items: [AVMetadataItem], _ identifier: AVMetadataIdentifier) -> AVMetadataItem? {
        AVMetadataItem.metadataItems(from: items, filteredByIdentifier: identifier).first
    }
}
