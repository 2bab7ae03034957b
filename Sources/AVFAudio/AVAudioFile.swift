// AVAudioFile: an audio file read in frames of its processing format — any file FFmpeg reads
// (WAV, AIFF, CAF, M4A/MP4, MP3, FLAC, Ogg…), decoded and converted by the pipeline's audio
// stream reader (demuxer → decoder → resampler), positioned by frame.
import CoreAudioTypes
import CoreMedia
import Foundation
internal import MediaEngine

/// The error domain of AVFAudio's errors (Apple's).
let AVFAudioErrorDomain = "com.apple.coreaudio.avfaudio"
/// `kAudioFileFileNotFoundError`.
let kAudioFileFileNotFoundError: OSStatus = -43
/// `kAudioFileUnsupportedFileTypeError` ('typ?').
let kAudioFileUnsupportedFileTypeError: OSStatus = 0x7479_703F
/// `kAudioFileUnspecifiedError` ('wht?').
let kAudioFileUnspecifiedError: OSStatus = 0x7768_743F
/// `kAudioFileInvalidFileError` ('dta?').
let kAudioFileInvalidFileError: OSStatus = 0x6474_613F

/// An audio file read or written through a processing format.
///
/// Writing: `init(forWriting:settings:)` creates the file (replacing one that exists) in the
/// type its `AVAudioFileTypeKey` or extension names (WAV, AIFF, AIFC, CAF, M4A, MP4, MOV, 3GP),
/// stored as the settings say (linear PCM, AAC, Apple Lossless, FLAC, Opus, µ-law, A-law) through
/// the pipeline's encoder and muxer; `write(from:)` takes buffers in the processing format (the
/// standard format at the settings' rate and channels unless told); the file is finished by
/// `close()` or when the object goes away. Settings a file type cannot hold fail with `'fmt?'`.
///
/// Reading: `fileFormat` is the file's own format (its stream's description: 16-bit PCM, AAC…);
/// `processingFormat` is what `read(into:)` delivers — the standard format (deinterleaved
/// float32) at the file's rate and channel count unless another common format is asked for.
/// `length` is the file's frame count, `framePosition` where the next read starts (set it to
/// seek). A read at the end leaves the buffer empty (`frameLength` 0).
open class AVAudioFile: NSObject {
    /// The file's location.
    public let url: URL
    /// The file's own format.
    public let fileFormat: AVAudioFormat
    /// The format reads deliver.
    public let processingFormat: AVAudioFormat
    private let readLength: AVAudioFramePosition
    private let reader: AudioStreamReader?
    private let writer: AudioFileWriter?
    private let output: AudioPCMFormat
    private var position: AVAudioFramePosition = 0
    /// Frames decoded and how many of them were delivered.
    private var pending: (block: AudioPCMBlock, used: Int)?
    private var positioned = false

