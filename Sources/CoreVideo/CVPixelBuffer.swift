// The CVPixelBuffer C API: creating pixel buffers (allocated, or over the caller's bytes),
// inspecting their planes, locking, and extended-pixel padding.

/// Called once, when the last reference to a buffer made by CVPixelBufferCreateWithBytes goes,
/// with the `releaseRefCon` and `baseAddress` that were passed at creation.
public typealias CVPixelBufferReleaseBytesCallback =
    @convention(c) (_ releaseRefCon: UnsafeMutableRawPointer?, _ baseAddress: UnsafeRawPointer?) -> Void

/// Called once, when the last reference to a buffer made by CVPixelBufferCreateWithPlanarBytes
/// goes, with the `releaseRefCon`, `dataPtr`, `dataSize`, plane count and plane base addresses
/// that were passed at creation.
public typealias CVPixelBufferReleasePlanarBytesCallback =
    @convention(c) (_ releaseRefCon: UnsafeMutableRawPointer?, _ dataPtr: UnsafeRawPointer?, _ dataSize: Int,
                    _ numberOfPlanes: Int, _ planeAddresses: UnsafeMutablePointer<UnsafeRawPointer?>?) -> Void

/// The largest width or height accepted (larger sizes fail with kCVReturnInvalidSize).
private let maximumDimension = 1 << 16

/// Checks a requested size: kCVReturnSuccess, or the error CVPixelBufferCreate returns.
private func validateSize(_ width: Int, _ height: Int) -> CVReturn {
    if width <= 0 || height <= 0 { return kCVReturnInvalidArgument }
    if width >= maximumDimension || height >= maximumDimension { return kCVReturnInvalidSize }
    return kCVReturnSuccess
}

/// Creates a pixel buffer of `width`×`height` pixels in `pixelFormatType`, with zeroed memory.
///
/// Honours `kCVPixelBufferBytesPerRowAlignmentKey`, `kCVPixelBufferPlaneAlignmentKey` and the
/// `kCVPixelBufferExtendedPixels*Key` attributes; the width, height and format arguments override
/// the same keys in `pixelBufferAttributes`. Returns kCVReturnInvalidArgument for a non-positive
/// size, kCVReturnInvalidPixelFormat for a format without a layout here, and
/// kCVReturnInvalidPixelBufferAttributes for malformed attributes.
@discardableResult
public func CVPixelBufferCreate(_ allocator: CFAllocator?, _ width: Int, _ height: Int, _ pixelFormatType: OSType,
                                _ pixelBufferAttributes: CFDictionary?,
                                _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>) -> CVReturn {
    let sizeCheck = validateSize(width, height)
    guard sizeCheck == kCVReturnSuccess else { return sizeCheck }
    guard let layout = CVPixelFormatLayout.layout(for: pixelFormatType) else { return kCVReturnInvalidPixelFormat }
    let attributes = CVPixelBufferAttributeReader(pixelBufferAttributes)
    guard attributes.isValid else { return kCVReturnInvalidPixelBufferAttributes }
    guard let storage = CVPixelStorage.allocate(width: width, height: height, layout: layout,
                                                alignment: attributes.effectiveRowAlignment,
                                                planeAlignment: attributes.effectivePlaneAlignment,
                                                extendedPixels: attributes.extendedPixels)
    else { return kCVReturnAllocationFailed }
    pixelBufferOut.pointee = CVPixelBuffer(storage: storage)
    return kCVReturnSuccess
}

