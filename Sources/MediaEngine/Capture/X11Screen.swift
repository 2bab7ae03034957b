// X11Screen: screens of an X server as capture devices — XCB with MIT-SHM for the pixels, XFIXES
// for the cursor, pixman to draw the cursor and clicks in, swscale to scale. XCB rather than Xlib:
// Xlib's default I/O error handler exits the process when the server goes away; XCB only marks the
// connection as failed, which the source reports as `.disconnected`. No C type leaves this file.
internal import CPixman
internal import CXcb
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// What `AVCaptureScreenInput` asks of a screen source.
package struct ScreenCaptureConfiguration: Sendable, Equatable {
    /// The area captured, in screen pixels with the origin at the bottom-left corner (Apple's
    /// convention); `.null` or an empty rectangle means the whole screen.
    package var cropRect: CGRect = .null
    /// Whether the pointer is drawn into the frames (XFIXES cursor image).
    package var capturesCursor = true
    /// Whether a ring is drawn around the pointer while a mouse button is down.
    package var capturesMouseClicks = false
    /// How much frames are scaled (0.5 halves each side).
    package var scaleFactor: CGFloat = 1
    /// The shortest interval between frames (1 / the highest frame rate).
    package var minFrameDuration = CMTime(value: 1, timescale: 60)
    /// Whether a frame equal to the one delivered before it is left out.
    package var removesDuplicateFrames = false

    package init() {}

    /// The captured area in X's coordinates (top-left origin) on a `width`×`height` screen: the
    /// crop rectangle (rounded to whole pixels, flipped) clipped to the screen; nil when nothing
    /// of it is on the screen.
    package func captureRegion(screenWidth width: Int, screenHeight height: Int) -> ScreenRegion? {
        guard width > 0, height > 0 else { return nil }
        let screen = ScreenRegion(x: 0, y: 0, width: width, height: height)
        let crop = cropRect.standardized
        if crop.isNull || crop.isEmpty || !crop.origin.x.isFinite || !crop.size.width.isFinite
            || !crop.origin.y.isFinite || !crop.size.height.isFinite { return screen }
        let x0 = Int(crop.minX.rounded()), x1 = Int(crop.maxX.rounded())
        let bottom = Int(crop.minY.rounded()), top = Int(crop.maxY.rounded())
        // Bottom-left origin → top-left: the rectangle's top edge is `height - maxY` down.
        let region = ScreenRegion(x: x0, y: height - top, width: x1 - x0, height: top - bottom)
        return region.clipped(to: screen)
    }

    /// The size of delivered frames for a captured area: scaled by `scaleFactor` (at least 1×1);
    /// nil for a factor that is not a positive finite number.
    package func outputSize(for region: ScreenRegion) -> (width: Int, height: Int)? {
        guard scaleFactor.isFinite, scaleFactor > 0 else { return nil }
        let w = max(1, Int((CGFloat(region.width) * scaleFactor).rounded()))
        let h = max(1, Int((CGFloat(region.height) * scaleFactor).rounded()))
        return (w, h)
    }
}

