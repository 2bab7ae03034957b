// Images to movie: draw frames with Core Graphics into pixel buffers and append them through an
// AVAssetWriterInputPixelBufferAdaptor, the way countless "create a video from images" snippets do.
import AVFoundation

final class MovieMaker {
    let size: CGSize
    let fps: Int32

    init(size: CGSize, fps: Int32) {
        self.size = size
        self.fps = fps
    }

    func pixelBuffer(color: CGColor) -> CVPixelBuffer? {
        let attrs = [kCVPixelBufferCGImageCompatibilityKey: true,
                     kCVPixelBufferCGBitmapContextCompatibilityKey: true] as CFDictionary
        var pixelBuffer: CVPixelBuffer?
        let status = CVPixelBufferCreate(kCFAllocatorDefault, Int(size.width), Int(size.height),
                                         kCVPixelFormatType_32ARGB, attrs, &pixelBuffer)
        guard status == kCVReturnSuccess, let buffer = pixelBuffer else { return nil }
        CVPixelBufferLockBaseAddress(buffer, CVPixelBufferLockFlags(rawValue: 0))
        defer { CVPixelBufferUnlockBaseAddress(buffer, CVPixelBufferLockFlags(rawValue: 0)) }
        let data = CVPixelBufferGetBaseAddress(buffer)
        let rgbColorSpace = CGColorSpaceCreateDeviceRGB()
        guard let context = CGContext(data: data, width: Int(size.width), height: Int(size.height),
                                      bitsPerComponent: 8, bytesPerRow: CVPixelBufferGetBytesPerRow(buffer),
                                      space: rgbColorSpace,
                                      bitmapInfo: CGImageAlphaInfo.noneSkipFirst.rawValue) else { return nil }
        context.setFillColor(color)
        context.fill(CGRect(x: 0, y: 0, width: size.width, height: size.height))
        return buffer
    }

    func write(colors: [CGColor], to url: URL) throws -> Bool {
        try? FileManager.default.removeItem(at: url)
        let writer = try AVAssetWriter(outputURL: url, fileType: AVFileType.mov)
        let settings: [String: Any] = [
            AVVideoCodecKey: AVVideoCodecType.h264,
            AVVideoWidthKey: NSNumber(value: Float(size.width)),
            AVVideoHeightKey: NSNumber(value: Float(size.height)),
        ]
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings)
        let attributes: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_32ARGB),
            kCVPixelBufferWidthKey as String: NSNumber(value: Float(size.width)),
            kCVPixelBufferHeightKey as String: NSNumber(value: Float(size.height)),
        ]
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: attributes)
        guard writer.canAdd(input) else { return false }
        writer.add(input)
        writer.startWriting()
        writer.startSession(atSourceTime: CMTime.zero)

        var frameCount: Int64 = 0
        for color in colors {
            while !input.isReadyForMoreMediaData {
                Thread.sleep(forTimeInterval: 0.01)
            }
            guard let buffer = pixelBuffer(color: color) else { return false }
            if CFGetTypeID(buffer) != CVPixelBufferGetTypeID() { return false }
            let presentationTime = CMTimeMake(value: frameCount, timescale: fps)
            if !adaptor.append(buffer, withPresentationTime: presentationTime) {
                print("append failed: \(String(describing: writer.error))")
                return false
            }
            frameCount += 1
        }
        input.markAsFinished()
        let done = DispatchSemaphore(value: 0)
        writer.finishWriting { done.signal() }
        done.wait()
        return writer.status == .completed
    }

    static func run(output: URL) throws {
        let maker = MovieMaker(size: CGSize(width: 64, height: 48), fps: 10)
        let red = CGColor(red: 1, green: 0, blue: 0, alpha: 1)
        let blue = CGColor(red: 0, green: 0, blue: 1, alpha: 1)
        let ok = try maker.write(colors: Array(repeating: red, count: 5) + Array(repeating: blue, count: 5), to: output)
        print("movie written=\(ok)")
    }
}
