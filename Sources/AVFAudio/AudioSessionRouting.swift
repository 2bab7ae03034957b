// AudioSessionRouting: what the audio session decides for the rest of the process (the input
// recordings use), and how PulseAudio sinks and sources become the session's ports.
import CoreAudioTypes
import Foundation
internal import MediaEngine
import Synchronization

/// The audio session's routing decisions, read by the engines that open sound-server streams.
package enum AudioSessionRouting {
    private static let preferredInput = Mutex<String?>(nil)

    /// The PulseAudio source recordings should use: the name of the session's preferred input
    /// (`AVAudioSession.setPreferredInput(_:)`), nil for the server's default source.
    package static var preferredInputName: String? {
        get { preferredInput.withLock { $0 } }
        set { preferredInput.withLock { $0 = newValue } }
    }

    /// The port of a sink: its type from the bus, the active port, the form factor and the
    /// module that made it.
    static func outputPort(_ sink: PulseSinkInfo) -> AVAudioSessionPortDescription {
        AVAudioSessionPortDescription(portType: outputType(sink), portName: sink.description.isEmpty ? sink.name : sink.description,
                                      uid: sink.name, channels: channels(sink.channelNames, port: sink.name,
                                                                         name: sink.description.isEmpty ? sink.name : sink.description))
    }

    /// The port of a source.
    static func inputPort(_ source: PulseSourceDetail) -> AVAudioSessionPortDescription {
        let info = source.info
        let name = info.description.isEmpty ? info.name : info.description
        return AVAudioSessionPortDescription(portType: inputType(source), portName: name, uid: info.name,
                                             channels: channels(info.channelNames, port: info.name, name: name))
    }

    static func outputType(_ sink: PulseSinkInfo) -> AVAudioSession.Port {
        let bus = sink.properties["device.bus"] ?? ""
        let port = (sink.activePort ?? "").lowercased()
        let profile = (sink.properties["device.profile.name"] ?? "").lowercased()
        let form = sink.properties["device.form_factor"] ?? ""
        if bus == "bluetooth" {
            let proto = sink.properties["bluetooth.protocol"] ?? ""
            return proto.contains("head") || proto.contains("hfp") || proto.contains("hsp") ? .bluetoothHFP : .bluetoothA2DP
        }
        if bus == "usb" { return .usbAudio }
        if bus == "firewire" { return .fireWire }
        if port.contains("hdmi") || profile.contains("hdmi") { return .HDMI }
        if port.contains("displayport") || profile.contains("displayport") { return .displayPort }
        if port.contains("headphone") || form == "headphone" || form == "headset" { return .headphones }
        if port.contains("lineout") || port.contains("line-out") || port.contains("iec958") || port.contains("spdif") { return .lineOut }
        if port.contains("speaker") || form == "speaker" || form == "internal" { return .builtInSpeaker }
        if sink.driver.contains("null-sink") || sink.driver.contains("virtual") || sink.driver.contains("combine") { return .virtual }
        return .builtInSpeaker
    }

    static func inputType(_ source: PulseSourceDetail) -> AVAudioSession.Port {
        let info = source.info
        let bus = info.properties["device.bus"] ?? ""
        let port = (source.activePort ?? "").lowercased()
        let form = info.properties["device.form_factor"] ?? ""
        if info.monitorOfSink != nil { return .virtual }
        if bus == "bluetooth" { return .bluetoothHFP }
        if bus == "usb" { return .usbAudio }
        if bus == "firewire" { return .fireWire }
        if port.contains("linein") || port.contains("line-in") || port.contains("line") { return .lineIn }
        if port.contains("headset") || form == "headset" { return .headsetMic }
        if info.driver.contains("null") || info.driver.contains("virtual") || info.driver.contains("remap") { return .virtual }
        return .builtInMic
    }

    /// The channels of a port: PulseAudio's positions as Core Audio labels.
    static func channels(_ positions: [String], port: String, name: String) -> [AVAudioSessionChannelDescription] {
        positions.enumerated().map { index, position in
            let label = channelLabels[position] ?? kAudioChannelLabel_Unknown
            let pretty = position.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
            return AVAudioSessionChannelDescription(channelName: "\(name) \(pretty)", owningPortUID: port,
                                                    channelNumber: index + 1, channelLabel: label)
        }
    }

    private static let channelLabels: [String: AudioChannelLabel] = [
        "mono": kAudioChannelLabel_Mono, "front-left": kAudioChannelLabel_Left, "front-right": kAudioChannelLabel_Right,
        "front-center": kAudioChannelLabel_Center, "lfe": kAudioChannelLabel_LFEScreen,
        "rear-left": kAudioChannelLabel_LeftSurround, "rear-right": kAudioChannelLabel_RightSurround,
        "rear-center": kAudioChannelLabel_CenterSurround, "side-left": kAudioChannelLabel_LeftSurroundDirect,
        "side-right": kAudioChannelLabel_RightSurroundDirect,
        "front-left-of-center": kAudioChannelLabel_LeftCenter, "front-right-of-center": kAudioChannelLabel_RightCenter,
    ]
}

/// Starts the shared session's watch of the sound server the first time a session notification's
/// name is used (someone is about to observe), as Apple's session delivers them without asking.
enum AudioSessionCenter {
    static func watched(_ name: NSNotification.Name) -> NSNotification.Name {
        DispatchQueue.global().async { AVAudioSession.sharedInstance().notificationsObserved() }
        return name
    }
}
