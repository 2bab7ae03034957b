// Slice-threaded conversions write the same bytes as single-threaded ones: format pairs with and
// without scaling, odd sizes, both flag sets, every format, rectangles, and many at once.
import CFFmpeg
import CoreVideo
import Foundation
import Testing
@testable import MediaEngine

@Suite("PixelConverter threading")
struct PixelConverterThreadingTests {
    /// One conversion to compare: formats, sizes, and whether it runs in RealTime (fast) mode.
    struct Case: Sendable, CustomStringConvertible {
        var source: TestFormat, target: TestFormat
        var from: (Int, Int), to: (Int, Int)
        var fast = false
        var description: String {
            "\(source) \(from.0)×\(from.1) → \(target) \(to.0)×\(to.1)\(fast ? " (RealTime)" : "")"
        }
    }

    /// The reader's and generators' format pairs, unscaled, downscaled and upscaled, at even and
    /// odd sizes, in both flag sets.
    static let cases: [Case] = {
        let pairs: [(TestFormat, TestFormat)] = [
            (.nv12v, .bgra), (.nv12f, .bgra), (.bgra, .nv12v), (.i420v, .bgra), (.uyvy, .bgra), (.argb64, .bgra),
            (.p010v, .bgra), (.bgra, .p010v), (.bgra, .argb64), (.nv16v, .bgra), (.gray, .nv12v), (.nv12v, .gray),
        ]
        let sizes: [((Int, Int), (Int, Int))] = [
            ((1920, 1080), (1920, 1080)), ((1921, 1081), (1921, 1081)), ((1921, 1081), (641, 359)),
            ((641, 359), (1280, 721)),
        ]
        return pairs.flatMap { pair in
            sizes.flatMap { size in
                [false, true].map { Case(source: pair.0, target: pair.1, from: size.0, to: size.1, fast: $0) }
            }
        }
    }()

    @Test("threaded output equals one thread's, byte for byte", arguments: cases)
    func matchesSingleThread(_ c: Case) throws {
        let source = Self.noise(c.source, width: c.from.0, height: c.from.1, seed: 1)
        var options = PixelConverter.Options()
        options.fast = c.fast
        if c.source == .gray {
            // Grey → 420v across the 720-row line would go between the BT.709 and BT.601 defaults,
            // which libswscale 5.1 takes as a Y'CbCr matrix change and cascades through BGR24; at
            // odd widths in RealTime mode its last chroma column then reads the uninitialised
            // padding of its own intermediate picture, differing between two single-threaded runs
            // too. The same matrix on both sides keeps the comparison about threading.
            options.destinationMatrix = .defaultMatrix(height: c.from.1)
        }
        let reference = try Self.convert(source, c, threads: 1, options: options)
        for threads in [2, 3, 8] {
            let threaded = try Self.convert(source, c, threads: threads, options: options)
            #expect(Self.firstDifference(reference, threaded) == nil, "\(threads) threads")
        }
    }

    @Test("every format to every format, threaded = one thread", arguments: TestFormat.allCases)
    func everyFormat(_ source: TestFormat) throws {
        let picture = Self.noise(source, width: 642, height: 362, seed: 2)
        for target in TestFormat.allCases {
            for to in [(642, 362), (321, 181)] {
                for fast in [false, true] {
                    let c = Case(source: source, target: target, from: (642, 362), to: to, fast: fast)
                    var options = PixelConverter.Options()
                    options.fast = fast
                    let reference = try Self.convert(picture, c, threads: 1, options: options)
                    for threads in [3, 5] {
                        let threaded = try Self.convert(picture, c, threads: threads, options: options)
                        #expect(Self.firstDifference(reference, threaded) == nil, "\(c), \(threads) threads")
                    }
                }
            }
        }
    }