/// A rectangle of whole screen pixels, top-left origin (X's coordinates).
package struct ScreenRegion: Sendable, Hashable {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part inside `other`; nil when they do not overlap.
    func clipped(to other: ScreenRegion) -> ScreenRegion? {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width), y1 = min(y + height, other.y + other.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return ScreenRegion(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// The parts of an X display name (`[host]:display[.screen]`).
package struct X11DisplayName: Sendable, Hashable {
    package let host: String
    package let display: Int
    package let screen: Int

    /// Parses `name` as XCB does (`xcb_parse_display`); nil when it is not a display name.
    package init?(_ name: String) {
        var host: UnsafeMutablePointer<CChar>?
        var display: Int32 = 0, screen: Int32 = 0
        guard xcb_parse_display(name, &host, &display, &screen) != 0 else { return nil }
        self.host = host.map { String(cString: $0) } ?? ""
        free(host)
        self.display = Int(display)
        self.screen = Int(screen)
    }

    /// `host:display` (no screen): what to connect to.
    package var server: String { "\(host):\(display)" }
}

/// A screen of an X server, described without keeping a connection open.
package struct X11ScreenDevice: LiveDeviceDescriptor, Hashable {
    /// The display it belongs to (`:99`, `host:0`), without the screen number.
    package let server: String
    /// The screen's number on that display.
    package let screenNumber: Int
    /// The screen's size in pixels.
    package let width: Int
    package let height: Int
    /// The X server's vendor string.
    package let vendor: String

    /// `x11:<server>.<screen>`, e.g. `x11::99.0`.
    package var uniqueID: String { "x11:\(server).\(screenNumber)" }
    package var modelID: String { "x11-screen" }
    package var localizedName: String { "Screen \(screenNumber) of X display \(server) (\(width)×\(height))" }
    package var manufacturer: String { vendor }
    package var deviceKind: LiveDeviceKind { .screen }
    package var isExternal: Bool { false }
    /// The Core Graphics display ID of this screen: its number + 1 (`CGMainDisplayID()` is the
    /// `DISPLAY` variable's screen + 1; 0 is `kCGNullDirectDisplay`).
    package var displayID: UInt32 { UInt32(screenNumber + 1) }
    /// The whole screen in BGRA, unscaled.
    package var videoFormats: [LiveVideoFormat] { X11ScreenSource.formats(width: width, height: height) }
    package var audioFormats: [LiveAudioFormat] { [] }
    package var isConnected: Bool { true }
    package func makeVideoSource() -> (any LiveSource)? { X11ScreenSource(device: self) }
    package func makeAudioSource() -> (any LiveAudioSource)? { nil }

    /// The screens of `display` (default: the `DISPLAY` variable); empty when it is unset or
    /// the server cannot be reached.
    package static func screens(display: String? = ProcessInfo.processInfo.environment["DISPLAY"]) -> [X11ScreenDevice] {
        guard let display, !display.isEmpty, let name = X11DisplayName(display),
              let connection = try? X11Connection(server: name.server) else { return [] }
        return connection.screens.enumerated().map { index, screen in
            X11ScreenDevice(server: name.server, screenNumber: index, width: screen.width, height: screen.height,
                            vendor: connection.vendor)
        }
    }

    /// The screen a Core Graphics display ID names on `display` (default `DISPLAY`); nil when
    /// there is no such screen or no server.
    package static func screen(displayID: UInt32,
                               display: String? = ProcessInfo.processInfo.environment["DISPLAY"]) -> X11ScreenDevice? {
        screens(display: display).first { $0.displayID == displayID }
    }

    /// The display ID of `display`'s default screen (its `.screen` part + 1), without connecting.
    package static func mainDisplayID(display: String? = ProcessInfo.processInfo.environment["DISPLAY"]) -> UInt32 {
        guard let display, let name = X11DisplayName(display) else { return 1 }
        return UInt32(name.screen + 1)
    }
}

/// One XCB connection: the screens, the extensions screen capture uses. Not thread-safe: one
/// thread at a time (the capture thread owns the one it captures with).
// Invariant: owns the XCB connection, used by one thread at a time (its owner's).
final class X11Connection: @unchecked Sendable {
    struct Screen {
        let root: UInt32
        let width: Int
        let height: Int
        let depth: Int
    }

    let pointer: OpaquePointer
    let screens: [Screen]
    let vendor: String
    /// Bits per pixel of ZPixmap images at each screen's depth (32 is what capture needs).
    let bitsPerPixel: [Int: Int]
    /// Whether image bytes are least-significant first (BGRX in memory for 32 bpp).
    let isLSBFirst: Bool

    /// Connects to `server` (`:99`); `.disconnected` when it cannot.
    init(server: String) throws(LiveSourceError) {
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(server, &screenNumber) else { throw .disconnected("cannot connect to X display \(server)") }
        if xcb_connection_has_error(connection) != 0 {
            xcb_disconnect(connection)
            throw .disconnected("cannot connect to X display \(server)")
        }
        guard let setup = xcb_get_setup(connection) else {
            xcb_disconnect(connection)
            throw .disconnected("X display \(server) sent no setup")
        }
        pointer = connection
        var found: [Screen] = []
        var iterator = xcb_setup_roots_iterator(setup)
        while iterator.rem > 0 {
            let s = iterator.data.pointee
            found.append(Screen(root: s.root, width: Int(s.width_in_pixels), height: Int(s.height_in_pixels),
                                depth: Int(s.root_depth)))
            xcb_screen_next(&iterator)
        }
        screens = found
        let vendorLength = Int(xcb_setup_vendor_length(setup))
        if let bytes = xcb_setup_vendor(setup), vendorLength > 0 {
            vendor = String(decoding: UnsafeRawBufferPointer(start: bytes, count: vendorLength), as: UTF8.self)
        } else {
            vendor = "X11"
        }
        var formats: [Int: Int] = [:]
        if let list = xcb_setup_pixmap_formats(setup) {
            for i in 0..<Int(xcb_setup_pixmap_formats_length(setup)) {
                formats[Int(list[i].depth)] = Int(list[i].bits_per_pixel)
            }
        }
        bitsPerPixel = formats
        isLSBFirst = setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue)
    }

    deinit { xcb_disconnect(pointer) }

    /// Whether the connection broke (the server went away, or a protocol error closed it).
    var hasFailed: Bool { xcb_connection_has_error(pointer) != 0 }

    /// Whether the server has MIT-SHM.
    func hasSharedMemory() -> Bool {
        let cookie = xcb_shm_query_version(pointer)
        guard let reply = xcb_shm_query_version_reply(pointer, cookie, nil) else { return false }
        free(reply)
        return true
    }

    /// Whether the server has XFIXES (version 4 asked for: cursor images need ≥ 1).
    func hasXFixes() -> Bool {
        let cookie = xcb_xfixes_query_version(pointer, 4, 0)
        guard let reply = xcb_xfixes_query_version_reply(pointer, cookie, nil) else { return false }
        free(reply)
        return true
    }

    /// A round trip: returns once the server has handled every request sent before.
    func sync() {
        if let reply = xcb_get_input_focus_reply(pointer, xcb_get_input_focus(pointer), nil) { free(reply) }
    }
}

/// A MIT-SHM segment shared with the X server: one frame's pixels. Removed (IPC_RMID) as soon as
/// both sides are attached, so nothing leaks if the process dies; detached when the last pixel
/// buffer over it goes.
// Invariant: owns the attached segment; its fields are immutable after `init`.
private final class SharedSegment: @unchecked Sendable {
    let address: UnsafeMutableRawPointer
    let size: Int
    let xid: UInt32

    init?(connection: X11Connection, size: Int) {
        let id = shmget(key_t(AVF_IPC_PRIVATE), size, AVF_IPC_CREAT | 0o600)
        guard id >= 0 else { return nil }
        guard let address = avf_shmat(id) else {
            shmctl(id, AVF_IPC_RMID, nil)
            return nil
        }
        let xid = xcb_generate_id(connection.pointer)
        let error = xcb_request_check(connection.pointer, xcb_shm_attach_checked(connection.pointer, xid, UInt32(id), 0))
        shmctl(id, AVF_IPC_RMID, nil)    // gone once both sides detach
        if let error {
            free(error)
            shmdt(address)
            return nil
        }
        self.address = address
        self.size = size
        self.xid = xid
    }

    deinit { shmdt(address) }
}

/// The bounded set of segments frames are captured into: a segment is out while a pixel buffer
/// over it lives, and back when the buffer goes. An `NSCondition`: taking waits for a segment to
/// come back.
// Invariant: owns the shared segments; `free` is read and written only under `condition`.
private final class SegmentPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var free: [Int]
    let segments: [SharedSegment]

    init(segments: [SharedSegment]) {
        self.segments = segments
        free = Array(segments.indices)
    }

    /// A free segment, waiting up to `seconds` for one to come back when all are out (a
    /// consumer a little behind: its frame is captured late rather than not at all); nil when
    /// none came back in time.
    func take(waitingUpTo seconds: Double) -> Int? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty {
            guard condition.wait(until: deadline) else { break }
        }
        return free.popLast()
    }

    func giveBack(_ index: Int) {
        condition.lock()
        free.append(index)
        condition.signal()
        condition.unlock()
    }
}

