// CodeScanner: barcodes and QR codes read from a picture's luma plane by zbar's image scanner —
// what the capture metadata output reports as AVMetadataMachineReadableCodeObjects.
internal import CZbar
import CoreGraphics
import CoreVideo
import Foundation
import Synchronization

/// Reads machine-readable codes from 8-bit luma pictures with zbar (libzbar), one symbology set
/// per scanner.
///
/// Only the requested symbologies are enabled. UPC-A stays disabled even when EAN-13 is asked
/// for, so UPC-A codes come out as EAN-13 with a leading 0, as on iOS (`012345678905` →
/// `0012345678905`); EAN/UPC payloads carry their check digit. Results are normalised to the
/// scanned picture (x ÷ width, y ÷ height, top-left origin): the capture device's coordinate
/// space when the picture is the unrotated camera frame.
///
/// One scan at a time (a lock serialises callers); zbar's scanner keeps state between scans.
// Invariant: owns the zbar scanner, used only while `scratch` is held.
package final class CodeScanner: @unchecked Sendable {
    /// A code type, named by Apple's `AVMetadataObject.ObjectType` string.
    package enum Symbology: String, CaseIterable, Sendable {
        case qr = "org.iso.QRCode"
        case ean8 = "org.gs1.EAN-8"
        case ean13 = "org.gs1.EAN-13"
        case upce = "org.gs1.UPC-E"
        case code39 = "org.iso.Code39"
        case code39Mod43 = "org.iso.Code39Mod43"
        case code93 = "com.intermec.Code93"
        case code128 = "org.iso.Code128"
        case interleaved2of5 = "org.ansi.Interleaved2of5"
        case itf14 = "org.gs1.ITF14"
        case codabar = "Codabar"
        case gs1DataBar = "org.gs1.GS1DataBar"
        case gs1DataBarExpanded = "org.gs1.GS1DataBarExpanded"
        case pdf417 = "org.iso.PDF417"
        case gs1DataBarLimited = "org.gs1.GS1DataBarLimited"
        case aztec = "org.iso.Aztec"
        case dataMatrix = "org.iso.DataMatrix"
        case microQR = "org.iso.MicroQR"
        case microPDF417 = "org.iso.MicroPDF417"

        /// What zbar 0.23 reads (each checked against generated codes in CodeScannerTests).
        /// Not here: Aztec, Data Matrix, Micro QR, MicroPDF417 and DataBar Limited (zbar has no
        /// decoder for them) and PDF417 (zbar's decoder finds the symbol but decodes no data).
        package static let available: [Symbology] = [
            .qr, .ean8, .ean13, .upce, .code39, .code39Mod43, .code93, .code128, .interleaved2of5, .itf14,
            .codabar, .gs1DataBar, .gs1DataBarExpanded,
        ]

        /// zbar's decoder for this symbology.
        fileprivate var zbarType: zbar_symbol_type_t? {
            switch self {
            case .qr: return ZBAR_QRCODE
            case .ean8: return ZBAR_EAN8
            case .ean13: return ZBAR_EAN13
            case .upce: return ZBAR_UPCE
            case .code39, .code39Mod43: return ZBAR_CODE39
            case .code93: return ZBAR_CODE93
            case .code128: return ZBAR_CODE128
            case .interleaved2of5, .itf14: return ZBAR_I25
            case .codabar: return ZBAR_CODABAR
            case .gs1DataBar: return ZBAR_DATABAR
            case .gs1DataBarExpanded: return ZBAR_DATABAR_EXP
            case .pdf417, .gs1DataBarLimited, .aztec, .dataMatrix, .microQR, .microPDF417: return nil
            }
        }
    }

    /// One code found in a picture.
    package struct Symbol: Sendable, Equatable {
        package var symbology: Symbology
        /// The payload as text; nil when it is not valid UTF-8.
        package var stringValue: String?
        /// The payload's bytes as zbar decoded them.
        package var payload: Data
        /// The axis-aligned box around the code, normalised to the picture.
        package var bounds: CGRect
        /// Four corners, normalised to the picture: counter-clockwise as seen in the picture,
        /// starting with the code's own top-left corner (Apple's order for
        /// `AVMetadataMachineReadableCodeObject.corners`). For one-dimensional codes, the
        /// corners of the box the decoded scan lines cover, turned by the code's orientation.
        package var corners: [CGPoint]
    }

    /// Why a picture could not be scanned.
    package enum ScanError: Error, Equatable, Sendable {
        case unsupportedPixelFormat(OSType)
        case invalidBuffer
    }

    /// The symbologies this scanner reports (those of `requested` zbar reads).
    package let symbologies: Set<Symbology>
    private let scanner: OpaquePointer
    /// The copy of a padded picture's luma; held for the whole of a scan, so that the scanner
    /// is used by one scan at a time.
    private let scratch = Mutex<[UInt8]>([])
    private let converter = PixelConverter(capacity: 2, threads: 1)

    /// A scanner for `requested` (symbologies zbar cannot read are ignored).
    package init(symbologies requested: Set<Symbology>) {
        symbologies = requested.filter { Symbology.available.contains($0) }
        scanner = zbar_image_scanner_create()
        // Everything off (symbology 0 means all), then only what was asked for.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        var enabled: [zbar_symbol_type_t] = []
        for type in symbologies.compactMap(\.zbarType) where !enabled.contains(type) { enabled.append(type) }
        for type in enabled {
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1)
            // QR payloads as zbar read them: its own text conversion guesses the character set
            // and turned UTF-8 "é" into Shift-JIS; the bytes are checked as UTF-8 here instead.
            if type == ZBAR_QRCODE { zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_BINARY, 1) }
            if type == ZBAR_EAN13 || type == ZBAR_EAN8 || type == ZBAR_UPCE {
                zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_EMIT_CHECK, 1)
            }
        }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_POSITION, 1)
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    /// Codes in `pixelBuffer` whose box meets `rectOfInterest` (normalised, top-left origin;
    /// only that part of the picture is scanned). Y'CbCr formats are scanned on their luma plane
    /// in place; other formats are converted to `'420v'` first.
    package func scan(_ pixelBuffer: CVPixelBuffer,
                      rectOfInterest: CGRect = CGRect(x: 0, y: 0, width: 1, height: 1)) throws(ScanError) -> [Symbol] {
        let format = CVPixelBufferGetPixelFormatType(pixelBuffer)
        let lumaFirst: Set<OSType> = [
            kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
            kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange,
            kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_444YpCbCr8BiPlanarVideoRange,
            kCVPixelFormatType_OneComponent8,
        ]
        var buffer = pixelBuffer
        if !lumaFirst.contains(format) {
            do {
                buffer = try converter.makePixelBuffer(from: pixelBuffer, pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            } catch {
                throw .unsupportedPixelFormat(format)
            }
        }
        guard CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess else { throw .invalidBuffer }
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let planar = CVPixelBufferGetPlaneCount(buffer) > 0
        let base = planar ? CVPixelBufferGetBaseAddressOfPlane(buffer, 0) : CVPixelBufferGetBaseAddress(buffer)
        let width = planar ? CVPixelBufferGetWidthOfPlane(buffer, 0) : CVPixelBufferGetWidth(buffer)
        let height = planar ? CVPixelBufferGetHeightOfPlane(buffer, 0) : CVPixelBufferGetHeight(buffer)
        let stride = planar ? CVPixelBufferGetBytesPerRowOfPlane(buffer, 0) : CVPixelBufferGetBytesPerRow(buffer)
        guard let base, width > 0, height > 0, stride >= width else { throw .invalidBuffer }
        return scan(luma: UnsafeRawPointer(base), width: width, height: height, bytesPerRow: stride,
                    rectOfInterest: rectOfInterest)
    }

    /// Codes in an 8-bit luma picture (`bytesPerRow` ≥ `width`). The rows are handed to zbar in
    /// place when they are contiguous, else copied once into a scratch buffer.
    package func scan(luma: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int,
                      rectOfInterest: CGRect = CGRect(x: 0, y: 0, width: 1, height: 1)) -> [Symbol] {
        guard width > 0, height > 0, bytesPerRow >= width, !symbologies.isEmpty else { return [] }
        // The crop zbar scans: the rect of interest in pixels, clamped to the picture.
        let roi = rectOfInterest.standardized.intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
        guard !roi.isNull, roi.width > 0, roi.height > 0 else { return [] }
        let cropX = max(0, min(width - 1, Int((roi.minX * CGFloat(width)).rounded(.down))))
        let cropY = max(0, min(height - 1, Int((roi.minY * CGFloat(height)).rounded(.down))))
        let cropW = max(1, min(width - cropX, Int((roi.maxX * CGFloat(width)).rounded(.up)) - cropX))
        let cropH = max(1, min(height - cropY, Int((roi.maxY * CGFloat(height)).rounded(.up)) - cropY))

        return scratch.withLock { scratch -> [Symbol] in
            guard let image = zbar_image_create() else { return [] }
            defer { zbar_image_destroy(image) }
            zbar_image_set_format(image, AVF_ZBAR_Y800)
            zbar_image_set_size(image, UInt32(width), UInt32(height))
            zbar_image_set_crop(image, UInt32(cropX), UInt32(cropY), UInt32(cropW), UInt32(cropH))
            let found: Int32
            if bytesPerRow == width {
                zbar_image_set_data(image, luma, UInt(width * height), nil)
                found = zbar_scan_image(scanner, image)
            } else {
                if scratch.count != width * height { scratch = [UInt8](repeating: 0, count: width * height) }
                found = scratch.withUnsafeMutableBytes { out -> Int32 in
                    for row in 0 ..< height {
                        (out.baseAddress! + row * width).copyMemory(from: luma + row * bytesPerRow, byteCount: width)
                    }
                    zbar_image_set_data(image, out.baseAddress!, UInt(width * height), nil)
                    let n = zbar_scan_image(scanner, image)
                    return n
                }
            }
            guard found > 0 else { return [] }
            var symbols: [Symbol] = []
            var symbol = zbar_image_first_symbol(image)
            while let s = symbol {
                if let decoded = decode(s, width: width, height: height) { symbols.append(decoded) }
                symbol = zbar_symbol_next(s)
            }
            return symbols
        }
    }

    /// One zbar symbol as a `Symbol`, or nil when it is not one of the requested types.
    private func decode(_ s: OpaquePointer, width: Int, height: Int) -> Symbol? {
        let type = zbar_symbol_get_type(s)
        let length = Int(zbar_symbol_get_data_length(s))
        let payload = zbar_symbol_get_data(s).map { Data(bytes: $0, count: length) } ?? Data()
        let text = String(data: payload, encoding: .utf8)
        guard let symbology = classify(type, text: text) else { return nil }
        // Location: the polygon zbar found (QR: the 4 corners, code's top-left first and
        // counter-clockwise; linear codes: one point per decoded scan pass).
        let count = Int(zbar_symbol_get_loc_size(s))
        guard count > 0 else { return nil }
        var points: [CGPoint] = []
        points.reserveCapacity(count)
        for i in 0 ..< UInt32(count) {
            points.append(CGPoint(x: CGFloat(zbar_symbol_get_loc_x(s, i)), y: CGFloat(zbar_symbol_get_loc_y(s, i))))
        }
        let xs = points.map(\.x), ys = points.map(\.y)
        let x0 = xs.min()!, x1 = xs.max()!, y0 = ys.min()!, y1 = ys.max()!
        let corners: [CGPoint]
        if type == ZBAR_QRCODE, count == 4 {
            corners = points
        } else {
            // The box's corners in the picture: top-left, bottom-left, bottom-right, top-right
            // (counter-clockwise as seen), started at the code's own top-left corner.
            let box = [CGPoint(x: x0, y: y0), CGPoint(x: x0, y: y1), CGPoint(x: x1, y: y1), CGPoint(x: x1, y: y0)]
            let start: Int
            switch zbar_symbol_get_orientation(s) {
            case ZBAR_ORIENT_RIGHT: start = 3   // turned a quarter clockwise: its top-left is the box's top-right
            case ZBAR_ORIENT_DOWN: start = 2    // upside down: its top-left is the box's bottom-right
            case ZBAR_ORIENT_LEFT: start = 1    // turned a quarter anticlockwise: its top-left is the box's bottom-left
            default: start = 0
            }
            corners = (0 ..< 4).map { box[(start + $0) % 4] }
        }
        let w = CGFloat(width), h = CGFloat(height)
        func normalised(_ p: CGPoint) -> CGPoint {
            CGPoint(x: min(max(p.x / w, 0), 1), y: min(max(p.y / h, 0), 1))
        }
        let normalCorners = corners.map(normalised)
        let nx = normalCorners.map(\.x), ny = normalCorners.map(\.y)
        let bounds = CGRect(x: nx.min()!, y: ny.min()!, width: nx.max()! - nx.min()!, height: ny.max()! - ny.min()!)
        return Symbol(symbology: symbology, stringValue: text, payload: payload, bounds: bounds, corners: normalCorners)
    }

    /// Which requested symbology a zbar symbol is: Code 39 with a valid mod-43 check character
    /// is `.code39Mod43` when that was asked for; Interleaved 2 of 5 of 14 digits with a valid
    /// GS1 check digit is `.itf14` when that was asked for.
    private func classify(_ type: zbar_symbol_type_t, text: String?) -> Symbology? {
        func wanted(_ s: Symbology) -> Symbology? { symbologies.contains(s) ? s : nil }
        switch type {
        case ZBAR_QRCODE: return wanted(.qr)
        case ZBAR_EAN8: return wanted(.ean8)
        case ZBAR_EAN13: return wanted(.ean13)
        case ZBAR_UPCE: return wanted(.upce)
        case ZBAR_CODE93: return wanted(.code93)
        case ZBAR_CODE128: return wanted(.code128)
        case ZBAR_CODABAR: return wanted(.codabar)
        case ZBAR_DATABAR: return wanted(.gs1DataBar)
        case ZBAR_DATABAR_EXP: return wanted(.gs1DataBarExpanded)
        case ZBAR_CODE39:
            if symbologies.contains(.code39Mod43), let text, Self.hasCode39Mod43Check(text) { return .code39Mod43 }
            return wanted(.code39)
        case ZBAR_I25:
            if symbologies.contains(.itf14), let text, Self.isITF14(text) { return .itf14 }
            return wanted(.interleaved2of5)
        default:
            return nil
        }
    }

    /// Whether the last character of a Code 39 payload is the mod-43 check of the others.
    package static func hasCode39Mod43Check(_ text: String) -> Bool {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%")
        let chars = Array(text)
        guard chars.count >= 2 else { return false }
        var sum = 0
        for c in chars.dropLast() {
            guard let v = alphabet.firstIndex(of: c) else { return false }
            sum += v
        }
        return alphabet[sum % 43] == chars.last
    }

    /// Whether `text` is 14 digits whose last is the GS1 mod-10 check digit of the others.
    package static func isITF14(_ text: String) -> Bool {
        let digits = text.compactMap(\.wholeNumberValue)
        guard digits.count == 14, text.count == 14 else { return false }
        var sum = 0
        for (i, d) in digits.dropLast().enumerated() { sum += d * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == digits[13]
    }
}
