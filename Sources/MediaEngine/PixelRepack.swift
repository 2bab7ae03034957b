// PixelRepack: byte shuffles for the Core Video layouts libswscale 5.1 cannot read or write
// directly — 'b64a' (16-bit big-endian ARGB) and the interleaved chroma of 'NV16' (422v/422f).

/// Row-by-row reorderings between Core Video layouts and ones libswscale handles.
package enum PixelRepack {
    /// `b64a` (A, R, G, B; 16-bit big-endian) → `AV_PIX_FMT_RGBA64BE` (R, G, B, A).
    package static func argb64ToRGBA64(source: UnsafeMutableRawPointer, sourceBytesPerRow: Int,
                                       destination: UnsafeMutablePointer<UInt8>, destinationBytesPerRow: Int,
                                       width: Int, height: Int) {
        for row in 0..<height {
            let s = (source + row * sourceBytesPerRow).assumingMemoryBound(to: UInt16.self)
            let d = UnsafeMutableRawPointer(destination + row * destinationBytesPerRow).assumingMemoryBound(to: UInt16.self)
            for x in 0..<width {
                let i = x * 4
                let a = s[i]
                d[i] = s[i + 1]
                d[i + 1] = s[i + 2]
                d[i + 2] = s[i + 3]
                d[i + 3] = a
            }
        }
    }

    /// `b64a` (A, R, G, B; 16-bit big-endian) → 8-bit R, G, B, A (`AV_PIX_FMT_RGBA`), rounded.
    package static func argb64ToRGBA8(source: UnsafeMutableRawPointer, sourceBytesPerRow: Int,
                                      destination: UnsafeMutablePointer<UInt8>, destinationBytesPerRow: Int,
                                      width: Int, height: Int) {
        for row in 0..<height {
            let s = (source + row * sourceBytesPerRow).assumingMemoryBound(to: UInt16.self)
            let d = destination + row * destinationBytesPerRow
            for x in 0..<width {
                let i = x * 4
                @inline(__always) func eight(_ v: UInt16) -> UInt8 { UInt8((UInt32(UInt16(bigEndian: v)) * 255 + 32767) / 65535) }
                d[i] = eight(s[i + 1])
                d[i + 1] = eight(s[i + 2])
                d[i + 2] = eight(s[i + 3])
                d[i + 3] = eight(s[i])
            }
        }
    }

    /// `AV_PIX_FMT_RGBA64BE` (R, G, B, A) → `b64a` (A, R, G, B; 16-bit big-endian).
    package static func rgba64ToARGB64(source: UnsafeMutablePointer<UInt8>, sourceBytesPerRow: Int,
                                       destination: UnsafeMutableRawPointer, destinationBytesPerRow: Int,
                                       width: Int, height: Int) {
        for row in 0..<height {
            let s = UnsafeMutableRawPointer(source + row * sourceBytesPerRow).assumingMemoryBound(to: UInt16.self)
            let d = (destination + row * destinationBytesPerRow).assumingMemoryBound(to: UInt16.self)
            for x in 0..<width {
                let i = x * 4
                let a = s[i + 3]
                d[i + 3] = s[i + 2]
                d[i + 2] = s[i + 1]
                d[i + 1] = s[i]
                d[i] = a
            }
        }
    }

    /// Interleaved Cb, Cr byte pairs → separate Cb and Cr planes (`width` chroma samples a row).
    package static func deinterleave(source: UnsafeMutableRawPointer, sourceBytesPerRow: Int,
                                     u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, uvBytesPerRow: Int,
                                     width: Int, height: Int) {
        for row in 0..<height {
            let s = (source + row * sourceBytesPerRow).assumingMemoryBound(to: UInt8.self)
            let du = u + row * uvBytesPerRow
            let dv = v + row * uvBytesPerRow
            for x in 0..<width {
                du[x] = s[2 * x]
                dv[x] = s[2 * x + 1]
            }
        }
    }

    /// Separate Cb and Cr planes → interleaved Cb, Cr byte pairs (`width` chroma samples a row).
    package static func interleave(u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, uvBytesPerRow: Int,
                                   destination: UnsafeMutableRawPointer, destinationBytesPerRow: Int,
                                   width: Int, height: Int) {
        for row in 0..<height {
            let d = (destination + row * destinationBytesPerRow).assumingMemoryBound(to: UInt8.self)
            let su = u + row * uvBytesPerRow
            let sv = v + row * uvBytesPerRow
            for x in 0..<width {
                d[2 * x] = su[x]
                d[2 * x + 1] = sv[x]
            }
        }
    }

    /// 16-bit components → 8-bit components, rounded (`count` components a row).
    package static func narrow16(source: UnsafeRawPointer, sourceBytesPerRow: Int, bigEndian: Bool,
                                 destination: UnsafeMutablePointer<UInt8>, destinationBytesPerRow: Int,
                                 count: Int, height: Int) {
        for row in 0..<height {
            let s = source + row * sourceBytesPerRow
            let d = destination + row * destinationBytesPerRow
            for i in 0..<count {
                let raw = s.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)
                let v = bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
                d[i] = UInt8((UInt32(v) * 255 + 32767) / 65535)
            }
        }
    }
}
