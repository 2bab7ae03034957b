// AudioFileWriter: what AVAudioFile (and AVAudioRecorder) write through — the pipeline's audio
// encoder (EncoderAudio: libavcodec, or PCM stored as bytes) and muxer (libavformat), for one
// audio stream in a file type checked against the same rules as AVAssetWriter's.
import CoreAudioTypes
import CoreMedia
import Foundation
internal import MediaEngine

/// `kAudioFileUnsupportedDataFormatError` ('fmt?').
let kAudioFileUnsupportedDataFormatError: OSStatus = 0x666D_743F

/// Writes PCM frames in `input` to `url` as `settings` say. Not thread-safe (one owner).
final class AudioFileWriter {
    let url: URL
    let input: AudioPCMFormat
    /// The file's format (what the settings ask to store).
    let fileFormat: AVAudioFormat
    private let encoder: EncoderAudio
    /// The file at `url`.
    private let muxer: Muxer
    private let stream: Int
    /// Recording a QuickTime-family file: the plain (unfragmented) file written beside the
    /// fragmented one at `url`, fed the same packets, which replaces it when finished.
    private let finishedCopy: (muxer: Muxer, stream: Int, url: URL)?
    private var finished = false
    /// Whether the file was finished.
    var isFinished: Bool { finished }
    private(set) var framesWritten: Int64 = 0

