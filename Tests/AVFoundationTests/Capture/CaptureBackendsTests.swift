// The backends in the device directory under the test services (scripts/capture-services.sh):
// PulseAudio sources as microphones (the server's default source is the default audio device),
// hot-plug notifications from the device watcher (file cameras, PulseAudio sources), and the
// audio data output with metering (AT-C6).
@testable import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

/// The services' variables in this process's environment, so that the shared PulseAudio
/// directory and the X11 screen source reach them (libpulse and XCB read them when connecting).
enum CaptureServicesEnvironment {
    /// Installs the variables; nil after recording why the services are missing.
    static func install() -> CaptureServices? {
        switch CaptureServices.current {
        case .success(let services):
            setenv("PULSE_SERVER", services.pulseServer, 1)
            if let config = services.pulseClientConfig { setenv("PULSE_CLIENTCONFIG", config, 1) }
            setenv("DISPLAY", services.display, 1)
            return services
        case .failure(let reason):
            Issue.record("the capture services are needed: \(reason)")
            return nil
        }
    }

    /// A 3 s stereo 1 kHz tone at −6 dBFS (0.501187 full scale) on both channels, as WAV (Float32).
    static func makeTone(in directory: URL) throws -> URL {
        let tone = directory.appendingPathComponent("tone-\(getpid()).wav")
        try? FileManager.default.removeItem(at: tone)
        // Both channels given explicitly (an up-mix of mono would be −3 dB lower).
        let made = try TestTools.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                                "aevalsrc=0.501187*sin(2*PI*1000*t)|0.501187*sin(2*PI*1000*t):s=48000:d=3",
                                                "-c:a", "pcm_f32le", tone.path])
        try #require(made.status == 0, "ffmpeg could not make the tone")
        return tone
    }
}

/// One delivered audio sample buffer, as a test sees it.
struct DeliveredAudio: Sendable {
    let pts: CMTime
    let frames: Int
    let host: Double
    let totalFrames: Int
    let sampleRate: Double
    let channels: Int
    let formatID: AudioFormatID
    let formatFlags: AudioFormatFlags
    let bytesPerFrame: Int
    let dataLength: Int
}

/// An audio sample buffer delegate recording what it gets.
final class AudioRecorder: NSObject, AVCaptureAudioDataOutputSampleBufferDelegate, @unchecked Sendable {
    private let state = Mutex<[DeliveredAudio]>([])
    let queue = DispatchQueue(label: "audio recorder")
    let firstBuffer = DispatchSemaphore(value: 0)

    var buffers: [DeliveredAudio] { state.withLock { $0 } }

    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        let host = CMClockGetTime(CMClockGetHostTimeClock()).seconds
        let format = CMSampleBufferGetFormatDescription(sampleBuffer)
        let asbd = format.flatMap { CMAudioFormatDescriptionGetStreamBasicDescription($0)?.pointee }
        let frames = CMSampleBufferGetNumSamples(sampleBuffer)
        let length = CMSampleBufferGetDataBuffer(sampleBuffer).map(CMBlockBufferGetDataLength) ?? 0
        let first = state.withLock { all -> Bool in
            all.append(DeliveredAudio(pts: CMSampleBufferGetPresentationTimeStamp(sampleBuffer), frames: frames, host: host,
                                      totalFrames: (all.last?.totalFrames ?? 0) + frames, sampleRate: asbd?.mSampleRate ?? 0,
                                      channels: Int(asbd?.mChannelsPerFrame ?? 0), formatID: asbd?.mFormatID ?? 0,
                                      formatFlags: asbd?.mFormatFlags ?? 0, bytesPerFrame: Int(asbd?.mBytesPerFrame ?? 0),
                                      dataLength: length))
            return all.count == 1
        }
        if first { firstBuffer.signal() }
    }
}

