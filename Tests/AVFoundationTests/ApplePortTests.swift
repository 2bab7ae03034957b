// Programs written against Apple's Swift API, as a developer porting from macOS/iOS would have
// them: only `import AVFoundation`, Apple's names and call shapes, and outcomes checked against
// what Apple documents (and, for files, against the ffmpeg CLI).
import Testing
import AVFoundation
import TestSupport

@Suite("Programs written against Apple's API")
struct ApplePortTests {

    // AV Foundation Programming Guide, "Using CMTime".
    @Test func guideWorkedExample() {
        let time1 = CMTimeMake(value: 200, timescale: 2)   // 200 half-seconds
        let time2 = CMTimeMake(value: 400, timescale: 4)   // 400 quarter-seconds
        #expect(CMTimeCompare(time1, time2) == 0)

        let float64Seconds = 200.0 / 3
        var time3 = CMTimeMakeWithSeconds(float64Seconds, preferredTimescale: 3)  // 66.66… third-seconds
        time3 = CMTimeMultiply(time3, multiplier: 3)
        // time3 now represents 200 seconds; next subtract time1 (100 seconds).
        time3 = CMTimeSubtract(time3, time1)
        #expect(CMTimeCompare(time2, time3) == 0)
        #expect(time2 == time3)
        #expect(CMTimeGetSeconds(time3) == 100)
    }

    // Learning AV Foundation, ch. 9: CMTimeShow and CMTimeRangeShow output.
    @Test func bookDescriptions() {
        func show(_ t: CMTime) -> String? { CMTimeCopyDescription(allocator: nil, time: t) as String? }
        #expect(show(CMTimeMake(value: 3, timescale: 1)) == "{3/1 = 3.000}")
        #expect(show(CMTimeMake(value: 1800, timescale: 600)) == "{1800/600 = 3.000}")
        #expect(show(CMTimeMake(value: 3000, timescale: 1000)) == "{3000/1000 = 3.000}")
        #expect(show(CMTimeMake(value: 132300, timescale: 44100)) == "{132300/44100 = 3.000}")
        let five = CMTimeMake(value: 5, timescale: 1), three = CMTimeMake(value: 3, timescale: 1)
        #expect(show(CMTimeAdd(five, three)) == "{8/1 = 8.000}")
        #expect(show(CMTimeSubtract(five, three)) == "{2/1 = 2.000}")
        let time = CMTimeMake(value: 5000, timescale: 1000)
        #expect(show(CMTimeMake(value: time.value, timescale: time.timescale / 2)) == "{5000/500 = 10.000}")
        #expect(show(CMTimeMake(value: time.value, timescale: time.timescale * 2)) == "{5000/2000 = 2.500}")

        let fiveSeconds = CMTimeMake(value: 5, timescale: 1)
        let tenSeconds = CMTimeMake(value: 10, timescale: 1)
        let r1 = CMTimeRangeMake(start: fiveSeconds, duration: fiveSeconds)
        let r2 = CMTimeRangeFromTimeToTime(start: fiveSeconds, end: tenSeconds)
        #expect(CMTimeRangeCopyDescription(allocator: nil, range: r1) as String? == "{{5/1 = 5.000}, {5/1 = 5.000}}")
        #expect(CMTimeRangeEqual(r1, r2))
    }