    /// Checks `settings` (Apple's audio settings) for the file type `container` and opens the
    /// file (replacing one that exists). Failures are AVFAudio errors: 'fmt?' for settings the
    /// file type cannot hold.
    ///
    /// `recording`: the file stays readable if the process dies while writing, up to the last
    /// `flushToDisk()`. WAV's and CAF's readers take the data to the end of the file while the
    /// header's sizes are unfinished; AIFF's sizes are patched in at each flush (the muxer does
    /// it). A QuickTime-family file's index is written at the end, so it is written as movie
    /// fragments (a fragment cut at each flush); FFmpeg 5.1 ignores a fragmented file's edit list,
    /// so its readers — ours among them — would count the encoder's priming and padding into the
    /// length, and the same packets also go to a plain file beside it (`.NAME.recording`), which
    /// replaces the fragmented one when the recording is finished. A file left by a crash is the
    /// fragmented one (its AAC priming, 21 ms at 48 kHz, plays at the start) and the hidden
    /// partial file beside it.
    init(url: URL, container: AudioFileContainer, settings dictionary: [String: Any], processing: AVAudioFormat,
         recording: Bool = false) throws {
        self.url = url
        let (settings, codec) = try Self.check(url: url, container: container, settings: dictionary)
        let rate = Int(processing.sampleRate.rounded())
        let channels = Int(processing.channelCount)
        let common = processing.commonFormat
        input = AudioPCMFormat(sampleRate: rate, channels: settings.channelSet(count: channels),
                               sampleType: common == .pcmFormatInt16 || common == .pcmFormatInt32 ? .signedInteger : .float,
                               bitsPerSample: common == .pcmFormatInt16 ? 16 : common == .pcmFormatFloat64 ? 64 : 32,
                               isBigEndian: false, isInterleaved: processing.isInterleaved || channels == 1)
        let encoderSettings = settings.encoderSettings(codec: codec, sourceRate: processing.sampleRate, sourceChannels: channels)
        var description = AudioStreamBasicDescription()
        description.mSampleRate = Double(encoderSettings.sampleRate)
        description.mFormatID = settings.formatID
        description.mChannelsPerFrame = UInt32(encoderSettings.channels.count)
        if case .linearPCM(let layout) = codec {
            description.mBitsPerChannel = UInt32(layout.bits)
            description.mFormatFlags = (layout.isFloat ? kAudioFormatFlagIsFloat : (layout.isSigned ? kAudioFormatFlagIsSignedInteger : 0))
                | kAudioFormatFlagIsPacked | (layout.isBigEndian ? kAudioFormatFlagIsBigEndian : 0)
            description.mBytesPerFrame = UInt32(layout.bits / 8 * encoderSettings.channels.count)
            description.mBytesPerPacket = description.mBytesPerFrame
            description.mFramesPerPacket = 1
        } else {
            description.mFramesPerPacket = AVAudioFormat.framesPerPacket(settings.formatID)
        }
        let layout = processing.channelLayout
        fileFormat = AVAudioFormat(streamDescription: &description, channelLayout: layout?.channelCount == description.mChannelsPerFrame ? layout : nil)
            ?? processing
        let copyURL = recording && container.isQuickTime
            ? url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".recording") : nil
        for file in [url, copyURL].compactMap({ $0 }) where FileManager.default.fileExists(atPath: file.path) {
            try? FileManager.default.removeItem(at: file)
        }
        var opened: [Muxer] = []
        do throws(MediaError) {
            let madeEncoder = try EncoderAudio(input: input, settings: encoderSettings)
            encoder = madeEncoder
            var muxerOptions = Muxer.Options(formatName: container.muxer)
            // QuickTime-family files: the movie's timescale is the sample rate, so the edit list
            // that hides the encoder's priming ends on the exact last frame.
            if container.isQuickTime { muxerOptions.movieTimescale = Int32(encoderSettings.sampleRate) }
            var streamOptions = Muxer.StreamOptions(timescale: Int32(encoderSettings.sampleRate))
            if case .linearPCM(let layout) = codec { streamOptions.codecTag = container.pcmCodecTag(layout) }
            func open(_ file: URL, _ options: Muxer.Options) throws(MediaError) -> (Muxer, Int) {
                let made = try Muxer(url: file, options: options)
                opened.append(made)
                let index = try made.addStream(encodedBy: madeEncoder, options: streamOptions)
                try made.start()
                return (made, index)
            }
            if let copyURL {
                var fragmented = muxerOptions
                fragmented.fragmentInterval = CMTime(value: 1, timescale: 2)
                fragmented.fragmentMode = .custom
                fragmented.keepsFragmentsOnFailure = true
                (muxer, stream) = try open(url, fragmented)
                let copy = try open(copyURL, muxerOptions)
                finishedCopy = (copy.0, copy.1, copyURL)
            } else {
                (muxer, stream) = try open(url, muxerOptions)
                finishedCopy = nil
            }
        } catch {
            for made in opened { made.abort() }
            for file in [url, copyURL].compactMap({ $0 }) { try? FileManager.default.removeItem(at: file) }
            throw AVAudioFile.error(kAudioFileUnsupportedDataFormatError, "The file cannot be written: \(error)", url: url)
        }
    }

    deinit { try? finish() }

    /// Checks `settings` (Apple's audio settings) for `container`: the parsed settings and the
    /// codec, or AVFAudio's 'fmt?' error.
    static func check(url: URL, container: AudioFileContainer, settings dictionary: [String: Any]) throws
        -> (WriterAudioSettings, EncoderAudio.Codec) {
        let settings: WriterAudioSettings
        switch WriterAudioSettings.parse(dictionary, forWriterInput: false) {
        case .success(let parsed): settings = parsed
        case .failure(let error): throw AVAudioFile.error(kAudioFileUnsupportedDataFormatError, error.reason, url: url)
        }
        var codec = settings.codec
        if case .linearPCM(var layout)? = codec {
            // A file's samples are interleaved whatever the settings say (an AVAudioFormat's
            // `settings` carry its processing layout, commonly the standard non-interleaved one).
            layout.isNonInterleaved = false
            // Byte order not given: the file type's own (big-endian AIFF), as Apple writes it.
            if dictionary[AVLinearPCMIsBigEndianKey] == nil, container.canStore(.linearPCM(layout)) != nil {
                var swapped = layout
                swapped.isBigEndian.toggle()
                if container.canStore(.linearPCM(swapped)) == nil { layout = swapped }
            }
            codec = .linearPCM(container.storedLayout(layout))
        }
        guard let codec else {
            throw AVAudioFile.error(kAudioFileUnsupportedDataFormatError,
                                    "Writing audio as '\(MuxerStreamFormat.fourCC(settings.formatID))' is not supported.", url: url)
        }
        if let reason = container.canStore(codec) { throw AVAudioFile.error(kAudioFileUnsupportedDataFormatError, reason, url: url) }
        return (settings, codec)
    }

    /// Puts what was written so far on disk (see `init`).
    func flushToDisk() throws {
        do throws(MediaError) {
            try muxer.flushToDisk()
        } catch {
            throw AVAudioFile.error(kAudioFileUnspecifiedError, "The audio could not be written: \(error)", url: url)
        }
    }

    /// Encodes and writes `frames` frames held in `bytes` (the input format's buffers one after another).
    func write(_ bytes: UnsafeRawBufferPointer, frames: Int) throws {
        guard !finished else { throw AVAudioFile.error(kAudioFileUnspecifiedError, "The file is closed.", url: url) }
        do throws(MediaError) {
            try write(try encoder.append(bytes: bytes, frameCount: frames))
        } catch {
            throw AVAudioFile.error(kAudioFileUnspecifiedError, "The audio could not be written: \(error)", url: url)
        }
        framesWritten += Int64(frames)
    }

    /// Hands `packets` to the muxer (and the finished copy's).
    private func write(_ packets: [EncodedPacket]) throws(MediaError) {
        for packet in packets {
            if let finishedCopy { try finishedCopy.muxer.write(try packet.copy(), stream: finishedCopy.stream) }
            try muxer.write(packet, stream: stream)
        }
    }

    /// Drains the encoder and closes the file (once).
    func finish() throws {
        guard !finished else { return }
        finished = true
        do throws(MediaError) {
            try write(try encoder.finish())
            let end = CMTime(value: framesWritten, timescale: Int32(input.sampleRate))
            try muxer.finish(presentationEnd: framesWritten > 0 ? end : nil)
            if let finishedCopy {
                // The plain file replaces the fragmented one (kept if the plain one fails).
                do throws(MediaError) {
                    try finishedCopy.muxer.finish(presentationEnd: framesWritten > 0 ? end : nil)
                    guard rename(finishedCopy.url.path, url.path) == 0 else {
                        throw MediaError.other(code: errno, message: "cannot rename \(finishedCopy.url.path): \(String(cString: strerror(errno)))")
                    }
                } catch {
                    try? FileManager.default.removeItem(at: finishedCopy.url)
                    throw error
                }
            }
        } catch {
            throw AVAudioFile.error(kAudioFileUnspecifiedError, "The file could not be finished: \(error)", url: url)
        }
    }
}