    @Test("matrix changes, rectangles and letterboxing, threaded = one thread")
    func matricesAndRectangles() throws {
        let source = Self.noise(.nv12v, width: 1280, height: 720, seed: 3)
        var variants: [(String, TestFormat, (Int, Int), PixelConverter.Options)] = []
        var options = PixelConverter.Options()
        options.destinationMatrix = .itu601
        variants.append(("420v BT.709 → 420v BT.601", .nv12v, (1280, 720), options))
        variants.append(("420v BT.709 → y420 BT.601, scaled", .i420v, (854, 480), options))
        options = PixelConverter.Options()
        options.sourceRect = PixelConverter.Rect(x: 101, y: 37, width: 901, height: 533)
        options.destinationRect = PixelConverter.Rect(x: 64, y: 20, width: 1100, height: 641)
        variants.append(("cropped into a rectangle of BGRA", .bgra, (1280, 720), options))
        variants.append(("cropped into a rectangle of 420v", .nv12v, (1280, 720), options))
        for (label, target, size, options) in variants {
            let c = Case(source: .nv12v, target: target, from: (1280, 720), to: size)
            let reference = try Self.convert(source, c, threads: 1, options: options)
            for threads in [2, 3, 8] {
                let threaded = try Self.convert(source, c, threads: threads, options: options)
                #expect(Self.firstDifference(reference, threaded) == nil, "\(label), \(threads) threads")
            }
        }
    }

