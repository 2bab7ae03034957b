// How each supported pixel format lays its bytes out in planes. Used to allocate buffers, to
// answer the plane queries and (in MediaEngine) to map formats to FFmpeg's.
import CoreGraphics

/// The memory layout of one pixel format: its planes, subsampling and bytes per element.
package struct CVPixelFormatLayout: Sendable, Equatable {
    /// One plane of a format.
    package struct Plane: Sendable, Equatable {
        /// log2 of the horizontal subsampling (1 for 4:2:x chroma).
        package var widthShift: Int
        /// log2 of the vertical subsampling (1 for 4:2:0 chroma).
        package var heightShift: Int
        /// Bytes per element of the plane (an element is one sample column: a CbCr pair counts once).
        package var bytesPerElement: Int
        /// Pixels covered by one element horizontally (2 for packed 4:2:2, where 4 bytes hold 2 pixels).
        package var pixelsPerElement: Int = 1

        /// The plane's width in elements for an image `width` pixels wide.
        package func width(forImageWidth width: Int) -> Int {
            let w = (width + (1 << widthShift) - 1) >> widthShift
            return (w + pixelsPerElement - 1) / pixelsPerElement * pixelsPerElement
        }
        /// The plane's height in rows for an image `height` pixels high.
        package func height(forImageHeight height: Int) -> Int {
            (height + (1 << heightShift) - 1) >> heightShift
        }
        /// The minimum bytes in one row of this plane.
        package func minimumBytesPerRow(forImageWidth width: Int) -> Int {
            self.width(forImageWidth: width) / pixelsPerElement * bytesPerElement
        }
    }

    /// The format's four-character code.
    package var pixelFormat: OSType
    /// The planes; a packed (chunky) format has exactly one and is not planar.
    package var planes: [Plane]
    /// True for the Y'CbCr formats.
    package var isYCbCr: Bool
    /// True for full-range (0–255) Y'CbCr; false for video range (16–235 luma).
    package var isFullRange: Bool
    /// Bits per pixel of a packed format (what `kCVPixelFormatBitsPerBlock` reports).
    package var bitsPerPixel: Int
    /// Whether the format has an alpha channel.
    package var hasAlpha: Bool

    /// Whether buffers of this format are planar (`CVPixelBufferIsPlanar`): true when the format
    /// has more than one plane.
    package var isPlanar: Bool { planes.count > 1 }

    /// The layout of a supported pixel format; nil for formats this implementation does not hold.
    package static func layout(for pixelFormat: OSType) -> CVPixelFormatLayout? {
        table[pixelFormat]
    }

    /// Every supported pixel format.
    package static var supportedPixelFormats: [OSType] { table.keys.sorted() }

    private static func packed(_ f: OSType, bytes: Int, alpha: Bool) -> CVPixelFormatLayout {
        CVPixelFormatLayout(pixelFormat: f, planes: [Plane(widthShift: 0, heightShift: 0, bytesPerElement: bytes)],
                            isYCbCr: false, isFullRange: true, bitsPerPixel: bytes * 8, hasAlpha: alpha)
    }

    private static let table: [OSType: CVPixelFormatLayout] = {
        var t: [OSType: CVPixelFormatLayout] = [:]
        func add(_ l: CVPixelFormatLayout) { t[l.pixelFormat] = l }
        // Packed RGB.
        add(packed(OSType(fourCC: "BGRA"), bytes: 4, alpha: true))      // kCVPixelFormatType_32BGRA
        add(packed(0x0000_0020, bytes: 4, alpha: true))                  // kCVPixelFormatType_32ARGB (= 32)
        add(packed(OSType(fourCC: "RGBA"), bytes: 4, alpha: true))      // kCVPixelFormatType_32RGBA
        add(packed(OSType(fourCC: "ABGR"), bytes: 4, alpha: true))      // kCVPixelFormatType_32ABGR
        add(packed(0x0000_0018, bytes: 3, alpha: false))                 // kCVPixelFormatType_24RGB (= 24)
        add(packed(OSType(fourCC: "24BG"), bytes: 3, alpha: false))     // kCVPixelFormatType_24BGR
        add(packed(OSType(fourCC: "L008"), bytes: 1, alpha: false))     // kCVPixelFormatType_OneComponent8
        add(packed(OSType(fourCC: "b64a"), bytes: 8, alpha: true))      // kCVPixelFormatType_64ARGB (big-endian 16-bit)
        // Packed 4:2:2 Y'CbCr: 4 bytes carry 2 pixels.
        for code in [OSType(fourCC: "2vuy"), OSType(fourCC: "yuvs")] {
            add(CVPixelFormatLayout(pixelFormat: code,
                                    planes: [Plane(widthShift: 0, heightShift: 0, bytesPerElement: 4, pixelsPerElement: 2)],
                                    isYCbCr: true, isFullRange: false, bitsPerPixel: 16, hasAlpha: false))
        }
        // Bi-planar 4:2:0 and 4:2:2, 8-bit: Y plane, then interleaved CbCr.
        let biplanar: [(StaticString, Int, Int, Bool)] = [
            ("420v", 1, 1, false), ("420f", 1, 1, true),    // 4:2:0 video / full range (NV12)
            ("422v", 1, 0, false), ("422f", 1, 0, true),    // 4:2:2 (NV16)
        ]
        for (code, ws, hs, full) in biplanar {
            add(CVPixelFormatLayout(pixelFormat: OSType(fourCC: code),
                                    planes: [Plane(widthShift: 0, heightShift: 0, bytesPerElement: 1),
                                             Plane(widthShift: ws, heightShift: hs, bytesPerElement: 2)],
                                    isYCbCr: true, isFullRange: full, bitsPerPixel: 12, hasAlpha: false))
        }
        // Bi-planar 4:2:0, 10-bit in 16-bit words (P010): 'x420' video range, 'xf20' full range.
        for (code, full) in [("x420", false), ("xf20", true)] as [(StaticString, Bool)] {
            add(CVPixelFormatLayout(pixelFormat: OSType(fourCC: code),
                                    planes: [Plane(widthShift: 0, heightShift: 0, bytesPerElement: 2),
                                             Plane(widthShift: 1, heightShift: 1, bytesPerElement: 4)],
                                    isYCbCr: true, isFullRange: full, bitsPerPixel: 24, hasAlpha: false))
        }
        // Tri-planar 4:2:0: 'y420' (video range), 'f420' (full range).
        for (code, full) in [("y420", false), ("f420", true)] as [(StaticString, Bool)] {
            add(CVPixelFormatLayout(pixelFormat: OSType(fourCC: code),
                                    planes: [Plane(widthShift: 0, heightShift: 0, bytesPerElement: 1),
                                             Plane(widthShift: 1, heightShift: 1, bytesPerElement: 1),
                                             Plane(widthShift: 1, heightShift: 1, bytesPerElement: 1)],
                                    isYCbCr: true, isFullRange: full, bitsPerPixel: 12, hasAlpha: false))
        }
        return t
    }()
}
