// V4L2Camera: a V4L2 camera as a live source — S_FMT/S_PARM, four mmap buffers streamed with
// QBUF/DQBUF on a capture thread, frames wrapped without a copy (YUYV, UYVY, NV12, YU12, GREY)
// or decoded (MJPEG, libavcodec) into pooled '420v' buffers, stamped with the driver's monotonic
// timestamps (the host clock's time base).
internal import CFFmpeg
internal import CV4L2
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// A V4L2 camera's frames.
///
/// The camera's mmap buffers (4) are the bounded pool of the zero-copy formats: a buffer goes
/// back to the driver (QBUF) when the last pixel buffer over it is released, so consumers holding
/// every buffer stop delivery (the driver drops frames meanwhile; the gaps in its sequence
/// numbers are counted). MJPEG frames are decoded and requeued at once. Errors: a camera that is
/// unplugged (ENODEV, EIO) fails the source with `.disconnected` once; EBUSY at start is "in use
/// by another application".
package final class V4L2CameraSource: LiveSource, Sendable {
    package let device: V4L2CameraDevice
    /// The current run.
    private let stream = Mutex<V4L2Stream?>(nil)

    package init(device: V4L2CameraDevice) {
        self.device = device
    }

    package var formats: [LiveVideoFormat] { device.videoFormats }

    /// Frames the driver dropped (sequence gaps) in the current or last run.
    package var droppedByDriver: Int { stream.withLock { $0 }?.droppedByDriver ?? 0 }

    package func start(format: LiveVideoFormat, frameDuration: CMTime, clock: CMClock,
                       deliver: @escaping @Sendable (LiveFrame) -> Void,
                       failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError) {
        try checkStart(format: format, frameDuration: frameDuration, of: device.localizedName)
        stop()
        guard let cameraFormat = device.cameraFormat(for: format) else {
            throw .unsupportedFormat("\(format) is not a format of \(device.localizedName)")
        }
        let stream = try V4L2Stream(path: device.path, format: cameraFormat, frameDuration: frameDuration)
        try stream.start(clock: clock, deliver: deliver, failed: failed)
        self.stream.withLock { $0 = stream }
    }

    package func stop() {
        let stream = stream.withLock { current -> V4L2Stream? in
            defer { current = nil }
            return current
        }
        stream?.stop()
    }
}

/// The camera's mmap buffers and the open node. Unmapped, freed (REQBUFS 0) and closed when the
/// last pixel buffer over them goes, not at `stop()`: a consumer may hold a frame past it.
// Invariant: the mapped buffers are written only by the driver; QBUF and STREAMOFF run under `streaming`'s lock.
private final class V4L2Mapping: @unchecked Sendable {
    let handle: V4L2Handle
    let buffers: [(address: UnsafeMutableRawPointer, length: Int)]
    /// Whether the stream is on (QBUF allowed); held across QBUF and STREAMOFF.
    private let streaming = Mutex(true)

    init(handle: V4L2Handle, count: Int) throws(LiveSourceError) {
        self.handle = handle
        var mapped: [(address: UnsafeMutableRawPointer, length: Int)] = []
        for index in 0..<count {
            var buffer = v4l2_buffer()
            buffer.index = UInt32(index)
            buffer.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
            buffer.memory = AVF_V4L2_MEMORY_MMAP
            if let e = handle.ioctl(AVF_VIDIOC_QUERYBUF, &buffer) {
                Self.unmap(mapped)
                throw V4L2Handle.error(e, "VIDIOC_QUERYBUF on \(handle.path)")
            }
            guard let address = avf_mmap_buffer(handle.fd, Int(buffer.length), Int64(buffer.m.offset)) else {
                let e = errno
                Self.unmap(mapped)
                throw V4L2Handle.error(e, "mmap of a buffer of \(handle.path)")
            }
            mapped.append((address, Int(buffer.length)))
        }
        buffers = mapped
    }

    deinit {
        Self.unmap(buffers)
        var request = v4l2_requestbuffers()
        request.count = 0
        request.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
        request.memory = AVF_V4L2_MEMORY_MMAP
        _ = handle.ioctl(AVF_VIDIOC_REQBUFS, &request)
    }

    private static func unmap(_ buffers: [(address: UnsafeMutableRawPointer, length: Int)]) {
        for b in buffers { munmap(b.address, b.length) }
    }

