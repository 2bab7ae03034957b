// `avtool waveform`: an audio file's waveform as a PNG — the sample reduction of Learning AV
// Foundation's chapter 8 (read LPCM with AVAssetReader, reduce each pixel column's bin of
// samples to its largest absolute value, scale to the view), with that code's bugs fixed.
import ArgumentParser
import AVFoundation

struct Waveform: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw the waveform of a file's first audio track as a PNG.")

    @Argument(help: "The audio (or video) file.")
    var file: String

    @Option(name: .shortAndLong, help: "The PNG file to write.")
    var output: String

    @Option(help: "Image size, WxH.")
    var size: String = "1024x256"

    func validate() throws {
        guard let size = Self.parseSize(size) else { throw ValidationError("--size must look like 1024x256 (1 to 16384 each)") }
        _ = size
    }

    static func parseSize(_ s: String) -> (width: Int, height: Int)? {
        let parts = s.lowercased().split(separator: "x").map { Int($0) }
        guard parts.count == 2, let w = parts[0], let h = parts[1], (1...16384).contains(w), (1...16384).contains(h) else { return nil }
        return (w, h)
    }

    func run() throws {
        let (width, height) = Self.parseSize(size)!
        let url = URL(fileURLWithPath: file)
        let levels: WaveformLevels
        do {
            levels = try Self.readLevels(url: url, columns: width)
        } catch let error as WaveformError {
            FileHandle.standardError.write(Data("avtool: \(file): \(error.description)\n".utf8))
            throw ExitCode(1)
        } catch {
            let ns = error as NSError
            let reason = (ns.userInfo[NSLocalizedFailureReasonErrorKey] as? String).map { ": \($0)" } ?? ""
            FileHandle.standardError.write(Data("avtool: \(file): \(ns.localizedDescription)\(reason) (\(ns.domain) \(ns.code))\n".utf8))
            throw ExitCode(1)
        }
        let image = try Self.draw(levels.bins, width: width, height: height)
        try save(image, to: URL(fileURLWithPath: output), type: .png, properties: nil)
        print("\(output)  \(width)×\(height)  \(levels.frames) frames at \(levels.sampleRate) Hz, peak \(String(format: "%.3f", levels.peak))")
    }

    /// Reads the first audio track as 32-bit float LPCM and reduces it to the largest absolute
    /// sample (over all channels) of each bin of frames, one bin per pixel column: the bin size
    /// comes from the track's duration, rounded up, so the frames fill at most `columns` bins and
    /// the last, partial bin is kept (the book's loop stopped one bin short and dropped it).
    static func readLevels(url: URL, columns: Int) throws -> WaveformLevels {
        let asset = AVURLAsset(url: url)
        let tracks = try blocking { try await asset.loadTracks(withMediaType: .audio) }
        guard let track = tracks.first else { throw WaveformError(description: "no audio track to draw") }
        let timeRange = try blocking { try await track.load(.timeRange) }
        let reader = try AVAssetReader(asset: asset)
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32,
                                       AVLinearPCMIsBigEndianKey: false, AVLinearPCMIsNonInterleaved: false]
        let output = AVAssetReaderAudioMixOutput(audioTracks: [track], audioSettings: settings)
        reader.add(output)
        guard reader.startReading() else { throw reader.error ?? WaveformError(description: "cannot read the audio") }
        var levels = WaveformLevels()
        var binSize = 0
        while let buffer = output.copyNextSampleBuffer() {
            guard let description = CMSampleBufferGetFormatDescription(buffer),
                  let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee,
                  let block = CMSampleBufferGetDataBuffer(buffer) else { continue }
            if binSize == 0 {
                levels.sampleRate = Int(asbd.mSampleRate)
                let estimated = max(1, Int((timeRange.duration.seconds * asbd.mSampleRate).rounded(.up)))
                binSize = max(1, (estimated + columns - 1) / columns)
            }
            let channels = Int(asbd.mChannelsPerFrame)
            let frames = CMSampleBufferGetNumSamples(buffer)
            var samples = [Float](repeating: 0, count: frames * channels)
            _ = samples.withUnsafeMutableBytes { CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
            for f in 0..<frames {
                var loudest: Float = 0
                for c in 0..<channels { loudest = max(loudest, abs(samples[f * channels + c])) }
                let bin = levels.frames / binSize
                if bin == levels.bins.count { levels.bins.append(0) }
                if loudest > levels.bins[bin] { levels.bins[bin] = loudest.isFinite ? loudest : 0 }
                levels.frames += 1
            }
        }
        if reader.status == .failed { throw reader.error ?? WaveformError(description: "reading the audio failed") }
        guard levels.frames > 0 else { throw WaveformError(description: "the audio track has no samples") }
        return levels
    }

    /// The bins as bars centred on the middle row, on a dark background: the loudest bin fills
    /// the height, the others in proportion; every column gets at least a one-pixel line, so
    /// silence (where the book divided by a zero peak) draws a flat line.
    static func draw(_ bins: [Float], width: Int, height: Int) throws -> CGImage {
        guard let context = CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                                      space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else {
            throw WaveformError(description: "cannot make a \(width)×\(height) image")
        }
        context.setFillColor(red: 0.1, green: 0.1, blue: 0.12, alpha: 1)
        context.fill(CGRect(x: 0, y: 0, width: width, height: height))
        context.setFillColor(red: waveformColor.red, green: waveformColor.green, blue: waveformColor.blue, alpha: 1)
        let peak = bins.max() ?? 0
        var rects: [CGRect] = []
        for (i, level) in bins.enumerated() {
            // Bin i covers columns [i·W/n, (i+1)·W/n): one column each when there are W bins,
            // stretched when the audio has fewer frames than the image has columns.
            let x0 = i * width / bins.count, x1 = max(x0 + 1, (i + 1) * width / bins.count)
            let bar = peak > 0 ? Int((Double(level / peak) * Double(height)).rounded()) : 0
            let h = min(height, max(1, bar))
            rects.append(CGRect(x: x0, y: (height - h) / 2, width: x1 - x0, height: h))
        }
        context.fill(rects)
        guard let image = context.makeImage() else { throw WaveformError(description: "cannot draw the waveform") }
        return image
    }

    /// The bars' colour (8-bit: 0x5A, 0xC8, 0xFA).
    static let waveformColor = (red: CGFloat(0x5A) / 255, green: CGFloat(0xC8) / 255, blue: CGFloat(0xFA) / 255)
}

/// The reduced audio: one level (largest absolute sample, 0…1 for in-range audio) per bin.
struct WaveformLevels {
    var bins: [Float] = []
    var frames = 0
    var sampleRate = 0
    var peak: Float { bins.max() ?? 0 }
}

/// Why `avtool waveform` cannot draw a file.
struct WaveformError: Error, CustomStringConvertible {
    let description: String
}
