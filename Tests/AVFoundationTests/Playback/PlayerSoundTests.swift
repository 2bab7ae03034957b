// What a person hears from AVPlayer: the sound goes to the PulseAudio server's default sink (the
// test services' null sink), is recorded back from its monitor through AVCaptureSession, and is
// measured — the tone is there, it starts when the player's clock says its media time is
// reached (the audio/video offset, since pictures are shown on that clock), mute silences it.
@testable import AVFoundation
import CoreMedia
import Foundation
import Synchronization
import Testing
import TestSupport

/// Records the monitor's sound as (host time of the first frame, mono samples) per buffer.
private final class MonitorRecorder: NSObject, AVCaptureAudioDataOutputSampleBufferDelegate, @unchecked Sendable {
    // @unchecked Sendable: an NSObject delegate whose state is all in a Mutex.
    struct Chunk {
        var start: Double
        var rate: Double
        var samples: [Float]
    }

    private let chunks = Mutex<[Chunk]>([])
    let queue = DispatchQueue(label: "monitor recorder")

    var recorded: [Chunk] { chunks.withLock { $0 } }

    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        guard let format = sampleBuffer.formatDescription,
              let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(format)?.pointee,
              let data = sampleBuffer.dataBuffer else { return }
        let length = CMBlockBufferGetDataLength(data)
        var bytes = [UInt8](repeating: 0, count: length)
        guard CMBlockBufferCopyDataBytes(data, atOffset: 0, dataLength: length, destination: &bytes) == noErr else { return }
        let channels = max(1, Int(asbd.mChannelsPerFrame))
        var mono: [Float] = []
        bytes.withUnsafeBytes { raw in
            if asbd.mFormatFlags & kAudioFormatFlagIsFloat != 0 {
                let all = raw.bindMemory(to: Float.self)
                mono = stride(from: 0, to: all.count - channels + 1, by: channels).map { all[$0] }
            } else if asbd.mBitsPerChannel == 16 {
                let all = raw.bindMemory(to: Int16.self)
                mono = stride(from: 0, to: all.count - channels + 1, by: channels).map { Float(all[$0]) / 32768 }
            }
        }
        let chunk = Chunk(start: sampleBuffer.presentationTimeStamp.seconds, rate: asbd.mSampleRate, samples: mono)
        chunks.withLock { $0.append(chunk) }
    }

    /// The host time of the first sample louder than `threshold` after `after`.
    func onset(after: Double, threshold: Float = 0.1) -> Double? {
        for chunk in recorded where chunk.start + Double(chunk.samples.count) / chunk.rate > after {
            for (i, x) in chunk.samples.enumerated() where abs(x) > threshold {
                let t = chunk.start + Double(i) / chunk.rate
                if t > after { return t }
            }
        }
        return nil
    }

    /// The frequency of the sound between two host times, from its zero crossings (Hz).
    func frequency(from: Double, to: Double) -> Double {
        var crossings = 0
        var previous: Float?
        var first: Double?, last: Double?
        for chunk in recorded {
            for (i, x) in chunk.samples.enumerated() {
                let t = chunk.start + Double(i) / chunk.rate
                guard t >= from, t < to else { continue }
                if let p = previous, (p < 0) != (x < 0) {
                    crossings += 1
                    if first == nil { first = t }
                    last = t
                }
                previous = x
            }
        }
        guard let first, let last, last > first, crossings > 2 else { return 0 }
        return Double(crossings - 1) / 2 / (last - first)
    }

    /// The peak level between two host times.
    func peak(from: Double, to: Double) -> Float {
        var peak: Float = 0
        for chunk in recorded {
            for (i, x) in chunk.samples.enumerated() {
                let t = chunk.start + Double(i) / chunk.rate
                if t >= from, t < to { peak = max(peak, abs(x)) }
            }
        }
        return peak
    }
}