    /// Opens `fileURL` for reading in the standard format.
    public convenience init(forReading fileURL: URL) throws {
        try self.init(forReading: fileURL, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Opens `fileURL` for reading in `format` (a PCM common format), interleaved or not.
    public init(forReading fileURL: URL, commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        url = fileURL
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            throw Self.error(kAudioFileFileNotFoundError, "The file does not exist.", url: fileURL)
        }
        let stream: StreamInfo
        do throws(MediaError) {
            stream = try AudioStreamReader.firstAudioStream(of: fileURL)
        } catch {
            throw Self.error(kAudioFileUnsupportedFileTypeError, "The file is not an audio file this system can read (\(error)).", url: fileURL)
        }
        let description = stream.formatDescription.flatMap { CMAudioFormatDescriptionGetStreamBasicDescription($0)?.pointee }
        fileFormat = stream.formatDescription.map(AVAudioFormat.init(cmAudioFormatDescription:))
            ?? AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: Double(stream.sampleRate), channels: 2, interleaved: true)!
        let channels = AVAudioChannelCount(stream.channelCount)
        let rate = description?.mSampleRate ?? Double(stream.sampleRate)
        let common: AVAudioCommonFormat = format == .otherFormat ? .pcmFormatFloat32 : format
        if channels <= 2 {
            processingFormat = AVAudioFormat(commonFormat: common, sampleRate: rate, channels: channels, interleaved: interleaved)!
        } else {
            let layout = fileFormat.channelLayout
                ?? AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_DiscreteInOrder | channels)!
            processingFormat = AVAudioFormat(commonFormat: common, sampleRate: rate, interleaved: interleaved, channelLayout: layout)
        }
        let sampleType: AudioPCMFormat.SampleType = common == .pcmFormatFloat32 || common == .pcmFormatFloat64 ? .float : .signedInteger
        let bits: Int
        switch common {
        case .pcmFormatFloat64: bits = 64
        case .pcmFormatInt16: bits = 16
        default: bits = 32
        }
        let set = AudioChannelSet(mask: stream.channelMask).flatMap { $0.count == stream.channelCount ? $0 : nil }
            ?? AudioChannelSet(count: stream.channelCount)
        output = AudioPCMFormat(sampleRate: Int(rate.rounded()), channels: set, sampleType: sampleType, bitsPerSample: bits,
                                isBigEndian: false, isInterleaved: interleaved || channels == 1)
        do {
            reader = try AudioStreamReader(url: fileURL, streamIndex: stream.index, output: output, quality: .high, fromFirstSample: true)
        } catch {
            throw Self.error(kAudioFileUnsupportedFileTypeError, "The file's audio cannot be decoded (\(error)).", url: fileURL)
        }
        writer = nil
        readLength = stream.sampleRate == Int(rate.rounded()) ? stream.frameLength
            : AVAudioFramePosition((Double(stream.frameLength) * rate / Double(max(stream.sampleRate, 1))).rounded())
        super.init()
    }

    /// Creates `fileURL` for writing as `settings` say, taking buffers in the standard format.
    public convenience init(forWriting fileURL: URL, settings: [String: Any]) throws {
        try self.init(forWriting: fileURL, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Creates `fileURL` for writing as `settings` say, taking buffers in `format`, interleaved or not.
    public init(forWriting fileURL: URL, settings: [String: Any], commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        url = fileURL
        let container: AudioFileContainer?
        if let type = AVAudioFormat.number(settings[AVAudioFileTypeKey])?.uint32Value {
            container = AudioFileContainer.forAudioFileType(type)
        } else {
            container = AudioFileContainer.forExtension(fileURL.pathExtension)
        }
        guard let container else {
            throw Self.error(kAudioFileUnsupportedFileTypeError, "No audio file type for \(fileURL.lastPathComponent): name it .wav, .aif, .aifc, .caf, .m4a, .mp4 or .mov, or give AVAudioFileTypeKey.", url: fileURL)
        }
        let channelCount = AVAudioFormat.number(settings[AVNumberOfChannelsKey])?.uint32Value
        guard let rate = AVAudioFormat.number(settings[AVSampleRateKey])?.doubleValue, rate > 0, let channels = channelCount, channels > 0 else {
            throw Self.error(kAudioFileUnsupportedDataFormatError, "Writing needs AVSampleRateKey and AVNumberOfChannelsKey.", url: fileURL)
        }
        let common: AVAudioCommonFormat = format == .otherFormat ? .pcmFormatFloat32 : format
        if channels <= 2 {
            processingFormat = AVAudioFormat(commonFormat: common, sampleRate: rate, channels: channels, interleaved: interleaved)!
        } else {
            let layout = AVAudioFormat(settings: settings)?.channelLayout
                ?? AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_DiscreteInOrder | channels)!
            processingFormat = AVAudioFormat(commonFormat: common, sampleRate: rate, interleaved: interleaved, channelLayout: layout)
        }
        var fileSettings = settings
        fileSettings.removeValue(forKey: AVAudioFileTypeKey)
        let made = try AudioFileWriter(url: fileURL, container: container, settings: fileSettings, processing: processingFormat)
        writer = made
        reader = nil
        output = made.input
        fileFormat = made.fileFormat
        readLength = 0
        super.init()
    }

    /// The number of frames in the file (while writing: written so far).
    open var length: AVAudioFramePosition { writer.map(\.framesWritten) ?? readLength }

    /// Writes the buffer's `frameLength` frames (in the processing format) at the end of the file.
    open func write(from buffer: AVAudioPCMBuffer) throws {
        guard let writer else { throw Self.error(kAudioFileInvalidFileError, "The file is open for reading.", url: url) }
        guard buffer.format.isEqual(processingFormat) else {
            throw Self.error(kAudioFileInvalidFileError, "The buffer's format \(buffer.format) is not the file's processing format \(processingFormat).", url: url)
        }
        let frames = Int(buffer.frameLength)
        guard frames > 0 else { return }
        try buffer.withEngineBytes(frames: frames) { try writer.write($0, frames: frames) }
        position = writer.framesWritten
    }

    /// Finishes a file being written (its header and index); later writes fail. Reading files
    /// need no closing.
    open func close() {
        try? writer?.finish()
    }

    /// Whether the file is open (a written file is until `close()`).
    open var isOpen: Bool { writer.map { !$0.isFinished } ?? true }

    /// The frame the next read starts at; setting it seeks.
    open var framePosition: AVAudioFramePosition {
        get { position }
        set {
            position = max(0, newValue)
            positioned = false
            pending = nil
        }
    }

    /// Reads up to the buffer's capacity from `framePosition`.
    open func read(into buffer: AVAudioPCMBuffer) throws {
        try read(into: buffer, frameCount: buffer.frameCapacity)
    }

    /// Reads up to `frames` frames (at most the buffer's capacity) from `framePosition` into
    /// `buffer`, setting its `frameLength` to what was read (0 at the end of the file).
    open func read(into buffer: AVAudioPCMBuffer, frameCount frames: AVAudioFrameCount) throws {
        guard let reader else { throw Self.error(kAudioFileInvalidFileError, "The file is open for writing.", url: url) }
        guard buffer.format.isEqual(processingFormat) else {
            throw Self.error(kAudioFileInvalidFileError, "The buffer's format \(buffer.format) is not the file's processing format \(processingFormat).",
                             url: url)
        }
        let wanted = Int(min(frames, buffer.frameCapacity))
        var filled = 0
        do throws(MediaError) {
            if !positioned {
                // FFmpeg decodes whole packets at the end: the file ends at its length.
                let rate = Int32(output.sampleRate)
                try reader.start(from: CMTime(value: position, timescale: rate), to: readLength > 0 ? CMTime(value: readLength, timescale: rate) : .positiveInfinity)
                positioned = true
            }
            while filled < wanted {
                if pending == nil {
                    guard let block = try reader.read(maxFrames: max(wanted - filled, 1024)) else { break }
                    pending = (block, 0)
                }
                let (block, used) = pending!
                let n = min(block.frameCount - used, wanted - filled)
                block.data.withUnsafeBytes { buffer.copyEngineBytes($0, total: block.frameCount, from: used, frames: n, at: filled) }
                pending = used + n == block.frameCount ? nil : (block, used + n)
                filled += n
            }
        } catch {
            throw Self.error(kAudioFileUnspecifiedError, "The file's audio could not be read (\(error)).", url: url)
        }
        buffer.frameLength = AVAudioFrameCount(filled)
        position += AVAudioFramePosition(filled)
    }

    static func error(_ code: OSStatus, _ reason: String, url: URL?) -> NSError {
        var info: [String: Any] = [NSLocalizedFailureReasonErrorKey: reason]
        if let url {
            info[NSURLErrorKey] = url
            info[NSFilePathErrorKey] = url.path
        }
        return NSError(domain: AVFAudioErrorDomain, code: Int(code), userInfo: info)
    }
}