/// Creates a pixel buffer over memory the caller owns; no pixels are copied.
///
/// `releaseCallback` (if any) is called exactly once, with `releaseRefCon` and `baseAddress`, when
/// the last reference to the buffer goes. If creation fails it is not called and the caller keeps
/// the memory. The format must be a packed (non-planar) format with a layout here, and
/// `bytesPerRow` must hold at least one row of pixels.
@discardableResult
public func CVPixelBufferCreateWithBytes(_ allocator: CFAllocator?, _ width: Int, _ height: Int,
                                         _ pixelFormatType: OSType, _ baseAddress: UnsafeMutableRawPointer,
                                         _ bytesPerRow: Int, _ releaseCallback: CVPixelBufferReleaseBytesCallback?,
                                         _ releaseRefCon: UnsafeMutableRawPointer?,
                                         _ pixelBufferAttributes: CFDictionary?,
                                         _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>) -> CVReturn {
    let sizeCheck = validateSize(width, height)
    guard sizeCheck == kCVReturnSuccess else { return sizeCheck }
    guard let layout = CVPixelFormatLayout.layout(for: pixelFormatType), !layout.isPlanar
    else { return kCVReturnInvalidPixelFormat }
    guard bytesPerRow >= layout.planes[0].minimumBytesPerRow(forImageWidth: width) else { return kCVReturnInvalidArgument }
    guard CVPixelBufferAttributeReader(pixelBufferAttributes).isValid else { return kCVReturnInvalidPixelBufferAttributes }
    let plane = CVPixelStorage.Plane(baseAddress: baseAddress, width: layout.planes[0].width(forImageWidth: width),
                                     height: height, bytesPerRow: bytesPerRow)
    let base = UInt(bitPattern: baseAddress)
    let refCon = UInt(bitPattern: releaseRefCon)
    var release: (@Sendable () -> Void)?
    if let callback = releaseCallback {
        release = { callback(UnsafeMutableRawPointer(bitPattern: refCon), UnsafeRawPointer(bitPattern: base)) }
    }
    let storage = CVPixelStorage(width: width, height: height, pixelFormat: pixelFormatType, planes: [plane],
                                 baseAddress: baseAddress, dataSize: bytesPerRow * height, release: release)
    pixelBufferOut.pointee = CVPixelBuffer(storage: storage)
    return kCVReturnSuccess
}

/// Creates a planar pixel buffer over planes the caller owns; no pixels are copied.
///
/// `dataPtr` (the plane descriptor block, or nil) is what CVPixelBufferGetBaseAddress returns and
/// `dataSize` what CVPixelBufferGetDataSize returns. `numberOfPlanes` must match the format's
/// plane count and every plane address must be non-nil. `releaseCallback` (if any) is called
/// exactly once when the last reference goes; not at all if creation fails.
@discardableResult
public func CVPixelBufferCreateWithPlanarBytes(_ allocator: CFAllocator?, _ width: Int, _ height: Int,
                                               _ pixelFormatType: OSType, _ dataPtr: UnsafeMutableRawPointer?,
                                               _ dataSize: Int, _ numberOfPlanes: Int,
                                               _ planeBaseAddress: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                                               _ planeWidth: UnsafeMutablePointer<Int>,
                                               _ planeHeight: UnsafeMutablePointer<Int>,
                                               _ planeBytesPerRow: UnsafeMutablePointer<Int>,
                                               _ releaseCallback: CVPixelBufferReleasePlanarBytesCallback?,
                                               _ releaseRefCon: UnsafeMutableRawPointer?,
                                               _ pixelBufferAttributes: CFDictionary?,
                                               _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>) -> CVReturn {
    let sizeCheck = validateSize(width, height)
    guard sizeCheck == kCVReturnSuccess else { return sizeCheck }
    guard let layout = CVPixelFormatLayout.layout(for: pixelFormatType), layout.isPlanar
    else { return kCVReturnInvalidPixelFormat }
    guard numberOfPlanes == layout.planes.count, dataSize >= 0 else { return kCVReturnInvalidArgument }
    guard CVPixelBufferAttributeReader(pixelBufferAttributes).isValid else { return kCVReturnInvalidPixelBufferAttributes }
    var planes: [CVPixelStorage.Plane] = []
    for i in 0..<numberOfPlanes {
        guard let address = planeBaseAddress[i], planeWidth[i] > 0, planeHeight[i] > 0,
              planeWidth[i] < maximumDimension, planeHeight[i] < maximumDimension,
              planeBytesPerRow[i] >= planeWidth[i] * layout.planes[i].bytesPerElement
        else { return kCVReturnInvalidArgument }
        planes.append(CVPixelStorage.Plane(baseAddress: address, width: planeWidth[i], height: planeHeight[i],
                                           bytesPerRow: planeBytesPerRow[i]))
    }
    let addresses = planes.map { UInt(bitPattern: $0.baseAddress) }
    let data = UInt(bitPattern: dataPtr)
    let refCon = UInt(bitPattern: releaseRefCon)
    var release: (@Sendable () -> Void)?
    if let callback = releaseCallback {
        release = {
            var pointers: [UnsafeRawPointer?] = addresses.map { UnsafeRawPointer(bitPattern: $0) }
            pointers.withUnsafeMutableBufferPointer { list in
                callback(UnsafeMutableRawPointer(bitPattern: refCon), UnsafeRawPointer(bitPattern: data), dataSize,
                         numberOfPlanes, list.baseAddress)
            }
        }
    }
    let storage = CVPixelStorage(width: width, height: height, pixelFormat: pixelFormatType, planes: planes,
                                 baseAddress: dataPtr, dataSize: dataSize, release: release)
    pixelBufferOut.pointee = CVPixelBuffer(storage: storage)
    return kCVReturnSuccess
}

