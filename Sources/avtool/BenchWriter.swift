// The writer case of `avtool bench`: 1080p pixel buffers encoded to H.264 MP4 through
// AVAssetWriter + AVAssetWriterInputPixelBufferAdaptor, against the ffmpeg CLI encoding the same
// raw frames with the same libx264 settings.
import AVFoundation

/// Frames, size and encoder settings of the writer benchmark.
private enum WriterBench {
    static let width = 1920, height = 1080, frames = 300, fps: Int32 = 30, bitRate = 8_000_000
}

/// Times encoding 300 frames of 1920×1080 video to H.264 (libx264, preset medium, 8 Mbit/s
/// average) in an MP4, for '420v' (NV12, handed to x264 without a copy) and BGRA (converted to
/// 4:2:0 on the way) pixel buffers: our writer (pixel buffers filled from the raw frames, appended
/// through the adaptor's pool while the input is ready) against `ffmpeg -f rawvideo -pix_fmt …
/// -s 1920x1080 -r 30 -i RAW -c:v libx264 -b:v 8M OUT.mp4` (its default preset is medium; BGRA
/// gets `-pix_fmt yuv420p`, converted by the same libswscale). Raw inputs (made once with
/// testsrc2) are kept in `dir`. Prints one line per format; returns the best-of-`repeats` times.
@discardableResult
func benchWriter(in dir: URL, repeats: Int, formats: Set<String> = ["420v", "BGRA"], sides: Set<String> = ["ours", "ffmpeg"])
    throws -> [(label: String, ours: Double, ffmpeg: Double)] {
    let (w, h, n) = (WriterBench.width, WriterBench.height, WriterBench.frames)
    var results: [(String, Double, Double)] = []
    for (name, format, ffmpegFormat, bytesPerFrame) in [("420v", kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, "nv12", w * h * 3 / 2),
                                                        ("BGRA", kCVPixelFormatType_32BGRA, "bgra", w * h * 4)]
        where formats.contains(name) {
        let raw = dir.appendingPathComponent("writer-\(w)x\(h)-\(n).\(ffmpegFormat)")
        if !FileManager.default.fileExists(atPath: raw.path) {
            try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(w)x\(h):r=30",
                                   "-frames:v", "\(n)", "-pix_fmt", ffmpegFormat, "-f", "rawvideo", raw.path])
        }
        let size = (try FileManager.default.attributesOfItem(atPath: raw.path)[.size] as? Int) ?? 0
        guard size >= bytesPerFrame * n else { throw DemoError("\(raw.path) is too short") }
        let out = dir.appendingPathComponent("writer-out-\(name)")
        try? FileManager.default.removeItem(at: out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["AVTOOL_KEEP_BENCH_OUTPUT"] == nil { try? FileManager.default.removeItem(at: out) } }
        var ours = Double.infinity, theirs = Double.infinity
        var ourCPU = Double.infinity, theirCPU = Double.infinity
        for run in 0..<max(1, repeats) {
            let ourFile = out.appendingPathComponent("ours-\(name)-\(run).mp4")
            var c0 = cpuSeconds(RUSAGE_SELF)
            var t0 = DispatchTime.now().uptimeNanoseconds
            if sides.contains("ours") {
                try writeBenchFrames(raw, format: format, to: ourFile)
                ours = min(ours, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                ourCPU = min(ourCPU, cpuSeconds(RUSAGE_SELF) - c0)
            }
            let theirFile = out.appendingPathComponent("ffmpeg-\(name)-\(run).mp4")
            var args = ["-v", "error", "-nostdin", "-y", "-f", "rawvideo", "-pix_fmt", ffmpegFormat, "-s", "\(w)x\(h)",
                        "-r", "\(WriterBench.fps)", "-i", raw.path, "-c:v", "libx264", "-b:v", "\(WriterBench.bitRate)"]
            if ffmpegFormat == "bgra" { args += ["-pix_fmt", "yuv420p"] }
            c0 = cpuSeconds(RUSAGE_CHILDREN)
            t0 = DispatchTime.now().uptimeNanoseconds
            if sides.contains("ffmpeg") {
                try runTool("ffmpeg", args + [theirFile.path])
                theirs = min(theirs, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                theirCPU = min(theirCPU, cpuSeconds(RUSAGE_CHILDREN) - c0)
            }
        }
        let label = "H.264 writer \(n)×1080p \(name) pixel buffers"
        print(label.padding(toLength: 44, withPad: " ", startingAt: 0)
              + String(format: "%7.3f s   %7.3f s   %5.2f×   (CPU %.1f s vs %.1f s)", ours, theirs, ours / theirs, ourCPU, theirCPU))
        results.append((label, ours, theirs))
    }
    return results
}

