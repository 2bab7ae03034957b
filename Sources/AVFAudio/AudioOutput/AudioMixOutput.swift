// AudioMixOutput: one sound-server stream per sample rate and device that the players of a
// process share — AVAudioPlayer's renderers (and AVAudioEngine's output) mix into it, each with
// its own gain (volume, fades, pan) and level meter, as Apple's players all reach one output unit.
// Every input of one mix is pulled for the same frames with the same host time, so two players
// told to start at one device time start on the same sample.
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import CVolk
package import MediaEngine

/// A fill that also gets the host time (seconds) at which its first frame will be written: every
/// input of a mix gets the same one for the same frames.
package typealias AudioTimedFill = @Sendable (_ buffer: UnsafeMutableRawBufferPointer, _ hostTime: Double) -> Int

/// What a player sets on its share of the mix: volume (with fades), pan, metering. It outlives the
/// inputs the player's renderer opens (a reopened output keeps the player's settings).
package final class AudioMixControls: Sendable {
    private struct State {
        var volume: Float = 1
        /// A fade in progress: the target, the gain change per frame and the frames left.
        var fadeTarget: Float = 1
        var fadeStep: Float = 0
        var fadeFrames = 0
        /// A fade asked for, in seconds; turned into frames at the next mix (which knows the rate).
        var pendingFade: (target: Float, seconds: Double)?
        var pan: Float = 0
        var metering = false
        var meter: AudioLevelMeter?
    }

    private let state = Mutex(State())

    package init() {}

    /// The volume now, or the target of a fade in progress.
    package var volume: Float {
        state.withLock { s in s.pendingFade?.target ?? (s.fadeFrames > 0 ? s.fadeTarget : s.volume) }
    }

    /// Sets the gain at once (a fade in progress ends).
    package func setVolume(_ volume: Float) {
        state.withLock { s in
            s.volume = volume
            s.fadeFrames = 0
            s.pendingFade = nil
        }
    }

    /// Moves the gain linearly from where it is to `volume` over `seconds` of mixed sound.
    package func fade(to volume: Float, over seconds: Double) {
        guard seconds > 0 else { return setVolume(volume) }
        state.withLock { $0.pendingFade = (volume, seconds) }
    }

    /// −1 (left only) … 0 (both at full level) … 1 (right only).
    package var pan: Float {
        get { state.withLock { $0.pan } }
        set { state.withLock { $0.pan = min(1, max(-1, newValue)) } }
    }

    package var isMetering: Bool {
        get { state.withLock { $0.metering } }
        set {
            state.withLock { s in
                s.metering = newValue
                if !newValue { s.meter?.reset() }
            }
        }
    }

    /// The levels of the sound mixed last (before gain and pan), per input channel; nil before
    /// any was metered.
    package var levels: [AudioChannelLevel]? { state.withLock { $0.meter }?.levels }

    /// The runs of one block of `frames`: (frames, gain at the first, change per frame), the
    /// gain multiplied by the left and right pan factors; advances a fade.
    fileprivate func advance(frames: Int, sampleRate: Int) -> (runs: [(count: Int, start: Float, step: Float)], left: Float, right: Float) {
        state.withLock { s in
            if let pending = s.pendingFade {
                s.pendingFade = nil
                let n = max(1, Int((pending.seconds * Double(sampleRate)).rounded()))
                s.fadeTarget = pending.target
                s.fadeFrames = n
                s.fadeStep = (pending.target - s.volume) / Float(n)
            }
            // A balance control: the side panned away from falls to 0, the other stays at full level.
            let left = min(1, 1 - s.pan), right = min(1, 1 + s.pan)
            guard s.fadeFrames > 0 else { return ([(frames, s.volume, 0)], left, right) }
            let ramp = min(frames, s.fadeFrames)
            var runs = [(count: ramp, start: s.volume, step: s.fadeStep)]
            s.fadeFrames -= ramp
            s.volume = s.fadeFrames == 0 ? s.fadeTarget : s.volume + s.fadeStep * Float(ramp)
            if ramp < frames { runs.append((frames - ramp, s.volume, 0)) }
            return (runs, left, right)
        }
    }

    /// Meters `frames` interleaved frames of `channels` channels when metering is on.
    fileprivate func meter(_ samples: UnsafePointer<Float>, frames: Int, channels: Int, sampleRate: Int) {
        let meter: AudioLevelMeter? = state.withLock { s in
            guard s.metering else { return nil }
            if s.meter?.channelCount != channels || s.meter?.sampleRate != Double(sampleRate) {
                s.meter = AudioLevelMeter(channelCount: channels, sampleRate: Double(sampleRate), holdDuration: 0.1)
            }
            return s.meter
        }
        meter?.process(interleaved: UnsafeBufferPointer(start: samples, count: frames * channels), frameCount: frames)
    }
}

