// AVCaptureAudioDataOutput: delivers captured sound to a delegate as linear PCM sample buffers,
// chunk by chunk as the device's source delivers it, on the delegate's serial queue.
import CoreAudioTypes
import CoreMedia
import Foundation
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
    private let lock = NSLock()
    private let idle = NSCondition()
    private var delegate: (any AVCaptureAudioDataOutputSampleBufferDelegate)?
    private var callbackQueue: DispatchQueue?
    private var settings: [String: Any]?
    /// The format `settings` ask for, made against the first chunk's format.
    private var requested: AudioOutputSettings?
    private var accepting = false
    private var generation = 0
    private var inFlight = 0
    /// Buffers handed to the delegate's queue and not yet delivered or dropped.
    private var queued = 0
    /// Converts to `requested` (one source thread at a time, under `conversionLock`).
    private let conversionLock = NSLock()
    private var converter: CaptureAudioConverter?
    private var lastConnection: AVCaptureConnection?

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
        lock.withLock {
            delegate = sampleBufferDelegate
            callbackQueue = sampleBufferDelegate == nil ? nil : sampleBufferCallbackQueue
            generation += 1
        }
    }

    /// The delegate.
    open var sampleBufferDelegate: (any AVCaptureAudioDataOutputSampleBufferDelegate)? { lock.withLock { delegate } }
    /// The delegate's queue.
    open var sampleBufferCallbackQueue: DispatchQueue? { lock.withLock { callbackQueue } }

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
        get { lock.withLock { settings } }
        set {
            if let newValue {
                let parsed: AudioOutputSettings
                switch AudioOutputSettings.check(newValue, outputClass: "AVCaptureAudioDataOutput") {
                case .success(let value): parsed = value
                case .failure(let problem): CaptureException.raise("AVCaptureAudioDataOutput", "setAudioSettings:", problem.message)
                }
                lock.withLock {
                    settings = newValue
                    requested = newValue.isEmpty ? nil : parsed
                }
            } else {
                lock.withLock {
                    settings = nil
                    requested = nil
                }
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
        if let requested = lock.withLock({ requested }), let (delivered, _) = Self.deliveredFormat(requested, source: format) {
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
        conversionLock.withLock { converter = nil }
        lock.withLock {
            accepting = true
            generation += 1
        }
    }

    override func captureDidStop() {
        // The converter's last samples (its filter's delay) end the stream: the source has stopped.
        let tail = conversionLock.withLock { () -> CMSampleBuffer? in
            defer { converter = nil }
            return converter?.flush()
        }
        let connection = conversionLock.withLock { () -> AVCaptureConnection? in
            defer { lastConnection = nil }
            return lastConnection
        }
        if let tail, let connection { enqueue([tail], from: connection) }
        // What was handed to the delegate's queue is delivered before stopRunning returns —
        // unless this runs in a delegate call or on the main thread with the main queue as the
        // delegate's (it would wait for itself; then what is still queued is dropped). Called
        // from some other block on the delegate's queue it waits at most a second, then drops.
        let queue = lock.withLock { callbackQueue }
        let mayWait = Thread.current.threadDictionary[Self.deliveringKey] == nil
            && !(queue === DispatchQueue.main && Thread.isMainThread)
        if mayWait {
            let deadline = Date().addingTimeInterval(1)
            idle.lock()
            while lock.withLock({ queued }) > 0, Date() < deadline { _ = idle.wait(until: Date().addingTimeInterval(0.05)) }
            idle.unlock()
        }
        lock.withLock {
            accepting = false
            generation += 1
        }
        // A delegate call under way finishes before stopRunning returns (unless this is it);
        // calls queued after it see the new generation and do nothing.
        guard Thread.current.threadDictionary[Self.deliveringKey] == nil else { return }
        idle.lock()
        while lock.withLock({ inFlight }) > 0 { _ = idle.wait(until: Date().addingTimeInterval(0.05)) }
        idle.unlock()
    }

    override func receive(audio chunk: LiveAudioChunk, from connection: AVCaptureConnection) {
        let (wanted, request) = lock.withLock { (accepting && delegate != nil && callbackQueue != nil, requested) }
        guard wanted else { return }
        let sound = connection.applyingChannelGains(to: chunk)
        let samples: [CMSampleBuffer] = conversionLock.withLock {
            lastConnection = connection
            guard let request, let (format, layout) = Self.deliveredFormat(request, source: sound.format) else {
                // The device's own format: a run converted so far ends here.
                if let tail = converter?.flush() {
                    converter = nil
                    return [tail] + [sound.makeSampleBuffer()].compactMap { $0 }
                }
                converter = nil
                return [sound.makeSampleBuffer()].compactMap { $0 }
            }
            var out: [CMSampleBuffer] = []
            if converter?.output != format {
                if let tail = converter?.flush() { out.append(tail) }
                converter = CaptureAudioConverter(output: format, layout: layout)
            }
            out += converter?.convert(sound) ?? []
            return out
        }
        enqueue(samples, from: connection)
    }

    /// Hands `samples` to the delegate's queue, in order.
    private func enqueue(_ samples: [CMSampleBuffer], from connection: AVCaptureConnection) {
        guard !samples.isEmpty else { return }
        let target = lock.withLock { () -> (DispatchQueue, Int)? in
            guard accepting, delegate != nil, let queue = callbackQueue else { return nil }
            queued += samples.count
            return (queue, generation)
        }
        guard let (queue, generation) = target else { return }
        for sample in samples {
            queue.async { [weak self] in self?.deliver(sample, from: connection, generation: generation) }
        }
    }

    private static let deliveringKey = "AVCaptureAudioDataOutput.delivering"

    private func deliver(_ sample: CMSampleBuffer, from connection: AVCaptureConnection, generation: Int) {
        guard let delegate = beginDelivery(generation: generation) else {
            endQueued()
            return
        }
        Thread.current.threadDictionary[Self.deliveringKey] = true
        delegate.captureOutput(self, didOutput: sample, from: connection)
        Thread.current.threadDictionary[Self.deliveringKey] = nil
        endDelivery()
    }

    /// The delegate to call when `generation` is current (counting the call as under way).
    private func beginDelivery(generation: Int) -> (any AVCaptureAudioDataOutputSampleBufferDelegate)? {
        lock.lock()
        defer { lock.unlock() }
        queued -= 1
        guard accepting, self.generation == generation, let current = delegate else { return nil }
        inFlight += 1
        return current
    }

    /// A queued buffer was dropped: wakes `captureDidStop` when it waits.
    private func endQueued() {
        idle.lock()
        idle.broadcast()
        idle.unlock()
    }

    /// A delegate call ended: wakes `captureDidStop` when it waits.
    private func endDelivery() {
        lock.withLock { inFlight -= 1 }
        idle.lock()
        idle.broadcast()
        idle.unlock()
    }
}
