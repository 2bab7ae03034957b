// AVCaptureAudioDataOutput: delivers captured sound to a delegate as linear PCM sample buffers,
// chunk by chunk as the device's source delivers it, on the delegate's serial queue.
import CoreAudioTypes
import CoreMedia
import Foundation
internal import MediaEngine

/// Delivers captured sound to a delegate as `CMSampleBuffer`s.
///
/// Each buffer is one chunk of the device's sound: linear PCM, 32-bit float, interleaved, at the
/// device's sample rate and channel count (an `AudioStreamBasicDescription` format description;
/// one sample per frame), stamped with the capture time of its first frame on the host time clock
/// — exact: a chunk that follows the previous one without a gap starts where it ended. Buffers
/// are delivered in capture order on the delegate's queue; none are dropped (sound is small) and
/// none is delivered once `stopRunning()` has returned. Takes one audio connection.
open class AVCaptureAudioDataOutput: AVCaptureOutput, @unchecked Sendable {
    private let lock = NSLock()
    private let idle = NSCondition()
    private var delegate: (any AVCaptureAudioDataOutputSampleBufferDelegate)?
    private var callbackQueue: DispatchQueue?
    private var settings: [String: Any]?
    private var accepting = false
    private var generation = 0
    private var inFlight = 0

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
    /// which is linear PCM, 32-bit float, interleaved. A dictionary may only ask for that format:
    /// `AVFormatIDKey` `kAudioFormatLinearPCM`, `AVLinearPCMBitDepthKey` 32,
    /// `AVLinearPCMIsFloatKey` true, `AVLinearPCMIsNonInterleaved` false,
    /// `AVLinearPCMIsBigEndianKey` false, and `AVSampleRateKey` / `AVNumberOfChannelsKey` equal to
    /// the connected device's; anything else raises (no conversion is done).
    open var audioSettings: [String: Any]! {
        get { lock.withLock { settings } }
        set {
            if let newValue, !newValue.isEmpty {
                if let problem = unsupported(newValue) {
                    CaptureException.raise("AVCaptureAudioDataOutput", "setAudioSettings:", problem)
                }
                lock.withLock { settings = newValue }
            } else {
                lock.withLock { settings = nil }
            }
        }
    }

    /// Why `settings` asks for something the output cannot deliver (nil: it can).
    private func unsupported(_ settings: [String: Any]) -> String? {
        func number(_ key: String) -> NSNumber? {
            if let n = settings[key] as? NSNumber { return n }
            if let i = settings[key] as? Int { return NSNumber(value: i) }
            if let u = settings[key] as? UInt32 { return NSNumber(value: u) }
            if let d = settings[key] as? Double { return NSNumber(value: d) }
            if let b = settings[key] as? Bool { return NSNumber(value: b) }
            return nil
        }
        if let id = number(AVFormatIDKey), id.uint32Value != kAudioFormatLinearPCM {
            return "Only linear PCM is delivered (AVFormatIDKey must be kAudioFormatLinearPCM)"
        }
        if let depth = number(AVLinearPCMBitDepthKey), depth.intValue != 32 {
            return "Only 32-bit float samples are delivered (AVLinearPCMBitDepthKey must be 32)"
        }
        if let isFloat = number(AVLinearPCMIsFloatKey), !isFloat.boolValue {
            return "Only float samples are delivered (AVLinearPCMIsFloatKey must be true)"
        }
        if let planar = number(AVLinearPCMIsNonInterleaved), planar.boolValue {
            return "Only interleaved samples are delivered (AVLinearPCMIsNonInterleaved must be false)"
        }
        if let bigEndian = number(AVLinearPCMIsBigEndianKey), bigEndian.boolValue {
            return "Only little-endian samples are delivered (AVLinearPCMIsBigEndianKey must be false)"
        }
        if let device = deviceFormat() {
            if let rate = number(AVSampleRateKey), rate.doubleValue != device.sampleRate {
                return "The sample rate must be the device's (\(Int(device.sampleRate)) Hz): no resampling is done"
            }
            if let channels = number(AVNumberOfChannelsKey), channels.intValue != device.channelCount {
                return "The channel count must be the device's (\(device.channelCount)): no channel mixing is done"
            }
        }
        return nil
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
    /// AAC at the device's sample rate (at most 48 kHz) and channel count, 64 kb/s per channel;
    /// nil when no audio device is connected or the file type holds no AAC.
    open func recommendedAudioSettingsForAssetWriter(writingTo outputFileType: AVFileType) -> [String: Any]? {
        guard let format = deviceFormat() else { return nil }
        guard [AVFileType.mov, .mp4, .m4a, .m4v].contains(outputFileType) else { return nil }
        let channels = min(8, max(1, format.channelCount))
        return [
            AVFormatIDKey: NSNumber(value: kAudioFormatMPEG4AAC),
            AVSampleRateKey: NSNumber(value: min(48_000, format.sampleRate)),
            AVNumberOfChannelsKey: NSNumber(value: channels),
            AVEncoderBitRateKey: NSNumber(value: 64_000 * channels),
            AVChannelLayoutKey: AVOutputSettingsAssistant.layoutData(channels: channels),
        ]
    }

    // MARK: Sink

    override func connectionLimit(for mediaType: AVMediaType) -> Int { mediaType == .audio ? 1 : 0 }

    override func captureWillStart() {
        lock.withLock {
            accepting = true
            generation += 1
        }
    }

    override func captureDidStop() {
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
        let target = lock.withLock { () -> (DispatchQueue, Int)? in
            guard accepting, delegate != nil, let queue = callbackQueue else { return nil }
            return (queue, generation)
        }
        guard let (queue, generation) = target, let sample = chunk.makeSampleBuffer() else { return }
        queue.async { [weak self] in self?.deliver(sample, from: connection, generation: generation) }
    }

    private static let deliveringKey = "AVCaptureAudioDataOutput.delivering"

    private func deliver(_ sample: CMSampleBuffer, from connection: AVCaptureConnection, generation: Int) {
        guard let delegate = beginDelivery(generation: generation) else { return }
        Thread.current.threadDictionary[Self.deliveringKey] = true
        delegate.captureOutput(self, didOutput: sample, from: connection)
        Thread.current.threadDictionary[Self.deliveringKey] = nil
        endDelivery()
    }

    /// The delegate to call when `generation` is current (counting the call as under way).
    private func beginDelivery(generation: Int) -> (any AVCaptureAudioDataOutputSampleBufferDelegate)? {
        lock.lock()
        defer { lock.unlock() }
        guard accepting, self.generation == generation, let current = delegate else { return nil }
        inFlight += 1
        return current
    }

    /// A delegate call ended: wakes `captureDidStop` when it waits.
    private func endDelivery() {
        lock.withLock { inFlight -= 1 }
        idle.lock()
        idle.broadcast()
        idle.unlock()
    }
}
