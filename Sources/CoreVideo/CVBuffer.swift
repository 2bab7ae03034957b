// CVBuffer: the reference-counted buffer at the root of Core Video. On Apple platforms
// CVImageBuffer and CVPixelBuffer are the same CF type; here they are aliases of one class.
import CoreGraphics

/// A Core Video buffer: attachments, and for image buffers the pixel storage.
///
/// `CVImageBuffer` and `CVPixelBuffer` are aliases of this class, as they are in Apple's SDK,
/// so code passing a pixel buffer where an image buffer is expected compiles unchanged.
public final class CVBuffer: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The pixel memory, when this is a pixel buffer.
    package let storage: CVPixelStorage?

    /// Guards `attachmentsByMode` and `lockCount`.
    package let mutex = NSLock()
    /// Attachments by propagation mode: `[key: value]`.
    package var attachmentsByMode: [CVAttachmentMode: [String: Any]] = [.shouldPropagate: [:], .shouldNotPropagate: [:]]
    /// Outstanding base-address locks, with the flags each was taken with.
    package var lockFlags: [CVPixelBufferLockFlags] = []

    /// Wraps pixel storage (allocated by CVPixelBufferCreate, a pool, caller bytes, or a decoder
    /// frame that stays owned by its `CVPixelStorage`).
    package init(storage: CVPixelStorage?) {
        self.storage = storage
    }

    public static func == (lhs: CVBuffer, rhs: CVBuffer) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String {
        guard let s = storage else { return "<CVBuffer \(Unmanaged.passUnretained(self).toOpaque())>" }
        return "<CVPixelBuffer \(Unmanaged.passUnretained(self).toOpaque()) width=\(s.width) height=\(s.height) "
            + "pixelFormat=\(s.pixelFormat.fourCCString) planes=\(s.planes.count)>"
    }
}

/// An image buffer: on Linux every image buffer is a pixel buffer in main memory.
public typealias CVImageBuffer = CVBuffer
/// A pixel buffer: an image in main memory.
public typealias CVPixelBuffer = CVImageBuffer

/// How an attachment propagates when a buffer is derived from another.
public enum CVAttachmentMode: UInt32, Sendable, Hashable {
    /// The attachment is not copied to derived buffers.
    case shouldNotPropagate = 0
    /// The attachment is copied to derived buffers (CVBufferPropagateAttachments).
    case shouldPropagate = 1
}

/// Flags for CVPixelBufferLockBaseAddress / CVPixelBufferUnlockBaseAddress.
public struct CVPixelBufferLockFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The caller promises not to modify the pixels while locked.
    public static let readOnly = CVPixelBufferLockFlags(rawValue: 0x0000_0001)
}

