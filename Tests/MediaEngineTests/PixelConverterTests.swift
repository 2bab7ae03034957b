import CFFmpeg
import CoreVideo
import Foundation
import Testing
@testable import MediaEngine

@Suite("PixelConverter")
struct PixelConverterTests {
    static let formats = TestFormat.allCases

    /// Every format → every other → back: each sample inside the colour blocks comes back
    /// within ±2 (8-bit scale), compared in the source format.
    @Test("round trip between every pair of formats", arguments: formats, formats)
    func roundTrip(_ source: TestFormat, _ target: TestFormat) throws {
        let grey = source == .gray || target == .gray
        let width = 128, height = 64
        let original = PixelFixtures.make(source, width: width, height: height, colour: PixelFixtures.bars(grey: grey))
        let converter = PixelConverter.shared
        let there = try converter.makePixelBuffer(from: original, pixelFormat: target.osType)
        #expect(there.storage?.pixelFormat == target.osType)
        let back = try converter.makePixelBuffer(from: there, pixelFormat: source.osType)
        var worst = 0.0
        for by in 0..<(height / 32) {
            for bx in 0..<(width / 32) {
                for y in stride(from: by * 32 + 8, to: by * 32 + 24, by: 3) {
                    for x in stride(from: bx * 32 + 8, to: bx * 32 + 24, by: 3) {
                        let a = PixelFixtures.samples(original, source, x: x, y: y)
                        let b = PixelFixtures.samples(back, source, x: x, y: y)
                        for (u, v) in zip(a, b) { worst = max(worst, abs(u - v)) }
                    }
                }
            }
        }
        #expect(worst <= 2, "worst sample difference \(worst)")
    }

    @Test("pure red BGRA → 420v uses BT.601 video range")
    func knownValues() throws {
        let red = PixelFixtures.make(.bgra, width: 16, height: 16) { _, _ in RGB(r: 255, g: 0, b: 0) }
        let yuv = try PixelConverter.shared.makePixelBuffer(from: red, pixelFormat: TestFormat.nv12v.osType)
        let s = PixelFixtures.samples(yuv, .nv12v, x: 8, y: 8)
        #expect(abs(s[0] - 81) <= 1 && abs(s[1] - 90) <= 1 && abs(s[2] - 240) <= 1, "\(s)")
        #expect(PixelFormatColor.attachedMatrix(of: yuv) == .itu601)

        // The same at 720 rows uses BT.709 by default: Y ≈ 63, Cb ≈ 102, Cr ≈ 240.
        let redHD = PixelFixtures.make(.bgra, width: 16, height: 720) { _, _ in RGB(r: 255, g: 0, b: 0) }
        let hd = try PixelConverter.shared.makePixelBuffer(from: redHD, pixelFormat: TestFormat.nv12v.osType)
        let h = PixelFixtures.samples(hd, .nv12v, x: 8, y: 8)
        #expect(abs(h[0] - 63) <= 1 && abs(h[1] - 102) <= 1 && abs(h[2] - 240) <= 1, "\(h)")
        #expect(PixelFormatColor.attachedMatrix(of: hd) == .itu709)
    }

    @Test("full and video range differ as specified")
    func ranges() throws {
        for (colour, video, full) in [(255.0, 235.0, 255.0), (0.0, 16.0, 0.0), (128.0, 126.0, 128.0)] {
            let rgb = PixelFixtures.make(.bgra, width: 16, height: 16) { _, _ in RGB(r: colour, g: colour, b: colour) }
            let v = try PixelConverter.shared.makePixelBuffer(from: rgb, pixelFormat: TestFormat.nv12v.osType)
            let f = try PixelConverter.shared.makePixelBuffer(from: rgb, pixelFormat: TestFormat.nv12f.osType)
            let sv = PixelFixtures.samples(v, .nv12v, x: 4, y: 4), sf = PixelFixtures.samples(f, .nv12f, x: 4, y: 4)
            #expect(abs(sv[0] - video) <= 1 && abs(sf[0] - full) <= 1, "\(colour): video \(sv) full \(sf)")
            #expect(abs(sv[1] - 128) <= 1 && abs(sf[2] - 128) <= 1)
        }
        // A video-range white read as full range is grey, and the converter honours each tag.
        let white420v = PixelFixtures.make(.nv12v, width: 16, height: 16) { _, _ in RGB(r: 255, g: 255, b: 255) }
        let rgb = try PixelConverter.shared.makePixelBuffer(from: white420v, pixelFormat: TestFormat.bgra.osType)
        #expect(PixelFixtures.samples(rgb, .bgra, x: 3, y: 3).allSatisfy { $0 >= 254 })
    }

