// AudioRenderCore: the renderer's engine — the queue, the sound output and the pull that turns a
// timebase's time into frames — shared by AVSampleBufferAudioRenderer and AVPlayer's sound (in
// AVFoundation) and by AVFAudio's players.
import CoreAudioTypes
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import CVolk
internal import MediaEngine

/// The renderer's engine: the queue, the output, and the pull that turns the timebase's time
/// into frames. Shared by AVSampleBufferAudioRenderer and AVPlayer's sound. Thread-safe.
package final class AudioRenderCore: @unchecked Sendable {
    // @unchecked Sendable: owns the time stretcher (a C handle) used only under `render`'s lock; every other value is in a Mutex.
    package struct Format: Equatable {
        var sampleRate: Int
        var channels: Int
    }

    private struct Control {
        var timebase: CMTimebase
        var format: Format?
        var output: (any AudioDeviceOutput)?
        var deviceUID: String?
        var algorithm = AVAudioTimePitchAlgorithm.timeDomain
        var volume: Float = 1
        var muted = false
        var closed = false
        var converter: (input: AudioStreamBasicDescription, resampler: AudioResampler)?
        var description: CMAudioFormatDescription?
        /// A start the timebase will make at a host time (see `scheduleStart`).
        var scheduledStart: ScheduledStart?
    }

    /// The timebase will run from `time` at `rate` from `hostTime` (seconds on the host clock) on.
    package struct ScheduledStart {
        var time: CMTime
        var rate: Double
        var hostTime: Double
    }

    /// What the pull reads and writes (the output's thread, and flushes).
    private struct Render {
        /// Frames already taken from the queue's front buffer.
        var offset = 0
        /// Whether the read position follows the timebase (false after a flush or a jump).
        var aligned = false
        var stretcher: AudioTimeStretcher?
        var stretchRate: Double = 1
        var stretchPitch: Double = 1
        var scratch: [Float] = []
        var planes: [Float] = []
        var underruns = 0
        /// Frames of silence still to write before the queue's front (a start or a gap that a
        /// pull did not finish).
        var silenceAhead = 0
        var framesPlayed: Int64 = 0
        /// Media time of the sound being written minus the clock's time when it is heard, at the
        /// last pull at rate 1 (positive: the sound is ahead of the pictures).
        var clockOffset: Double?
    }

    package let queue = RendererQueue(capacity: .init(count: 512, seconds: 1.0))
    private let control: Mutex<Control>
    private let render = Mutex(Render())
    package var onFailure: (@Sendable (any Error) -> Void)? {
        get { failureHandler.withLock { $0 } }
        set { failureHandler.withLock { $0 = newValue } }
    }
    private let failureHandler = Mutex<(@Sendable (any Error) -> Void)?>(nil)

    /// Opens the renderer's output: `sampleRate` and `channels` of Float32 interleaved frames,
    /// filled by `fill` (given the host time of its first frame), `failed` told when it goes away.
    package typealias OutputOpener = @Sendable (_ sampleRate: Int, _ channels: Int, _ deviceUID: String?,
                                                _ fill: @escaping AudioTimedFill,
                                                _ failed: @escaping @Sendable (any Error) -> Void) -> any AudioDeviceOutput
    private let opener: OutputOpener?

    /// A renderer following `timebase`, playing through `openOutput` (nil: a stream of its own
    /// on the sound server, `AudioDeviceOutputs.open`).
    package init(timebase: CMTimebase, openOutput: OutputOpener? = nil) {
        control = Mutex(Control(timebase: timebase))
        opener = openOutput
    }

    package var timebase: CMTimebase { control.withLock { $0.timebase } }

    /// Follows `timebase` (the synchronizer's) from now on.
    package func attach(timebase: CMTimebase) {
        control.withLock { $0.timebase = timebase }
        timebaseChanged(jumped: true)
    }

    /// How long after a start the first sound written can be heard: the output's latency (what
    /// it holds, and the device's); 0 without an output.
    package var startLead: Double { control.withLock { $0.output }?.latency ?? 0 }

    /// The timebase, still now, will run from `time` at `rate` from `hostTime` on: the output
    /// starts now and is filled as if the timebase already ran (silence until `hostTime`), so the
    /// first sound is heard at its time instead of being cut by the output's latency.
    package func scheduleStart(rate: Double, time: CMTime, hostTime: Double) {
        let output = control.withLock { c -> (any AudioDeviceOutput)? in
            c.scheduledStart = ScheduledStart(time: time, rate: rate, hostTime: hostTime)
            return c.output
        }
        render.withLock { $0.aligned = false }
        output?.setPaused(false)
    }

    /// The timebase's rate or time changed: re-align at the next pull; pause the output at rate 0.
    /// A scheduled start is over (it happened, or a pause or seek replaced it).
    package func timebaseChanged(jumped: Bool) {
        let (output, rate) = control.withLock { c -> ((any AudioDeviceOutput)?, Double) in
            c.scheduledStart = nil
            return (c.output, c.timebase.rate)
        }
        if jumped {
            render.withLock { $0.aligned = false }
            output?.flush()
        }
        output?.setPaused(rate == 0)
    }

    /// Frames heard since the output opened (for tests and statistics).
    package var framesPlayed: Int64 { render.withLock { $0.framesPlayed } }
    package var underruns: Int { render.withLock { $0.underruns } }
    /// See `Render.clockOffset`.
    package var measuredOffset: Double? { render.withLock { $0.clockOffset } }
    package var format: Format? { control.withLock { $0.format } }

    package func setDevice(_ uid: String?) {
        let old = control.withLock { c -> (any AudioDeviceOutput)? in
            c.deviceUID = uid
            defer { c.output = nil }
            return c.output
        }
        old?.close()
        render.withLock { $0.aligned = false }
    }

    package func setAlgorithm(_ algorithm: AVAudioTimePitchAlgorithm) {
        control.withLock { $0.algorithm = algorithm }
        render.withLock { $0.stretcher = nil }
    }

    package func setVolume(_ volume: Float) {
        let output = control.withLock { c -> (any AudioDeviceOutput)? in
            c.volume = volume
            return c.output
        }
        output?.setVolume(volume)
    }

    package func setMuted(_ muted: Bool) {
        let output = control.withLock { c -> (any AudioDeviceOutput)? in
            c.muted = muted
            return c.output
        }
        output?.setMuted(muted)
    }

    /// Queues `buffer` (converted to the output's format); false when it holds no PCM.
    @discardableResult
    package func enqueue(_ buffer: CMSampleBuffer, generation: Int? = nil) -> Bool {
        guard let converted = convert(buffer) else { return false }
        guard queue.enqueue(converted, generation: generation) else { return false }
        openOutputIfNeeded()
        return true
    }

    package func flush() {
        queue.flush()
        render.withLock { r in
            r.offset = 0
            r.aligned = false
            r.silenceAhead = 0
            r.stretcher = nil
        }
        control.withLock { $0.output }?.flush()
    }

    /// Drops queued buffers presenting at or after `time`; false when `time` is already heard.
    package func flush(from time: CMTime) -> Bool {
        let heard = timebase.time
        guard time > heard else { return false }
        let keep = queue.snapshot.filter { $0.presentationTimeStamp < time }
        render.withLock { r in
            queue.flush()
            for buffer in keep { queue.enqueue(buffer) }
            if keep.isEmpty { r.offset = 0 }
        }
        return true
    }

    package func close() {
        let output = control.withLock { c -> (any AudioDeviceOutput)? in
            c.closed = true
            defer { c.output = nil }
            return c.output
        }
        output?.close()
        queue.close()
    }

    // MARK: Conversion

    /// `buffer` as Float32 interleaved at the output format (the first buffer fixes it).
    private func convert(_ buffer: CMSampleBuffer) -> CMSampleBuffer? {
        guard let description = buffer.formatDescription,
              let asbdPointer = CMAudioFormatDescriptionGetStreamBasicDescription(description) else { return nil }
        let asbd = asbdPointer.pointee
        guard asbd.mFormatID == kAudioFormatLinearPCM, asbd.mSampleRate > 0, asbd.mChannelsPerFrame > 0 else { return nil }
        let format = control.withLock { c -> Format in
            if let f = c.format { return f }
            let f = Format(sampleRate: Int(asbd.mSampleRate.rounded()), channels: min(Int(asbd.mChannelsPerFrame), 2))
            c.format = f
            return f
        }
        let isFloat = asbd.mFormatFlags & kAudioFormatFlagIsFloat != 0
        let interleaved = asbd.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0 || asbd.mChannelsPerFrame == 1
        let bigEndian = asbd.mFormatFlags & kAudioFormatFlagIsBigEndian != 0
        if isFloat, interleaved, !bigEndian, asbd.mBitsPerChannel == 32, Int(asbd.mChannelsPerFrame) == format.channels,
           Int(asbd.mSampleRate.rounded()) == format.sampleRate {
            return buffer
        }
        return resample(buffer, asbd: asbd, to: format)
    }

    private func resample(_ buffer: CMSampleBuffer, asbd: AudioStreamBasicDescription, to format: Format) -> CMSampleBuffer? {
        let layout = buffer.formatDescription.flatMap { d -> Data? in
            var size = 0
            guard let pointer = CMAudioFormatDescriptionGetChannelLayout(d, sizeOut: &size), size > 0 else { return nil }
            return Data(bytes: pointer, count: size)
        }
        guard let input = AudioPCMFormat(streamBasicDescription: asbd, channelLayout: layout),
              let data = buffer.dataBuffer else { return nil }
        let output = AudioPCMFormat(sampleRate: format.sampleRate,
                                    channels: format.channels == 1 ? .mono : .stereo,
                                    sampleType: .float, bitsPerSample: 32)
        let made: (AudioResampler, CMAudioFormatDescription)? = control.withLock { c in
            if let existing = c.converter, existing.input == asbd, let d = c.description { return (existing.resampler, d) }
            guard let resampler = try? AudioResampler(input: input, output: output),
                  let d = PCMSampleBuffers.formatDescription(output, layout: output.channels.audioChannelLayout) else { return nil }
            c.converter = (asbd, resampler)
            c.description = d
            return (resampler, d)
        }
        guard let (resampler, description) = made else { return nil }
        let length = CMBlockBufferGetDataLength(data)
        var bytes = Data(count: length)
        let copied = bytes.withUnsafeMutableBytes { raw in
            CMBlockBufferCopyDataBytes(data, atOffset: 0, dataLength: length, destination: raw.baseAddress!)
        }
        guard copied == noErr else { return nil }
        let frames = buffer.numSamples
        let ok = bytes.withUnsafeBytes { raw in (try? resampler.append(bytes: raw, frameCount: frames)) != nil }
        guard ok else { return nil }
        let available = resampler.bufferedFrameCount
        guard available > 0 else { return nil }
        let out = resampler.read(frameCount: available)
        return PCMSampleBuffers.sampleBuffer(out, frameCount: available, description: description,
                                                        pts: buffer.presentationTimeStamp)
    }

    // MARK: Output

    private func openOutputIfNeeded() {
        let request: (Format, String?)? = control.withLock { c in
            guard c.output == nil, !c.closed, let f = c.format else { return nil }
            return (f, c.deviceUID)
        }
        guard let (format, uid) = request else { return }
        let failed: @Sendable (any Error) -> Void = { [weak self] error in self?.outputLost(error) }
        let made = opener.map { open in
            open(format.sampleRate, format.channels, uid, { [weak self] buffer, host in self?.pull(buffer, hostTime: host) ?? 0 }, failed)
        } ?? AudioDeviceOutputs.open(sampleRate: format.sampleRate, channels: format.channels, deviceUID: uid,
                                     fill: { [weak self] buffer in self?.pull(buffer) ?? 0 }, failed: failed)
        let (kept, volume, muted, rate) = control.withLock { c -> (Bool, Float, Bool, Double) in
            guard c.output == nil, !c.closed else { return (false, 1, false, 0) }
            c.output = made
            return (true, c.volume, c.muted, c.timebase.rate)
        }
        guard kept else {
            made.close()
            return
        }
        made.setVolume(volume)
        made.setMuted(muted)
        made.setPaused(rate == 0)
    }

    private func outputLost(_ error: any Error) {
        let old = control.withLock { c -> (any AudioDeviceOutput)? in
            defer { c.output = nil }
            return c.output
        }
        old?.close()
        flush()
        // Time goes on (pictures too): the next buffer opens an output again — the server if it
        // came back, else the null output.
        failureHandler.withLock { $0 }?(error)
    }

    // MARK: The pull

    /// Fills `buffer` with the frames to be heard next (on the output's thread); `hostTime`: the
    /// host clock's time (seconds) of this fill, the same for every renderer of a mix (nil: now).
    package func pull(_ buffer: UnsafeMutableRawBufferPointer, hostTime: Double? = nil) -> Int {
        let (timebase, format, output, algorithm, scheduled) = control.withLock {
            ($0.timebase, $0.format, $0.output, $0.algorithm, $0.scheduledStart)
        }
        guard let format, let base = buffer.baseAddress else { return 0 }
        let bytesPerFrame = 4 * format.channels
        let frames = buffer.count / bytesPerFrame
        var (now, rate) = timebase.timeAndRate
        if let hostTime, rate != 0 {
            now = CMSyncConvertTime(CMTime(seconds: hostTime, preferredTimescale: 1_000_000_000),
                                    from: CMClockGetHostTimeClock(), to: timebase)
        }
        if rate == 0, let scheduled {
            // Before a scheduled start: the time the timebase will have (earlier than its start
            // until then, so what comes before it is silence).
            let host = hostTime ?? CMClockGetTime(CMClockGetHostTimeClock()).seconds
            rate = scheduled.rate
            now = scheduled.time + CMTime(seconds: (host - scheduled.hostTime) * rate, preferredTimescale: 1_000_000_000)
        }
        guard rate != 0, frames > 0 else { return 0 }
        let latency = output?.latency ?? 0
        let heardAt = now.seconds + rate * latency
        let out = base.assumingMemoryBound(to: Float.self)
        return render.withLock { r -> Int in
            if rate == 1 {
                r.stretcher = nil
                return straight(into: out, frames: frames, at: heardAt, format: format, &r) * bytesPerFrame
            }
            return stretched(into: out, frames: frames, at: heardAt, rate: rate, format: format, algorithm: algorithm, &r) * bytesPerFrame
        }
    }

    /// The time of the next frame to read, from the queue's front and the offset into it.
    private func cursor(_ r: Render, format: Format) -> Double? {
        guard let front = queue.first else { return nil }
        let pts = front.presentationTimeStamp
        guard pts.isNumeric else { return nil }
        return pts.seconds + Double(r.offset) / Double(format.sampleRate)
    }

    /// Drops queued frames before `time`; returns how many frames of silence come before the
    /// next queued frame (0 when it is due now).
    private func align(to time: Double, format: Format, _ r: inout Render) -> Int {
        while let front = queue.first {
            let pts = front.presentationTimeStamp.seconds
            let count = front.numSamples
            let end = pts + Double(count) / Double(format.sampleRate)
            if end <= time {
                queue.removeFirst()
                r.offset = 0
                continue
            }
            if pts >= time {
                r.offset = 0
                return Int(((pts - time) * Double(format.sampleRate)).rounded())
            }
            r.offset = min(count, Int(((time - pts) * Double(format.sampleRate)).rounded()))
            return 0
        }
        return 0
    }

    /// Copies up to `frames` queued frames into `out`; returns how many.
    private func copyQueued(into out: UnsafeMutablePointer<Float>, frames: Int, format: Format, _ r: inout Render) -> Int {
        var written = 0
        while written < frames, let front = queue.first {
            let count = front.numSamples
            guard r.offset < count, let data = front.dataBuffer else {
                queue.removeFirst()
                r.offset = 0
                continue
            }
            let n = min(count - r.offset, frames - written)
            let bytesPerFrame = 4 * format.channels
            _ = CMBlockBufferCopyDataBytes(data, atOffset: r.offset * bytesPerFrame, dataLength: n * bytesPerFrame,
                                           destination: out + written * format.channels)
            written += n
            r.offset += n
            if r.offset >= count {
                queue.removeFirst()
                r.offset = 0
            }
        }
        return written
    }

    private func straight(into out: UnsafeMutablePointer<Float>, frames: Int, at time: Double, format: Format, _ r: inout Render) -> Int {
        // Where the next frame written would be heard: the queue's cursor less the silence
        // still owed before it; within 40 ms of the clock, the sound runs on sample by sample.
        let next = cursor(r, format: format).map { $0 - Double(r.silenceAhead) / Double(format.sampleRate) }
        var silence = r.silenceAhead
        if !r.aligned || abs((next ?? time) - time) > 0.04 {
            silence = align(to: time, format: format, &r)
            r.aligned = true
        }
        r.silenceAhead = max(0, silence - frames)
        silence = min(silence, frames)
        if silence == 0, let next = cursor(r, format: format) { r.clockOffset = next - time }
        if silence > 0 { memset(out, 0, silence * 4 * format.channels) }
        let copied = copyQueued(into: out + silence * format.channels, frames: frames - silence, format: format, &r)
        if silence + copied < frames, copied > 0 || silence == 0 { r.underruns += 1 }
        r.framesPlayed += Int64(frames)
        return silence + copied
    }

    private func stretched(into out: UnsafeMutablePointer<Float>, frames: Int, at time: Double, rate: Double, format: Format,
                           algorithm: AVAudioTimePitchAlgorithm, _ r: inout Render) -> Int {
        let channels = format.channels
        // Varispeed: the pitch follows the rate (stretched and shifted by the same factor, which
        // is resampling); the other algorithms keep it.
        let pitch = algorithm == .varispeed ? abs(rate) : 1
        // The silence still owed before the queue's front is in output frames: media time ÷ rate.
        let next = cursor(r, format: format).map { $0 - Double(r.silenceAhead) * abs(rate) / Double(format.sampleRate) }
        if r.stretcher == nil || r.stretchRate != rate || r.stretchPitch != pitch || !r.aligned
            || abs((next ?? time) - time) > 0.25 {
            let silence = align(to: time, format: format, &r)
            r.aligned = true
            r.silenceAhead = Int(Double(silence) / abs(rate))
            let options = AudioTimeStretcher.options(for: algorithm) ?? AudioTimeStretcher.options(for: .timeDomain)!
            r.stretcher = AudioTimeStretcher(options: options, sampleRate: format.sampleRate, channels: channels,
                                             ratio: 1 / abs(rate), maxFrames: 4096, pitchScale: pitch)
            r.stretchRate = rate
            r.stretchPitch = pitch
        }
        guard let stretcher = r.stretcher else { return 0 }
        var written = 0
        if r.silenceAhead > 0 {
            // Before the first frame is due (a start at a later time): silence, the stretcher not fed.
            written = min(r.silenceAhead, frames)
            memset(out, 0, written * 4 * channels)
            r.silenceAhead -= written
        }
        var guardCount = 0
        while written < frames && guardCount < 64 {
            guardCount += 1
            if let (data, got) = stretcher.retrieve(maxFrames: frames - written) {
                data.withUnsafeBytes { raw in
                    let planes = raw.bindMemory(to: Float.self).baseAddress!
                    if channels == 2 {
                        avf_volk_interleave2(out + written * 2, planes, planes + got, UInt32(got))
                    } else {
                        memcpy(out + written, planes, got * 4)
                    }
                }
                written += got
                continue
            }
            // Feed about one output block's worth of input.
            let want = max(256, Int(Double(frames - written) * abs(rate)))
            if r.scratch.count < want * channels { r.scratch = [Float](repeating: 0, count: want * channels) }
            var scratch = r.scratch
            let got = scratch.withUnsafeMutableBufferPointer { copyQueued(into: $0.baseAddress!, frames: want, format: format, &r) }
            r.scratch = scratch
            guard got > 0 else {
                r.underruns += 1
                break
            }
            var planar = Data(count: got * channels * 4)
            planar.withUnsafeMutableBytes { raw in
                let p = raw.bindMemory(to: Float.self).baseAddress!
                r.scratch.withUnsafeBufferPointer { s in
                    if channels == 2 {
                        avf_volk_deinterleave2(p, p + got, s.baseAddress!, UInt32(got))
                    } else {
                        memcpy(p, s.baseAddress!, got * 4)
                    }
                }
            }
            stretcher.process(planar, frameCount: got, final: false)
        }
        r.framesPlayed += Int64(frames)
        return written
    }
}
