// MovieHeaderTrimmer rewrites durations in a movie header in place. Its box sizes, versions and
// durations are read from the file: hostile ones are skipped, never trapped on.
import CoreMedia
import Foundation
@testable import MediaEngine
import Testing

struct MovieHeaderTrimmerTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    static func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) } }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(truncatingIfNeeded: v)) }

    /// mvhd version 0: timescale 1000, duration `duration`.
    static func mvhd(duration: UInt32) -> [UInt8] {
        box("mvhd", [0, 0, 0, 0] + be32(0) + be32(0) + be32(1000) + be32(duration) + [UInt8](repeating: 0, count: 80))
    }

    /// tkhd version 1 with a 64-bit duration.
    static func tkhd64(duration: UInt64) -> [UInt8] {
        box("tkhd", [1, 0, 0, 3] + be64(0) + be64(0) + be32(1) + be32(0) + be64(duration) + [UInt8](repeating: 0, count: 60))
    }

    static func trimmed(_ moov: [UInt8], to seconds: Int64) throws -> Data {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trim-\(UUID().uuidString).mov")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(box("ftyp", Array("qt  ".utf8) + be32(0)) + moov).write(to: url)
        try MovieHeaderTrimmer.trim(path: url.path, to: CMTime(value: seconds, timescale: 1))
        return try Data(contentsOf: url)
    }

    @Test func aValidHeaderIsCutToTheEnd() throws {
        let moov = Self.box("moov", Self.mvhd(duration: 10_000) + Self.box("trak", Self.tkhd64(duration: 10_000)))
        let out = try Self.trimmed(moov, to: 4)
        // The mvhd duration (16 bytes into its payload) and tkhd's 64-bit one (28 bytes in).
        let mvhd = out.range(of: Data("mvhd".utf8))!.upperBound
        #expect(Array(out[(mvhd + 16) ..< (mvhd + 20)]) == Self.be32(4000))
        let tkhd = out.range(of: Data("tkhd".utf8))!.upperBound
        #expect(Array(out[(tkhd + 28) ..< (tkhd + 36)]) == Self.be64(4000))
    }

    /// Each of these trapped before (an index past the end, `offset + size` past 2^63).
    @Test func hostileHeadersAreLeftAloneWithoutTrapping() throws {
        let negative = Self.box("moov", Self.mvhd(duration: 10_000) + Self.box("trak", Self.tkhd64(duration: 0x8000_0000_0000_0001)))
        // An empty mvhd ending the file: its version byte would be past the end.
        let emptyMovieHeader = Self.box("moov", Self.box("trak", Self.tkhd64(duration: 10_000)) + Self.box("mvhd", []))
        let shortTrackHeader = Self.box("moov", Self.mvhd(duration: 10_000) + Self.box("trak", Self.box("tkhd", [1, 0, 0, 0])))
        let hugeEditList = Self.box("moov", Self.mvhd(duration: 10_000) + Self.box("trak", Self.tkhd64(duration: 10_000)
            + Self.box("edts", Self.box("elst", [0, 0, 0, 0] + Self.be32(0xFFFF_FFFF) + Self.be32(10_000) + Self.be32(0) + Self.be32(0x0001_0000)))))
        var largeChild = Self.box("moov", Self.mvhd(duration: 10_000) + Self.box("trak", Self.tkhd64(duration: 10_000)))
        // The trak claims a 64-bit size near 2^64.
        let trak = largeChild.indices.first { largeChild[$0 ..< $0 + 4] == ArraySlice("trak".utf8) }! - 4
        largeChild.replaceSubrange(trak ..< trak + 4, with: Self.be32(1))
        largeChild.replaceSubrange(trak + 8 ..< trak + 16, with: Self.be64(0xFFFF_FFFF_FFFF_FFF8))
        // A top-level box before the movie claiming 2^64 - 1 bytes.
        let largeTopLevel = Self.be32(1) + Array("free".utf8) + Self.be64(.max) + Self.box("moov", Self.mvhd(duration: 10_000))
        for moov in [negative, emptyMovieHeader, shortTrackHeader, hugeEditList, largeChild, largeTopLevel] {
            _ = try Self.trimmed(moov, to: 4)
        }
        // The negative 64-bit track duration is below the limit: it stays; the movie takes the limit.
        let out = try Self.trimmed(negative, to: 4)
        let tkhd = out.range(of: Data("tkhd".utf8))!.upperBound
        #expect(Array(out[(tkhd + 28) ..< (tkhd + 36)]) == Self.be64(0x8000_0000_0000_0001))
        // The edit list's one real entry is cut to the limit; the count it claims is ignored past its end.
        let edited = try Self.trimmed(hugeEditList, to: 4)
        let elst = edited.range(of: Data("elst".utf8))!.upperBound
        #expect(Array(edited[(elst + 8) ..< (elst + 12)]) == Self.be32(4000))
    }
}