    @Test("420v → BGRA → 420v changes smooth content by at most 2 per sample")
    func yuvRoundTripThroughBGRA() throws {
        let width = 128, height = 96
        let buffer = PixelFixtures.allocate(.nv12v, width: width, height: height)
        let s = buffer.storage!
        for y in 0..<height {
            for x in 0..<width {
                (s.planes[0].baseAddress + y * s.planes[0].bytesPerRow + x)
                    .storeBytes(of: UInt8(60 + (x + y) * 140 / (width + height)), as: UInt8.self)
            }
        }
        for y in 0..<height / 2 {
            for x in 0..<width / 2 {
                let row = s.planes[1].baseAddress + y * s.planes[1].bytesPerRow + x * 2
                row.storeBytes(of: UInt8(108 + x * 40 / (width / 2)), as: UInt8.self)
                (row + 1).storeBytes(of: UInt8(148 - y * 40 / (height / 2)), as: UInt8.self)
            }
        }
        let bgra = try PixelConverter.shared.makePixelBuffer(from: buffer, pixelFormat: TestFormat.bgra.osType)
        let back = try PixelConverter.shared.makePixelBuffer(from: bgra, pixelFormat: TestFormat.nv12v.osType)
        var worst = 0.0
        for y in 0..<height {
            for x in 0..<width {
                let a = PixelFixtures.samples(buffer, .nv12v, x: x, y: y), b = PixelFixtures.samples(back, .nv12v, x: x, y: y)
                for (u, v) in zip(a, b) { worst = max(worst, abs(u - v)) }
            }
        }
        #expect(worst <= 2, "worst \(worst)")
    }

