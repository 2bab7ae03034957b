// AVCaptureAudioDataOutput: delivers captured sound to a delegate as linear PCM sample buffers,
// chunk by chunk as the device's source delivers it, on the delegate's serial queue.
import CoreAudioTypes
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// Delivers captured sound to a delegate as `CMSampleBuffer`s.
///
/// Without `audioSettings`, each buffer is one chunk of the device's sound: linear PCM, 32-bit
/// float, interleaved, at the device's sample rate and channel count (an
/// `AudioStreamBasicDescription` format description; one sample per frame), stamped with the
/// capture time of its first frame on the host time clock — exact: a chunk that follows the
/// previous one without a gap starts where it ended. With `audioSettings`, the sound is converted
/// (libswresample) and each buffer carries the asked-for format and times counted in samples at
/// the new rate from the start of each contiguous run (`CaptureAudioConverter`). The connection's
/// audio channels' `volume` and `isEnabled` are applied first. Buffers are delivered in capture
/// order on the delegate's queue; none are dropped (sound is small); what capture delivered before
/// `stopRunning()` (the converter's last samples included) is delivered before it returns — unless
/// it is called from a delegate callback or on the main thread with the main queue as the
/// delegate's, which cannot wait for the queue — and nothing after. Takes one audio connection.
open class AVCaptureAudioDataOutput: AVCaptureOutput, @unchecked Sendable {
    private let delivery = CaptureDelivery<any AVCaptureAudioDataOutputSampleBufferDelegate>()
    /// The settings as given (in Sendable form), and the format they ask for (made against each
    /// chunk's format).
    private struct Requested {
        var settings: [String: any Sendable]?
        var format: AudioOutputSettings?
    }
    private let requested = Mutex(Requested())
    /// The conversion to the requested format, used by one source thread at a time.
    private struct Conversion {
        var converter: CaptureAudioConverter?
        var lastConnection: AVCaptureConnection?
    }
    private let conversion = Mutex(Conversion())

    public override init() {
        super.init()
    }

    // MARK: Delegate

    /// Sets the delegate and the serial queue it is called on (nil delegate: sound is no longer
    /// delivered). A delegate without a queue raises. The delegate is held strongly.
    open func setSampleBufferDelegate(_ sampleBufferDelegate: (any AVCaptureAudioDataOutputSampleBufferDelegate)?,
                                      queue sampleBufferCallbackQueue: DispatchQueue?) {
        if sampleBufferDelegate != nil, sampleBufferCallbackQueue == nil {
            CaptureException.raise("AVCaptureAudioDataOutput", "setSampleBufferDelegate:queue:",
                                   "sampleBufferCallbackQueue must not be NULL when sampleBufferDelegate is non-nil")
        }
        delivery.setDelegate(sampleBufferDelegate, queue: sampleBufferCallbackQueue)
    }

    /// The delegate.
    open var sampleBufferDelegate: (any AVCaptureAudioDataOutputSampleBufferDelegate)? { delivery.delegate }
    /// The delegate's queue.
    open var sampleBufferCallbackQueue: DispatchQueue? { delivery.queue }

    // MARK: Settings

    /// The format sound is delivered in (macOS). nil (the default): the device's own format,
    /// linear PCM, 32-bit float, interleaved, at its rate and channel count. A dictionary of
    /// linear PCM audio settings converts the sound: `AVFormatIDKey` `kAudioFormatLinearPCM`,
    /// `AVSampleRateKey`, `AVNumberOfChannelsKey`, `AVChannelLayoutKey`, `AVLinearPCMBitDepthKey`
    /// (8, 16, 24, 32; 32 or 64 float), `AVLinearPCMIsFloatKey`, `AVLinearPCMIsNonInterleaved`,
    /// `AVLinearPCMIsBigEndianKey`. Keys left out keep the device's rate and channels; with
    /// neither `AVLinearPCMIsFloatKey` nor `AVLinearPCMBitDepthKey` the samples stay 32-bit float,
    /// with a bit depth alone they are integers; interleaved and little-endian unless asked.
    /// Other keys, compressed formats and invalid values raise (NSInvalidArgumentException).
    /// Applies from the next buffer, also while the session runs.
    open var audioSettings: [String: Any]! {
        get {
            let settings: [String: any Sendable]? = requested.withLock { $0.settings }
            return settings
        }
        set {
            if let newValue {
                let parsed: AudioOutputSettings
                switch AudioOutputSettings.check(newValue, outputClass: "AVCaptureAudioDataOutput") {
                case .success(let value): parsed = value
                case .failure(let problem): CaptureException.raise("AVCaptureAudioDataOutput", "setAudioSettings:", problem.message)
                }
                let values = SendableDictionary.make(newValue)
                requested.withLock { $0 = Requested(settings: values, format: newValue.isEmpty ? nil : parsed) }
            } else {
                requested.withLock { $0 = Requested() }
            }
        }
    }