    // The Swift overlay spellings ported code uses.
    @Test func swiftOverlayTime() {
        let half = CMTime(value: 1, timescale: 2)
        let third = CMTime(seconds: 1.0 / 3, preferredTimescale: 600)
        #expect((half + half).seconds == 1)
        #expect(third.value == 200 && third.timescale == 600)
        #expect(CMTimeMultiply(half, multiplier: 4) == CMTime(value: 2, timescale: 1))
        // Apple: -infinity < finite values < indefinite < +infinity < invalid.
        #expect(CMTime.negativeInfinity < .zero && CMTime.zero < half && half < .indefinite)
        #expect(CMTime.indefinite < .positiveInfinity && CMTime.positiveInfinity < .invalid)
        #expect(CMTime.invalid.isValid == false && CMTIME_IS_INVALID(kCMTimeInvalid))
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 3, timescale: 1))
        #expect(range.containsTime(CMTime(value: 3999, timescale: 1000)))
        #expect(range.containsTime(range.end) == false)
        #expect(range.union(CMTimeRange(start: CMTime(value: 4, timescale: 1), duration: CMTime(value: 1, timescale: 1)))
            == CMTimeRange(start: CMTime(value: 1, timescale: 1), end: CMTime(value: 5, timescale: 1)))
    }

    /// Makes a BGRA pixel buffer the way capture and reader code receives one, filled with
    /// colour bars, using only Core Video's C API.
    static func makeBars(width: Int, height: Int) throws -> CVPixelBuffer {
        var pixelBuffer: CVPixelBuffer?
        let attributes = [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
                          kCVPixelBufferCGImageCompatibilityKey as String: true] as CFDictionary
        let status = CVPixelBufferCreate(kCFAllocatorDefault, width, height, kCVPixelFormatType_32BGRA,
                                         attributes, &pixelBuffer)
        #expect(status == kCVReturnSuccess)
        let buffer = try #require(pixelBuffer)
        CVPixelBufferLockBaseAddress(buffer, [])
        let base = try #require(CVPixelBufferGetBaseAddress(buffer))
        let bytesPerRow = CVPixelBufferGetBytesPerRow(buffer)
        let bars: [(UInt8, UInt8, UInt8)] = [(255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0),
                                               (255, 0, 255), (255, 0, 0), (0, 0, 255), (0, 0, 0)]
        for y in 0..<height {
            let row = base.advanced(by: y * bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let (r, g, b) = bars[x * bars.count / width]
                row[x * 4] = b; row[x * 4 + 1] = g; row[x * 4 + 2] = r; row[x * 4 + 3] = 255
            }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])
        return buffer
    }

    // AV Foundation Programming Guide, "Converting a CMSampleBuffer to a UIImage", in Swift.
    static func imageFromSampleBuffer(_ sampleBuffer: CMSampleBuffer) -> CGImage? {
        guard let imageBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) else { return nil }
        CVPixelBufferLockBaseAddress(imageBuffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(imageBuffer, .readOnly) }
        let baseAddress = CVPixelBufferGetBaseAddress(imageBuffer)
        let bytesPerRow = CVPixelBufferGetBytesPerRow(imageBuffer)
        let width = CVPixelBufferGetWidth(imageBuffer)
        let height = CVPixelBufferGetHeight(imageBuffer)
        let colorSpace = CGColorSpaceCreateDeviceRGB()
        let bitmapInfo = CGBitmapInfo.byteOrder32Little.rawValue | CGImageAlphaInfo.premultipliedFirst.rawValue
        guard let context = CGContext(data: baseAddress, width: width, height: height, bitsPerComponent: 8,
                                      bytesPerRow: bytesPerRow, space: colorSpace, bitmapInfo: bitmapInfo)
        else { return nil }
        return context.makeImage()
    }

    @Test func sampleBufferToImageToPNG() throws {
        let pixelBuffer = try Self.makeBars(width: 64, height: 48)
        var formatDescription: CMVideoFormatDescription?
        #expect(CMVideoFormatDescriptionCreateForImageBuffer(allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer,
                                                             formatDescriptionOut: &formatDescription) == noErr)
        let format = try #require(formatDescription)
        #expect(CMFormatDescriptionGetMediaType(format) == kCMMediaType_Video)
        #expect(CMFormatDescriptionGetMediaSubType(format) == kCVPixelFormatType_32BGRA)
        let dimensions = CMVideoFormatDescriptionGetDimensions(format)
        #expect(dimensions.width == 64 && dimensions.height == 48)

        var timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 30),
                                        presentationTimeStamp: CMTime(value: 1, timescale: 30),
                                        decodeTimeStamp: .invalid)
        var sampleBuffer: CMSampleBuffer?
        #expect(CMSampleBufferCreateReadyWithImageBuffer(allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer,
                                                         formatDescription: format, sampleTiming: &timing,
                                                         sampleBufferOut: &sampleBuffer) == noErr)
        let sample = try #require(sampleBuffer)
        #expect(CMSampleBufferGetPresentationTimeStamp(sample) == CMTime(value: 1, timescale: 30))
        #expect(CMSampleBufferGetImageBuffer(sample) === pixelBuffer)
        #expect(CVPixelBufferGetBytesPerRow(pixelBuffer) >= 256)

        // Metadata rides along as an attachment, as the guide shows.
        CMSetAttachment(sample, key: "MetadataDictionary" as CFString, value: ["ExposureTime": 0.01] as CFDictionary,
                        attachmentMode: kCMAttachmentMode_ShouldPropagate)
        let metadata = CMGetAttachment(sample, key: "MetadataDictionary" as CFString, attachmentModeOut: nil)
        #expect((metadata as? NSDictionary)?["ExposureTime"] as? Double == 0.01)

        let image = try #require(Self.imageFromSampleBuffer(sample))
        #expect(image.width == 64 && image.height == 48 && image.bitsPerPixel == 32)

        // Save it the way ported code does, then let ffmpeg judge the file.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("port-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bars.png")
        let destination = try #require(CGImageDestinationCreateWithURL(url as CFURL, UTType.png.identifier as CFString, 1, nil))
        CGImageDestinationAddImage(destination, image, nil)
        #expect(CGImageDestinationFinalize(destination))

        let rgba = try ffmpegDecodeRGBA(url)
        #expect(rgba.count == 64 * 48 * 4)
        CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }
        let base = CVPixelBufferGetBaseAddress(pixelBuffer)!.assumingMemoryBound(to: UInt8.self)
        let bpr = CVPixelBufferGetBytesPerRow(pixelBuffer)
        var mismatches = 0
        for y in 0..<48 {
            for x in 0..<64 {
                let p = y * bpr + x * 4, q = (y * 64 + x) * 4
                if rgba[q] != base[p + 2] || rgba[q + 1] != base[p + 1] || rgba[q + 2] != base[p] || rgba[q + 3] != 255 {
                    mismatches += 1
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func pixelTransferAndImageCreation() throws {
        let bgra = try Self.makeBars(width: 128, height: 72)
        var yuv: CVPixelBuffer?
        CVPixelBufferCreate(nil, 128, 72, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &yuv)
        let nv12 = try #require(yuv)
        #expect(CVPixelBufferGetPlaneCount(nv12) == 2)
        #expect(CVPixelBufferGetWidthOfPlane(nv12, 1) == 64 && CVPixelBufferGetHeightOfPlane(nv12, 1) == 36)

        var session: VTPixelTransferSession?
        #expect(VTPixelTransferSessionCreate(allocator: nil, pixelTransferSessionOut: &session) == noErr)
        let transfer = try #require(session)
        #expect(VTPixelTransferSessionTransferImage(transfer, from: bgra, to: nv12) == noErr)

        var image: CGImage?
        #expect(VTCreateCGImageFromCVPixelBuffer(nv12, options: nil, imageOut: &image) == noErr)
        let cgImage = try #require(image)
        #expect(cgImage.width == 128 && cgImage.height == 72)
        // The red bar (sixth of eight) survives the trip to 4:2:0 and back within a small error.
        let bytes = try #require(cgImage.dataProvider?.data as Data?)
        let x = 128 * 5 / 8 + 4, y = 36
        let offset = y * cgImage.bytesPerRow + x * 4
        let little = cgImage.bitmapInfo.contains(.byteOrder32Little)
        let (r, g, b) = little ? (bytes[offset + 2], bytes[offset + 1], bytes[offset])
                               : (bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
        #expect(r >= 250 && g <= 5 && b <= 5)
        VTPixelTransferSessionInvalidate(transfer)
    }

    @Test func phoneVideoTransform() {
        // A portrait phone recording: 1920×1080 pixels with a 90° preferredTransform.
        let transform = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0)
        let displayed = CGRect(x: 0, y: 0, width: 1920, height: 1080).applying(transform)
        #expect(displayed.size == CGSize(width: 1080, height: 1920))
        #expect(displayed.origin == .zero)
        let angle = atan2(transform.b, transform.a)
        #expect(abs(angle - .pi / 2) < 1e-12)
        #expect(transform.concatenating(transform.inverted()).isIdentity)
    }
}

/// Decodes an image file with the ffmpeg CLI into tightly packed RGBA bytes.
func ffmpegDecodeRGBA(_ url: URL) throws -> [UInt8] {
    [UInt8](try TestTools.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"]).output)
}