/// Locks the base address so the CPU may touch the pixels. Locks nest; each needs a matching
/// CVPixelBufferUnlockBaseAddress with the same flags. Pixel memory here is always in main
/// memory, so locking only records the lock.
@discardableResult
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ lockFlags: CVPixelBufferLockFlags) -> CVReturn {
    guard pixelBuffer.storage != nil else { return kCVReturnInvalidArgument }
    pixelBuffer.mutex.lock()
    pixelBuffer.lockFlags.append(lockFlags)
    pixelBuffer.mutex.unlock()
    return kCVReturnSuccess
}

/// Releases one lock taken by CVPixelBufferLockBaseAddress. Unlocking a buffer that holds no lock
/// returns kCVReturnError.
@discardableResult
public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ unlockFlags: CVPixelBufferLockFlags) -> CVReturn {
    guard pixelBuffer.storage != nil else { return kCVReturnInvalidArgument }
    pixelBuffer.mutex.lock()
    defer { pixelBuffer.mutex.unlock() }
    guard !pixelBuffer.lockFlags.isEmpty else { return kCVReturnError }
    if let i = pixelBuffer.lockFlags.lastIndex(of: unlockFlags) {
        pixelBuffer.lockFlags.remove(at: i)
    } else {
        pixelBuffer.lockFlags.removeLast()
    }
    return kCVReturnSuccess
}

/// The width of the buffer in pixels (without extended pixels); 0 for a buffer without pixels.
@discardableResult
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.storage?.width ?? 0 }

/// The height of the buffer in pixels (without extended pixels); 0 for a buffer without pixels.
@discardableResult
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.storage?.height ?? 0 }

/// The buffer's pixel format.
@discardableResult
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType {
    pixelBuffer.storage?.pixelFormat ?? 0
}

/// The base address: the pixel at (0, 0) of a packed buffer; for a planar buffer the
/// `CVPlanarPixelBufferInfo` descriptor (big-endian plane offsets and row bytes).
@discardableResult
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? {
    pixelBuffer.storage?.baseAddress
}

/// Bytes per row. For a planar buffer, as Apple documents, a value such that bytes per row ×
/// height covers every plane (use CVPixelBufferGetBytesPerRowOfPlane for a plane's stride).
@discardableResult
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int {
    guard let s = pixelBuffer.storage, let first = s.planes.first else { return 0 }
    if s.planes.count == 1 || s.dataSize <= 0 || s.height <= 0 { return first.bytesPerRow }
    return (s.dataSize + s.height - 1) / s.height
}

/// The size in bytes of the buffer's memory (for planar buffers, the whole block, descriptor
/// included).
@discardableResult
public func CVPixelBufferGetDataSize(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.storage?.dataSize ?? 0 }

/// Whether the buffer has more than one plane.
@discardableResult
public func CVPixelBufferIsPlanar(_ pixelBuffer: CVPixelBuffer) -> Bool { (pixelBuffer.storage?.planes.count ?? 0) > 1 }

/// The number of planes; 0 for a non-planar buffer.
@discardableResult
public func CVPixelBufferGetPlaneCount(_ pixelBuffer: CVPixelBuffer) -> Int {
    guard let s = pixelBuffer.storage, s.planes.count > 1 else { return 0 }
    return s.planes.count
}

/// The plane at `planeIndex` of a planar buffer; nil for packed buffers and bad indices.
private func plane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> CVPixelStorage.Plane? {
    guard let s = pixelBuffer.storage, s.planes.count > 1, planeIndex >= 0, planeIndex < s.planes.count else { return nil }
    return s.planes[planeIndex]
}

/// The width in pixels of a plane (chroma planes are subsampled); 0 for non-planar buffers.
@discardableResult
public func CVPixelBufferGetWidthOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(pixelBuffer, planeIndex)?.width ?? 0
}

