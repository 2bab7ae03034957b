// AVAudioPlayer as Apple documents it, in this process: errors for a missing or non-sound file,
// duration and format, the delegate told once at the end (after every loop), currentTime while
// playing, paused, stopped and set, rate, a start at a device time, and metering of a −6 dBFS sine
// (peak −6, average −9). Every player here plays at volume 0 (metering is of the file's sound,
// before volume), so nothing is heard by the capture tests recording the suite's sink; what is
// heard is judged in PlayAudioToolTests, against a sound server of its own.
import AVFAudio
import CoreMedia
import Foundation
import Synchronization
import Testing
import TestSupport

/// Counts the delegate's calls (made on the main queue).
private final class PlayerDelegate: NSObject, AVAudioPlayerDelegate, Sendable {
    let finishes = Mutex<[Bool]>([])
    let decodeErrors = Mutex(0)
    let finishedAt = Mutex<Double?>(nil)

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        finishedAt.withLock { $0 = CMClockGetTime(CMClockGetHostTimeClock()).seconds }
        finishes.withLock { $0.append(flag) }
    }

    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {
        decodeErrors.withLock { $0 += 1 }
    }
}

@Suite struct AVAudioPlayerTests {
    static let dir = TestTools.makeTemporaryDirectory("avfaudio-player")

    static func make(_ name: String, _ args: [String]) -> URL { TestTools.ffmpegFixture(name, in: dir, args) }

    /// Half a second of a 440 Hz sine, stereo 16-bit at 48 kHz.
    static let short = make("short.wav", ["-f", "lavfi", "-i", "aevalsrc=0.3*sin(2*PI*440*t):s=48000:c=stereo:d=0.5", "-c:a", "pcm_s16le"])
    /// Three seconds of a 1 kHz sine at −6 dBFS (amplitude 0.501), stereo float at 44.1 kHz.
    static let sine = make("sine-6dB.wav", ["-f", "lavfi", "-i", "aevalsrc=0.501187*sin(2*PI*1000*t):s=44100:c=stereo:d=3", "-c:a", "pcm_f32le"])
    /// Four seconds of mono AAC in an M4A.
    static let aac = make("mono.m4a", ["-f", "lavfi", "-i", "aevalsrc=0.3*sin(2*PI*330*t):s=44100:d=4", "-c:a", "aac", "-b:a", "96k"])

    private static var host: Double { CMClockGetTime(CMClockGetHostTimeClock()).seconds }

    private func quietPlayer(_ url: URL) throws -> AVAudioPlayer {
        let player = try AVAudioPlayer(contentsOf: url)
        player.volume = 0
        return player
    }

    private func waitUntil(_ seconds: Double = 20, _ condition: () -> Bool) -> Bool { TestTools.waitUntil(seconds, condition) }

