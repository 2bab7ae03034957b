// AVAudioEngine as Apple documents it, rendered offline (manual rendering mode) so every sample is
// checked: a player node's file comes out as the file, two players mix with their volumes and
// pans, a rate conversion keeps the pitch, time-pitch at rate 2 halves the time, taps see every
// frame in order, completion handlers are called once; and a real-time engine's tap.
import AVFAudio
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite struct AVAudioEngineTests {
    static let dir = TestTools.makeTemporaryDirectory("avfaudio-engine")

    static func make(_ name: String, _ args: [String]) -> URL { TestTools.ffmpegFixture(name, in: dir, args) }

    /// One second of 440 Hz left, 660 Hz right, float at 44.1 kHz.
    static let tones = make("tones.wav", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)|0.25*sin(2*PI*660*t):s=44100:d=1", "-c:a", "pcm_f32le"])
    /// One second of 1 kHz mono at 22.05 kHz.
    static let lowRate = make("low.wav", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t):s=22050:d=1", "-c:a", "pcm_f32le"])

    static let stereo = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!

    /// An engine in offline manual rendering mode at 44.1 kHz stereo, running.
    private func offlineEngine(_ build: (AVAudioEngine) throws -> Void) throws -> AVAudioEngine {
        let engine = AVAudioEngine()
        try build(engine)
        try engine.enableManualRenderingMode(.offline, format: Self.stereo, maximumFrameCount: 4096)
        try engine.start()
        return engine
    }

    /// `frames` frames rendered in 4096-frame calls: (left, right).
    private func render(_ engine: AVAudioEngine, frames: Int) throws -> (left: [Float], right: [Float]) {
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 4096))
        var left: [Float] = [], right: [Float] = []
        while left.count < frames {
            let status = try engine.renderOffline(AVAudioFrameCount(min(4096, frames - left.count)), to: buffer)
            #expect(status == .success)
            let n = Int(buffer.frameLength)
            left += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: n)
            right += UnsafeBufferPointer(start: buffer.floatChannelData![1], count: n)
        }
        return (left, right)
    }

    /// `source` played through `effect` into the main mixer, offline: `frames` frames of the left channel.
    private func renderThrough(_ effect: AVAudioNode, _ source: AVAudioPCMBuffer, frames: Int) throws -> [Float] {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine { engine in
            engine.attach(player)
            engine.attach(effect)
            engine.connect(player, to: effect, format: Self.stereo)
            engine.connect(effect, to: engine.mainMixerNode, format: Self.stereo)
        }
        player.scheduleBuffer(source, at: nil)
        player.play()
        return try render(engine, frames: frames).left
    }

    private func constantBuffer(_ value: Float, frames: Int, format: AVAudioFormat = stereo) -> AVAudioPCMBuffer {
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        buffer.frameLength = AVAudioFrameCount(frames)
        for c in 0..<Int(format.channelCount) { buffer.floatChannelData![c].update(repeating: value, count: frames) }
        return buffer
    }

    private func crossings(_ x: ArraySlice<Float>) -> Int { zip(x, x.dropFirst()).filter { ($0.0 < 0) != ($0.1 < 0) }.count }

    @Test func aPlayerNodesFileComesOutAsTheFile() throws {
        let file = try AVAudioFile(forReading: Self.tones)
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine { engine in
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: file.processingFormat)
        }
        #expect(engine.isInManualRenderingMode && engine.manualRenderingMaximumFrameCount == 4096)
        player.scheduleFile(file, at: nil)
        player.play()
        #expect(player.isPlaying)
        let (left, right) = try render(engine, frames: 44_100 + 4096)
        let reference = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 44_100))
        try file.read(into: reference)
        let l = Array(UnsafeBufferPointer(start: reference.floatChannelData![0], count: 44_100))
        let r = Array(UnsafeBufferPointer(start: reference.floatChannelData![1], count: 44_100))
        #expect(zip(left.prefix(44_100), l).allSatisfy { abs($0.0 - $0.1) < 1e-6 }, "left differs")
        #expect(zip(right.prefix(44_100), r).allSatisfy { abs($0.0 - $0.1) < 1e-6 }, "right differs")
        #expect(left.dropFirst(44_100).allSatisfy { $0 == 0 }, "sound after the file's end")
        #expect(engine.manualRenderingSampleTime == AVAudioFramePosition(left.count))
    }

    /// A source node as published synthesiser code writes one: a sine written sample by sample
    /// through `UnsafeMutableAudioBufferListPointer`, asked for in order with contiguous sample
    /// times; its volume applies; a 16-bit interleaved block format is converted; a block that
    /// says silence, or fails, is silent.
    @Test func aSourceNodesBlockIsWhatIsHeard() throws {
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
        let times = Mutex<[Float64]>([])
        var phase = 0.0
        let sine = AVAudioSourceNode(format: mono) { _, timestamp, frameCount, audioBufferList -> OSStatus in
            times.withLock { $0.append(timestamp.pointee.mSampleTime) }
            let buffers = UnsafeMutableAudioBufferListPointer(audioBufferList)
            for frame in 0..<Int(frameCount) {
                let value = Float(0.5 * sin(phase))
                phase += 2 * Double.pi * 441 / 44_100
                for buffer in buffers { UnsafeMutableBufferPointer<Float>(buffer)[frame] = value }
            }
            return noErr
        }
        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let constant = AVAudioSourceNode(format: int16) { _, _, frameCount, audioBufferList -> OSStatus in
            let samples = UnsafeMutableAudioBufferListPointer(audioBufferList)[0].mData!.assumingMemoryBound(to: Int16.self)
            for i in 0..<Int(frameCount) * 2 { samples[i] = i % 2 == 0 ? 8192 : 0 }
            return noErr
        }
        let quiet = AVAudioSourceNode(format: mono) { isSilence, _, frameCount, audioBufferList -> OSStatus in
            isSilence.pointee = true
            return noErr
        }
        let engine = try offlineEngine { engine in
            for node in [sine, constant, quiet] { engine.attach(node) }
            engine.connect(sine, to: engine.mainMixerNode, format: mono)
            engine.connect(constant, to: engine.mainMixerNode, format: int16)
            engine.connect(quiet, to: engine.mainMixerNode, format: mono)
        }
        sine.volume = 0.5
        let (left, right) = try render(engine, frames: 44_100)
        // Left: the sine at half volume plus the 16-bit block's 0.25; right: the sine alone.
        var worst: Float = 0
        for i in 0..<44_100 {
            let expected = Float(0.25 * sin(2 * Double.pi * 441 * Double(i) / 44_100))
            worst = max(worst, abs(left[i] - expected - 0.25), abs(right[i] - expected))
        }
        #expect(worst < 1e-4, "largest difference \(worst)")
        let asked = times.withLock { $0 }
        #expect(asked.first == 0 && asked.count == 11)
        #expect(zip(asked, asked.dropFirst()).allSatisfy { $1 - $0 == 4096 || $1 == 40_960 }, "\(asked)")
    }

    /// The manual rendering block renders into a caller's AudioBufferList (its own buffers, or
    /// the engine's where `mData` is nil), and refuses more frames than the maximum.
    @Test func theManualRenderingBlockFillsABufferList() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine { engine in
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: Self.stereo)
        }
        player.scheduleBuffer(constantBuffer(0.25, frames: 8192), at: nil)
        player.play()
        let render = engine.manualRenderingBlock
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 1024))
        var status: OSStatus = 0
        #expect(render(1024, buffer.mutableAudioBufferList, &status) == .success && status == 0)
        let list = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        #expect(list.allSatisfy { UnsafeBufferPointer<Float>($0).prefix(1024).allSatisfy { $0 == 0.25 } })
        // Buffers without memory get the engine's.
        let empty = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(empty.unsafeMutablePointer) }
        for b in 0..<2 { empty[b] = AudioBuffer(mNumberChannels: 1, mDataByteSize: 0, mData: nil) }
        #expect(render(512, empty.unsafeMutablePointer, nil) == .success)
        #expect(empty.allSatisfy { $0.mDataByteSize == 512 * 4 && UnsafeBufferPointer<Float>($0).allSatisfy { $0 == 0.25 } })
        #expect(engine.manualRenderingSampleTime == 1536)
        #expect(render(8192, buffer.mutableAudioBufferList, &status) == .error && status == -10_874)
    }

    /// A reverb leaves a tail after the sound stops, as long as its preset's hall is large; the
    /// reverberated sound has the dry sound's level; with a mix of 0 or bypassed it is the dry
    /// sound exactly.
    @Test func aReverbLeavesATailAsLongAsItsPreset() throws {
        // Half a second of 1 kHz at 0.5, then silence; and a second of white noise.
        let tone = AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 22_050)!
        tone.frameLength = 22_050
        for c in 0..<2 {
            for i in 0..<22_050 { tone.floatChannelData![c][i] = Float(0.5 * sin(2 * Double.pi * 1000 * Double(i) / 44_100)) }
        }
        let noise = AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 44_100)!
        noise.frameLength = 44_100
        var seed: UInt32 = 12_345
        for c in 0..<2 {
            for i in 0..<44_100 {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                noise.floatChannelData![c][i] = Float(seed >> 8) / Float(1 << 24) * 0.6 - 0.3
            }
        }
        func rendered(_ source: AVAudioPCMBuffer, _ configure: (AVAudioUnitReverb) -> Void) throws -> [Float] {
            let reverb = AVAudioUnitReverb()
            configure(reverb)
            return try renderThrough(reverb, source, frames: 4 * 44_100)
        }
        func rms(_ samples: [Float], from start: Double, to end: Double) -> Double {
            let part = samples[Int(start * 44_100)..<Int(end * 44_100)]
            return (part.reduce(0) { $0 + Double($1) * Double($1) } / Double(part.count)).squareRoot()
        }
        // Wet only, once the small room's response is full: the noise's level (0.3/√3), ±2 dB.
        let wet = rms(try rendered(noise) { $0.loadFactoryPreset(.smallRoom) }, from: 0.6, to: 0.95)
        let level = 20 * log10(wet / (0.3 / 3.0.squareRoot()))
        #expect(abs(level) < 2, "the reverberated noise is \(level) dB from the dry noise")
        // After the tone: the hall still sounds half a second later, the small room has died away.
        let hall = try rendered(tone) { $0.loadFactoryPreset(.largeHall); $0.wetDryMix = 50 }
        let room = try rendered(tone) { $0.loadFactoryPreset(.smallRoom); $0.wetDryMix = 50 }
        let hallTail = rms(hall, from: 0.9, to: 1.0), roomTail = rms(room, from: 0.9, to: 1.0)
        #expect(hallTail > 0.01 && roomTail < hallTail / 100, "tails: hall \(hallTail), room \(roomTail)")
        #expect(rms(hall, from: 3.5, to: 4) < 1e-3, "the hall's tail has ended by 3.5 s")
        // Dry: the tone exactly, and silence after it.
        for dry in [try rendered(tone) { $0.wetDryMix = 0 }, try rendered(tone) { $0.bypass = true }] {
            var worst: Float = 0
            for i in 0..<22_050 { worst = max(worst, abs(dry[i] - tone.floatChannelData![0][i])) }
            #expect(worst < 1e-6 && dry[22_050...].allSatisfy { $0 == 0 })
        }
    }

    /// A delay's echoes come `delayTime` apart, each `feedback` times the one before, mixed by
    /// `wetDryMix`: a click comes back at 0.1 s at half level, at 0.2 s at a quarter (negative
    /// feedback: inverted), nothing in between.
    @Test func aDelaysEchoesComeAtTheirTimesAndLevels() throws {
        let click = AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 1)!
        click.frameLength = 1
        click.floatChannelData![0][0] = 0.8
        click.floatChannelData![1][0] = 0.8
        func rendered(_ configure: (AVAudioUnitDelay) -> Void) throws -> [Float] {
            let delay = AVAudioUnitDelay()
            #expect(delay.delayTime == 1 && delay.feedback == 50 && delay.lowPassCutoff == 15_000 && delay.wetDryMix == 100)
            configure(delay)
            return try renderThrough(delay, click, frames: 22_050)
        }
        let out = try rendered {
            $0.delayTime = 0.1
            $0.feedback = -50
            $0.wetDryMix = 50
            $0.lowPassCutoff = 22_050
        }
        let latency = 256, echo = 4_410
        // The dry click at half, then the echoes: 0.8 · 0.5 · (1, −0.5, 0.25).
        #expect(abs(out[latency] - 0.4) < 1e-4)
        #expect(abs(out[latency + echo] - 0.4) < 1e-4 && abs(out[latency + 2 * echo] + 0.2) < 1e-4
                && abs(out[latency + 3 * echo] - 0.1) < 1e-4, "\(out[latency + echo]) \(out[latency + 2 * echo])")
        let between = out.indices.filter { ![latency, latency + echo, latency + 2 * echo, latency + 3 * echo, latency + 4 * echo].contains($0) }
        #expect(between.allSatisfy { abs(out[$0]) < 1e-4 }, "sound between the echoes")
    }

    @Test func twoPlayersMixWithTheirVolumesAndPans() throws {
        let a = AVAudioPlayerNode(), b = AVAudioPlayerNode()
        let engine = try offlineEngine { engine in
            for player in [a, b] {
                engine.attach(player)
                engine.connect(player, to: engine.mainMixerNode, format: Self.stereo)
            }
        }
        a.scheduleBuffer(constantBuffer(0.25, frames: 8192), at: nil, options: .loops)
        b.scheduleBuffer(constantBuffer(0.125, frames: 8192), at: nil, options: .loops)
        a.play()
        b.play()
        var (left, right) = try render(engine, frames: 4096)
        #expect(left.allSatisfy { abs($0 - 0.375) < 1e-6 } && right.allSatisfy { abs($0 - 0.375) < 1e-6 })
        a.volume = 0.5
        b.pan = -1
        (left, right) = try render(engine, frames: 4096)
        #expect(left.allSatisfy { abs($0 - 0.25) < 1e-6 }, "\(left.first ?? 0)")
        #expect(right.allSatisfy { abs($0 - 0.125) < 1e-6 }, "\(right.first ?? 0)")
        #expect(b.destination(forMixer: engine.mainMixerNode, bus: 1)?.pan == -1)
        engine.mainMixerNode.outputVolume = 0.5
        (left, _) = try render(engine, frames: 4096)
        #expect(left.allSatisfy { abs($0 - 0.125) < 1e-6 })
    }

    @Test func aMonoPlayerAtAnotherRateIsConvertedKeepingItsPitch() throws {
        let file = try AVAudioFile(forReading: Self.lowRate)
        #expect(file.processingFormat.sampleRate == 22_050 && file.processingFormat.channelCount == 1)
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine { engine in
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: file.processingFormat)
        }
        player.scheduleFile(file, at: nil)
        player.play()
        let (left, right) = try render(engine, frames: 44_100)
        // 1 kHz: 2000 zero crossings a second; both channels.
        let n = crossings(left[4410..<39_690])
        #expect(abs(n - 1600) <= 4, "\(n) crossings in 0.8 s")
        #expect(zip(left, right).allSatisfy { $0.0 == $0.1 })
        #expect(abs((left.map(abs).max() ?? 0) - 0.5) < 0.02)
    }

    /// The tones file through `unit` (at rate 2) rendered for a second: how long it sounded and
    /// the left channel's zero crossings over 0.2 s from 0.05 s in.
    private func throughRateTwo(_ unit: AVAudioNode) throws -> (seconds: Double, crossings: Int) {
        let file = try AVAudioFile(forReading: Self.tones)
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine { engine in
            engine.attach(player)
            engine.attach(unit)
            engine.connect(player, to: unit, format: file.processingFormat)
            engine.connect(unit, to: engine.mainMixerNode, format: file.processingFormat)
        }
        player.scheduleFile(file, at: nil)
        player.play()
        let (left, _) = try render(engine, frames: 44_100)
        let loud = left.indices.filter { abs(left[$0]) > 0.05 }
        let first = try #require(loud.first)
        return (Double((loud.last ?? 0) - first) / 44_100, crossings(left[(first + 2205)..<(first + 2205 + 8820)]))
    }

    @Test func timePitchAtRateTwoHalvesTheTimeKeepingThePitch() throws {
        let pitch = AVAudioUnitTimePitch()
        pitch.rate = 2
        #expect(pitch.rate == 2 && pitch.pitch == 0)
        let (seconds, n) = try throughRateTwo(pitch)
        #expect(seconds > 0.45 && seconds < 0.56, "sounded \(seconds) s")
        // 440 Hz kept: 880 crossings a second.
        #expect(abs(n - 176) <= 4, "\(n) crossings in 0.2 s")
    }

    /// A second of a `frequency` Hz sine at amplitude 0.5, stereo 44.1 kHz.
    private func sine(_ frequency: Double) -> AVAudioPCMBuffer {
        let buffer = AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 44_100)!
        buffer.frameLength = 44_100
        for c in 0..<2 {
            for i in 0..<44_100 { buffer.floatChannelData![c][i] = Float(0.5 * sin(2 * Double.pi * frequency * Double(i) / 44_100)) }
        }
        return buffer
    }

    /// The RMS level (dB) of `frequency` Hz through an EQ that `configure` sets up, after 0.2 s.
    private func levelThroughEQ(_ frequency: Double, _ configure: (AVAudioUnitEQ) -> Void) throws -> Double {
        let player = AVAudioPlayerNode(), eq = AVAudioUnitEQ(numberOfBands: 2)
        configure(eq)
        let engine = try offlineEngine { engine in
            engine.attach(player)
            engine.attach(eq)
            engine.connect(player, to: eq, format: Self.stereo)
            engine.connect(eq, to: engine.mainMixerNode, format: Self.stereo)
        }
        player.scheduleBuffer(sine(frequency))
        player.play()
        let (left, _) = try render(engine, frames: 44_100)
        let tail = left[8820..<44_100]
        let rms = (tail.reduce(0.0) { $0 + Double($1 * $1) } / Double(tail.count)).squareRoot()
        return 20 * log10(max(rms, 1e-9))
    }

    @Test func anEQsBandsFilterAsTheirTypesSay() throws {
        let plain = 20 * log10(0.5 / 2.0.squareRoot())
        // Bands start bypassed: the sound passes unchanged.
        let untouched = try levelThroughEQ(1000) { eq in
            #expect(eq.bands.count == 2 && eq.bands.allSatisfy { $0.bypass && $0.gain == 0 })
        }
        #expect(abs(untouched - plain) < 0.01)
        // A low-pass at 1 kHz: 5 kHz falls by more than 20 dB, 200 Hz passes.
        func lowPass(_ eq: AVAudioUnitEQ) {
            eq.bands[0].filterType = .lowPass
            eq.bands[0].frequency = 1000
            eq.bands[0].bypass = false
        }
        #expect(try levelThroughEQ(5000, lowPass) < plain - 20)
        #expect(abs(try levelThroughEQ(200, lowPass) - plain) < 0.5)
        // A parametric band +12 dB at 1 kHz, one octave wide: 1 kHz up by 12 dB, 8 kHz hardly.
        func boost(_ eq: AVAudioUnitEQ) {
            eq.bands[1].filterType = .parametric
            eq.bands[1].frequency = 1000
            eq.bands[1].bandwidth = 1
            eq.bands[1].gain = 12
            eq.bands[1].bypass = false
        }
        let boosted = try levelThroughEQ(1000, boost)
        #expect(abs(boosted - plain - 12) < 0.5, "\(boosted - plain) dB")
        #expect(abs(try levelThroughEQ(8000, boost) - plain) < 1)
        // The global gain, and the whole unit bypassed.
        #expect(abs(try levelThroughEQ(1000) { $0.globalGain = -6 } - plain + 6) < 0.1)
        #expect(abs(try levelThroughEQ(1000) { eq in boost(eq); eq.bypass = true } - plain) < 0.01)
    }

    @Test func varispeedAtRateTwoHalvesTheTimeAndDoublesThePitch() throws {
        let varispeed = AVAudioUnitVarispeed()
        varispeed.rate = 2
        #expect(varispeed.rate == 2)
        let (seconds, n) = try throughRateTwo(varispeed)
        #expect(seconds > 0.45 && seconds < 0.56, "sounded \(seconds) s")
        // 440 Hz played twice as fast: 880 Hz, 1760 crossings a second.
        #expect(abs(n - 352) <= 6, "\(n) crossings in 0.2 s")
    }

    @Test func tapsSeeEveryFrameInOrder() throws {
        let player = AVAudioPlayerNode()
        let engine = try offlineEngine { engine in
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: Self.stereo)
        }
        let seen = Mutex<[(AVAudioFramePosition, Int, Float)]>([])
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 1000, format: nil) { buffer, time in
            seen.withLock { $0.append((time.sampleTime, Int(buffer.frameLength), buffer.floatChannelData![0][0])) }
        }
        let completions = Mutex(0)
        player.scheduleBuffer(constantBuffer(0.5, frames: 5000)) { _ in completions.withLock { $0 += 1 } }
        player.play()
        _ = try render(engine, frames: 12_288)
        let deadline = Date().addingTimeInterval(10)
        while seen.withLock({ $0.count }) < 12, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let taps = seen.withLock { $0 }
        #expect(taps.count == 12)
        #expect(taps.map(\.0) == (0..<12).map { AVAudioFramePosition($0 * 1000) })
        #expect(taps.allSatisfy { $0.1 == 1000 })
        #expect(taps.prefix(5).allSatisfy { $0.2 == 0.5 } && taps.dropFirst(5).allSatisfy { $0.2 == 0 })
        engine.mainMixerNode.removeTap(onBus: 0)
        while completions.withLock({ $0 }) < 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(completions.withLock { $0 } == 1)
        // The player's time counts from its start.
        let last = try #require(player.lastRenderTime)
        #expect(player.playerTime(forNodeTime: last)?.sampleTime == last.sampleTime)
    }

    @Test func aRealTimeEnginesTapHearsItsPlayer() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Self.stereo)
        // Silent to the device (the mixer's output volume 0); the tap is on the player's output.
        let frames = Mutex(0), peak = Mutex<Float>(0)
        player.installTap(onBus: 0, bufferSize: 4410, format: nil) { buffer, _ in
            frames.withLock { $0 += Int(buffer.frameLength) }
            let level = (0..<Int(buffer.frameLength)).reduce(Float(0)) { max($0, abs(buffer.floatChannelData![0][$1])) }
            peak.withLock { $0 = max($0, level) }
        }
        engine.mainMixerNode.outputVolume = 0
        player.volume = 1
        player.scheduleBuffer(constantBuffer(0.5, frames: 4410), at: nil, options: .loops)
        try engine.start()
        player.play()
        #expect(engine.isRunning)
        let deadline = Date().addingTimeInterval(20)
        while frames.withLock({ $0 }) < 44_100, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        engine.stop()
        #expect(!engine.isRunning)
        #expect(frames.withLock { $0 } >= 44_100)
        #expect(peak.withLock { $0 } == 0.5)
    }
}