/// The memory behind a pixel buffer: planes of rows, and whatever owns that memory.
///
/// Storage can be allocated here (`allocate`), or wrap memory owned by someone else — the bytes
/// passed to CVPixelBufferCreateWithBytes, or a decoded FFmpeg frame that MediaEngine keeps
/// referenced until `release` runs — so decoded pictures become pixel buffers without a copy.
package final class CVPixelStorage: @unchecked Sendable {
    /// One plane of pixels.
    package struct Plane: @unchecked Sendable {
        /// First byte of the first row.
        package var baseAddress: UnsafeMutableRawPointer
        /// Width in pixels of this plane (chroma planes are subsampled).
        package var width: Int
        /// Height in rows of this plane.
        package var height: Int
        /// Bytes from one row to the next (≥ the row's pixel bytes).
        package var bytesPerRow: Int

        package init(baseAddress: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int) {
            self.baseAddress = baseAddress
            self.width = width
            self.height = height
            self.bytesPerRow = bytesPerRow
        }
    }

    package let width: Int
    package let height: Int
    package let pixelFormat: OSType
    package let planes: [Plane]
    /// What CVPixelBufferGetBaseAddress returns: the pixels of a packed buffer; for a planar
    /// buffer allocated here, a `CVPlanarPixelBufferInfo` header as on Apple platforms; nil for a
    /// planar buffer whose planes are not in one block.
    package let baseAddress: UnsafeMutableRawPointer?
    /// What CVPixelBufferGetDataSize returns.
    package let dataSize: Int
    /// Extra padding around the image, as `kCVPixelBufferExtendedPixels*` (left, right, top, bottom).
    package let extendedPixels: (left: Int, right: Int, top: Int, bottom: Int)
    private let release: (@Sendable () -> Void)?

    /// Storage over memory the caller owns; `release` runs when the last buffer using it goes away.
    package init(width: Int, height: Int, pixelFormat: OSType, planes: [Plane], baseAddress: UnsafeMutableRawPointer?,
                 dataSize: Int, extendedPixels: (left: Int, right: Int, top: Int, bottom: Int) = (0, 0, 0, 0),
                 release: (@Sendable () -> Void)?) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.planes = planes
        self.baseAddress = baseAddress
        self.dataSize = dataSize
        self.extendedPixels = extendedPixels
        self.release = release
    }

    deinit { release?() }

    /// The default row alignment, in bytes, of buffers allocated here (Apple's buffers are
    /// aligned at least this much; 64 also suits FFmpeg's SIMD code).
    package static let defaultBytesPerRowAlignment = 64

    /// Size of the planar header at the start of an allocated planar buffer:
    /// `CVPlanarPixelBufferInfo` with one (offset, rowBytes) pair per plane, big-endian.
    package static func planarHeaderSize(planeCount: Int) -> Int { planeCount * 8 }

    /// Allocates zeroed storage for `layout` at `width`×`height`, with rows aligned to
    /// `alignment` bytes (rounded up to a power of two ≥ 16) and the given extended pixels.
    package static func allocate(width: Int, height: Int, layout: CVPixelFormatLayout,
                                 alignment: Int = defaultBytesPerRowAlignment,
                                 extendedPixels: (left: Int, right: Int, top: Int, bottom: Int) = (0, 0, 0, 0))
        -> CVPixelStorage? {
        allocate(width: width, height: height, layout: layout, alignment: alignment, planeAlignment: alignment,
                 extendedPixels: extendedPixels)
    }

    /// Allocates zeroed storage as `allocate(width:height:layout:alignment:extendedPixels:)`, with
    /// each plane starting on a `planeAlignment`-byte boundary (`kCVPixelBufferPlaneAlignmentKey`).
    package static func allocate(width: Int, height: Int, layout: CVPixelFormatLayout, alignment: Int,
                                 planeAlignment: Int,
                                 extendedPixels: (left: Int, right: Int, top: Int, bottom: Int) = (0, 0, 0, 0))
        -> CVPixelStorage? {
        guard let plan = Plan(width: width, height: height, layout: layout, alignment: alignment,
                              planeAlignment: planeAlignment, extendedPixels: extendedPixels),
              let block = aligned_alloc_zeroed(size: plan.totalSize, alignment: plan.blockAlignment) else { return nil }
        plan.writePlanarHeader(into: block)
        let address = UInt(bitPattern: block)
        return plan.storage(over: block, release: { plan.freeBlock(UnsafeMutableRawPointer(bitPattern: address)!) })
    }

    /// The geometry of an allocated buffer: where each plane lives in one block of memory.
    /// Pools compute it once and lay every recycled block out the same way.
    package struct Plan: Sendable {
        package let width: Int
        package let height: Int
        package let layout: CVPixelFormatLayout
        package let extendedPixels: (left: Int, right: Int, top: Int, bottom: Int)
        /// Offset of each plane's first (extended) row from the start of the block.
        package let planeOffsets: [Int]
        /// Bytes per row of each plane.
        package let rowBytes: [Int]
        /// Bytes of the whole block.
        package let totalSize: Int
        /// Alignment of the block's start.
        package let blockAlignment: Int

        /// Plans `layout` at `width`×`height`; nil for sizes outside 1..<65536 or absurd padding.
        package init?(width: Int, height: Int, layout: CVPixelFormatLayout, alignment: Int, planeAlignment: Int,
                      extendedPixels: (left: Int, right: Int, top: Int, bottom: Int)) {
            guard width > 0, height > 0, width < 1 << 16, height < 1 << 16,
                  extendedPixels.left >= 0, extendedPixels.right >= 0, extendedPixels.top >= 0, extendedPixels.bottom >= 0,
                  extendedPixels.left + extendedPixels.right < 1 << 16, extendedPixels.top + extendedPixels.bottom < 1 << 16
            else { return nil }
            let align = CVPixelStorage.powerOfTwo(atLeast: alignment)
            let planeAlign = max(CVPixelStorage.powerOfTwo(atLeast: planeAlignment), 16)
            let fullWidth = width + extendedPixels.left + extendedPixels.right
            let fullHeight = height + extendedPixels.top + extendedPixels.bottom
            var total = layout.isPlanar
                ? roundUp(planarHeaderSize(planeCount: layout.planes.count), max(align, planeAlign)) : 0
            var offsets: [Int] = []
            var rows: [Int] = []
            for plane in layout.planes {
                total = roundUp(total, planeAlign)
                let bpr = roundUp(plane.minimumBytesPerRow(forImageWidth: fullWidth), align)
                offsets.append(total)
                rows.append(bpr)
                total += bpr * plane.height(forImageHeight: fullHeight)
            }
            self.width = width
            self.height = height
            self.layout = layout
            self.extendedPixels = extendedPixels
            self.planeOffsets = offsets
            self.rowBytes = rows
            self.totalSize = roundUp(total, align)
            self.blockAlignment = max(align, planeAlign, 64)
        }

        /// Byte offset from a plane's first row start to its first visible pixel.
        private func visibleOffset(_ i: Int) -> Int {
            let plane = layout.planes[i]
            let left = (extendedPixels.left >> plane.widthShift) / plane.pixelsPerElement * plane.bytesPerElement
            let top = extendedPixels.top >> plane.heightShift
            return top * rowBytes[i] + left
        }

        /// Writes the big-endian `CVPlanarPixelBufferInfo` header planar buffers start with.
        package func writePlanarHeader(into block: UnsafeMutableRawPointer) {
            guard layout.isPlanar else { return }
            for i in 0..<layout.planes.count {
                let offset = Int32(planeOffsets[i] + visibleOffset(i))
                block.storeBytes(of: offset.bigEndian, toByteOffset: i * 8, as: Int32.self)
                block.storeBytes(of: UInt32(rowBytes[i]).bigEndian, toByteOffset: i * 8 + 4, as: UInt32.self)
            }
        }

        /// Storage over `block` laid out by this plan; `release` runs when the storage goes away.
        package func storage(over block: UnsafeMutableRawPointer, release: (@Sendable () -> Void)?) -> CVPixelStorage {
            var planes: [Plane] = []
            for (i, plane) in layout.planes.enumerated() {
                planes.append(Plane(baseAddress: block + planeOffsets[i] + visibleOffset(i),
                                    width: plane.width(forImageWidth: width),
                                    height: plane.height(forImageHeight: height),
                                    bytesPerRow: rowBytes[i]))
            }
            let fullHeight = height + extendedPixels.top + extendedPixels.bottom
            let base: UnsafeMutableRawPointer = layout.isPlanar ? block : planes[0].baseAddress
            let dataSize = layout.isPlanar ? totalSize : rowBytes[0] * layout.planes[0].height(forImageHeight: fullHeight)
            return CVPixelStorage(width: width, height: height, pixelFormat: layout.pixelFormat, planes: planes,
                                  baseAddress: base, dataSize: dataSize, extendedPixels: extendedPixels, release: release)
        }

        /// Frees a block `allocateBlock()` (or `allocate`) made for this plan.
        package func freeBlock(_ block: UnsafeMutableRawPointer) {
            PixelMemory.free(block, size: totalSize, alignment: blockAlignment)
        }

        /// Allocates a zeroed block for this plan with its planar header written; nil when out of memory.
        package func allocateBlock() -> UnsafeMutableRawPointer? {
            guard let block = aligned_alloc_zeroed(size: totalSize, alignment: blockAlignment) else { return nil }
            writePlanarHeader(into: block)
            return block
        }
    }

    /// The smallest power of two ≥ `value` and ≥ 16 (the minimum row alignment).
    package static func powerOfTwo(atLeast value: Int) -> Int {
        var align = 16
        while align < value, align < 1 << 20 { align <<= 1 }
        return align
    }

}