    @Test func aMissingFileAndDataThatIsNoSoundThrowAppleErrors() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/sound.wav")
        #expect {
            _ = try AVAudioPlayer(contentsOf: missing)
        } throws: { error in
            let ns = error as NSError
            return ns.domain == NSOSStatusErrorDomain && ns.code == -43
        }
        #expect {
            _ = try AVAudioPlayer(data: Data("this is not a sound file at all, only some text".utf8))
        } throws: { error in
            let ns = error as NSError
            return ns.domain == NSOSStatusErrorDomain && ns.code == 1_954_115_647 // 'typ?'
        }
    }

    @Test func durationFormatAndSourceOfAFileAndOfData() throws {
        let player = try quietPlayer(Self.short)
        #expect(abs(player.duration - 0.5) < 0.001)
        #expect(player.numberOfChannels == 2)
        #expect(player.format.sampleRate == 48_000 && player.format.channelCount == 2)
        #expect((player.settings[AVSampleRateKey] as? NSNumber)?.doubleValue == 48_000)
        #expect(player.url == Self.short && player.data == nil)
        #expect(!player.isPlaying && player.currentTime == 0 && player.numberOfLoops == 0)
        #expect(player.volume == 0 && player.pan == 0 && player.rate == 1 && !player.enableRate && !player.isMeteringEnabled)

        let bytes = try Data(contentsOf: Self.aac)
        let fromData = try AVAudioPlayer(data: bytes)
        #expect(fromData.url == nil && fromData.data == bytes)
        #expect(fromData.numberOfChannels == 1)
        #expect(abs(fromData.duration - 4) < 0.03, "\(fromData.duration)")
    }

    @Test func theDelegateHearsOnceAtTheEndAndThePlayerStandsAtZero() throws {
        let player = try quietPlayer(Self.short)
        let delegate = PlayerDelegate()
        player.delegate = delegate
        #expect(player.prepareToPlay())
        let started = Self.host
        #expect(player.play())
        #expect(player.isPlaying)
        #expect(waitUntil { !delegate.finishes.withLock { $0 }.isEmpty })
        // Not before the sound could have played.
        #expect(try #require(delegate.finishedAt.withLock { $0 }) - started >= 0.5)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(delegate.finishes.withLock { $0 } == [true])
        #expect(delegate.decodeErrors.withLock { $0 } == 0)
        #expect(!player.isPlaying)
        #expect(player.currentTime == 0)
    }

    @Test func loopsPlayTheSoundAgainBeforeTheEnd() throws {
        let player = try quietPlayer(Self.short)
        let delegate = PlayerDelegate()
        player.delegate = delegate
        player.numberOfLoops = 2
        let started = Self.host
        player.play()
        var positions: [Double] = []
        #expect(waitUntil {
            positions.append(player.currentTime)
            return !delegate.finishes.withLock { $0 }.isEmpty
        })
        // Three times through: not before 1.5 s; the position stays within the sound and wraps.
        #expect(try #require(delegate.finishedAt.withLock { $0 }) - started >= 1.5)
        #expect(positions.allSatisfy { $0 >= 0 && $0 <= 0.5 })
        let wraps = zip(positions, positions.dropFirst()).filter { $0.1 < $0.0 - 0.2 }.count
        #expect(wraps >= 2, "\(wraps) wraps")
        #expect(delegate.finishes.withLock { $0 } == [true])
    }

    @Test func currentTimeRunsStopsAndIsSetWhilePlaying() throws {
        let player = try quietPlayer(Self.aac)
        let before = Self.host
        player.play()
        #expect(waitUntil { player.currentTime > 0.2 })
        let elapsed = Self.host - before
        // The position follows the host clock (at rate 1 it cannot run ahead of it).
        #expect(player.currentTime <= elapsed + 0.001)
        player.currentTime = 2.5
        #expect(player.currentTime >= 2.5 && player.currentTime < 2.6)
        #expect(waitUntil { player.currentTime > 2.6 })
        player.pause()
        #expect(!player.isPlaying)
        let paused = player.currentTime
        Thread.sleep(forTimeInterval: 0.2)
        #expect(player.currentTime == paused)
        // stop() keeps the position; play() goes on from it.
        player.stop()
        #expect(player.currentTime == paused)
        player.play()
        #expect(waitUntil { player.currentTime > paused + 0.1 })
        player.stop()
    }

    @Test func rateTwoRunsTwiceAsFastAndIsLimited() throws {
        let player = try quietPlayer(Self.aac)
        player.enableRate = true
        player.rate = 5
        #expect(player.rate == 2)
        player.rate = 0.1
        #expect(player.rate == 0.5)
        player.rate = 2
        player.prepareToPlay()
        player.play()
        #expect(waitUntil { player.currentTime > 0.1 })
        // Between two readings the position moves twice as far as the host clock.
        let t1a = Self.host, p1 = player.currentTime, t1b = Self.host
        Thread.sleep(forTimeInterval: 0.3)
        let t2a = Self.host, p2 = player.currentTime, t2b = Self.host
        #expect(p2 - p1 >= 2 * (t2a - t1b) - 0.001 && p2 - p1 <= 2 * (t2b - t1a) + 0.001, "\(p2 - p1) in \(t2a - t1b)…\(t2b - t1a) s")
        player.stop()
    }

    @Test func playAtTimeWaitsForTheDeviceTime() throws {
        let player = try quietPlayer(Self.aac)
        player.prepareToPlay()
        let now = player.deviceCurrentTime
        #expect(player.deviceCurrentTime >= now)
        let start = now + 0.6
        #expect(player.play(atTime: start))
        #expect(player.isPlaying)
        // Until the device reaches the start, the position stays at the start.
        while player.deviceCurrentTime < start - 0.1 {
            #expect(player.currentTime == 0)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(waitUntil { player.deviceCurrentTime > start + 0.3 })
        let position = player.currentTime
        let expected = player.deviceCurrentTime - start
        #expect(position > 0 && position <= expected + 0.001, "\(position) vs \(expected)")
        player.stop()
    }

    @Test func metersOfAMinus6dBSineReadMinus6PeakAndMinus9Average() throws {
        let player = try quietPlayer(Self.sine)
        // Metering off: the floor.
        player.play()
        #expect(waitUntil { player.currentTime > 0.3 })
        player.updateMeters()
        #expect(player.peakPower(forChannel: 0) == -160 && player.averagePower(forChannel: 0) == -160)
        player.isMeteringEnabled = true
        #expect(waitUntil { player.currentTime > 0.8 })
        player.updateMeters()
        for channel in 0..<2 {
            let peak = player.peakPower(forChannel: channel), average = player.averagePower(forChannel: channel)
            #expect(abs(peak - -6.02) < 0.2, "channel \(channel) peak \(peak)")
            #expect(abs(average - -9.03) < 0.2, "channel \(channel) average \(average)")
        }
        // A channel the file does not have.
        #expect(player.peakPower(forChannel: 5) == -160)
        player.stop()
    }

    @Test func volumeFadesAndPanAreKeptInRange() throws {
        let player = try AVAudioPlayer(contentsOf: Self.short)
        player.volume = 3
        #expect(player.volume == 1)
        player.volume = -1
        #expect(player.volume == 0)
        player.setVolume(0.5, fadeDuration: 2)
        // The fade's target is the volume from then on.
        #expect(player.volume == 0.5)
        player.pan = -4
        #expect(player.pan == -1)
        player.pan = 0.25
        #expect(player.pan == 0.25)
    }
}