/// The height in rows of a plane; 0 for non-planar buffers.
@discardableResult
public func CVPixelBufferGetHeightOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(pixelBuffer, planeIndex)?.height ?? 0
}

/// The first pixel of a plane; nil for non-planar buffers.
@discardableResult
public func CVPixelBufferGetBaseAddressOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> UnsafeMutableRawPointer? {
    plane(pixelBuffer, planeIndex)?.baseAddress
}

/// The bytes per row of a plane; 0 for non-planar buffers.
@discardableResult
public func CVPixelBufferGetBytesPerRowOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(pixelBuffer, planeIndex)?.bytesPerRow ?? 0
}

/// The padding around the image, as requested with the `kCVPixelBufferExtendedPixels*Key`
/// attributes. Any out-pointer may be nil.
public func CVPixelBufferGetExtendedPixels(_ pixelBuffer: CVPixelBuffer,
                                           _ extraColumnsOnLeft: UnsafeMutablePointer<Int>?,
                                           _ extraColumnsOnRight: UnsafeMutablePointer<Int>?,
                                           _ extraRowsOnTop: UnsafeMutablePointer<Int>?,
                                           _ extraRowsOnBottom: UnsafeMutablePointer<Int>?) {
    let e = pixelBuffer.storage?.extendedPixels ?? (left: 0, right: 0, top: 0, bottom: 0)
    extraColumnsOnLeft?.pointee = e.left
    extraColumnsOnRight?.pointee = e.right
    extraRowsOnTop?.pointee = e.top
    extraRowsOnBottom?.pointee = e.bottom
}

/// Fills the extended pixels by replicating the image's edge pixels outward, plane by plane.
/// A buffer without extended pixels is left untouched. Returns kCVReturnUnsupported for a
/// format without a layout here.
@discardableResult
public func CVPixelBufferFillExtendedPixels(_ pixelBuffer: CVPixelBuffer) -> CVReturn {
    guard let s = pixelBuffer.storage else { return kCVReturnInvalidArgument }
    let e = s.extendedPixels
    if e.left == 0, e.right == 0, e.top == 0, e.bottom == 0 { return kCVReturnSuccess }
    guard let layout = CVPixelFormatLayout.layout(for: s.pixelFormat), layout.planes.count == s.planes.count
    else { return kCVReturnUnsupported }
    let fullWidth = s.width + e.left + e.right
    let fullHeight = s.height + e.top + e.bottom
    for (p, geometry) in zip(s.planes, layout.planes) {
        let element = geometry.bytesPerElement
        let visibleBytes = geometry.minimumBytesPerRow(forImageWidth: s.width)
        let leftBytes = (e.left >> geometry.widthShift) / geometry.pixelsPerElement * element
        let rightBytes = max(0, geometry.minimumBytesPerRow(forImageWidth: fullWidth) - leftBytes - visibleBytes)
        let topRows = e.top >> geometry.heightShift
        let bottomRows = max(0, geometry.height(forImageHeight: fullHeight) - topRows - p.height)
        guard visibleBytes >= element, p.height > 0 else { continue }
        // Left and right edges of every visible row: the edge element tiled outward by pixman
        // (CoreGraphics' PixelRemap), which a client's debug build runs at full speed.
        let line = p.baseAddress
        let leftCopies = leftBytes / element * element
        if leftCopies > 0 {
            PixelRemap.replicate(element, bytesAt: line, into: line - leftCopies, byteCount: leftCopies,
                                 rows: p.height, bytesPerRow: p.bytesPerRow)
        }
        let rightCopies = rightBytes / element * element
        if rightCopies > 0 {
            PixelRemap.replicate(element, bytesAt: line + visibleBytes - element, into: line + visibleBytes,
                                 byteCount: rightCopies, rows: p.height, bytesPerRow: p.bytesPerRow)
        }
        // Whole padded rows above and below.
        let rowStart = -leftBytes
        let rowLength = leftBytes + visibleBytes + rightBytes
        let firstRow = p.baseAddress + rowStart
        let lastRow = p.baseAddress + (p.height - 1) * p.bytesPerRow + rowStart
        for r in 0..<topRows {
            (firstRow - (r + 1) * p.bytesPerRow).copyMemory(from: firstRow, byteCount: rowLength)
        }
        for r in 0..<bottomRows {
            (lastRow + (r + 1) * p.bytesPerRow).copyMemory(from: lastRow, byteCount: rowLength)
        }
    }
    return kCVReturnSuccess
}
