// AudioDeviceOutput: where an audio renderer's sound goes — a sound-server stream that pulls
// Float32 interleaved frames from the renderer, or, with no server, a clocked sink that pulls at
// the same pace and discards (so playback timing is the same with or without sound).
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

/// A sound output pulling frames from a renderer.
///
/// `fill` is called on the output's own thread with a buffer to fill with Float32 interleaved
/// frames (`channels` per frame); it returns the number of bytes written (the rest is silence)
/// and must not block. What is written now is heard `latency` seconds later.
package protocol AudioDeviceOutput: AnyObject, Sendable {
    /// Seconds from a fill to the moment its first frame is heard.
    var latency: Double { get }
    /// Stops (true) or resumes (false) pulling; a paused output keeps what it holds.
    func setPaused(_ paused: Bool)
    /// Drops what the output holds and has not played.
    func flush()
    func setVolume(_ volume: Float)
    func setMuted(_ muted: Bool)
    /// Stops for good; no `fill` call starts after it returns.
    func close()
}

/// The sound output went away (the server died, the sink was removed): what happened, in words.
/// AVFoundation's renderer reports it as `AVError.mediaServicesWereReset`.
package struct AudioOutputLost: Error, CustomStringConvertible, Sendable {
    package let reason: String
    /// The whole sound server went away (not only the sink).
    package let serverLost: Bool
    package init(reason: String, serverLost: Bool = false) {
        self.reason = reason
        self.serverLost = serverLost
    }
    package var description: String { reason }
}

package typealias AudioFill = @Sendable (UnsafeMutableRawBufferPointer) -> Int

/// How renderers open their output: the sound server when one answers, else a `ClockedNullOutput`.
/// Tests and the player replace it through `AudioDeviceOutputs.factory`.
package enum AudioDeviceOutputs {
    package typealias Factory = @Sendable (_ sampleRate: Int, _ channels: Int, _ deviceUID: String?, _ fill: @escaping AudioFill,
                                   _ failed: @escaping @Sendable (any Error) -> Void) -> (any AudioDeviceOutput)?

    private static let installed = Mutex<Factory?>(nil)

    /// The sound-server output maker (installed by the PulseAudio backend).
    package static var factory: Factory? {
        get { installed.withLock { $0 } }
        set { installed.withLock { $0 = newValue } }
    }

    package static func open(sampleRate: Int, channels: Int, deviceUID: String?, fill: @escaping AudioFill,
                     failed: @escaping @Sendable (any Error) -> Void) -> any AudioDeviceOutput {
        if let factory {
            if let made = factory(sampleRate, channels, deviceUID, fill, failed) { return made }
        } else if let made = PulseDeviceOutput(sampleRate: sampleRate, channels: channels, deviceUID: deviceUID,
                                               fill: fill, failed: failed) {
            return made
        }
        return ClockedNullOutput(sampleRate: sampleRate, channels: channels, fill: fill)
    }

    /// The output devices a renderer's `audioOutputDeviceUniqueID` can name: the sound server's
    /// sinks (name = unique ID), the default first.
    package static func devices() -> [(uniqueID: String, name: String)] {
        PulsePlayback.sinks().map { ($0.name, $0.description) }
    }
}

/// The sound server's playback stream (PulseAudio, or PipeWire's Pulse server).
package final class PulseDeviceOutput: AudioDeviceOutput {
    private let stream: PulsePlayback

    /// nil when no server answers or `deviceUID` names no sink (the renderer then plays silently
    /// on the null output, keeping time).
    package init?(sampleRate: Int, channels: Int, deviceUID: String?, fill: @escaping AudioFill,
          failed: @escaping @Sendable (any Error) -> Void) {
        let sink = deviceUID.map { $0.hasPrefix("pulse:") ? String($0.dropFirst(6)) : $0 }
        do {
            stream = try PulsePlayback(sinkName: sink, sampleRate: sampleRate, channels: channels,
                                       fill: { buffer, _ in fill(buffer) },
                                       failed: { text, serverLost in failed(AudioOutputLost(reason: text, serverLost: serverLost)) })
        } catch {
            return nil
        }
    }

    /// The measured latency; before the server reported one (a new stream, nothing played
    /// yet), the buffering asked for — what a start must wait for before its first sound.
    package var latency: Double {
        let measured = stream.latency
        return measured > 0 ? measured : PulsePlayback.defaultTargetLatency
    }
    package func setPaused(_ paused: Bool) { stream.setPaused(paused) }
    package func flush() { stream.flush() }
    package func setVolume(_ volume: Float) { stream.setVolume(volume) }
    package func setMuted(_ muted: Bool) { stream.setMuted(muted) }
    package func close() { stream.close() }
}

/// An output with no device: pulls 10 ms of frames every 10 ms of host time and drops them.
package final class ClockedNullOutput: AudioDeviceOutput {
    private struct State {
        var paused = true
        var closed = false
        /// Host time (ns) up to which frames were pulled.
        var pulledUntil: UInt64 = 0
    }

    private let sampleRate: Int
    private let bytesPerFrame: Int
    private let fill: AudioFill
    private let state = Mutex(State())
    private let timer: Mutex<(any DispatchSourceTimer)?>
    private let scratch: Mutex<[UInt8]>

    package init(sampleRate: Int, channels: Int, fill: @escaping AudioFill) {
        self.sampleRate = max(sampleRate, 1)
        bytesPerFrame = 4 * max(channels, 1)
        self.fill = fill
        scratch = Mutex([UInt8](repeating: 0, count: bytesPerFrame * max(sampleRate, 1) / 10))
        timer = Mutex(DispatchSource.makeTimerSource(queue: DispatchQueue(label: "com.avfoundation.audio.null-output", qos: .userInteractive)))
        timer.withLock { source in
            source?.schedule(deadline: .now(), repeating: .milliseconds(10), leeway: .milliseconds(1))
            source?.setEventHandler { [weak self] in self?.tick() }
            source?.resume()
        }
    }

    deinit { timer.withLock { $0?.cancel() } }

    package var latency: Double { 0.02 }

    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        let frames: Int = state.withLock { s in
            guard !s.paused, !s.closed else { s.pulledUntil = now; return 0 }
            let elapsed = now > s.pulledUntil ? now - s.pulledUntil : 0
            let n = Int(Double(elapsed) * Double(sampleRate) / 1e9)
            s.pulledUntil += UInt64(Double(n) * 1e9 / Double(sampleRate))
            return min(n, sampleRate / 10)
        }
        guard frames > 0 else { return }
        scratch.withLock { bytes in
            bytes.withUnsafeMutableBytes { raw in
                _ = fill(UnsafeMutableRawBufferPointer(rebasing: raw[0..<(frames * bytesPerFrame)]))
            }
        }
    }

    package func setPaused(_ paused: Bool) {
        state.withLock { s in
            if s.paused && !paused { s.pulledUntil = DispatchTime.now().uptimeNanoseconds }
            s.paused = paused
        }
    }

    package func flush() {}
    package func setVolume(_ volume: Float) {}
    package func setMuted(_ muted: Bool) {}

    package func close() {
        state.withLock { $0.closed = true }
        timer.withLock { t in
            t?.cancel()
            t = nil
        }
    }
}