/// Captures one screen area of one connection into BGRA pixel buffers, with the cursor and click
/// rings drawn in and scaled when asked. Used from one thread (the source's capture thread).
// Invariant: owns XCB and pixman handles and the segments, used only on the source's capture thread.
final class X11Grabber: @unchecked Sendable {
    private let connection: X11Connection
    private let root: UInt32
    let region: ScreenRegion
    let outputWidth: Int
    let outputHeight: Int
    private let pool: SegmentPool?
    private let outputPool: CVPixelBufferPool?
    private let hasXFixes: Bool
    private let opaque: OpaquePointer?      // a solid (0, 0, 0, 1) image: ADD makes alpha 255
    private let ring: (image: OpaquePointer, bits: UnsafeMutablePointer<UInt32>, size: Int)?
    private var lastDelivered: CVPixelBuffer?

    /// Segments in the pool (the bound on frames out at once, unscaled capture): 6 (48 MB at
    /// 1080p) hold 200 ms of frames at 30 fps for consumers a little behind.
    static let segmentCount = 6

    /// How long a capture waits for a segment when consumers hold them all (the frame duration).
    var segmentWait = 0.0

    init(server: String, screenNumber: Int, region: ScreenRegion, outputWidth: Int, outputHeight: Int)
        throws(LiveSourceError) {
        let connection = try X11Connection(server: server)
        guard screenNumber >= 0, screenNumber < connection.screens.count else {
            throw .disconnected("X display \(server) has no screen \(screenNumber)")
        }
        let screen = connection.screens[screenNumber]
        guard connection.bitsPerPixel[screen.depth] == 32, connection.isLSBFirst, screen.depth == 24 || screen.depth == 32 else {
            throw .unsupportedFormat("screen \(screenNumber) of \(server) is \(screen.depth)-bit; capture needs 24 or 32 bits "
                                     + "in 32-bit little-endian pixels")
        }
        guard region.x >= 0, region.y >= 0, region.x + region.width <= screen.width,
              region.y + region.height <= screen.height else {
            throw .unsupportedFormat("the area \(region) is not inside the \(screen.width)×\(screen.height) screen")
        }
        self.connection = connection
        root = screen.root
        self.region = region
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        if connection.hasSharedMemory() {
            var segments: [SharedSegment] = []
            for _ in 0..<Self.segmentCount {
                guard let segment = SharedSegment(connection: connection, size: region.width * region.height * 4) else { break }
                segments.append(segment)
            }
            pool = segments.count == Self.segmentCount ? SegmentPool(segments: segments) : nil
        } else {
            pool = nil
        }
        if pool == nil || outputWidth != region.width || outputHeight != region.height {
            guard let made = CVPixelBufferPool.make(pixelFormat: kCVPixelFormatType_32BGRA, width: outputWidth, height: outputHeight) else {
                throw .failed("cannot make a pool of \(outputWidth)×\(outputHeight) BGRA buffers")
            }
            outputPool = made
        } else {
            outputPool = nil
        }
        hasXFixes = connection.hasXFixes()
        var color = pixman_color_t(red: 0, green: 0, blue: 0, alpha: 0xFFFF)
        opaque = pixman_image_create_solid_fill(&color)
        ring = Self.makeRing()
    }