    /// Gives buffer `index` to the driver; nothing once streaming stopped. The errno on failure.
    @discardableResult
    func queue(_ index: Int) -> Int32? {
        streaming.withLock { streaming in
            guard streaming else { return nil }
            var buffer = v4l2_buffer()
            buffer.index = UInt32(index)
            buffer.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
            buffer.memory = AVF_V4L2_MEMORY_MMAP
            return handle.ioctl(AVF_VIDIOC_QBUF, &buffer)
        }
    }

    /// STREAMOFF (the driver lets go of every buffer); later `queue` calls do nothing.
    func streamOff() {
        streaming.withLock { streaming in
            guard streaming else { return }
            streaming = false
            var type = Int32(AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE)
            _ = handle.ioctl(AVF_VIDIOC_STREAMOFF, &type)
        }
    }
}

/// One streaming run of a camera: format set, buffers queued, the capture thread.
final class V4L2Stream: Sendable {
    let width: Int
    let height: Int
    let fourCC: V4L2FourCC
    let bytesPerLine: Int
    let frameDuration: CMTime
    private let mapping: V4L2Mapping
    /// Whether the capture thread is told to end, and the frames the driver dropped.
    private struct State {
        var cancelled = false
        var dropped = 0
    }
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)
    private let decoder: MJPEGFrameDecoder?

    static let bufferCount = 4

    init(path: String, format: V4L2CameraFormat, frameDuration: CMTime) throws(LiveSourceError) {
        let handle = try V4L2Handle(path: path)
        // Format: the driver may change what it cannot do; a different size or fourcc is refused.
        var f = v4l2_format()
        f.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
        f.fmt.pix.width = UInt32(format.size.width)
        f.fmt.pix.height = UInt32(format.size.height)
        f.fmt.pix.pixelformat = format.fourCC.rawValue
        f.fmt.pix.field = AVF_V4L2_FIELD_ANY
        if let e = handle.ioctl(AVF_VIDIOC_S_FMT, &f) { throw V4L2Handle.error(e, "VIDIOC_S_FMT on \(path)") }
        guard f.fmt.pix.pixelformat == format.fourCC.rawValue, Int(f.fmt.pix.width) == format.size.width,
              Int(f.fmt.pix.height) == format.size.height else {
            throw .unsupportedFormat("\(path) gave \(V4L2FourCC(rawValue: f.fmt.pix.pixelformat)) \(f.fmt.pix.width)x"
                                     + "\(f.fmt.pix.height) for \(format.fourCC) \(format.size.width)x\(format.size.height)")
        }
        width = format.size.width
        height = format.size.height
        fourCC = format.fourCC
        let minimumLine = fourCC == .yuyv || fourCC == .uyvy ? width * 2 : width
        bytesPerLine = max(Int(f.fmt.pix.bytesperline), minimumLine)
        self.frameDuration = frameDuration
        // Frame interval, when the driver takes one.
        var parm = v4l2_streamparm()
        parm.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
        if handle.ioctl(AVF_VIDIOC_G_PARM, &parm) == nil, parm.parm.capture.capability & AVF_V4L2_CAP_TIMEPERFRAME != 0,
           frameDuration.value > 0, frameDuration.timescale > 0 {
            parm.parm.capture.timeperframe = v4l2_fract(numerator: UInt32(clamping: frameDuration.value),
                                                        denominator: UInt32(clamping: frameDuration.timescale))
            _ = handle.ioctl(AVF_VIDIOC_S_PARM, &parm)
        }
        var request = v4l2_requestbuffers()
        request.count = UInt32(Self.bufferCount)
        request.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
        request.memory = AVF_V4L2_MEMORY_MMAP
        if let e = handle.ioctl(AVF_VIDIOC_REQBUFS, &request) { throw V4L2Handle.error(e, "VIDIOC_REQBUFS on \(path)") }
        guard request.count >= 2 else { throw .failed("\(path) gave \(request.count) buffers; streaming needs 2 or more") }
        mapping = try V4L2Mapping(handle: handle, count: Int(request.count))
        decoder = format.fourCC.delivery?.zeroCopy != true
            ? try MJPEGFrameDecoder(width: width, height: height, poolCapacity: Self.bufferCount) : nil
    }

    var droppedByDriver: Int { state.withLock { $0.dropped } }

    /// Queues every buffer, STREAMON, and starts the capture thread.
    func start(clock: CMClock, deliver: @escaping @Sendable (LiveFrame) -> Void,
               failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError) {
        for index in mapping.buffers.indices {
            if let e = mapping.queue(index) { throw V4L2Handle.error(e, "VIDIOC_QBUF on \(mapping.handle.path)") }
        }
        var type = Int32(AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE)
        if let e = mapping.handle.ioctl(AVF_VIDIOC_STREAMON, &type) {
            mapping.streamOff()
            throw V4L2Handle.error(e, "VIDIOC_STREAMON on \(mapping.handle.path)")
        }
        let thread = Thread { [self] in
            if let error = captureLoop(clock: clock, deliver: deliver) {
                mapping.streamOff()
                failed(error)
            }
            done.signal()
        }
        thread.name = "v4l2 \(mapping.handle.path)"
        thread.start()
    }

    /// Stops the thread (no delivery after it returns) and the stream. Not on the capture thread.
    func stop() {
        state.withLock { $0.cancelled = true }
        done.wait()
        done.signal()
        mapping.streamOff()
    }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// poll + DQBUF until cancelled; the error that ended it, if any.
    private func captureLoop(clock: CMClock, deliver: @Sendable (LiveFrame) -> Void) -> LiveSourceError? {
        let fd = mapping.handle.fd
        let hostClock = clock === CMClockGetHostTimeClock()
        var lastSequence: UInt32?
        while !isCancelled {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                return V4L2Handle.error(errno, "poll on \(mapping.handle.path)")
            }
            if ready == 0 { continue }
            if isCancelled { break }
            var buffer = v4l2_buffer()
            buffer.type = AVF_V4L2_BUF_TYPE_VIDEO_CAPTURE
            buffer.memory = AVF_V4L2_MEMORY_MMAP
            if let e = mapping.handle.ioctl(AVF_VIDIOC_DQBUF, &buffer) {
                if e == EAGAIN {
                    // With every buffer held by clients none is queued, and videobuf2's poll
                    // reports POLLERR at once: wait for a buffer to come back instead of spinning.
                    if pfd.revents & Int16(POLLERR) != 0 { usleep(5_000) }
                    continue
                }
                return V4L2Handle.error(e, "VIDIOC_DQBUF on \(mapping.handle.path)")
            }
            let index = Int(buffer.index)
            if let last = lastSequence, buffer.sequence > last &+ 1 {
                let gap = Int(buffer.sequence &- last &- 1)
                state.withLock { $0.dropped += gap }
            }
            lastSequence = buffer.sequence
            if buffer.flags & AVF_V4L2_BUF_FLAG_ERROR != 0 || buffer.bytesused == 0 {
                mapping.queue(index)
                continue
            }
            let pts: CMTime
            if hostClock, buffer.flags & AVF_V4L2_BUF_FLAG_TIMESTAMP_MASK == AVF_V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC {
                let ns = Int64(buffer.timestamp.tv_sec) * 1_000_000_000 + Int64(buffer.timestamp.tv_usec) * 1_000
                pts = CMTime(value: ns, timescale: 1_000_000_000)
            } else {
                pts = CMClockGetTime(clock)
            }
            let pixelBuffer: CVPixelBuffer?
            if decoder != nil {
                pixelBuffer = decode(index: index, bytes: Int(buffer.bytesused))
                mapping.queue(index)
            } else {
                pixelBuffer = wrap(index: index)
                if pixelBuffer == nil { mapping.queue(index) }
            }
            guard let pixelBuffer else { continue }
            deliver(LiveFrame(pixelBuffer: pixelBuffer, pts: pts, duration: frameDuration, sequence: UInt64(buffer.sequence)))
        }
        return nil
    }

    /// A pixel buffer over buffer `index`'s memory; the buffer goes back to the driver when the
    /// last reference goes.
    private func wrap(index: Int) -> CVPixelBuffer? {
        let mapping = self.mapping
        let buffer = mapping.buffers[index]
        return Self.wrapFrame(base: buffer.address, length: buffer.length, fourCC: fourCC, width: width, height: height,
                              bytesPerLine: bytesPerLine, release: { mapping.queue(index) })
    }

    /// A pixel buffer over one camera buffer of a zero-copy format (`bytesPerLine` per luma or
    /// packed line, as `G_FMT` says; planar chroma lines half of it), `release` called once when
    /// the last reference goes; nil when the format is not zero-copy or the buffer too short.
    static func wrapFrame(base: UnsafeMutableRawPointer, length: Int, fourCC: V4L2FourCC, width: Int, height: Int,
                          bytesPerLine: Int, release: @escaping @Sendable () -> Void) -> CVPixelBuffer? {
        guard let delivery = fourCC.delivery, delivery.zeroCopy,
              let layout = CVPixelFormatLayout.layout(for: delivery.pixelFormat) else { return nil }
        var planes: [CVPixelStorage.Plane] = []
        var offset = 0
        for (i, plane) in layout.planes.enumerated() {
            // Chroma planes of planar 4:2:0 have half the luma's line length; NV12's interleaved
            // chroma has the luma's.
            let line = fourCC == .yu12 && i > 0 ? bytesPerLine / 2 : bytesPerLine
            let rows = plane.height(forImageHeight: height)
            planes.append(CVPixelStorage.Plane(baseAddress: base + offset, width: plane.width(forImageWidth: width), height: rows,
                                               bytesPerRow: line))
            offset += line * rows
        }
        guard offset <= length else { return nil }
        let storage = CVPixelStorage(width: width, height: height, pixelFormat: delivery.pixelFormat, planes: planes,
                                     baseAddress: layout.isPlanar ? nil : base, dataSize: offset, release: release)
        return CVBuffer(storage: storage)
    }

    /// Buffer `index`'s JPEG decoded (nil for a corrupt frame or a full pool).
    private func decode(index: Int, bytes: Int) -> CVPixelBuffer? {
        guard let decoder else { return nil }
        let buffer = mapping.buffers[index]
        return decoder.decode(UnsafeRawBufferPointer(start: buffer.address, count: min(bytes, buffer.length)))
    }
}