/// One renderer's share of a mix: an `AudioDeviceOutput` whose frames are added into the shared
/// stream with its controls' gain and pan.
package final class AudioMixInput: AudioDeviceOutput {
    fileprivate struct State {
        var paused = true
        var closed = false
    }

    package let channels: Int
    package let controls: AudioMixControls
    fileprivate let fill: AudioTimedFill
    fileprivate let failed: @Sendable (any Error) -> Void
    fileprivate let state = Mutex(State())
    private let mix: AudioMixOutput

    fileprivate init(mix: AudioMixOutput, channels: Int, controls: AudioMixControls, fill: @escaping AudioTimedFill,
                     failed: @escaping @Sendable (any Error) -> Void) {
        self.mix = mix
        self.channels = channels
        self.controls = controls
        self.fill = fill
        self.failed = failed
    }

    fileprivate var isActive: Bool { state.withLock { !$0.paused && !$0.closed } }

    /// The shared stream's latency, as measured at the start of the latest mix.
    package var latency: Double { mix.latency }
    package func setPaused(_ paused: Bool) { state.withLock { $0.paused = paused } }
    /// What the shared stream holds belongs to every input: nothing is dropped (a seek is heard
    /// after the stream's latency).
    package func flush() {}
    /// The renderer's own volume: the player's gain lives in `controls`.
    package func setVolume(_ volume: Float) {}
    package func setMuted(_ muted: Bool) {}

    package func close() {
        let wasOpen = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        if wasOpen { mix.remove(self) }
    }
}