    deinit {
        if let opaque { pixman_image_unref(opaque) }
        if let ring {
            pixman_image_unref(ring.image)
            ring.bits.deallocate()
        }
        if let pool, !connection.hasFailed {
            for segment in pool.segments { xcb_shm_detach(connection.pointer, segment.xid) }
            xcb_flush(connection.pointer)
        }
    }

    /// Frames the pool had no room for (every buffer held by consumers).
    private(set) var skipped = 0

    /// Captures the area now: a BGRA buffer of the output size, nil when every buffer is held by
    /// consumers (or, with `removesDuplicates`, when the picture did not change). Throws
    /// `.disconnected` when the X server is gone.
    func grab(cursor: Bool, clicks: Bool, removesDuplicates: Bool) throws(LiveSourceError) -> CVPixelBuffer? {
        guard let captured = try capture() else {
            skipped += 1
            return nil
        }
        if cursor || clicks { drawPointer(on: captured, cursor: cursor, clicks: clicks) }
        var frame = captured
        if let outputPool, outputWidth != region.width || outputHeight != region.height {
            guard let scaled = makeOutputBuffer(outputPool) else {
                skipped += 1
                return nil
            }
            do {
                try PixelConverter.shared.transfer(from: captured, to: scaled)
            } catch {
                throw .failed("cannot scale the screen image: \(error)")
            }
            frame = scaled
        }
        if removesDuplicates {
            if let last = lastDelivered, Self.samePixels(last, frame) { return nil }
            lastDelivered = frame
        } else {
            lastDelivered = nil
        }
        return frame
    }

