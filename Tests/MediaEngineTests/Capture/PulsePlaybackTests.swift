// The PulseAudio playback stream against a daemon of the test's own (PrivatePulseDaemon): what is
// written is heard on the sink's monitor at the level written, cork stops it, the stream's volume
// scales it, latency is reported, and killing the server mid-play reports one failure and no
// fill after it — no crash, no hang.
import CoreMedia
import Foundation
@testable import MediaEngine
import Synchronization
import Testing
import TestSupport

/// A 1 kHz sine at `amplitude` written into every fill, counting fills and what followed a failure.
private final class ToneWriter: Sendable {
    private struct State {
        var phase = 0
        var fills = 0
        var fillsAfterFailure = 0
        var failures: [String] = []
        var latencies: [Double] = []
    }

    private let state = Mutex(State())
    let amplitude: Float
    let failed = DispatchSemaphore(value: 0)

    init(amplitude: Float) { self.amplitude = amplitude }

    func fill(_ buffer: UnsafeMutableRawBufferPointer, _ latency: Double) -> Int {
        let samples = buffer.bindMemory(to: Float.self)
        state.withLock { s in
            s.fills += 1
            if !s.failures.isEmpty { s.fillsAfterFailure += 1 }
            s.latencies.append(latency)
            for frame in 0..<(samples.count / 2) {
                let value = amplitude * sinf(2 * .pi * 1000 * Float(s.phase) / 48_000)
                samples[2 * frame] = value
                samples[2 * frame + 1] = value
                s.phase = (s.phase + 1) % 48_000
            }
        }
        return samples.count / 2 * 8
    }

    func fail(_ text: String, serverLost: Bool) {
        state.withLock { $0.failures.append((serverLost ? "server: " : "sink: ") + text) }
        failed.signal()
    }

    var fills: Int { state.withLock { $0.fills } }
    var failures: [String] { state.withLock { $0.failures } }
    var fillsAfterFailure: Int { state.withLock { $0.fillsAfterFailure } }
    var latencies: [Double] { state.withLock { $0.latencies } }
}

/// The monitor's peak level over chunks recorded by a PulseSource.
private final class PeakMeter: Sendable {
    private let peaks = Mutex<[(host: Double, peak: Float)]>([])

    func deliver(_ chunk: LiveAudioChunk) {
        let peak = chunk.samples.withUnsafeBytes { raw in raw.bindMemory(to: Float.self).reduce(Float(0)) { max($0, abs($1)) } }
        let host = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        peaks.withLock { $0.append((host, peak)) }
    }

    /// The highest peak of chunks received between `from` and `to` (host seconds).
    func peak(from: Double, to: Double) -> Float {
        peaks.withLock { $0.filter { $0.host >= from && $0.host < to }.map(\.peak).max() ?? 0 }
    }
}

private func sleepSeconds(_ seconds: Double) { usleep(useconds_t(seconds * 1_000_000)) }

@Suite("PulseAudio playback", .serialized, .enabled(if: PrivatePulseDaemon.isAvailable))
struct PulsePlaybackTests {
    private func now() -> Double { CMClockGetTime(CMClockGetHostTimeClock()).seconds }

    @Test func writtenSoundIsHeardAtItsLevelCorkStopsItVolumeScalesIt() throws {
        let daemon = try PrivatePulseDaemon()
        defer { daemon.kill() }
        let meter = PeakMeter()
        let source = PulseSource(sourceName: daemon.monitor, server: daemon.server,
                                 formats: [LiveAudioFormat(sampleRate: 48_000, channelCount: 2)])
        try source.start(format: LiveAudioFormat(sampleRate: 48_000, channelCount: 2), clock: CMClockGetHostTimeClock(),
                         deliver: meter.deliver, failed: { _ in })
        defer { source.stop() }
        let tone = ToneWriter(amplitude: 0.5)
        let stream = try PulsePlayback(server: daemon.server, sinkName: daemon.sink, sampleRate: 48_000, channels: 2,
                                       fill: tone.fill, failed: tone.fail)
        defer { stream.close() }
        // Opened corked: the buffer is filled once, then nothing is asked for.
        sleepSeconds(0.3)
        #expect(tone.fills <= 1)
        stream.setPaused(false)
        // An idle null sink renders in 2 s blocks: ours starts at the end of the one under way.
        sleepSeconds(2.5)
        let playing = now()
        sleepSeconds(0.6)
        #expect(tone.fills > 20)
        #expect(abs(meter.peak(from: playing, to: now()) - 0.5) < 0.02, "\(meter.peak(from: playing, to: now()))")
        // Latency: positive and about what was asked for (50 ms), well under a second.
        let latencies = tone.latencies.suffix(20)
        #expect(latencies.allSatisfy { $0 > 0 && $0 < 0.5 }, "\(Array(latencies))")
        // Half volume: half the amplitude.
        stream.setVolume(0.5)
        sleepSeconds(0.6)
        let halved = now()
        sleepSeconds(0.5)
        #expect(abs(meter.peak(from: halved, to: now()) - 0.25) < 0.02, "\(meter.peak(from: halved, to: now()))")
        // Muted, then corked: silence, and no fills while corked.
        stream.setMuted(true)
        sleepSeconds(0.6)
        let muted = now()
        sleepSeconds(0.4)
        #expect(meter.peak(from: muted, to: now()) < 0.001)
        stream.setPaused(true)
        sleepSeconds(0.3)
        let fills = tone.fills
        sleepSeconds(0.5)
        #expect(tone.fills == fills)
        #expect(tone.failures.isEmpty)
    }

    @Test func killingTheServerReportsOneFailureAndNoFillAfter() throws {
        let daemon = try PrivatePulseDaemon()
        defer { daemon.kill() }
        let tone = ToneWriter(amplitude: 0.1)
        let stream = try PulsePlayback(server: daemon.server, sampleRate: 48_000, channels: 2, fill: tone.fill, failed: tone.fail)
        stream.setPaused(false)
        sleepSeconds(0.5)
        #expect(tone.fills > 0)
        daemon.kill()
        #expect(tone.failed.wait(timeout: .now() + 2) == .success, "no failure within 2 s of the server's death")
        sleepSeconds(0.3)
        #expect(tone.failures.count == 1, "\(tone.failures)")
        #expect(tone.failures.first?.contains("went away") == true && tone.failures.first?.hasPrefix("server: ") == true)
        #expect(tone.fillsAfterFailure == 0)
        // Everything still answers, and closing returns.
        stream.setPaused(true)
        stream.setVolume(0.3)
        stream.flush()
        stream.close()
    }

    @Test func noServerOrNoSinkIsAnErrorAtOnce() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-pulse-\(getpid())")
        #expect(throws: PulsePlaybackError.self) {
            _ = try PulsePlayback(server: "unix:\(missing.path)/native", sampleRate: 48_000, channels: 2,
                                  fill: { _, _ in 0 }, failed: { _, _ in })
        }
        let daemon = try PrivatePulseDaemon()
        defer { daemon.kill() }
        do {
            _ = try PulsePlayback(server: daemon.server, sinkName: "no_such_sink", sampleRate: 48_000, channels: 2,
                                  fill: { _, _ in 0 }, failed: { _, _ in })
            Issue.record("opened a sink that does not exist")
        } catch {
            #expect(error.description.contains("no_such_sink"), "\(error)")
        }
    }
}