/// The shared stream of one sample rate and device (stereo Float32).
package final class AudioMixOutput: @unchecked Sendable {
    // @unchecked Sendable: owns the mix's scratch memory and gain kernel, used only inside `mix`, which the device's one fill thread calls; all else is in Mutexes.
    private struct Key: Hashable {
        var sampleRate: Int
        var deviceUID: String?
    }

    private struct State {
        var inputs: [AudioMixInput] = []
        var device: (any AudioDeviceOutput)?
        var latency: Double = 0
    }

    private static let registry = Mutex<[Key: AudioMixOutput]>([:])
    /// Frames mixed per kernel pass (a device asking for more is filled in passes).
    private static let chunk = 4096

    package let sampleRate: Int
    private let key: Key
    private let state = Mutex(State())
    private let kernel = AudioGainKernel(capacity: AudioMixOutput.chunk)
    private let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * AudioMixOutput.chunk)
    private let planes = UnsafeMutablePointer<Float>.allocate(capacity: 4 * AudioMixOutput.chunk)

    private init(key: Key) {
        self.key = key
        sampleRate = key.sampleRate
    }

    deinit {
        scratch.deallocate()
        planes.deallocate()
    }

    /// An input of `channels` (1 or 2) channels into the shared stream of `sampleRate` on
    /// `deviceUID` (nil: the default device), opening the stream with the first input.
    package static func input(sampleRate: Int, channels: Int, deviceUID: String?, controls: AudioMixControls,
                              fill: @escaping AudioTimedFill, failed: @escaping @Sendable (any Error) -> Void) -> AudioMixInput {
        let key = Key(sampleRate: sampleRate, deviceUID: deviceUID)
        return registry.withLock { outputs in
            let mix = outputs[key] ?? AudioMixOutput(key: key)
            outputs[key] = mix
            let input = AudioMixInput(mix: mix, channels: min(max(channels, 1), 2), controls: controls, fill: fill, failed: failed)
            mix.add(input)
            return input
        }
    }

    /// The device's latency at the latest mix (every input of one mix sees the same).
    package var latency: Double { state.withLock { $0.latency } }

    /// The number of mixes open (for tests: players of one rate share one).
    package static var openCount: Int { registry.withLock { $0.count } }

    private func add(_ input: AudioMixInput) {
        let open = state.withLock { s -> Bool in
            s.inputs.append(input)
            return s.device == nil
        }
        guard open else { return }
        let device = AudioDeviceOutputs.open(sampleRate: sampleRate, channels: 2, deviceUID: key.deviceUID,
                                             fill: { [weak self] buffer in self?.mix(buffer) ?? 0 },
                                             failed: { [weak self] error in self?.lost(error) })
        state.withLock { s in
            s.device = device
            s.latency = device.latency
        }
        device.setPaused(false)
    }

    /// Takes `input` out of the mix; the last one out closes the stream.
    fileprivate func remove(_ input: AudioMixInput) {
        let closing: (any AudioDeviceOutput)? = Self.registry.withLock { outputs in
            state.withLock { s -> (any AudioDeviceOutput)? in
                s.inputs.removeAll { $0 === input }
                guard s.inputs.isEmpty else { return nil }
                if outputs[key] === self { outputs[key] = nil }
                defer { s.device = nil }
                return s.device
            }
        }
        closing?.close()
    }

    /// The device went away: every input hears of it; the next input opens a new stream.
    private func lost(_ error: any Error) {
        let inputs = Self.registry.withLock { outputs -> [AudioMixInput] in
            if outputs[key] === self { outputs[key] = nil }
            return state.withLock { $0.inputs }
        }
        for input in inputs { input.failed(error) }
    }

    /// Fills the device's buffer with the sum of the active inputs (on the device's thread).
    private func mix(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let out = buffer.baseAddress?.assumingMemoryBound(to: Float.self) else { return 0 }
        let frames = buffer.count / 8
        let host = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        let inputs = state.withLock { s -> [AudioMixInput] in
            if let device = s.device { s.latency = device.latency }
            return s.inputs.filter(\.isActive)
        }
        let mixL = planes, mixR = planes + Self.chunk, inL = planes + 2 * Self.chunk, inR = planes + 3 * Self.chunk
        var done = 0
        while done < frames {
            let n = min(Self.chunk, frames - done)
            mixL.update(repeating: 0, count: n)
            mixR.update(repeating: 0, count: n)
            let at = host + Double(done) / Double(sampleRate)
            for input in inputs {
                let channels = input.channels
                let bytes = n * channels * 4
                let got = input.fill(UnsafeMutableRawBufferPointer(start: scratch, count: bytes), at)
                if got < bytes { memset(UnsafeMutableRawPointer(scratch) + max(got, 0), 0, bytes - max(got, 0)) }
                input.controls.meter(scratch, frames: n, channels: channels, sampleRate: sampleRate)
                let left: UnsafePointer<Float>, right: UnsafePointer<Float>
                if channels == 2 {
                    avf_volk_deinterleave2(inL, inR, scratch, UInt32(n))
                    (left, right) = (UnsafePointer(inL), UnsafePointer(inR))
                } else {
                    (left, right) = (UnsafePointer(scratch), UnsafePointer(scratch))
                }
                let (runs, panL, panR) = input.controls.advance(frames: n, sampleRate: sampleRate)
                var offset = 0
                for run in runs {
                    kernel.add(left + offset, into: mixL + offset, count: run.count, start: run.start * panL, step: run.step * panL)
                    kernel.add(right + offset, into: mixR + offset, count: run.count, start: run.start * panR, step: run.step * panR)
                    offset += run.count
                }
            }
            avf_volk_interleave2(out + 2 * done, mixL, mixR, UInt32(n))
            done += n
        }
        return frames * 8
    }
}
