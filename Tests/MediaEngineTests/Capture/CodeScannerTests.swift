// The code scanner: codes made at test time by qrencode and zint (independent encoders), put on
// a white 800×480 (or 640×480) picture by the ffmpeg CLI and read back by zbar through
// CodeScanner — payloads, check digits, UPC-A as EAN-13, corners and bounds, enabled types only,
// the rect of interest, and buffers of every layout the metadata output may hand over.
import CoreGraphics
import CoreVideo
import Foundation
@testable import MediaEngine
import Testing
import TestSupport

/// A code picture: 8-bit luma rows, contiguous.
struct LumaPicture {
    let width: Int
    let height: Int
    let bytes: [UInt8]
}

enum CodeFixtures {
    static var toolsInstalled: Bool {
        ["/usr/bin/qrencode", "/usr/bin/zint", "/usr/bin/ffmpeg"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool` to write `png` in a temporary directory, then pads (white) and turns the PNG
    /// with ffmpeg to a `width`×`height` grey picture. `filter` is extra ffmpeg filtering after
    /// the padding (e.g. "transpose=clock").
    static func picture(_ tool: String, _ arguments: (String) -> [String], width: Int = 800, height: Int = 480,
                        filter: String? = nil, outWidth: Int? = nil, outHeight: Int? = nil) throws -> LumaPicture {
        let dir = try TestTools.temporaryDirectory("codes")
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("code.png").path
        let made = try TestTools.run(tool, arguments(png), capture: .standardError)
        guard made.status == 0 else {
            throw Failure("\(tool) failed: \(String(decoding: made.output, as: UTF8.self))")
        }
        var chain = "pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2:color=white"
        if let filter { chain += ",\(filter)" }
        let raw = try TestTools.run("ffmpeg", ["-v", "error", "-i", png, "-vf", chain + ",format=gray",
                                               "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let w = outWidth ?? width, h = outHeight ?? height
        guard raw.status == 0, raw.output.count == w * h else {
            throw Failure("ffmpeg gave \(raw.output.count) bytes for \(w)x\(h) (status \(raw.status))")
        }
        return LumaPicture(width: w, height: h, bytes: [UInt8](raw.output))
    }

    static func zint(_ symbology: Int, _ data: String, extra: [String] = [], filter: String? = nil,
                     outWidth: Int? = nil, outHeight: Int? = nil) throws -> LumaPicture {
        try picture("zint", { ["-b", "\(symbology)", "--scale=2"] + extra + ["-d", data, "-o", $0] }, filter: filter,
                    outWidth: outWidth, outHeight: outHeight)
    }

    static func qr(_ text: String, width: Int = 800, height: Int = 480, filter: String? = nil,
                   outWidth: Int? = nil, outHeight: Int? = nil) throws -> LumaPicture {
        try picture("qrencode", { ["-s", "8", "-m", "4", "-o", $0, text] }, width: width, height: height, filter: filter,
                    outWidth: outWidth, outHeight: outHeight)
    }

    static func scan(_ picture: LumaPicture, _ types: Set<CodeScanner.Symbology>,
                     rectOfInterest: CGRect = CGRect(x: 0, y: 0, width: 1, height: 1)) -> [CodeScanner.Symbol] {
        let scanner = CodeScanner(symbologies: types)
        return picture.bytes.withUnsafeBytes {
            scanner.scan(luma: $0.baseAddress!, width: picture.width, height: picture.height, bytesPerRow: picture.width,
                         rectOfInterest: rectOfInterest)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Checks the geometry every symbol must have: 4 corners inside bounds, bounds inside [0, 1]².
func expectSaneGeometry(_ symbol: CodeScanner.Symbol, sourceLocation: SourceLocation = #_sourceLocation) {
    let unit = CGRect(x: 0, y: 0, width: 1, height: 1)
    #expect(symbol.corners.count == 4, sourceLocation: sourceLocation)
    #expect(unit.contains(symbol.bounds.origin) && symbol.bounds.maxX <= 1 && symbol.bounds.maxY <= 1,
            "\(symbol.bounds)", sourceLocation: sourceLocation)
    let slack = symbol.bounds.insetBy(dx: -0.001, dy: -0.001)
    for corner in symbol.corners {
        #expect(slack.contains(corner), "\(corner) outside \(symbol.bounds)", sourceLocation: sourceLocation)
    }
}

@Suite("Code scanner (zbar)", .enabled(if: CodeFixtures.toolsInstalled, "qrencode, zint or ffmpeg missing: run scripts/setup.sh"))
struct CodeScannerTests {
    /// zint's symbology number, the data given, the symbology and the payload iOS reports.
    struct Case: Sendable, CustomTestStringConvertible {
        let zint: Int
        let data: String
        let extra: [String]
        let symbology: CodeScanner.Symbology
        let payload: String
        var testDescription: String { "\(symbology) \(payload)" }
    }

    static let linearCases: [Case] = [
        // EAN-13: 12 digits given, zint adds the check digit 4.
        Case(zint: 13, data: "012345678910", extra: [], symbology: .ean13, payload: "0123456789104"),
        // EAN-8: 7 digits, check digit 5.
        Case(zint: 13, data: "0123456", extra: [], symbology: .ean8, payload: "01234565"),
        // UPC-E 0 012345, check digit 7 (from the expanded UPC-A 00123400005).
        Case(zint: 37, data: "0012345", extra: [], symbology: .upce, payload: "00123457"),
        Case(zint: 8, data: "0123456789", extra: [], symbology: .code39, payload: "0123456789"),
        // --vers=1: zint appends the mod-43 check character (W for ABC-123).
        Case(zint: 8, data: "ABC-123", extra: ["--vers=1"], symbology: .code39Mod43, payload: "ABC-123W"),
        Case(zint: 25, data: "1 INFINITE LOOP", extra: [], symbology: .code93, payload: "1 INFINITE LOOP"),
        Case(zint: 20, data: "Hello-128", extra: [], symbology: .code128, payload: "Hello-128"),
        Case(zint: 3, data: "12345678", extra: [], symbology: .interleaved2of5, payload: "12345678"),
        // ITF-14: 13 digits, GS1 check digit 1.
        Case(zint: 89, data: "1234567890123", extra: [], symbology: .itf14, payload: "12345678901231"),
        Case(zint: 18, data: "A12345B", extra: [], symbology: .codabar, payload: "A12345B"),
        // DataBar: zbar gives the GS1 element string, AI (01) and the 14-digit GTIN.
        Case(zint: 29, data: "0123456789012", extra: [], symbology: .gs1DataBar, payload: "0101234567890128"),
        Case(zint: 31, data: "[01]98898765432106", extra: [], symbology: .gs1DataBarExpanded, payload: "0198898765432106"),
    ]

    @Test(arguments: linearCases)
    func readsLinearCode(_ c: Case) throws {
        let picture = try CodeFixtures.zint(c.zint, c.data, extra: c.extra)
        let symbols = CodeFixtures.scan(picture, [c.symbology])
        try #require(symbols.count == 1, "\(symbols)")
        let symbol = symbols[0]
        #expect(symbol.symbology == c.symbology)
        #expect(symbol.stringValue == c.payload)
        #expect(symbol.payload == Data(c.payload.utf8))
        expectSaneGeometry(symbol)
        // The code is centred: its box holds the picture's centre row, around the middle.
        #expect(symbol.bounds.minY < 0.5 && symbol.bounds.maxY > 0.5, "\(symbol.bounds)")
        #expect(symbol.bounds.midX > 0.2 && symbol.bounds.midX < 0.8, "\(symbol.bounds)")
        // Upright code: the first corner is the top-left one.
        #expect(symbol.corners[0] == CGPoint(x: symbol.bounds.minX, y: symbol.bounds.minY))
    }

    @Test func everyAvailableSymbologyIsCoveredByACase() {
        let covered = Set(Self.linearCases.map(\.symbology) + [.qr])
        #expect(covered == Set(CodeScanner.Symbology.available))
        // Those zbar cannot read are not enabled even when asked for.
        let unreadable: Set<CodeScanner.Symbology> = [.pdf417, .aztec, .dataMatrix, .microQR, .microPDF417, .gs1DataBarLimited]
        #expect(CodeScanner(symbologies: unreadable).symbologies.isEmpty)
    }

    @Test func pdf417AndDataBarLimitedAreNotRead() throws {
        // zbar finds no data in them: they stay out of `available` (and the metadata output's types).
        for (number, data) in [(55, "Hello PDF"), (30, "0123456789012")] {
            let picture = try CodeFixtures.zint(number, data)
            #expect(CodeFixtures.scan(picture, Set(CodeScanner.Symbology.allCases)).isEmpty, "zint \(number)")
        }
    }

    @Test func upcAIsReportedAsEAN13WithALeadingZero() throws {
        // UPC-A 01234567890 + check 5 → iOS reports EAN-13 "0012345678905".
        let picture = try CodeFixtures.zint(34, "01234567890")
        let symbols = CodeFixtures.scan(picture, [.ean13])
        #expect(symbols.map(\.symbology) == [.ean13])
        #expect(symbols.first?.stringValue == "0012345678905")
        // Asking for EAN-8 and UPC-E only, a UPC-A code is not reported at all.
        #expect(CodeFixtures.scan(picture, [.ean8, .upce]).isEmpty)
    }

    @Test func ean13CheckDigitIsChecked() throws {
        // zint's EANX_CHK (14) takes the 13 digits as given: a wrong check digit makes zint refuse,
        // and the right one reads back unchanged.
        let good = try CodeFixtures.zint(14, "4006381333931")
        #expect(CodeFixtures.scan(good, [.ean13]).first?.stringValue == "4006381333931")
        #expect(throws: (any Error).self) { try CodeFixtures.zint(14, "4006381333932") }
    }

    @Test func readsQRCodeWithCornersInAppleOrder() throws {
        let text = "https://example.com/héllo?q=1"
        let picture = try CodeFixtures.qr(text)
        let symbols = CodeFixtures.scan(picture, [.qr])
        try #require(symbols.count == 1)
        let symbol = symbols[0]
        #expect(symbol.symbology == .qr)
        #expect(symbol.stringValue == text)
        expectSaneGeometry(symbol)
        // Upright: top-left, bottom-left, bottom-right, top-right (counter-clockwise as seen).
        let c = symbol.corners
        #expect(c[0].x < c[2].x && c[0].y < c[1].y)  // TL left of BR, above BL
        #expect(abs(c[0].x - c[1].x) < 0.01 && abs(c[1].y - c[2].y) < 0.01 && abs(c[2].x - c[3].x) < 0.01)
        // The module grid is centred: the box's centre is the picture's centre.
        #expect(abs(symbol.bounds.midX - 0.5) < 0.02 && abs(symbol.bounds.midY - 0.5) < 0.02, "\(symbol.bounds)")
        // A 33-module code at 8 px per module: its finder corners span ~ 25×8 … 29×8 px.
        #expect(symbol.bounds.width * 800 > 190 && symbol.bounds.width * 800 < 240, "\(symbol.bounds)")
    }

    @Test func turnedQRCodeStartsAtItsOwnTopLeft() throws {
        // Turned a quarter clockwise: the code's top-left is now the box's top-right.
        let picture = try CodeFixtures.qr("turned", filter: "transpose=clock", outWidth: 480, outHeight: 800)
        let symbol = try #require(CodeFixtures.scan(picture, [.qr]).first)
        let b = symbol.bounds
        #expect(abs(symbol.corners[0].x - b.maxX) < 0.01 && abs(symbol.corners[0].y - b.minY) < 0.01, "\(symbol.corners)")
        // Next counter-clockwise (as seen): the box's top-left.
        #expect(abs(symbol.corners[1].x - b.minX) < 0.01 && abs(symbol.corners[1].y - b.minY) < 0.01, "\(symbol.corners)")
    }

    @Test func upsideDownLinearCodeStartsAtItsOwnTopLeft() throws {
        let picture = try CodeFixtures.zint(13, "012345678910", filter: "hflip,vflip")
        let symbol = try #require(CodeFixtures.scan(picture, [.ean13]).first)
        #expect(symbol.stringValue == "0123456789104")
        // Upside down: its top-left is the box's bottom-right.
        #expect(symbol.corners[0] == CGPoint(x: symbol.bounds.maxX, y: symbol.bounds.maxY))
    }

    @Test func onlyRequestedTypesAreReported() throws {
        let qr = try CodeFixtures.qr("not wanted")
        #expect(CodeFixtures.scan(qr, [.ean13]).isEmpty)
        let ean = try CodeFixtures.zint(13, "012345678910")
        #expect(CodeFixtures.scan(ean, [.qr, .code128]).isEmpty)
        // Code 39 with a mod-43 check is .code39 when only that is asked for.
        let checked = try CodeFixtures.zint(8, "ABC-123", extra: ["--vers=1"])
        #expect(CodeFixtures.scan(checked, [.code39]).map(\.symbology) == [.code39])
        // Interleaved 2 of 5 of 8 digits is never ITF-14.
        let i25 = try CodeFixtures.zint(3, "12345678")
        #expect(CodeFixtures.scan(i25, [.itf14]).isEmpty)
        #expect(CodeScanner(symbologies: []).symbologies.isEmpty)
        #expect(CodeFixtures.scan(qr, []).isEmpty)
    }

    @Test func rectOfInterestLimitsTheScan() throws {
        // The QR code is in the middle of the picture: a left-hand strip misses it, the middle finds it.
        let picture = try CodeFixtures.qr("middle")
        #expect(CodeFixtures.scan(picture, [.qr], rectOfInterest: CGRect(x: 0, y: 0, width: 0.25, height: 1)).isEmpty)
        #expect(CodeFixtures.scan(picture, [.qr], rectOfInterest: CGRect(x: 0.2, y: 0.1, width: 0.6, height: 0.8)).count == 1)
        #expect(CodeFixtures.scan(picture, [.qr], rectOfInterest: .zero).isEmpty)
        // Results stay normalised to the whole picture.
        let full = try #require(CodeFixtures.scan(picture, [.qr]).first)
        let cropped = try #require(CodeFixtures.scan(picture, [.qr], rectOfInterest: CGRect(x: 0.2, y: 0.1, width: 0.6, height: 0.8)).first)
        #expect(full.corners == cropped.corners)
    }

    @Test func binaryQRPayloadHasNoString() throws {
        // Bytes that are not UTF-8 (Latin-1 "é" alone): payload kept, stringValue nil.
        let dir = try TestTools.temporaryDirectory("qr-binary")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("payload.bin")
        try Data([0x41, 0xE9, 0xFF, 0x42]).write(to: input)
        let picture = try CodeFixtures.picture("sh", { ["-c", "qrencode -8 -s 8 -m 4 -o '\($0)' < '\(input.path)'"] })
        let symbol = try #require(CodeFixtures.scan(picture, [.qr]).first)
        #expect(symbol.payload == Data([0x41, 0xE9, 0xFF, 0x42]))
        #expect(symbol.stringValue == nil)
    }

    @Test func pixelBufferLayouts() throws {
        let picture = try CodeFixtures.qr("layouts")
        let scanner = CodeScanner(symbologies: [.qr])
        // '420v' with padded rows (copied once), '420f', and 'BGRA' (converted to '420v' first).
        for format in [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange] {
            var made: CVPixelBuffer?
            #expect(CVPixelBufferCreate(nil, picture.width, picture.height, format, nil, &made) == kCVReturnSuccess)
            let buffer = try #require(made)
            CVPixelBufferLockBaseAddress(buffer, [])
            let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
            let luma = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 0))
            for row in 0 ..< picture.height {
                picture.bytes.withUnsafeBytes { (luma + row * stride).copyMemory(from: $0.baseAddress! + row * picture.width, byteCount: picture.width) }
            }
            let chroma = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 1))
            memset(chroma, 128, CVPixelBufferGetBytesPerRowOfPlane(buffer, 1) * picture.height / 2)
            CVPixelBufferUnlockBaseAddress(buffer, [])
            let symbols = try scanner.scan(buffer)
            #expect(symbols.map(\.stringValue) == ["layouts"], "format \(format) stride \(stride)")
        }
        var bgra: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, picture.width, picture.height, kCVPixelFormatType_32BGRA, nil, &bgra) == kCVReturnSuccess)
        let buffer = try #require(bgra)
        CVPixelBufferLockBaseAddress(buffer, [])
        let base = try #require(CVPixelBufferGetBaseAddress(buffer))
        let stride = CVPixelBufferGetBytesPerRow(buffer)
        for row in 0 ..< picture.height {
            let out = (base + row * stride).assumingMemoryBound(to: UInt8.self)
            for x in 0 ..< picture.width {
                let v = picture.bytes[row * picture.width + x]
                out[4 * x] = v; out[4 * x + 1] = v; out[4 * x + 2] = v; out[4 * x + 3] = 255
            }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])
        #expect(try scanner.scan(buffer).map(\.stringValue) == ["layouts"])
    }

    @Test func checkCharacterRules() {
        #expect(CodeScanner.hasCode39Mod43Check("ABC-123W"))
        #expect(!CodeScanner.hasCode39Mod43Check("ABC-123X"))
        #expect(!CodeScanner.hasCode39Mod43Check("a"))
        #expect(CodeScanner.isITF14("12345678901231"))
        #expect(!CodeScanner.isITF14("12345678901232"))
        #expect(!CodeScanner.isITF14("1234567890123"))
    }

    /// Scan time of a 640×480 luma frame holding a QR code, printed (docs/ARCHITECTURE.md quotes
    /// it); nothing timed is asserted.
    @Test func scanTimeOf640x480FrameIsPrinted() throws {
        let picture = try CodeFixtures.qr("timing", width: 640, height: 480)
        let scanner = CodeScanner(symbologies: Set(CodeScanner.Symbology.available))
        let runs = 30
        var total = 0.0
        var found = 0
        for _ in 0 ..< runs {
            let start = DispatchTime.now().uptimeNanoseconds
            let symbols = picture.bytes.withUnsafeBytes {
                scanner.scan(luma: $0.baseAddress!, width: 640, height: 480, bytesPerRow: 640)
            }
            total += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            found += symbols.count
        }
        #expect(found == runs)
        print("CodeScanner: 640x480 luma frame, all \(CodeScanner.Symbology.available.count) available symbologies: "
              + String(format: "%.2f", total / Double(runs)) + " ms per scan (mean of \(runs))")
    }
}