    @Test("downscaling halves the size and averages 2×2 blocks", arguments: [PixelConverter.Scaling.bicubic, .bilinear, .area])
    func downscale(_ scaling: PixelConverter.Scaling) throws {
        let quad = [RGB(r: 200, g: 40, b: 40), RGB(r: 40, g: 200, b: 40), RGB(r: 40, g: 40, b: 200), RGB(r: 120, g: 120, b: 120)]
        let source = PixelFixtures.make(.bgra, width: 64, height: 48) { x, y in quad[(y % 2) * 2 + x % 2] }
        var options = PixelConverter.Options()
        options.scaling = scaling
        let small = try PixelConverter.shared.makePixelBuffer(from: source, pixelFormat: TestFormat.bgra.osType,
                                                              width: 32, height: 24, options: options)
        #expect(small.storage?.width == 32 && small.storage?.height == 24)
        let expected = [100.0, 100.0, 100.0]
        // Bilinear and bicubic filters reach past the picture edge, where libswscale repeats the
        // edge pixels, so only area averaging is exact in the border pixels.
        let points = scaling == .area ? [(0, 0), (5, 7), (16, 12), (31, 23)] : [(2, 2), (5, 7), (16, 12), (29, 21)]
        for (x, y) in points {
            let p = PixelFixtures.samples(small, .bgra, x: x, y: y)
            for c in 0..<3 { #expect(abs(p[c] - expected[c]) <= 2, "\(scaling) at \(x),\(y): \(p)") }
        }
    }

    /// A recorded screen frame's conversion (RealTime 32-bit RGB → 4:2:0 at the same size) reads
    /// chroma at full width and averages it: a one-pixel quad of colours whose mean is grey gives
    /// grey chroma everywhere, and each pixel keeps its own luma (as the accurate conversion's).
    @Test("RealTime BGRA → 4:2:0 at the same size: per-pixel luma, averaged chroma",
          arguments: [TestFormat.nv12v, .i420v], [TestFormat.bgra, .rgba])
    func realTimeChroma(_ target: TestFormat, _ source: TestFormat) throws {
        let quad = [RGB(r: 200, g: 40, b: 40), RGB(r: 40, g: 200, b: 40), RGB(r: 40, g: 40, b: 200), RGB(r: 120, g: 120, b: 120)]
        let picture = PixelFixtures.make(source, width: 64, height: 48) { x, y in quad[(y % 2) * 2 + x % 2] }
        var fast = PixelConverter.Options()
        fast.fast = true
        let quick = try PixelConverter.shared.makePixelBuffer(from: picture, pixelFormat: target.osType, options: fast)
        let exact = try PixelConverter.shared.makePixelBuffer(from: picture, pixelFormat: target.osType)
        for (x, y) in [(2, 2), (3, 2), (2, 3), (3, 3), (17, 9), (30, 40), (61, 45)] {
            let q = PixelFixtures.samples(quick, target, x: x, y: y), e = PixelFixtures.samples(exact, target, x: x, y: y)
            #expect(abs(q[0] - e[0]) <= 1, "luma at \(x),\(y): \(q) vs \(e)")
            #expect(abs(q[1] - 128) <= 1 && abs(q[2] - 128) <= 1, "chroma at \(x),\(y): \(q)")
        }
    }

    @Test("RealTime 32-bit RGB → subsampled Y'CbCr: full-width chroma input, area averaging at equal sizes")
    func realTimeFlags() {
        func image(_ format: AVPixelFormat, _ width: Int, _ height: Int) -> PixelImage {
            PixelImage(format: format, width: width, height: height, fullRange: false, matrix: .itu709, data: [], linesize: [])
        }
        let bgra = image(AV_PIX_FMT_BGRA, 1920, 1080), bgr0 = image(AV_PIX_FMT_BGR0, 1920, 1080)
        let nv12 = image(AV_PIX_FMT_NV12, 1920, 1080), i420 = image(AV_PIX_FMT_YUV420P, 1920, 1080)
        for (s, d) in [(bgra, nv12), (bgra, i420), (bgr0, nv12)] {
            #expect(PixelConverter.flags(scaling: .bicubic, fast: true, source: s, destination: d) == SWS_AREA | SWS_FULL_CHR_H_INP)
        }
        // Scaled: the asked filter, still reading full-width chroma.
        #expect(PixelConverter.flags(scaling: .bicubic, fast: true, source: bgra, destination: image(AV_PIX_FMT_NV12, 1280, 720))
                == SWS_BICUBIC | SWS_FULL_CHR_H_INP)
        // Accurate conversions, other pairs: as before.
        #expect(PixelConverter.flags(scaling: .bicubic, fast: false, source: bgra, destination: nv12)
                == SWS_BICUBIC | PixelConverter.accuracyFlags)
        #expect(PixelConverter.flags(scaling: .bicubic, fast: true, source: image(AV_PIX_FMT_BGR24, 1920, 1080), destination: i420)
                == SWS_BICUBIC)
        #expect(PixelConverter.flags(scaling: .bilinear, fast: true, source: nv12, destination: bgra) == SWS_BILINEAR)
        #expect(PixelConverter.flags(scaling: .bicubic, fast: true, source: bgra, destination: image(AV_PIX_FMT_YUV444P, 1920, 1080))
                == SWS_BICUBIC)
    }

    @Test("attachments: propagating ones are copied, the matrix is recorded")
    func attachments() throws {
        let source = PixelFixtures.make(.bgra, width: 32, height: 32) { _, _ in RGB(r: 10, g: 20, b: 30) }
        PixelFormatColor.setAttachment("Custom", "kept", on: source)
        PixelFormatColor.setAttachment(PixelFormatColor.matrixKey, "ITU_R_709_2", on: source)
        source.mutex.lock()
        source.attachmentsByMode[.shouldNotPropagate]?["Private"] = "dropped"
        source.mutex.unlock()
        let destination = try PixelConverter.shared.makePixelBuffer(from: source, pixelFormat: TestFormat.nv12v.osType)
        destination.mutex.lock()
        let propagated = destination.attachmentsByMode[.shouldPropagate] ?? [:]
        let other = destination.attachmentsByMode[.shouldNotPropagate] ?? [:]
        destination.mutex.unlock()
        #expect(propagated["Custom"] as? String == "kept")
        #expect(propagated[PixelFormatColor.matrixKey] as? String == "ITU_R_709_2")
        #expect(other["Private"] == nil)
        // The BT.709 matrix was used even though the picture is small: Y of (10,20,30) ≈ 16 + 219·0.0727.
        let y = PixelFixtures.samples(destination, .nv12v, x: 4, y: 4)[0]
        let expected = 16 + (0.2126 * 10 + 0.7152 * 20 + 0.0722 * 30) * 219 / 255
        #expect(abs(y - expected) <= 1)
    }

    @Test("errors: no storage, unsupported format, same buffer")
    func errors() throws {
        let empty = CVBuffer(storage: nil)
        let good = PixelFixtures.make(.bgra, width: 8, height: 8) { _, _ in RGB(r: 1, g: 2, b: 3) }
        #expect(throws: PixelConversionError.invalidBuffer) { try PixelConverter.shared.transfer(from: empty, to: good) }
        #expect(throws: PixelConversionError.invalidBuffer) { try PixelConverter.shared.transfer(from: good, to: good) }
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 64 * 8, alignment: 64)
        let address = UInt(bitPattern: bytes)
        let v210 = OSType(fourCCString: "v210")!
        let odd = CVBuffer(storage: CVPixelStorage(
            width: 8, height: 8, pixelFormat: v210,
            planes: [CVPixelStorage.Plane(baseAddress: bytes, width: 8, height: 8, bytesPerRow: 64)],
            baseAddress: bytes, dataSize: 512, release: { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }))
        #expect(throws: PixelConversionError.unsupportedPixelFormat(v210)) {
            try PixelConverter.shared.transfer(from: odd, to: good)
        }
        #expect(PixelConversionError.unsupportedPixelFormat(v210).osStatus == -12905)
        #expect(PixelConversionError.invalidBuffer.osStatus == -12902)
        #expect(throws: PixelConversionError.unsupportedPixelFormat(v210)) {
            _ = try PixelConverter.shared.makePixelBuffer(from: good, pixelFormat: v210)
        }
    }

    @Test("contexts are cached and reused, concurrently safe")
    func caching() async throws {
        let converter = PixelConverter(capacity: 4)
        let source = PixelFixtures.make(.nv12v, width: 64, height: 64) { _, _ in RGB(r: 90, g: 100, b: 110) }
        _ = try converter.makePixelBuffer(from: source, pixelFormat: TestFormat.bgra.osType)
        #expect(converter.cachedContextCount == 1)
        _ = try converter.makePixelBuffer(from: source, pixelFormat: TestFormat.bgra.osType)
        #expect(converter.cachedContextCount == 1)
        try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let out = try converter.makePixelBuffer(from: source, pixelFormat: TestFormat.bgra.osType)
                    return PixelFixtures.samples(out, .bgra, x: 10, y: 10)
                }
            }
            let first = try await group.next()!
            for try await r in group { #expect(r == first) }
        }
        #expect(converter.cachedContextCount <= 4)
        converter.purge()
        #expect(converter.cachedContextCount == 0)
    }
}
