// Helpers for the asset writer tests: pixel buffers with numbered pictures, a writing loop as
// Apple code writes it, and ffprobe's view of what was written.
import AVFoundation
import Foundation
import Testing

enum WriterFixtures {
    /// A fresh path (the file does not exist) in a fresh temporary directory.
    static func outputURL(_ name: String) throws -> URL {
        try AssetFixtures.tempDirectory().appendingPathComponent(name)
    }

    /// A pixel buffer of `format` whose picture encodes `index`: luma (or grey level) ramps with
    /// the index, plus a moving bar so consecutive pictures differ.
    static func pixelBuffer(width: Int, height: Int, format: OSType = kCVPixelFormatType_32BGRA, index: Int,
                            pool: CVPixelBufferPool? = nil) -> CVPixelBuffer {
        var buffer: CVPixelBuffer?
        if let pool {
            CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer)
        } else {
            CVPixelBufferCreate(nil, width, height, format, nil, &buffer)
        }
        guard let buffer else { fatalError("cannot create a \(width)×\(height) pixel buffer") }
        fill(buffer, index: index)
        return buffer
    }

    static func fill(_ buffer: CVPixelBuffer, index: Int) {
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
        let level = UInt8(truncatingIfNeeded: 40 + (index * 7) % 170)
        let bar = (index * 8) % max(1, width)
        switch CVPixelBufferGetPixelFormatType(buffer) {
        case kCVPixelFormatType_32BGRA:
            let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
            let stride = CVPixelBufferGetBytesPerRow(buffer)
            for y in 0..<height {
                let row = base + y * stride
                for x in 0..<width {
                    let inBar = abs(x - bar) < 8
                    row[x * 4] = inBar ? 255 : level
                    row[x * 4 + 1] = UInt8(truncatingIfNeeded: y)
                    row[x * 4 + 2] = inBar ? 0 : level
                    row[x * 4 + 3] = 255
                }
            }
        default:
            // Planar/bi-planar Y'CbCr: luma ramp and bar, neutral chroma.
            for plane in 0..<CVPixelBufferGetPlaneCount(buffer) {
                let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane)!.assumingMemoryBound(to: UInt8.self)
                let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
                let rows = CVPixelBufferGetHeightOfPlane(buffer, plane)
                for y in 0..<rows {
                    let row = base + y * stride
                    if plane == 0 {
                        for x in 0..<width { row[x] = abs(x - bar) < 8 ? 235 : level }
                    } else {
                        memset(row, 128, stride)
                    }
                }
            }
        }
    }

    /// Writes `count` pictures through a pixel buffer adaptor the way Apple's sample code does,
    /// frame `i` at `i`/`fps` seconds. Returns the finished writer.
    @discardableResult
    static func writeFrames(to url: URL, fileType: AVFileType = .mp4, settings: [String: Any], count: Int,
                            width: Int, height: Int, format: OSType = kCVPixelFormatType_32BGRA, fps: Int32 = 30,
                            configure: (AVAssetWriter, AVAssetWriterInput) -> Void = { _, _ in }) async throws -> AVAssetWriter {
        let writer = try AVAssetWriter(outputURL: url, fileType: fileType)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: format),
            kCVPixelBufferWidthKey as String: width, kCVPixelBufferHeightKey as String: height])
        configure(writer, input)
        #expect(writer.canAdd(input))
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        for i in 0..<count {
            while !input.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            let buffer = pixelBuffer(width: width, height: height, format: format, index: i, pool: adaptor.pixelBufferPool)
            #expect(adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(i), timescale: fps)))
        }
        input.markAsFinished()
        await writer.finishWriting()
        return writer
    }

    /// ffprobe's `key=value` lines for the first stream of `type` ("v", "a").
    static func stream(_ url: URL, _ type: String = "v") throws -> [String: String] {
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "\(type):0", "-show_streams", "-of",
                                                   "default=nw=1", url.path]).output
        var fields: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, fields[parts[0]] == nil { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// The packets of the first stream of `type` as (pts, dts, duration, keyframe), in file order.
    static func packets(_ url: URL, _ type: String = "v") throws -> [(pts: Int64, dts: Int64, duration: Int64, key: Bool)] {
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "\(type):0", "-show_entries",
                                                   "packet=pts,dts,duration,flags", "-of", "csv=p=0", url.path]).output
        return out.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4 else { return nil }
            return (Int64(f[0]) ?? -1, Int64(f[1]) ?? -1, Int64(f[2]) ?? -1, f[3].contains("K"))
        }
    }

    /// The presentation times (seconds) of the decoded frames of the first video stream, sorted.
    static func framePresentationTimes(_ url: URL) throws -> [Double] {
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                   "frame=pts_time", "-of", "csv=p=0", url.path]).output
        return out.split(separator: "\n").compactMap { line in
            line.split(separator: ",").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }.sorted()
    }
}

@Suite struct AssetWriterSupportTests {
    @Test func pixelBuffersDifferFromFrameToFrame() {
        let a = WriterFixtures.pixelBuffer(width: 64, height: 32, index: 0)
        let b = WriterFixtures.pixelBuffer(width: 64, height: 32, index: 1)
        CVPixelBufferLockBaseAddress(a, .readOnly)
        CVPixelBufferLockBaseAddress(b, .readOnly)
        defer {
            CVPixelBufferUnlockBaseAddress(a, .readOnly)
            CVPixelBufferUnlockBaseAddress(b, .readOnly)
        }
        let pa = CVPixelBufferGetBaseAddress(a)!.assumingMemoryBound(to: UInt8.self)
        let pb = CVPixelBufferGetBaseAddress(b)!.assumingMemoryBound(to: UInt8.self)
        #expect(pa[0] != pb[0])
    }
}