    /// The area's pixels in a buffer of the region's size: over a shared segment, or copied
    /// from a GetImage reply when the server has no MIT-SHM (remote displays).
    private func capture() throws(LiveSourceError) -> CVPixelBuffer? {
        let c = connection.pointer
        let format = UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue)
        if let pool {
            guard let index = pool.take(waitingUpTo: segmentWait) else { return nil }
            let segment = pool.segments[index]
            let cookie = xcb_shm_get_image(c, root, Int16(region.x), Int16(region.y), UInt16(region.width),
                                           UInt16(region.height), ~0, format, segment.xid, 0)
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            guard let reply = xcb_shm_get_image_reply(c, cookie, &error) else {
                pool.giveBack(index)
                throw failure(error, request: "ShmGetImage")
            }
            free(reply)
            let bytesPerRow = region.width * 4
            let plane = CVPixelStorage.Plane(baseAddress: segment.address, width: region.width, height: region.height,
                                             bytesPerRow: bytesPerRow)
            let storage = CVPixelStorage(width: region.width, height: region.height, pixelFormat: kCVPixelFormatType_32BGRA,
                                         planes: [plane], baseAddress: segment.address, dataSize: bytesPerRow * region.height,
                                         release: { [pool] in pool.giveBack(index) })
            let buffer = CVBuffer(storage: storage)
            makeOpaque(segment.address, width: region.width, height: region.height, bytesPerRow: bytesPerRow)
            return buffer
        }
        let cookie = xcb_get_image(c, format, root, Int16(region.x), Int16(region.y), UInt16(region.width),
                                   UInt16(region.height), ~0)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard let reply = xcb_get_image_reply(c, cookie, &error) else { throw failure(error, request: "GetImage") }
        defer { free(reply) }
        let bytesPerRow = region.width * 4
        guard let data = xcb_get_image_data(reply), Int(xcb_get_image_data_length(reply)) >= bytesPerRow * region.height,
              let outputPool, let buffer = makeOutputBuffer(outputPool, width: region.width, height: region.height) else {
            return nil
        }
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return nil }
        let destinationRow = CVPixelBufferGetBytesPerRow(buffer)
        for row in 0..<region.height {
            memcpy(base + row * destinationRow, data + row * bytesPerRow, bytesPerRow)
        }
        makeOpaque(base, width: region.width, height: region.height, bytesPerRow: destinationRow)
        return buffer
    }

    /// A buffer from `pool` (at most `segmentCount` + 1 out at once); nil when all are held.
    /// With a size other than the pool's, a fresh buffer (GetImage at the region size while
    /// scaling — rare: remote displays only).
    private func makeOutputBuffer(_ pool: CVPixelBufferPool, width: Int? = nil, height: Int? = nil) -> CVPixelBuffer? {
        if let width, let height, width != outputWidth || height != outputHeight {
            return try? PixelConverter.allocatePixelBuffer(pixelFormat: kCVPixelFormatType_32BGRA, width: width, height: height)
        }
        let aux = [kCVPixelBufferPoolAllocationThresholdKey as String: NSNumber(value: Self.segmentCount + 1)] as NSDictionary
        var buffer: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &buffer) == kCVReturnSuccess else { return nil }
        return buffer
    }

    /// The error for a failed request: `.disconnected` when the connection broke.
    private func failure(_ error: UnsafeMutablePointer<xcb_generic_error_t>?, request: String) -> LiveSourceError {
        defer { free(error) }
        if connection.hasFailed { return .disconnected("the X server closed the connection") }
        return .failed("X request \(request) failed (error \(error.map { Int($0.pointee.error_code) } ?? -1))")
    }

    /// Sets every pixel's fourth byte to 255 (the X server leaves a depth-24 screen's padding
    /// byte undefined): pixman ADD of opaque black, a saturating add that leaves colours alone.
    private func makeOpaque(_ base: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int) {
        guard let opaque, let image = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(width), Int32(height),
                                                               base.assumingMemoryBound(to: UInt32.self), Int32(bytesPerRow))
        else { return }
        pixman_image_composite32(PIXMAN_OP_ADD, opaque, nil, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
        pixman_image_unref(image)
    }

    /// Draws the cursor (XFIXES image, premultiplied ARGB, OVER) and, while a button is down,
    /// the click ring, at the pointer's place in the captured area.
    private func drawPointer(on buffer: CVPixelBuffer, cursor: Bool, clicks: Bool) {
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        guard let base = CVPixelBufferGetBaseAddress(buffer),
              let destination = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(region.width), Int32(region.height),
                                                         base.assumingMemoryBound(to: UInt32.self),
                                                         Int32(CVPixelBufferGetBytesPerRow(buffer))) else { return }
        defer { pixman_image_unref(destination) }
        let c = connection.pointer
        if clicks, let ring, let reply = xcb_query_pointer_reply(c, xcb_query_pointer(c, root), nil) {
            let buttons = UInt16(XCB_BUTTON_MASK_1.rawValue | XCB_BUTTON_MASK_2.rawValue | XCB_BUTTON_MASK_3.rawValue)
            if reply.pointee.mask & buttons != 0 {
                let x = Int(reply.pointee.root_x) - region.x - ring.size / 2
                let y = Int(reply.pointee.root_y) - region.y - ring.size / 2
                pixman_image_composite32(PIXMAN_OP_OVER, ring.image, nil, destination, 0, 0, 0, 0, Int32(x), Int32(y),
                                         Int32(ring.size), Int32(ring.size))
            }
            free(reply)
        }
        guard cursor, hasXFixes, let reply = xcb_xfixes_get_cursor_image_reply(c, xcb_xfixes_get_cursor_image(c), nil) else { return }
        defer { free(reply) }
        let r = reply.pointee
        guard r.width > 0, r.height > 0, let pixels = xcb_xfixes_get_cursor_image_cursor_image(reply),
              let image = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(r.width), Int32(r.height), pixels, Int32(r.width) * 4)
        else { return }
        defer { pixman_image_unref(image) }
        let x = Int(r.x) - Int(r.xhot) - region.x
        let y = Int(r.y) - Int(r.yhot) - region.y
        pixman_image_composite32(PIXMAN_OP_OVER, image, nil, destination, 0, 0, 0, 0, Int32(x), Int32(y),
                                 Int32(r.width), Int32(r.height))
    }

    /// The click ring: a 32×32 premultiplied ARGB image of a yellow ring, made once.
    private static func makeRing() -> (image: OpaquePointer, bits: UnsafeMutablePointer<UInt32>, size: Int)? {
        let size = 32
        let bits = UnsafeMutablePointer<UInt32>.allocate(capacity: size * size)
        let centre = Double(size - 1) / 2
        for y in 0..<size {
            for x in 0..<size {
                let d = ((Double(x) - centre) * (Double(x) - centre) + (Double(y) - centre) * (Double(y) - centre)).squareRoot()
                let coverage = max(0, 1 - abs(d - 13) / 2.5)
                let a = UInt32((coverage * 200).rounded())
                bits[y * size + x] = a << 24 | a << 16 | a << 8    // premultiplied yellow
            }
        }
        guard let image = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(size), Int32(size), bits, Int32(size * 4)) else {
            bits.deallocate()
            return nil
        }
        return (image, bits, size)
    }

    /// Whether two BGRA buffers of one size hold the same pixels (memcmp row by row).
    private static func samePixels(_ a: CVPixelBuffer, _ b: CVPixelBuffer) -> Bool {
        guard a !== b, let s = a.storage, let t = b.storage, s.width == t.width, s.height == t.height else { return a === b }
        let rowBytes = s.width * 4
        for row in 0..<s.height
        where memcmp(s.planes[0].baseAddress + row * s.planes[0].bytesPerRow,
                     t.planes[0].baseAddress + row * t.planes[0].bytesPerRow, rowBytes) != 0 {
            return false
        }
        return true
    }
}