private func roundUp(_ v: Int, _ a: Int) -> Int { (v + a - 1) / a * a }

private func aligned_alloc_zeroed(size: Int, alignment: Int) -> UnsafeMutableRawPointer? {
    PixelMemory.allocateZeroed(size: size, alignment: alignment)
}

/// Where picture memory comes from. Blocks of 256 KiB and more (every picture above ~360p)
/// are mapped straight from the kernel — already zero, populated at once (one fault instead of
/// one per page) — and unmapped when freed; smaller ones
/// come from malloc. Pictures freed into malloc's heap raise glibc's dynamic mmap threshold, after
/// which every later picture is carved from its per-thread arenas and stays resident there when
/// freed: a player held ~150 MB more than it used that way (720p: 244 → 98 MB anonymous).
package enum PixelMemory {
    static let mapThreshold = 256 * 1024

    /// A zeroed block of `size` bytes aligned to `alignment`; nil when out of memory.
    package static func allocateZeroed(size: Int, alignment: Int) -> UnsafeMutableRawPointer? {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        if size >= mapThreshold, alignment <= page {
            let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
            guard let p, p != MAP_FAILED else { return nil }
            return p
        }
        var p: UnsafeMutableRawPointer?
        guard posix_memalign(&p, alignment, max(size, 1)) == 0, let p else { return nil }
        memset(p, 0, size)
        return p
    }

    /// Frees a block `allocateZeroed(size:alignment:)` made with the same size and alignment.
    package static func free(_ block: UnsafeMutableRawPointer, size: Int, alignment: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        if size >= mapThreshold, alignment <= page {
            munmap(block, size)
        } else {
            Foundation.free(block)
        }
    }
}