    /// The format `settings` ask for from a source of `source`'s format, with its channel layout
    /// bytes; nil when that is the source's own format (no conversion).
    static func deliveredFormat(_ settings: AudioOutputSettings, source: LiveAudioFormat) -> (AudioPCMFormat, Data)? {
        let sourceChannels = AudioChannelSet(count: max(1, source.channelCount)).resolved
        let channels: AudioChannelSet
        if let layout = settings.layout {
            channels = layout.channels
        } else if let count = settings.channelCount, count != sourceChannels.count {
            channels = AudioChannelSet(count: count).resolved
        } else {
            channels = sourceChannels
        }
        let float = settings.isFloat ?? (settings.bitDepth == nil)
        let bits = settings.bitDepth ?? (float ? 32 : 16)
        let format = AudioPCMFormat(sampleRate: settings.sampleRate ?? Int(source.sampleRate.rounded()), channels: channels,
                                    sampleType: float ? .float : (bits == 8 ? .unsignedInteger : .signedInteger), bitsPerSample: bits,
                                    isBigEndian: settings.isBigEndian ?? false, isInterleaved: !(settings.isNonInterleaved ?? false))
        let native = AudioPCMFormat(sampleRate: Int(source.sampleRate.rounded()), channels: sourceChannels, sampleType: .float,
                                    bitsPerSample: 32)
        if format == native, settings.layout == nil, Double(format.sampleRate) == source.sampleRate { return nil }
        return (format, settings.layout?.data ?? channels.audioChannelLayout)
    }

    /// The audio format of the connected device, when there is one.
    private func deviceFormat() -> LiveAudioFormat? {
        guard let connection = connection(with: .audio),
              let input = connection.inputPorts.first(where: { $0.mediaType == .audio })?.input as? AVCaptureDeviceInput else {
            return nil
        }
        return input.device.core.activeFormat()?.audio
    }

    /// Settings for an `AVAssetWriterInput` writing this output's sound into `outputFileType`:
    /// AAC at the rate and channel count the output delivers (the device's, or those
    /// `audioSettings` ask for; at most 48 kHz and 8 channels), 64 kb/s per channel, with a
    /// channel layout; nil when no audio device is connected or the file type holds no AAC.
    open func recommendedAudioSettingsForAssetWriter(writingTo outputFileType: AVFileType) -> [String: Any]? {
        guard let format = deviceFormat() else { return nil }
        guard [AVFileType.mov, .mp4, .m4a, .m4v].contains(outputFileType) else { return nil }
        var rate = format.sampleRate, channels = format.channelCount
        if let requested = requested.withLock({ $0.format }), let (delivered, _) = Self.deliveredFormat(requested, source: format) {
            rate = Double(delivered.sampleRate)
            channels = delivered.channelCount
        }
        channels = min(8, max(1, channels))
        return [
            AVFormatIDKey: NSNumber(value: kAudioFormatMPEG4AAC),
            AVSampleRateKey: NSNumber(value: min(48_000, rate)),
            AVNumberOfChannelsKey: NSNumber(value: channels),
            AVEncoderBitRateKey: NSNumber(value: 64_000 * channels),
            AVChannelLayoutKey: AVOutputSettingsAssistant.layoutData(channels: channels),
        ]
    }

    // MARK: Sink

    override func connectionLimit(for mediaType: AVMediaType) -> Int { mediaType == .audio ? 1 : 0 }

    override func captureWillStart() {
        conversion.withLock { $0.converter = nil }
        delivery.start()
    }

    override func captureDidStop() {
        // The converter's last samples (its filter's delay) end the stream: the source has stopped.
        let (tail, connection) = conversion.withLock { c -> (CMSampleBuffer?, AVCaptureConnection?) in
            defer { c = Conversion() }
            return (c.converter?.flush(), c.lastConnection)
        }
        if let tail, let connection { enqueue([tail], from: connection) }
        // What was handed to the delegate's queue is delivered before stopRunning returns —
        // unless this runs in a delegate call or on the main thread with the main queue as the
        // delegate's (it would wait for itself; then what is still queued is dropped). Called
        // from some other block on the delegate's queue it waits at most a second, then drops.
        // A delegate call under way finishes before it returns (unless this is it).
        delivery.stop(drainLimit: 1)
    }

    override func receive(audio chunk: LiveAudioChunk, from connection: AVCaptureConnection) {
        guard delivery.isAccepting else { return }
        let request = requested.withLock { $0.format }
        let sound = connection.applyingChannelGains(to: chunk)
        let samples: [CMSampleBuffer] = conversion.withLock { c in
            c.lastConnection = connection
            guard let request, let (format, layout) = Self.deliveredFormat(request, source: sound.format) else {
                // The device's own format: a run converted so far ends here.
                if let tail = c.converter?.flush() {
                    c.converter = nil
                    return [tail] + [sound.makeSampleBuffer()].compactMap { $0 }
                }
                c.converter = nil
                return [sound.makeSampleBuffer()].compactMap { $0 }
            }
            var out: [CMSampleBuffer] = []
            if c.converter?.output != format {
                if let tail = c.converter?.flush() { out.append(tail) }
                c.converter = CaptureAudioConverter(output: format, layout: layout)
            }
            out += c.converter?.convert(sound) ?? []
            return out
        }
        enqueue(samples, from: connection)
    }

    /// Hands `samples` to the delegate's queue, in order.
    private func enqueue(_ samples: [CMSampleBuffer], from connection: AVCaptureConnection) {
        guard !samples.isEmpty, let target = delivery.target(handingOver: samples.count) else { return }
        let generation = target.generation
        for sample in samples {
            target.queue.async { [self] in
                delivery.deliver(generation: generation, handedOver: true) { delegate in
                    delegate.captureOutput(self, didOutput: sample, from: connection)
                }
            }
        }
    }
}
