// Memory stays flat with file length: reading six times as long a file through AVAssetReader, or
// writing six times as many frames through AVAssetWriter, must not raise the process's peak
// resident memory beyond a small margin. Each measurement runs in its own avtool process (the
// test process's memory is shared by tests running in parallel, so it cannot be measured here).
import AVFoundation
import Foundation
import Testing

@Suite(.serialized) struct MemoryFlatTests {
    /// Peak growth allowed between the short and the long run. Keeping every packet of the longer
    /// file would add about 10 MB, every decoded picture over 500 MB. Decoded formats get room for
    /// the pictures in flight (frame threads and the read-ahead queue fill further when the machine
    /// is busy and the consumer slow), about 25 pictures of 640x360 BGRA.
    static let allowedGrowthKB = 4 * 1024
    static func allowedGrowthKB(reading format: String) -> Int {
        ["stored", "lpcm"].contains(format) ? allowedGrowthKB : 24 * 1024
    }

    /// glibc's allocator raises its mmap threshold after the first large free and keeps freed
    /// pictures in per-thread arenas, so a busy machine's thread timing alone moves the peak by
    /// tens of megabytes. Fixed settings make the peak measure what the program keeps, not where
    /// the allocator happened to put it.
    static let allocatorSettings = ["MALLOC_MMAP_THRESHOLD_=131072", "MALLOC_ARENA_MAX=2"]

    static func avtool() throws -> URL {
        try #require(AssetWriterFaultTests.avtool, "avtool is not built (swift build --build-tests builds it)")
    }

    /// A 640x360 H.264 + AAC file of `seconds` seconds at 4 Mb/s.
    static func movie(seconds: Int) throws -> URL {
        let url = try WriterFixtures.outputURL("memory-\(seconds)s.mp4")
        let result = try AssetFixtures.run("ffmpeg", [
            "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=\(seconds)", "-f", "lavfi", "-i", "sine=d=\(seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "4M", "-c:a", "aac", url.path])
        guard result.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: result.output]) }
        return url
    }

    /// The short and the long movie, made once for every format read.
    static let movies = Result { (short: try movie(seconds: 4), long: try movie(seconds: 24)) }

    /// The peak resident KiB `avtool decode` reports for one track format.
    static func decodePeak(_ url: URL, format: String) throws -> (kilobytes: Int, frames: Int) {
        let result = try AssetFixtures.run("env", Self.allocatorSettings + [try avtool().path, "decode", url.path, "--format", format])
        try #require(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        let memory = try #require(lines.first { $0.hasPrefix("memory:") }, "\(result.output)")
        let frames = try #require(lines.first { $0.hasPrefix("frames:") }, "\(result.output)")
        let megabytes = try #require(Double(memory.split(separator: " ")[1]))
        return (Int(megabytes * 1024), try #require(Int(frames.split(separator: " ").last!)))
    }

    @Test(arguments: ["bgra", "420v", "stored", "lpcm"])
    func readingALongerFileNeedsNoMoreMemory(format: String) throws {
        let (shortMovie, longMovie) = try Self.movies.get()
        var short = try Self.decodePeak(shortMovie, format: format)
        var long = try Self.decodePeak(longMovie, format: format)
        if long.kilobytes - short.kilobytes >= Self.allowedGrowthKB(reading: format) {
            // A busy machine can push one run's peak up (allocator arenas of threads that ran
            // late); a leak shows in every run, so the lower peak of two runs counts.
            short.kilobytes = min(short.kilobytes, try Self.decodePeak(shortMovie, format: format).kilobytes)
            long.kilobytes = min(long.kilobytes, try Self.decodePeak(longMovie, format: format).kilobytes)
        }
        #expect(long.frames >= short.frames * 5, "\(format): \(short.frames) then \(long.frames) frames")
        #expect(long.kilobytes - short.kilobytes < Self.allowedGrowthKB(reading: format),
                "\(format): peak \(short.kilobytes) KiB for 4 s, \(long.kilobytes) KiB for 24 s")
    }

    @Test func writingMoreFramesNeedsNoMoreMemory() throws {
        func peak(frames: Int) throws -> Int {
            let url = try WriterFixtures.outputURL("memory-write-\(frames).mp4")
            try? FileManager.default.removeItem(at: url)
            let result = try AssetFixtures.run("env", Self.allocatorSettings + [try Self.avtool().path, 
                "writer", "write-frames", url.path, "--frames", String(frames), "--width", "320", "--height", "240",
                "--content", "bars"])
            try #require(result.status == 0, "\(result.output)")
            #expect(result.output.contains("appended=\(frames)"))
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("peakResidentKB=") })
            return try #require(Int(line.dropFirst("peakResidentKB=".count)))
        }
        var short = try peak(frames: 60)
        var long = try peak(frames: 360)
        if long - short >= Self.allowedGrowthKB {  // as above: the lower peak of two runs
            short = min(short, try peak(frames: 60))
            long = min(long, try peak(frames: 360))
        }
        #expect(long - short < Self.allowedGrowthKB, "peak \(short) KiB for 60 frames, \(long) KiB for 360")
    }
}
