// AVAudioSession as Apple documents it, against a PulseAudio daemon of each test's own (the
// session watches it through its package hook `useServer`): category, mode and option raw values
// and round trips, the route (the null sink out, its monitor in), available and preferred
// inputs, route changes with their reason and previous route, the output volume, an
// interruption when the server dies, and a session without a server.
import AVFAudio
import Foundation
import Synchronization
import Testing
import TestSupport

/// One session notification, as the test needs it.
private struct Note: Sendable {
    var name: NSNotification.Name
    var fromSession: Bool
    var reason: AVAudioSession.RouteChangeReason?
    var previousOutputs: [String]?
    var previousInputs: [String]?
    var interruptionType: UInt?
    var interruptionOptions: UInt?
    /// The reason read as Objective-C-minded code reads it.
    var reasonNumber: NSNumber?
}

private final class NoteLog: Sendable {
    let notes = Mutex<[Note]>([])
}

/// The session's notifications, as they come.
private final class SessionNotes {
    let log = NoteLog()
    var tokens: [any NSObjectProtocol] = []

    init() {
        for name in [AVAudioSession.routeChangeNotification, AVAudioSession.interruptionNotification,
                     AVAudioSession.mediaServicesWereLostNotification, AVAudioSession.mediaServicesWereResetNotification] {
            let log = self.log
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                let previous = note.userInfo?[AVAudioSessionRouteChangePreviousRouteKey] as? AVAudioSessionRouteDescription
                let entry = Note(name: note.name, fromSession: note.object as AnyObject? === AVAudioSession.sharedInstance(),
                                 reason: (note.userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt).flatMap(AVAudioSession.RouteChangeReason.init(rawValue:)),
                                 previousOutputs: previous?.outputs.map(\.uid), previousInputs: previous?.inputs.map(\.uid),
                                 interruptionType: note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt,
                                 interruptionOptions: note.userInfo?[AVAudioSessionInterruptionOptionKey] as? UInt,
                                 reasonNumber: note.userInfo?[AVAudioSessionRouteChangeReasonKey] as? NSNumber)
                log.notes.withLock { $0.append(entry) }
            })
        }
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }

    /// The first notification named `name` satisfying `match`, waiting up to `timeout` seconds.
    func first(_ name: NSNotification.Name, timeout: TimeInterval = 15, where match: (Note) -> Bool = { _ in true }) -> Note? {
        let end = Date().addingTimeInterval(timeout)
        while true {
            let all = log.notes.withLock { $0 }
            if let found = all.first(where: { $0.name == name && match($0) }) { return found }
            if Date() > end { return nil }
            usleep(10_000)
        }
    }
}

/// Polls `condition` until it holds or `timeout` passes.
private func eventually(timeout: TimeInterval = 15, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > end { return false }
        usleep(20_000)
    }
    return true
}

@Suite(.serialized) struct AVAudioSessionTests {
    let session = AVAudioSession.sharedInstance()

    /// A daemon of the test's own, the session watching it, category reset.
    private func daemon() throws -> PrivatePulseDaemon {
        let daemon = try PrivatePulseDaemon()
        session.useServer(daemon.server)
        try session.setActive(false)
        try session.setCategory(.soloAmbient, mode: .default, options: [])
        return daemon
    }

    @Test func rawValuesAreApples() {
        #expect(AVAudioSession.Category.playAndRecord.rawValue == "AVAudioSessionCategoryPlayAndRecord")
        #expect(AVAudioSession.Category.soloAmbient.rawValue == "AVAudioSessionCategorySoloAmbient")
        #expect(AVAudioSession.Mode.voiceChat.rawValue == "AVAudioSessionModeVoiceChat")
        #expect(AVAudioSession.Port.builtInSpeaker.rawValue == "Speaker")
        #expect(AVAudioSession.Port.headphones.rawValue == "Headphones")
        #expect(AVAudioSession.Port.builtInMic.rawValue == "MicrophoneBuiltIn")
        #expect(AVAudioSession.CategoryOptions.mixWithOthers.rawValue == 1)
        #expect(AVAudioSession.CategoryOptions.duckOthers.rawValue == 2)
        #expect(AVAudioSession.CategoryOptions.defaultToSpeaker.rawValue == 8)
        #expect(AVAudioSession.CategoryOptions.interruptSpokenAudioAndMixWithOthers.rawValue == 0x11)
        #expect(AVAudioSession.CategoryOptions.allowBluetoothA2DP.rawValue == 0x20)
        #expect(AVAudioSession.CategoryOptions.allowAirPlay.rawValue == 0x40)
        #expect(AVAudioSession.RouteChangeReason.routeConfigurationChange.rawValue == 8)
        #expect(AVAudioSession.RouteChangeReason.oldDeviceUnavailable.rawValue == 2)
        #expect(AVAudioSession.InterruptionType.began.rawValue == 1)
        #expect(AVAudioSession.RecordPermission.granted.rawValue == 1_735_552_628)
        #expect(AVAudioApplication.recordPermission.denied.rawValue == 1_684_369_017)
        #expect(AVAudioSession.interruptionNotification.rawValue == "AVAudioSessionInterruptionNotification")
        #expect(NSNotification.Name.AVAudioSessionRouteChange == AVAudioSession.routeChangeNotification)
        #expect(AVAudioSessionRouteChangePreviousRouteKey == "AVAudioSessionRouteChangePreviousRouteKey")
    }

