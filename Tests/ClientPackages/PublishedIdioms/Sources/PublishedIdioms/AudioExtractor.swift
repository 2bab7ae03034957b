// An audio extractor in the shape of Apple's reader/writer sample code: decode a movie's audio
// to PCM with AVAssetReader, encode it to AAC in an .m4a with AVAssetWriter, one sample buffer
// at a time inside autoreleasepool, driven by requestMediaDataWhenReady.
import AVFoundation

enum ExtractionError: Error {
    case noAudioTrack
    case cannotAddOutput
    case cannotAddInput
    case failed(String)
}

final class AudioExtractor {
    let sourceURL: URL
    let destinationURL: URL
    private let queue = DispatchQueue(label: "audio.extractor")

    init(sourceURL: URL, destinationURL: URL) {
        self.sourceURL = sourceURL
        self.destinationURL = destinationURL
    }

    func extract() throws -> Int {
        let asset = AVAsset(url: sourceURL)
        guard let audioTrack = asset.tracks(withMediaType: .audio).first else { throw ExtractionError.noAudioTrack }

        let reader = try AVAssetReader(asset: asset)
        let decompressionSettings: [String: Any] = [
            AVFormatIDKey: kAudioFormatLinearPCM,
            AVLinearPCMBitDepthKey: 16,
            AVLinearPCMIsFloatKey: false,
            AVLinearPCMIsBigEndianKey: false,
            AVLinearPCMIsNonInterleaved: false,
        ]
        let output = AVAssetReaderTrackOutput(track: audioTrack, outputSettings: decompressionSettings)
        guard reader.canAdd(output) else { throw ExtractionError.cannotAddOutput }
        reader.add(output)

        try? FileManager.default.removeItem(at: destinationURL)
        let writer = try AVAssetWriter(outputURL: destinationURL, fileType: .m4a)
        var channelLayout = AudioChannelLayout()
        channelLayout.mChannelLayoutTag = kAudioChannelLayoutTag_Stereo
        let compressionSettings: [String: Any] = [
            AVFormatIDKey: kAudioFormatMPEG4AAC,
            AVSampleRateKey: 44100,
            AVNumberOfChannelsKey: 2,
            AVEncoderBitRateKey: 128_000,
            AVChannelLayoutKey: Data(bytes: &channelLayout, count: MemoryLayout<AudioChannelLayout>.size),
        ]
        let input = AVAssetWriterInput(mediaType: .audio, outputSettings: compressionSettings)
        input.expectsMediaDataInRealTime = false
        guard writer.canAdd(input) else { throw ExtractionError.cannotAddInput }
        writer.add(input)

        guard reader.startReading() else { throw ExtractionError.failed("reader: \(String(describing: reader.error))") }
        guard writer.startWriting() else { throw ExtractionError.failed("writer: \(String(describing: writer.error))") }
        writer.startSession(atSourceTime: .zero)

        let group = DispatchGroup()
        let counter = SampleCounter()
        group.enter()
        input.requestMediaDataWhenReady(on: queue) {
            while input.isReadyForMoreMediaData {
                let more: Bool = autoreleasepool {
                    guard let sampleBuffer = output.copyNextSampleBuffer() else { return false }
                    counter.add(CMSampleBufferGetNumSamples(sampleBuffer))
                    return input.append(sampleBuffer)
                }
                if !more {
                    input.markAsFinished()
                    group.leave()
                    break
                }
            }
        }
        group.wait()

        let finished = DispatchSemaphore(value: 0)
        writer.finishWriting {
            finished.signal()
        }
        finished.wait()
        guard writer.status == .completed, reader.status == .completed else {
            throw ExtractionError.failed("writer \(writer.status.rawValue) \(String(describing: writer.error))")
        }
        return counter.total
    }

    static func run(_ url: URL, output: URL) throws {
        let frames = try AudioExtractor(sourceURL: url, destinationURL: output).extract()
        let result: Int = try autoreleasepool { () throws -> Int in
            guard FileManager.default.fileExists(atPath: output.path) else { throw ExtractionError.failed("no file") }
            return frames
        }
        print("audio frames=\(result)")
    }
}

/// Frames counted on the writer's queue and read after it has finished.
final class SampleCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.lock(); count += n; lock.unlock() }
    var total: Int { lock.lock(); defer { lock.unlock() }; return count }
}
