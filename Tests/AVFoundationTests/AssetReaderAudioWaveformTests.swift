// `avtool waveform`: the waveform of real audio, a flat line for silence, the last partial bin
// drawn, and a clear failure (exit 1, the error on stderr) for files without usable audio.
import AVFoundation
import Foundation
import Testing
import TestSupport

@Suite("avtool waveform")
struct AssetReaderAudioWaveformTests {
    static let tool = AssetFixtures.root.appendingPathComponent(".build/debug/avtool")

    /// Runs avtool (at most 60 s) and returns its exit status and standard error.
    static func run(_ args: [String]) throws -> (status: Int32, stderr: String)? {
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            Issue.record("avtool is not built (swift build --build-tests builds it)")
            return nil
        }
        let run = try TestTools.run(tool, args, deadline: 60, keepingOutput: false)
        if !run.finished { Issue.record("avtool \(args) did not finish"); return nil }
        #expect(run.exited, "avtool crashed")
        return (run.status, run.errors)
    }

    /// A mono 16-bit WAV file of `samples`.
    static func wav(_ name: String, rate: Int, samples: [Int16]) throws -> URL {
        var data = Data()
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func put16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); put32(UInt32(36 + samples.count * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8)); put32(16); put16(1); put16(1)
        put32(UInt32(rate)); put32(UInt32(rate * 2)); put16(2); put16(16)
        data.append(contentsOf: Array("data".utf8)); put32(UInt32(samples.count * 2))
        for s in samples { put16(UInt16(bitPattern: s)) }
        let url = AudioReaderMedia.dir.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// For each column of the PNG, the rows (top = 0) painted in the waveform colour.
    static func bars(_ png: URL) throws -> (width: Int, height: Int, rows: [[Int]]) {
        let source = try #require(CGImageSourceCreateWithURL(png as CFURL, nil))
        let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        let data = try #require(image.dataProvider?.data as Data?)
        let bytesPerPixel = image.bitsPerPixel / 8
        var rows = Array(repeating: [Int](), count: image.width)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = y * image.bytesPerRow + x * bytesPerPixel
                // Waveform colour 0x5A 0xC8 0xFA; background 0x1A 0x1A 0x1F.
                if data[p] == 0x5A && data[p + 1] == 0xC8 && data[p + 2] == 0xFA { rows[x].append(y) }
            }
        }
        return (image.width, image.height, rows)
    }

    @Test("house_lo.wav: a PNG of the requested size whose bars follow the sound")
    func realAudio() throws {
        guard let url = AssetFixtures.fixture("house_lo.wav") else { return }
        let before = try Data(contentsOf: url)
        let png = AudioReaderMedia.dir.appendingPathComponent("house.png")
        guard let result = try Self.run(["waveform", url.path, "-o", png.path, "--size", "400x100"]) else { return }
        #expect(result.status == 0, "\(result.stderr)")
        let bars = try Self.bars(png)
        #expect(bars.width == 400 && bars.height == 100)
        let heights = bars.rows.map(\.count)
        #expect(heights.allSatisfy { $0 >= 1 }, "every column has at least a line")
        #expect(heights.max() == 100, "the loudest bin fills the height")
        #expect(heights.filter { $0 > 10 }.count > 300)
        #expect(Set(heights).count > 30, "bars of many heights")
        // Bars are centred: each column's painted rows are contiguous around the middle.
        for rows in bars.rows where !rows.isEmpty {
            #expect(rows.last! - rows.first! + 1 == rows.count)
            #expect(abs((rows.first! + rows.last!) - 99) <= 1)
        }
        #expect(try Data(contentsOf: url) == before, "input modified")
    }

    @Test("silence draws a flat line across the middle (no division by a zero peak)")
    func silence() throws {
        let url = try Self.wav("silence.wav", rate: 8000, samples: Array(repeating: 0, count: 8000))
        let png = AudioReaderMedia.dir.appendingPathComponent("silence.png")
        guard let result = try Self.run(["waveform", url.path, "-o", png.path, "--size", "300x60"]) else { return }
        #expect(result.status == 0, "\(result.stderr)")
        let bars = try Self.bars(png)
        #expect(bars.width == 300 && bars.height == 60)
        let row = bars.rows[0].first
        #expect(row != nil)
        #expect(bars.rows.allSatisfy { $0 == [row!] }, "one row, the same in every column")
    }

    @Test("the last, partial bin of samples is drawn")
    func partialLastBin() throws {
        // 1005 frames into 10 columns: bins of 101, the tenth holds the last 96 — and a click.
        var samples = [Int16](repeating: 0, count: 1005)
        for i in 1000..<1005 { samples[i] = 30000 }
        let url = try Self.wav("click-at-end.wav", rate: 8000, samples: samples)
        let png = AudioReaderMedia.dir.appendingPathComponent("click.png")
        guard let result = try Self.run(["waveform", url.path, "-o", png.path, "--size", "10x20"]) else { return }
        #expect(result.status == 0, "\(result.stderr)")
        let heights = try Self.bars(png).rows.map(\.count)
        #expect(heights == [1, 1, 1, 1, 1, 1, 1, 1, 1, 20] as [Int])
    }

    @Test("files without usable audio: exit status 1 and the reason on stderr")
    func failures() throws {
        let text = AudioReaderMedia.dir.appendingPathComponent("notes.txt")
        try Data("not a media file\n".utf8).write(to: text)
        let png = AudioReaderMedia.dir.appendingPathComponent("never.png")
        guard let foreign = try Self.run(["waveform", text.path, "-o", png.path]) else { return }
        #expect(foreign.status == 1)
        #expect(foreign.stderr.contains("AVFoundationErrorDomain -11828"), "\(foreign.stderr)")

        let video = AudioReaderMedia.make("silent-video.mp4", ["-f", "lavfi", "-i", "testsrc=d=1:s=64x48", "-c:v", "mpeg4"])
        guard let noAudio = try Self.run(["waveform", video.path, "-o", png.path]) else { return }
        #expect(noAudio.status == 1)
        #expect(noAudio.stderr.contains("no audio track"), "\(noAudio.stderr)")

        // The AAC file with its media data overwritten: the decoder gives up.
        var damaged = try Data(contentsOf: AudioReaderMedia.aacChirp)
        let mdat = try #require(damaged.range(of: Data("mdat".utf8)))
        for i in (mdat.upperBound + 64)..<min(damaged.count - 4096, mdat.upperBound + 40000) { damaged[i] = 0xFF }
        let broken = AudioReaderMedia.dir.appendingPathComponent("waveform-damaged.m4a")
        try damaged.write(to: broken)
        guard let failed = try Self.run(["waveform", broken.path, "-o", png.path]) else { return }
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("AVFoundationErrorDomain"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: png.path))

        guard let usage = try Self.run(["waveform", text.path, "-o", png.path, "--size", "0x10"]) else { return }
        #expect(usage.status == 64, "a malformed --size is a usage error")
    }
}