    @Test func categoryModeAndOptionsRoundTrip() throws {
        #expect(session.availableCategories.contains(.playAndRecord))
        #expect(session.availableModes.contains(.videoChat))
        try session.setCategory(.playback, mode: .moviePlayback, options: [.mixWithOthers, .allowAirPlay])
        #expect(session.category == .playback)
        #expect(session.mode == .moviePlayback)
        #expect(session.categoryOptions == [.mixWithOthers, .allowAirPlay])
        try session.setCategory(.playAndRecord, options: .defaultToSpeaker)
        #expect(session.category == .playAndRecord)
        #expect(session.mode == .moviePlayback)
        #expect(session.categoryOptions == .defaultToSpeaker)
        try session.setMode(.voiceChat)
        #expect(session.mode == .voiceChat)
        try session.setCategory(.playback, mode: .default, policy: .longFormAudio, options: [])
        #expect(session.routeSharingPolicy == .longFormAudio)
        // Ambient always mixes; ducking implies mixing.
        try session.setCategory(.ambient)
        #expect(session.categoryOptions.contains(.mixWithOthers))
        try session.setCategory(.playback, options: .duckOthers)
        #expect(session.categoryOptions == [.duckOthers, .mixWithOthers])
        // Bad input: errors in NSOSStatusErrorDomain with code badParam (-50); nothing changed.
        for attempt in [{ try session.setCategory(.record, options: .mixWithOthers) },
                        { try session.setCategory(.playback, options: .defaultToSpeaker) },
                        { try session.setCategory(AVAudioSession.Category("NoSuchCategory")) },
                        { try session.setMode(AVAudioSession.Mode("NoSuchMode")) },
                        { try session.setPreferredSampleRate(-1) },
                        { try session.setPreferredIOBufferDuration(.nan) }] {
            let error = #expect(throws: NSError.self) { try attempt() }
            #expect(error?.domain == NSOSStatusErrorDomain)
            #expect(error?.code == -50)
        }
        #expect(session.category == .playback)
        try session.setPreferredSampleRate(44_100)
        #expect(session.preferredSampleRate == 44_100)
        try session.setPreferredIOBufferDuration(0.01)
        #expect(session.preferredIOBufferDuration == 0.01)
        #expect(abs(session.ioBufferDuration - 0.01) < 1e-9)
        try session.setCategory(.soloAmbient, mode: .default, options: [])
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable)) func routeIsTheDefaultSinkAndSource() throws {
        let daemon = try daemon()
        defer { daemon.kill() }
        // Playback-only category: the sink out, no input.
        var route = session.currentRoute
        #expect(route.outputs.map(\.uid) == [daemon.sink])
        #expect(route.outputs.first?.portName == "ToneSink")
        #expect(route.outputs.first?.portType == .virtual)
        #expect(route.inputs.isEmpty)
        #expect(route.outputs.first?.channels?.map(\.channelLabel) == [kAudioChannelLabel_Left, kAudioChannelLabel_Right])
        #expect(route.outputs.first?.channels?.map(\.owningPortUID) == [daemon.sink, daemon.sink])
        try session.setCategory(.playAndRecord)
        route = session.currentRoute
        #expect(route.inputs.map(\.uid) == [daemon.monitor])
        #expect(route.inputs.first?.portName == "Monitor of ToneSink")
        try session.setCategory(.record)
        #expect(session.currentRoute.outputs.isEmpty)
        #expect(session.currentRoute.inputs.map(\.uid) == [daemon.monitor])
        #expect(session.availableInputs?.map(\.uid) == [daemon.monitor])
        #expect(session.isInputAvailable)
        #expect(session.recordPermission == .granted)
        #expect(AVAudioApplication.shared.recordPermission == .granted)
        #expect(session.sampleRate == 48_000)
        #expect(session.outputNumberOfChannels == 2)
        #expect(session.inputNumberOfChannels == 2)
        let granted = Mutex<Bool?>(nil)
        AVAudioApplication.requestRecordPermission { answer in granted.withLock { $0 = answer } }
        #expect(eventually { granted.withLock { $0 } == true })
        try session.setCategory(.soloAmbient)
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable)) func portTypesComeFromTheDeviceProperties() throws {
        let daemon = try daemon()
        defer { daemon.kill() }
        let devices: [(String, String, AVAudioSession.Port)] = [
            ("usb_out", "device.bus=usb", .usbAudio),
            ("phones_out", "device.form_factor=headphone", .headphones),
            ("bt_out", "device.bus=bluetooth bluetooth.protocol=a2dp_sink", .bluetoothA2DP),
            ("hdmi_out", "device.profile.name=hdmi-stereo", .HDMI),
            ("speaker_out", "device.form_factor=internal", .builtInSpeaker),
        ]
        for (name, properties, type) in devices {
            let loaded = try daemon.run("pactl", ["load-module", "module-null-sink", "sink_name=\(name)",
                                                  "sink_properties='device.description=\(name) \(properties)'"])
            #expect(loaded.status == 0, "\(loaded.output)")
            try daemon.run("pactl", ["set-default-sink", name])
            #expect(eventually { session.currentRoute.outputs.first?.uid == name })
            #expect(session.currentRoute.outputs.first?.portType == type, "\(name)")
        }
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable)) func outputVolumeFollowsTheSink() throws {
        let daemon = try daemon()
        defer { daemon.kill() }
        #expect(abs(session.outputVolume - 1) < 0.01)
        try daemon.run("pactl", ["set-sink-volume", daemon.sink, "50%"])
        #expect(eventually { abs(session.outputVolume - 0.5) < 0.01 })
        try daemon.run("pactl", ["set-sink-mute", daemon.sink, "1"])
        #expect(eventually { session.outputVolume == 0 })
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable)) func preferredInputIsTheRecordersSource() throws {
        let daemon = try daemon()
        defer { daemon.kill() }
        try daemon.run("pactl", ["load-module", "module-null-sink", "sink_name=second", "sink_properties=device.description=Second"])
        try session.setCategory(.playAndRecord)
        #expect(eventually { session.availableInputs?.count == 2 })
        let inputs = try #require(session.availableInputs)
        #expect(Set(inputs.map(\.uid)) == [daemon.monitor, "second.monitor"])
        #expect(inputs.first?.uid == daemon.monitor)
        let second = try #require(inputs.first { $0.uid == "second.monitor" })
        try session.setPreferredInput(second)
        #expect(session.preferredInput?.uid == "second.monitor")
        #expect(AudioSessionRouting.preferredInputName == "second.monitor")
        #expect(session.currentRoute.inputs.map(\.uid) == ["second.monitor"])
        // A port the server does not have.
        let bogus = AVAudioSessionPortDescription(portType: .builtInMic, portName: "Nothing", uid: "no_such_source", channels: nil)
        let error = #expect(throws: NSError.self) { try session.setPreferredInput(bogus) }
        #expect(error?.code == AVAudioSession.ErrorCode.badParam.rawValue)
        #expect(session.preferredInput?.uid == "second.monitor")
        try session.setPreferredInput(nil)
        #expect(session.preferredInput == nil)
        #expect(AudioSessionRouting.preferredInputName == nil)
        #expect(session.currentRoute.inputs.map(\.uid) == [daemon.monitor])
        try session.setCategory(.soloAmbient)
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable)) func routeChangesAreNotified() throws {
        let daemon = try daemon()
        defer { daemon.kill() }
        let notes = SessionNotes()
        try session.setActive(true)
        defer { try? session.setActive(false) }
        _ = session.currentRoute
        session.waitForWatch()
        let loaded = try daemon.run("pactl", ["load-module", "module-null-sink", "sink_name=phones", "sink_properties=device.description=Phones"])
        let module = loaded.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try daemon.run("pactl", ["set-default-sink", "phones"])
        let changed = try #require(notes.first(AVAudioSession.routeChangeNotification) { note in
            note.previousOutputs?.first == daemon.sink
        })
        #expect(changed.reason == .newDeviceAvailable || changed.reason == .routeConfigurationChange)
        #expect(changed.fromSession)
        #expect(eventually { session.currentRoute.outputs.map(\.uid) == ["phones"] })
        // The route's device goes away.
        try daemon.run("pactl", ["unload-module", module])
        let gone = try #require(notes.first(AVAudioSession.routeChangeNotification) { note in
            note.previousOutputs?.first == "phones"
        })
        #expect(gone.reason == .oldDeviceUnavailable)
        #expect(gone.reasonNumber?.uintValue == AVAudioSession.RouteChangeReason.oldDeviceUnavailable.rawValue)
        #expect(eventually { session.currentRoute.outputs.map(\.uid) == [daemon.sink] })
        // A category change while active.
        try session.setCategory(.playAndRecord)
        let category = try #require(notes.first(AVAudioSession.routeChangeNotification) { $0.reason == .categoryChange })
        #expect(category.previousInputs?.isEmpty == true)
        try session.setCategory(.soloAmbient)
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable)) func killingTheServerInterrupts() throws {
        let daemon = try daemon()
        let notes = SessionNotes()
        try session.setActive(true)
        defer { try? session.setActive(false) }
        _ = session.currentRoute
        session.waitForWatch()
        #expect(eventually { !session.currentRoute.outputs.isEmpty })
        daemon.kill()
        let began = try #require(notes.first(AVAudioSession.interruptionNotification))
        #expect(began.interruptionType == AVAudioSession.InterruptionType.began.rawValue)
        #expect(notes.first(AVAudioSession.mediaServicesWereLostNotification) != nil)
        // No server: the session still answers, at once.
        let start = Date()
        #expect(session.currentRoute.outputs.isEmpty)
        #expect(!session.isInputAvailable)
        #expect(session.recordPermission == .denied)
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable)) func aNewServerEndsTheInterruption() throws {
        // The session watches a symbolic link to the first daemon's socket; once that daemon is
        // killed the link is pointed at a second one, as a restarted server at the same address.
        let link = TestTools.makeTemporaryDirectory("avf-session-link").appendingPathComponent("native")
        defer { try? FileManager.default.removeItem(at: link.deletingLastPathComponent()) }
        let first = try PrivatePulseDaemon()
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: first.directory.path + "/pulse/native")
        session.useServer("unix:" + link.path)
        defer { session.useServer(nil) }
        let notes = SessionNotes()
        try session.setActive(true)
        defer { try? session.setActive(false) }
        #expect(eventually { session.currentRoute.outputs.map(\.uid) == [first.sink] })
        session.waitForWatch()
        first.kill()
        let began = try #require(notes.first(AVAudioSession.interruptionNotification))
        #expect(began.interruptionType == AVAudioSession.InterruptionType.began.rawValue)
        let second = try PrivatePulseDaemon()
        defer { second.kill() }
        try FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: second.directory.path + "/pulse/native")
        #expect(notes.first(AVAudioSession.mediaServicesWereResetNotification) != nil)
        let ended = try #require(notes.first(AVAudioSession.interruptionNotification) {
            $0.interruptionType == AVAudioSession.InterruptionType.ended.rawValue
        })
        #expect(ended.interruptionOptions == AVAudioSession.InterruptionOptions.shouldResume.rawValue)
        #expect(eventually { session.currentRoute.outputs.map(\.uid) == [second.sink] })
    }

    @Test func noServerGivesAnEmptyRoute() throws {
        session.useServer("unix:/nonexistent/avf-no-server")
        defer { session.useServer(nil) }
        try session.setCategory(.playAndRecord)
        #expect(session.currentRoute.inputs.isEmpty)
        #expect(session.currentRoute.outputs.isEmpty)
        #expect(session.availableInputs == nil)
        #expect(!session.isInputAvailable)
        #expect(session.recordPermission == .denied)
        #expect(session.outputVolume == 0)
        try session.setActive(true)
        try session.setActive(false)
        try session.setCategory(.soloAmbient)
    }
}