/// Decodes a camera's MJPEG frames (libavcodec's mjpeg decoder, one thread: no frame delay) into
/// pooled `'420v'` buffers (swscale from the JPEG's full-range 4:2:2 or 4:2:0).
package final class MJPEGFrameDecoder: Sendable {
    package let width: Int
    package let height: Int
    /// How many decoded frames may be out at once.
    package let poolCapacity: Int
    /// The decoder, used by one decode at a time.
    private let decoder: Mutex<Decoder>
    private let pool: CVPixelBufferPool

    package init(width: Int, height: Int, poolCapacity: Int = 4) throws(LiveSourceError) {
        self.width = width
        self.height = height
        self.poolCapacity = poolCapacity
        do {
            decoder = Mutex(try Decoder(codecName: "mjpeg", width: width, height: height))
        } catch {
            throw .failed("cannot open an MJPEG decoder: \(error)")
        }
        guard let made = CVPixelBufferPool.make(pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, width: width, height: height) else {
            throw .failed("cannot make a pool of \(width)×\(height) '420v' buffers")
        }
        pool = made
    }

    /// One JPEG picture decoded into a pooled buffer; nil when it is corrupt, not of the
    /// decoder's size, or every pooled buffer is held.
    package func decode(_ bytes: UnsafeRawBufferPointer) -> CVPixelBuffer? {
        decoder.withLock { decoder in
            guard let base = bytes.baseAddress, bytes.count > 0, let packet = av_packet_alloc() else { return nil }
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            defer { av_packet_free(&owned) }
            // Not reference counted: libavcodec copies the bytes, so the camera buffer can be requeued at once.
            packet.pointee.data = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
            packet.pointee.size = Int32(clamping: bytes.count)
            packet.pointee.flags = AV_PKT_FLAG_KEY
            guard (try? decoder.send(UnsafePointer(packet))) == true,
                  case .frame(let decoded)? = try? decoder.receive(), !decoded.isCorrupt,
                  decoded.width == width, decoded.height == height else { return nil }
            let aux = [kCVPixelBufferPoolAllocationThresholdKey as String: NSNumber(value: poolCapacity)] as NSDictionary
            var output: CVPixelBuffer?
            guard CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &output) == kCVReturnSuccess,
                  let output else { return nil }
            let f = decoded.frame
            let image = PixelImage(format: AVPixelFormat(rawValue: f.pointee.format), width: width, height: height,
                                   fullRange: true, matrix: .itu601,
                                   data: VideoFrame.dataPointers(f), linesize: VideoFrame.lineSizes(f))
            // JFIF pictures are BT.601 at every size: said on the buffer, kept by the conversion
            // (only the range changes).
            PixelFormatColor.setAttachment(PixelFormatColor.matrixKey, PixelFormatColor.Matrix.itu601.rawValue, on: output)
            do {
                try PixelConverter.shared.convert(image, into: output)
            } catch {
                return nil
            }
            return output
        }
    }
}