/// A screen (or an area of it) as a live source: BGRA frames captured when due, paced by a
/// `ClockedPump` at the frame duration and stamped with the clock time they were due at.
///
/// The configuration's area and scale fix the one format; the cursor, click and duplicate
/// options may change while running. When the X server goes away the source fails with
/// `.disconnected` once. A frame due while every buffer is held by consumers (6 shared segments
/// unscaled, 7 pooled buffers scaled) waits up to a frame duration for one, then is skipped; a
/// frame the capture thread reaches late is captured late (up to 2 s), not dropped.
package final class X11ScreenSource: LiveSource, Sendable {
    package let device: X11ScreenDevice
    /// The options and the count of frames skipped.
    private struct State {
        var configuration: ScreenCaptureConfiguration
        var skipped = 0
    }
    private let state: Mutex<State>
    private let pumpThread = PumpThreadSlot()

    package init(device: X11ScreenDevice, configuration: ScreenCaptureConfiguration = ScreenCaptureConfiguration()) {
        self.device = device
        state = Mutex(State(configuration: configuration))
    }

    /// The options; the area and scale apply from the next `start`, the others at once.
    package var configuration: ScreenCaptureConfiguration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    /// Frames not captured because every buffer was held, or left out as duplicates.
    package var skippedCount: Int { state.withLock { $0.skipped } }

    /// The one format: BGRA at the configured area's scaled size, 1/120 s to 60 s per frame.
    package var formats: [LiveVideoFormat] {
        let configuration = self.configuration
        guard let region = configuration.captureRegion(screenWidth: device.width, screenHeight: device.height),
              let size = configuration.outputSize(for: region) else { return [] }
        return Self.formats(width: size.width, height: size.height)
    }

    static func formats(width: Int, height: Int) -> [LiveVideoFormat] {
        [LiveVideoFormat(pixelFormat: kCVPixelFormatType_32BGRA, width: width, height: height,
                         minFrameDuration: CMTime(value: 1, timescale: 120), maxFrameDuration: CMTime(value: 60, timescale: 1))]
    }

    package func start(format: LiveVideoFormat, frameDuration: CMTime, clock: CMClock,
                       deliver: @escaping @Sendable (LiveFrame) -> Void,
                       failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError) {
        try checkStart(format: format, frameDuration: frameDuration, of: "this screen")
        stop()
        let configuration = self.configuration
        guard let region = configuration.captureRegion(screenWidth: device.width, screenHeight: device.height) else {
            throw .unsupportedFormat("the crop rectangle \(configuration.cropRect) is outside the screen")
        }
        let grabber = try X11Grabber(server: device.server, screenNumber: device.screenNumber, region: region,
                                     outputWidth: format.width, outputHeight: format.height)
        grabber.segmentWait = frameDuration.seconds
        let timeline = try LiveTimeline(clock: clock, timescale: LiveTimeline.timescale(for: frameDuration))
        var tick: UInt64 = 0
        let failure = PumpRunBox<LiveSourceError?>(nil)
        // A frame the thread could not capture on time (the machine busy for a moment) is
        // captured late, as x11grab does; only a stall of more than `catchUp` drops the frames
        // it missed, rather than capturing them all at once.
        let catchUp = CMTimeMaximum(frameDuration, CMTime(value: 2, timescale: 1))
        let pump = ClockedPump<UInt64>(timebase: timeline.timebase, produce: {
            guard failure.value == nil else { return nil }
            defer { tick += 1 }
            return (tick, CMTimeMultiply(frameDuration, multiplier: Int32(clamping: tick)), catchUp)
        }, release: { [weak self] n, time in
            let options = self?.configuration ?? configuration
            // Stamped with the time it was due (as the test pattern is): steady intervals in a
            // recording, also for a frame captured a little late.
            let pts = timeline.pts(time)
            do {
                guard let buffer = try grabber.grab(cursor: options.capturesCursor, clicks: options.capturesMouseClicks,
                                                    removesDuplicates: options.removesDuplicateFrames) else {
                    self?.state.withLock { $0.skipped += 1 }
                    return
                }
                deliver(LiveFrame(pixelBuffer: buffer, pts: pts, duration: frameDuration, sequence: n))
            } catch {
                failure.value = error as? LiveSourceError ?? .failed("\(error)")
            }
        })
        // The timebase runs on the clock at rate 1, so the pump can sleep until a frame is due:
        // one wake a frame (not one every 5 ms), while stop() still returns within 50 ms.
        pump.maximumSleep = CMTimeMinimum(frameDuration, CMTime(value: 50, timescale: 1000))
        pumpThread.run(pump, name: "x11 screen \(device.uniqueID)", failure: failure, failed: failed)
    }

    package func stop() {
        pumpThread.stop()
    }
}