// Inside the capture tests' serialized suite: they too play into and record from the services'
// one null sink, so the two never run at the same time.
extension CaptureTests {
@Suite(.serialized, .enabled(if: CaptureServices.shouldRun, "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
struct PlayerSoundTests {
    /// 2.5 s: a picture throughout, silence for 1 s, then a 1 kHz tone at half scale (16-bit PCM
    /// in a QuickTime movie, so the onset is sample-exact).
    static let beep: URL = {
        let url = PlayerMedia.dir.appendingPathComponent("beep.mov")
        if !FileManager.default.fileExists(atPath: url.path) {
            GeneratorMedia.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2.5",
                                   "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t)*gte(t\\,1):s=48000:c=stereo:d=2.5",
                                   "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
                                   "-c:a", "pcm_s16le", url.path])
        }
        return url
    }()

    /// A running capture session recording the default source (the null sink's monitor).
    private func startMonitor() throws -> (AVCaptureSession, MonitorRecorder) {
        let microphone = try #require(AVCaptureDevice.default(for: .audio))
        let session = AVCaptureSession()
        let input = try AVCaptureDeviceInput(device: microphone)
        try #require(session.canAddInput(input))
        session.addInput(input)
        let output = AVCaptureAudioDataOutput()
        let recorder = MonitorRecorder()
        output.setSampleBufferDelegate(recorder, queue: recorder.queue)
        try #require(session.canAddOutput(output))
        session.addOutput(output)
        session.startRunning()
        // The capture's clock anchoring settles within ~2 s of connecting (see PulseSource).
        Thread.sleep(forTimeInterval: 3)
        return (session, recorder)
    }

    /// A ready player of the beep clip (its item's pitch algorithm `algorithm`), at media time
    /// `start` (an exact seek when not zero).
    private func readyBeepPlayer(at start: Double = 0, algorithm: AVAudioTimePitchAlgorithm? = nil) -> (AVPlayer, AVPlayerItem) {
        let item = AVPlayerItem(url: Self.beep)
        if let algorithm { item.audioTimePitchAlgorithm = algorithm }
        let player = AVPlayer(playerItem: item)
        #expect(waitUntil { item.status == .readyToPlay })
        if start != 0 {
            let sought = DispatchSemaphore(value: 0)
            player.seek(to: CMTime(seconds: start, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero) { _ in
                sought.signal()
            }
            #expect(sought.wait(timeout: .now() + 10) == .success)
        }
        return (player, item)
    }

    /// The host time at which the playing `player`'s clock is (or was) at media time `media`.
    private func hostTime(of media: Double, _ player: AVPlayer) -> Double {
        let before = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        let now = player.currentTime().seconds
        let after = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        return (before + after) / 2 + (media - now)
    }

    @Test func theToneIsHeardWhenTheClockReachesIt() throws {
        guard CaptureServicesEnvironment.install() != nil else { return }
        let (session, monitor) = try startMonitor()
        defer { session.stopRunning() }
        let (player, item) = readyBeepPlayer()
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let started = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        player.play()
        // Where the clock puts media time 1 s on the host clock (read while playing at rate 1).
        #expect(waitUntil { player.currentTime().seconds > 0.3 })
        let due = hostTime(of: 1, player)
        #expect(ended.wait(timeout: 10))
        Thread.sleep(forTimeInterval: 0.3)
        // Silence before the tone, the tone after it.
        #expect(monitor.peak(from: started, to: due - 0.1) < 0.01)
        let heard = try #require(monitor.onset(after: started))
        let offset = heard - due
        print("PlayerSoundTests: tone heard \(Int((offset * 1000).rounded())) ms after the clock reached it")
        #expect(abs(offset) <= 0.020, "audio is \(offset * 1000) ms off the clock")
        #expect(monitor.peak(from: due + 0.1, to: due + 1.3) > 0.4)
    }

    /// Playing from a standstill where the sound begins: the start waits for the output's
    /// latency, so the first milliseconds are heard at their time instead of being skipped to
    /// catch up with a clock that started at once.
    /// The item's time follows the audio clock (CMAudioClockCreate), which the sound server's
    /// stream drives while the player's sound plays: reports of how far the device has played
    /// arrive with every write (~10 ms), and on the null sink (a device on the host's clock) the
    /// audio clock stays within a few milliseconds of the host clock.
    @Test func theItemsClockIsTheAudioClock() throws {
        guard CaptureServicesEnvironment.install() != nil else { return }
        let (player, item) = readyBeepPlayer()
        var audio: CMClock?
        #expect(CMAudioClockCreate(allocator: nil, clockOut: &audio) == noErr)
        let timebase = try #require(item.timebase)
        #expect(CMTimebaseCopySourceClock(timebase) == audio)
        let clock = try #require(audio)
        // The audio clock's offset from the host clock changes only as far as the device's pace
        // differs from it (earlier streams of this process may have moved it before).
        func offset() -> Double { (CMClockGetTime(clock) - CMClockGetTime(CMClockGetHostTimeClock())).seconds }
        let before = AudioOutputTimeline.shared.reportCount, offsetBefore = offset()
        player.play()
        #expect(waitUntil { player.currentTime().seconds > 1.5 })
        let reports = AudioOutputTimeline.shared.reportCount - before
        let moved = offset() - offsetBefore
        player.pause()
        print("PlayerSoundTests: \(reports) device reports in 1.5 s; audio clock − host clock moved \(Int((moved * 1000).rounded())) ms (from \(Int((offsetBefore * 1000).rounded())) ms)")
        #expect(reports >= 50, "the sound server's progress drives the audio clock")
        #expect(abs(moved) < 0.025)
        // A sourceClock set by hand replaces it; nil gives it back.
        player.sourceClock = CMClockGetHostTimeClock()
        #expect(CMTimebaseCopySourceClock(timebase) == CMClockGetHostTimeClock())
        player.sourceClock = nil
        #expect(CMTimebaseCopySourceClock(timebase) == audio)
    }

    @Test func theFirstSoundAfterASeekIsNotCut() throws {
        guard CaptureServicesEnvironment.install() != nil else { return }
        let (session, monitor) = try startMonitor()
        defer { session.stopRunning() }
        let (player, _) = readyBeepPlayer(at: 1)
        let started = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        player.play()
        // The host time at which the clock is at media time 1 s (the tone's first sample).
        #expect(waitUntil { player.currentTime().seconds > 1.3 })
        let due = hostTime(of: 1, player)
        player.pause()
        Thread.sleep(forTimeInterval: 0.3)
        let heard = try #require(monitor.onset(after: started))
        let offset = heard - due
        print("PlayerSoundTests: first sound after a seek heard \(Int((offset * 1000).rounded())) ms after its time")
        #expect(abs(offset) <= 0.020, "the first sound is \(offset * 1000) ms off its time (cut at the start?)")
        // The clock never showed a time before the seek's.
        #expect(due >= started - 0.001)
    }

    /// At rate 2 the time-domain algorithm keeps the 1 kHz tone at 1 kHz; varispeed plays it
    /// as a tape would, an octave up.
    @Test(arguments: [(AVAudioTimePitchAlgorithm.timeDomain, 1000.0), (.varispeed, 2000.0)])
    func pitchAtRateTwo(algorithm: AVAudioTimePitchAlgorithm, expected: Double) throws {
        guard CaptureServicesEnvironment.install() != nil else { return }
        let (session, monitor) = try startMonitor()
        defer { session.stopRunning() }
        let (player, item) = readyBeepPlayer(at: 1, algorithm: algorithm)
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let start = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        player.rate = 2
        #expect(ended.wait(timeout: 10))
        Thread.sleep(forTimeInterval: 0.2)
        // The middle of the 0.75 s the tone lasts at rate 2.
        let heard = monitor.frequency(from: start + 0.25, to: start + 0.6)
        print("PlayerSoundTests: \(algorithm.rawValue) at rate 2: \(Int(heard)) Hz")
        #expect(abs(heard - expected) < expected * 0.03, "\(algorithm.rawValue): \(heard) Hz")
    }

    @Test func mutedAndHalfVolume() throws {
        guard CaptureServicesEnvironment.install() != nil else { return }
        let (session, monitor) = try startMonitor()
        defer { session.stopRunning() }
        let (player, item) = readyBeepPlayer()
        player.isMuted = true
        let ended = NotificationRecorder(.AVPlayerItemDidPlayToEndTime, object: item)
        let start = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        player.play()
        #expect(ended.wait(timeout: 10))
        let end = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        #expect(monitor.peak(from: start, to: end + 0.2) < 0.01)
        // Half volume: half the amplitude (PulseAudio's software volume is linear in amplitude).
        player.isMuted = false
        player.volume = 0.5
        player.seek(to: CMTime(value: 1, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero)
        let again = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        player.play()
        #expect(ended.wait(count: 2, timeout: 10))
        Thread.sleep(forTimeInterval: 0.3)
        let peak = monitor.peak(from: again + 0.3, to: again + 1.2)
        #expect(abs(peak - 0.25) < 0.03, "peak \(peak)")
    }
}
}