/// User + system CPU seconds used so far by this process (`RUSAGE_SELF`) or its waited-for children.
private func cpuSeconds(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Writes the frames of the file `raw` (tightly packed `format` pictures) to an H.264 MP4 at `url`
/// with AVAssetWriter, as an Apple program would; each picture is read from the file straight into
/// a pixel buffer of the adaptor's pool (as ffmpeg reads its input).
private func writeBenchFrames(_ raw: URL, format: OSType, to url: URL) throws {
    let (w, h, n) = (WriterBench.width, WriterBench.height, WriterBench.frames)
    let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
    let input = AVAssetWriterInput(mediaType: .video, outputSettings: [
        AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: w, AVVideoHeightKey: h,
        AVVideoCompressionPropertiesKey: [AVVideoAverageBitRateKey: WriterBench.bitRate,
                                          AVVideoExpectedSourceFrameRateKey: WriterBench.fps]])
    let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: [
        kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: format),
        kCVPixelBufferWidthKey as String: w, kCVPixelBufferHeightKey as String: h])
    writer.add(input)
    guard writer.startWriting(), let pool = adaptor.pixelBufferPool else {
        throw DemoError("cannot start writing: \(String(describing: writer.error))")
    }
    writer.startSession(atSourceTime: .zero)
    let planes: [(offset: Int, rowBytes: Int, rows: Int)] = format == kCVPixelFormatType_32BGRA
        ? [(0, w * 4, h)] : [(0, w, h), (w * h, w, h / 2)]
    let frameBytes = planes.reduce(0) { $0 + $1.rowBytes * $1.rows }
    // Apple's pattern: the input asks for frames on a queue whenever it can take more.
    final class Producer: @unchecked Sendable {
        let fd: Int32
        var next = 0
        var failure: String?
        init(fd: Int32) { self.fd = fd }
    }
    let fd = open(raw.path, O_RDONLY)
    guard fd >= 0 else { throw DemoError("cannot open \(raw.path)") }
    defer { close(fd) }
    let producer = Producer(fd: fd)
    let done = DispatchSemaphore(value: 0)
    input.requestMediaDataWhenReady(on: DispatchQueue(label: "bench.frames")) {
        while input.isReadyForMoreMediaData {
            let i = producer.next
            guard i < n else {
                input.markAsFinished()
                writer.finishWriting { done.signal() }
                return
            }
            var made: CVPixelBuffer?
            CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made)
            guard let buffer = made else { producer.failure = "no pixel buffer"; producer.next = n; continue }
            CVPixelBufferLockBaseAddress(buffer, [])
            var complete = true
            let frame = off_t(i * frameBytes)
            for (p, plane) in planes.enumerated() {
                let base = planes.count > 1 ? CVPixelBufferGetBaseAddressOfPlane(buffer, p)! : CVPixelBufferGetBaseAddress(buffer)!
                let stride = planes.count > 1 ? CVPixelBufferGetBytesPerRowOfPlane(buffer, p) : CVPixelBufferGetBytesPerRow(buffer)
                if stride == plane.rowBytes {
                    let bytes = plane.rowBytes * plane.rows
                    complete = complete && pread(producer.fd, base, bytes, frame + off_t(plane.offset)) == bytes
                } else {
                    for y in 0..<plane.rows {
                        complete = complete && pread(producer.fd, base + y * stride, plane.rowBytes,
                                                     frame + off_t(plane.offset + y * plane.rowBytes)) == plane.rowBytes
                    }
                }
            }
            CVPixelBufferUnlockBaseAddress(buffer, [])
            guard complete else { producer.failure = "short read"; producer.next = n; continue }
            if !adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(i), timescale: WriterBench.fps)) {
                producer.failure = "append failed: \(String(describing: writer.error))"
                producer.next = n
                continue
            }
            producer.next = i + 1
        }
    }
    done.wait()
    if let failure = producer.failure { throw DemoError(failure) }
    guard writer.status == .completed else { throw DemoError("writing failed: \(String(describing: writer.error))") }
}