/// A plain X client for tests and tools: fills rectangles on a screen's root window and moves
/// the pointer, through its own connection.
package final class X11TestClient: Sendable {
    /// The connection, used by one request at a time.
    private let connection: Mutex<X11Connection>

    /// Connects to `display`; `.disconnected` when it cannot.
    package init(display: String) throws(LiveSourceError) {
        guard let name = X11DisplayName(display) else { throw .disconnected("\(display) is not an X display name") }
        connection = Mutex(try X11Connection(server: name.server))
    }

    /// Fills the rectangle (top-left origin) of `screen`'s root window with 0xRRGGBB, and waits
    /// until the server has drawn it.
    package func fill(x: Int, y: Int, width: Int, height: Int, rgb: UInt32, screen: Int = 0) {
        connection.withLock { connection in
            let c = connection.pointer
            let root = connection.screens[screen].root
            let gc = xcb_generate_id(c)
            var values: [UInt32] = [rgb, 1]    // foreground, subwindow mode IncludeInferiors
            xcb_create_gc(c, gc, root, UInt32(XCB_GC_FOREGROUND.rawValue | XCB_GC_SUBWINDOW_MODE.rawValue), &values)
            var rect = xcb_rectangle_t(x: Int16(x), y: Int16(y), width: UInt16(width), height: UInt16(height))
            xcb_poly_fill_rectangle(c, root, gc, 1, &rect)
            xcb_free_gc(c, gc)
            connection.sync()
        }
    }

    /// Moves the pointer to (`x`, `y`) on `screen` (top-left origin), and waits until it moved.
    package func warpPointer(x: Int, y: Int, screen: Int = 0) {
        connection.withLock { connection in
            let c = connection.pointer
            xcb_warp_pointer(c, 0, connection.screens[screen].root, 0, 0, 0, 0, Int16(x), Int16(y))
            connection.sync()
        }
    }
}