extension CaptureTests {
    @Suite("Capture backends", .enabled(if: CaptureServices.shouldRun,
                                        "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
    struct BackendTests {
        @Test func theDefaultAudioDeviceIsThePulseAudioServersDefaultSource() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            CaptureCameras.install()
            let device = try #require(AVCaptureDevice.default(for: .audio))
            #expect(device.uniqueID == "pulse:\(services.monitorSource)")
            #expect(device.uniqueID == "pulse:avf_null.monitor")
            #expect(device.hasMediaType(.audio))
            #expect(!device.hasMediaType(.video))
            #expect(device.deviceType == .microphone)
            #expect(device.isConnected)
            #expect(device.localizedName == "Monitor of AVFNullSink", "\(device.localizedName)")
            // The same object from discovery and by unique ID (an equal object).
            let microphones = AVCaptureDevice.DiscoverySession(deviceTypes: [.microphone], mediaType: .audio, position: .unspecified).devices
            #expect(microphones.contains { $0 === device })
            #expect(AVCaptureDevice(uniqueID: device.uniqueID) == device)
            // Audio formats only: Float32 interleaved at the source's rate first.
            let format = try #require(device.formats.first)
            #expect(format.mediaType == .audio)
            let asbd = try #require(CMAudioFormatDescriptionGetStreamBasicDescription(format.formatDescription)?.pointee)
            #expect(asbd.mSampleRate == 48_000 && asbd.mChannelsPerFrame == 2 && asbd.mFormatID == kAudioFormatLinearPCM)
            // The default camera is still a camera.
            #expect(AVCaptureDevice.default(for: .video)?.uniqueID == CaptureCameras.vga)
        }

        @Test func aFileCameraComingAndGoingPostsConnectionNotificationsWithinASecond() throws {
            CaptureCameras.install()
            let url = CaptureCameras.fileCameraURL
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: url)
            // The clip is made beside the camera's file, then moved into place: the camera "plugs in" at the move.
            let staged = url.deletingLastPathComponent().appendingPathComponent("staged.mp4")
            let made = try TestTools.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=0.3",
                                                    "-c:v", "libx264", "-pix_fmt", "yuv420p", staged.path])
            try #require(made.status == 0)
            // A query starts the watcher (the file is missing: not connected).
            _ = AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video, position: .unspecified).devices
            let posted = Mutex<[(String, String)]>([])
            let center = NotificationCenter.default
            let observers = [AVCaptureDevice.wasConnectedNotification, AVCaptureDevice.wasDisconnectedNotification].map { name in
                center.addObserver(forName: name, object: nil, queue: nil) { note in
                    let id = (note.object as? AVCaptureDevice)?.uniqueID ?? "?"
                    posted.withLock { $0.append((note.name == AVCaptureDevice.wasConnectedNotification ? "connected" : "disconnected", id)) }
                }
            }
            defer { observers.forEach(center.removeObserver) }
            func events() -> [String] { posted.withLock { $0.filter { $0.1 == CaptureCameras.fileCameraID }.map(\.0) } }

            try FileManager.default.moveItem(at: staged, to: url)
            #expect(waitUntil(1) { events() == ["connected"] }, "\(events())")
            let device = try #require(AVCaptureDevice(uniqueID: CaptureCameras.fileCameraID))
            #expect(device.isConnected)
            try FileManager.default.removeItem(at: url)
            #expect(waitUntil(1) { events() == ["connected", "disconnected"] }, "\(events())")
            #expect(!device.isConnected)
            // The notification's object is the device itself.
            let objects = posted.withLock { $0 }
            #expect(objects.allSatisfy { $0.1 != "?" })
        }

        @Test func aPulseAudioSourceComingAndGoingPostsConnectionNotifications() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            _ = AVCaptureDevice.default(for: .audio)
            let posted = Mutex<[String]>([])
            let center = NotificationCenter.default
            let id = "pulse:avf_hotplug.monitor"
            let observers = [AVCaptureDevice.wasConnectedNotification, AVCaptureDevice.wasDisconnectedNotification].map { name in
                center.addObserver(forName: name, object: nil, queue: nil) { note in
                    guard let device = note.object as? AVCaptureDevice, device.uniqueID == id else { return }
                    posted.withLock { $0.append(note.name == AVCaptureDevice.wasConnectedNotification ? "connected" : "disconnected") }
                }
            }
            defer { observers.forEach(center.removeObserver) }
            let load = try services.run("pactl", ["load-module", "module-null-sink", "sink_name=avf_hotplug"])
            try #require(load.status == 0, "\(load.errors)")
            let module = load.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(waitUntil(2) { posted.withLock { $0 } == ["connected"] }, "\(posted.withLock { $0 })")
            let device = AVCaptureDevice(uniqueID: id)
            #expect(device?.isConnected == true)
            let unload = try services.run("pactl", ["unload-module", module])
            #expect(unload.status == 0, "\(unload.errors)")
            #expect(waitUntil(2) { posted.withLock { $0 } == ["connected", "disconnected"] }, "\(posted.withLock { $0 })")
            #expect(device?.isConnected == false)
            #expect(!(AVCaptureDevice.DiscoverySession(deviceTypes: [.microphone], mediaType: .audio, position: .unspecified)
                .devices.contains { $0.uniqueID == id }))
        }
    
        /// A session with the default microphone and an audio data output delivering to `recorder`.
        private func audioSession(recorder: AudioRecorder) throws -> (AVCaptureSession, AVCaptureAudioDataOutput, AVCaptureConnection) {
            let microphone = try #require(AVCaptureDevice.default(for: .audio))
            let session = AVCaptureSession()
            let input = try AVCaptureDeviceInput(device: microphone)
            try #require(session.canAddInput(input))
            session.addInput(input)
            let output = AVCaptureAudioDataOutput()
            output.setSampleBufferDelegate(recorder, queue: recorder.queue)
            try #require(session.canAddOutput(output))
            session.addOutput(output)
            let connection = try #require(output.connection(with: .audio))
            return (session, output, connection)
        }

        @Test func anAudioDataOutputTakesOneAudioConnectionWithAChannelPerSourceChannel() throws {
            guard CaptureServicesEnvironment.install() != nil else { return }
            let recorder = AudioRecorder()
            let (session, output, connection) = try audioSession(recorder: recorder)
            #expect(output.connections.count == 1)
            #expect(connection.inputPorts.map(\.mediaType) == [.audio])
            #expect(connection.audioChannels.count == 2)
            #expect(connection.audioChannels.allSatisfy { $0.averagePowerLevel == -160 && $0.peakHoldLevel == -160 })
            // A second audio input finds no room in the output.
            #expect(output.connection(with: .video) == nil)
            // Settings: nil by default; the delivered format may be asked for, another raises.
            #expect(output.audioSettings == nil)
            output.audioSettings = [AVFormatIDKey: NSNumber(value: kAudioFormatLinearPCM), AVSampleRateKey: NSNumber(value: 48_000),
                                    AVNumberOfChannelsKey: NSNumber(value: 2), AVLinearPCMBitDepthKey: NSNumber(value: 32),
                                    AVLinearPCMIsFloatKey: NSNumber(value: true)]
            #expect((output.audioSettings?[AVSampleRateKey] as? NSNumber)?.intValue == 48_000)
            output.audioSettings = nil
            #expect(output.audioSettings == nil)
            let recommended = try #require(output.recommendedAudioSettingsForAssetWriter(writingTo: .mov))
            #expect((recommended[AVFormatIDKey] as? NSNumber)?.uint32Value == kAudioFormatMPEG4AAC)
            #expect((recommended[AVSampleRateKey] as? NSNumber)?.doubleValue == 48_000)
            #expect((recommended[AVNumberOfChannelsKey] as? NSNumber)?.intValue == 2)
            #expect(AVAssetWriterInput(mediaType: .audio, outputSettings: recommended).mediaType == .audio)
            _ = session
        }

        @Test func aConnectionWithoutADelegateIsMeteredToo() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            let tone = try CaptureServicesEnvironment.makeTone(in: FileManager.default.temporaryDirectory)
            defer { try? FileManager.default.removeItem(at: tone) }
            let microphone = try #require(AVCaptureDevice.default(for: .audio))
            let session = AVCaptureSession()
            session.addInput(try AVCaptureDeviceInput(device: microphone))
            let output = AVCaptureAudioDataOutput()   // no delegate
            session.addOutput(output)
            let connection = try #require(output.connection(with: .audio))
            session.startRunning()
            defer { session.stopRunning() }
            let played = try services.run("paplay", ["-d", services.sink, tone.path])
            #expect(played.status == 0, "\(played.errors)")
            let peaks = connection.audioChannels.map(\.peakHoldLevel)
            #expect(peaks.count == 2 && peaks.allSatisfy { $0 > -6.5 && $0 < -5.5 }, "\(peaks)")
        }

        @Test func audioSettingsWithAKeyLinearPCMHasNotStopTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let output = AVCaptureAudioDataOutput()
                output.audioSettings = [AVFormatIDKey: NSNumber(value: kAudioFormatLinearPCM), AVEncoderBitRateKey: NSNumber(value: 64_000)]
            }
            expectExit(result, says: "-[AVCaptureAudioDataOutput setAudioSettings:] audio settings key AVEncoderBitRateKey is not supported for linear PCM output")
        }

        @Test func twoSecondsOfSoundArriveAsContiguousFloat32SampleBuffersAndNothingAfterStop() throws {
            guard CaptureServicesEnvironment.install() != nil else { return }
            let recorder = AudioRecorder()
            let (session, _, _) = try audioSession(recorder: recorder)
            let started = CMClockGetTime(CMClockGetHostTimeClock()).seconds
            session.startRunning()
            #expect(recorder.firstBuffer.wait(timeout: .now() + 5) == .success)
            // The source settles (one documented re-anchor may come in its first seconds); 2 s
            // after the settling second are measured.
            Thread.sleep(forTimeInterval: 3.6)
            session.stopRunning()
            let after = recorder.buffers.count
            Thread.sleep(forTimeInterval: 0.2)
            #expect(recorder.buffers.count == after, "a buffer arrived after stopRunning returned")
            let all = recorder.buffers
            try #require(all.count > 100)
            for buffer in all {
                #expect(buffer.formatID == kAudioFormatLinearPCM)
                #expect(buffer.formatFlags & kAudioFormatFlagIsFloat != 0 && buffer.formatFlags & kAudioFormatFlagIsNonInterleaved == 0)
                #expect(buffer.sampleRate == 48_000 && buffer.channels == 2 && buffer.bytesPerFrame == 8)
                #expect(buffer.dataLength == buffer.frames * 8)
                #expect(buffer.pts.timescale == 48_000)
            }
            // Stamped on the host clock, after startRunning was called.
            #expect(all[0].pts.seconds >= started - 0.2 && all[0].pts.seconds <= all[0].host, "\(all[0].pts.seconds) vs \(started)")
            // Rising and contiguous: each buffer starts where the one before ended, but for at most one re-anchor.
            var jumps = 0
            for (previous, next) in zip(all, all.dropFirst()) {
                #expect(next.pts > previous.pts)
                if next.pts != previous.pts + CMTime(value: Int64(previous.frames), timescale: 48_000) { jumps += 1 }
            }
            #expect(jumps <= 1, "\(jumps) discontinuities")
            // Frames per 2 s of host time after the settling second, between the least-delayed
            // deliveries of each end's 0.3 s neighbourhood (deliveries are late by varying amounts, never early).
            func leastDelayed(from time: Double) -> DeliveredAudio? {
                all.filter { $0.host >= time && $0.host < time + 0.3 }
                    .min { $0.host - Double($0.totalFrames) / 48_000 < $1.host - Double($1.totalFrames) / 48_000 }
            }
            let start = try #require(leastDelayed(from: all[0].host + 1.2))
            let end = try #require(leastDelayed(from: start.host + 2))
            let frames = Int((Double(end.totalFrames - start.totalFrames) * 2 / (end.host - start.host)).rounded())
            print("CaptureBackendsTests: \(frames) frames per 2 s (\(end.totalFrames - start.totalFrames) in \(end.host - start.host) s; \(jumps) re-anchors)")
            #expect(abs(frames - 96_000) <= 2_000, "\(frames) frames in 2 s")
        }

        @Test func aToneAtMinus6dBFSMetersOnTheConnectionsAudioChannels() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            let tone = try CaptureServicesEnvironment.makeTone(in: FileManager.default.temporaryDirectory)
            defer { try? FileManager.default.removeItem(at: tone) }
            let recorder = AudioRecorder()
            let (session, _, connection) = try audioSession(recorder: recorder)
            session.startRunning()
            defer { session.stopRunning() }
            #expect(recorder.firstBuffer.wait(timeout: .now() + 5) == .success)
            // Poll the levels at 10 Hz while the tone plays (paplay runs for its 3 s).
            let samples = Mutex<[(average: Float, peak: Float, playing: Bool)]>([])
            let playing = Mutex(false)
            let poller = Thread {
                while true {
                    let now = playing.withLock { $0 }
                    for channel in connection.audioChannels {
                        samples.withLock { $0.append((channel.averagePowerLevel, channel.peakHoldLevel, now)) }
                    }
                    if samples.withLock({ $0.count }) > 2 * 80 { break }
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
            poller.start()
            Thread.sleep(forTimeInterval: 0.5)
            playing.withLock { $0 = true }
            let played = try services.run("paplay", ["-d", services.sink, tone.path])
            playing.withLock { $0 = false }
            #expect(played.status == 0, "\(played.errors)")
            Thread.sleep(forTimeInterval: 0.3)
            let all = samples.withLock { $0 }
            #expect(connection.audioChannels.count == 2)
            #expect(all.allSatisfy { $0.average.isFinite && $0.peak.isFinite && $0.average <= 0 && $0.peak <= 0 })
            let maxPeak = all.map(\.peak).max() ?? -160
            #expect(maxPeak >= -6.5 && maxPeak <= -5.5, "peak hold \(maxPeak) dBFS")
            // The average while the tone sounds: the middle of the play-out (away from its edges).
            let during = all.filter(\.playing).map(\.average)
            try #require(during.count >= 20, "\(during.count) readings during the tone")
            let middle = during.dropFirst(during.count / 4).dropLast(during.count / 4)
            let loud = middle.filter { $0 > -30 }
            #expect(!loud.isEmpty)
            #expect(loud.allSatisfy { $0 >= -9.5 && $0 <= -8.5 }, "averages \(Array(middle))")
            print("CaptureBackendsTests: tone peak hold \(maxPeak) dBFS, averages \(loud.min() ?? 0)…\(loud.max() ?? 0) dBFS over \(loud.count) readings")
        }
    }
}