    @Test("libswscale gets the thread count asked for, fewer for small or misaligned pictures")
    func threadCounts() throws {
        let converter = PixelConverter(threads: 4)
        let source = Self.noise(.nv12v, width: 1920, height: 1080, seed: 4)
        _ = try converter.makePixelBuffer(from: source, pixelFormat: TestFormat.bgra.osType)
        #expect(converter.cachedThreadCounts == [4])
        #expect(PixelConverter(threads: 1).threads == 1)
        #expect(PixelConverter().threads == PixelConverter.defaultThreads)
        #expect((1...8).contains(PixelConverter.defaultThreads))

        func image(_ format: AVPixelFormat, _ width: Int, _ height: Int) -> PixelImage {
            PixelImage(format: format, width: width, height: height, fullRange: false, matrix: .itu709, data: [], linesize: [])
        }
        let hd = image(AV_PIX_FMT_NV12, 1920, 1080), odd = image(AV_PIX_FMT_NV12, 1921, 1081)
        // 1080 rows in 7 or 8 bands start some band on an odd row: 6 bands of 180.
        #expect(PixelConverter.sliceCount(8, source: hd, destination: image(AV_PIX_FMT_BGRA, 1920, 1080)) == 6)
        #expect(PixelConverter.sliceCount(4, source: hd, destination: image(AV_PIX_FMT_BGRA, 1920, 1080)) == 4)
        #expect(PixelConverter.sliceCount(2, source: odd, destination: image(AV_PIX_FMT_BGRA, 1921, 1081)) == 1)
        // Scaled, or 4:2:0 on both sides: any count.
        #expect(PixelConverter.sliceCount(8, source: odd, destination: image(AV_PIX_FMT_BGRA, 641, 359)) == 8)
        #expect(PixelConverter.sliceCount(7, source: odd, destination: image(AV_PIX_FMT_YUV420P, 1921, 1081)) == 7)
        // Small pictures: one thread; a few rows per thread at least.
        #expect(PixelConverter.sliceCount(8, source: image(AV_PIX_FMT_BGRA, 100, 100),
                                          destination: image(AV_PIX_FMT_NV12, 100, 100)) == 1)
        #expect(PixelConverter.sliceCount(8, source: image(AV_PIX_FMT_BGRA, 4000, 40),
                                          destination: image(AV_PIX_FMT_BGRA, 4000, 40)) == 2)
        // RealTime BGR24 → planar 4:2:0 at the same size: one thread; otherwise any count.
        let bgr24 = image(AV_PIX_FMT_BGR24, 1920, 1080), i420 = image(AV_PIX_FMT_YUV420P, 1920, 1080)
        #expect(PixelConverter.sliceCount(4, source: bgr24, destination: i420, fast: true) == 1)
        #expect(PixelConverter.sliceCount(4, source: bgr24, destination: i420) == 4)
        #expect(PixelConverter.sliceCount(4, source: bgr24, destination: image(AV_PIX_FMT_YUV420P, 960, 540), fast: true) == 4)
    }

    @Test("many threaded conversions at once from many threads give one thread's bytes")
    func concurrent() throws {
        let converter = PixelConverter(capacity: 4, threads: 3)
        let jobs: [(Case, CVPixelBuffer)] = [
            Case(source: .nv12v, target: .bgra, from: (1280, 720), to: (1280, 720)),
            Case(source: .nv12v, target: .bgra, from: (1280, 720), to: (640, 360)),
            Case(source: .bgra, target: .nv12v, from: (1280, 720), to: (1280, 720)),
            Case(source: .i420v, target: .bgra, from: (1280, 720), to: (1280, 720), fast: true),
            Case(source: .argb64, target: .bgra, from: (1280, 720), to: (853, 479)),
        ].enumerated().map { i, c in (c, Self.noise(c.source, width: c.from.0, height: c.from.1, seed: UInt64(10 + i))) }
        let references = try jobs.map { c, source in
            var options = PixelConverter.Options()
            options.fast = c.fast
            return try Self.convert(source, c, threads: 1, options: options)
        }
        let workers = 8, rounds = 4
        let results = Results()
        let group = DispatchGroup()
        for worker in 0..<workers {
            group.enter()
            let thread = Thread {
                for round in 0..<rounds {
                    let j = (worker + round) % jobs.count
                    let (c, source) = jobs[j]
                    var options = PixelConverter.Options()
                    options.fast = c.fast
                    do {
                        let destination = try converter.makePixelBuffer(from: source, pixelFormat: c.target.osType,
                                                                         width: c.to.0, height: c.to.1, options: options)
                        results.add(j, Self.bytes(destination))
                    } catch {
                        results.add(j, Picture(planes: []))
                    }
                }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let all = results.all
        #expect(all.count == workers * rounds)
        for (j, bytes) in all {
            #expect(Self.firstDifference(references[j], bytes) == nil, "\(jobs[j].0)")
        }
        #expect(converter.cachedContextCount <= 4)
    }

    // MARK: Helpers

    /// Results gathered from several threads.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [(Int, Picture)] = []
        func add(_ job: Int, _ bytes: Picture) { lock.withLock { list.append((job, bytes)) } }
        var all: [(Int, Picture)] { lock.withLock { list } }
    }

    /// `source` converted as `c` says by a fresh converter with `threads` threads, as bytes.
    static func convert(_ source: CVPixelBuffer, _ c: Case, threads: Int, options: PixelConverter.Options) throws -> Picture {
        let converter = PixelConverter(threads: threads)
        let destination = try converter.makePixelBuffer(from: source, pixelFormat: c.target.osType,
                                                         width: c.to.0, height: c.to.1, options: options)
        return bytes(destination)
    }

    /// The picture's bytes: every row of every plane, without the padding after the pixels
    /// (which libswscale's unscaled copies fill with the source's padding when they copy whole
    /// strides at once, and slices leave alone at their ends).
    struct Picture: Equatable, Sendable {
        var planes: [[[UInt8]]]
    }

    static func bytes(_ buffer: CVPixelBuffer) -> Picture {
        let s = buffer.storage!
        let layout = CVPixelFormatLayout.layout(for: s.pixelFormat)!
        return Picture(planes: zip(s.planes, layout.planes).map { plane, format in
            let count = format.minimumBytesPerRow(forImageWidth: s.width)
            return (0..<plane.height).map { row in
                Array(UnsafeRawBufferPointer(start: plane.baseAddress + row * plane.bytesPerRow, count: count))
            }
        })
    }

    /// Where two pictures first differ ("plane p row r byte b: x ≠ y"), nil when equal.
    static func firstDifference(_ a: Picture, _ b: Picture) -> String? {
        if a == b { return nil }
        guard a.planes.count == b.planes.count else { return "plane counts differ" }
        for (p, (pa, pb)) in zip(a.planes, b.planes).enumerated() {
            guard pa.count == pb.count else { return "plane \(p) heights differ" }
            for (r, (ra, rb)) in zip(pa, pb).enumerated() where ra != rb {
                let i = ra.indices.first { ra[$0] != rb[$0] }!
                let rows = zip(pa, pb).filter { $0 != $1 }.count
                return "plane \(p) row \(r) byte \(i): \(ra[i]) ≠ \(rb[i]) (\(rows) rows differ)"
            }
        }
        return nil
    }

    /// A `format` picture of pseudo-random bytes in every plane.
    static func noise(_ format: TestFormat, width: Int, height: Int, seed: UInt64) -> CVPixelBuffer {
        let buffer = PixelFixtures.allocate(format, width: width, height: height)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        for plane in buffer.storage!.planes {
            let words = plane.bytesPerRow * plane.height / 8
            let p = plane.baseAddress.bindMemory(to: UInt64.self, capacity: words)
            for i in 0..<words {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                p[i] = state
            }
        }
        return buffer
    }
}
