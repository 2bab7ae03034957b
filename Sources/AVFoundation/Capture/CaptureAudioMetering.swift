// CaptureAudioMetering: the levels of every audio connection (AVCaptureAudioChannel's
// averagePowerLevel and peakHoldLevel), metered by MediaEngine's AudioLevelMeter once per chunk a
// session's sound source delivers — whatever the connection's output, delegate or no delegate —
// and the channels' volume and enabling applied to the sound a connection delivers.
//
// Levels are those of the sound flowing through the channel (Apple's wording), so after its
// volume: the source is metered once per chunk and each connection's channel levels are shifted by
// 20·log10(gain) dB — exactly what metering the scaled samples gives, since both the RMS average
// and the peak scale linearly with a constant gain — and a disabled (or 0-volume) channel reads
// −160 dB. (A volume change moves the held peak at once rather than after its hold time.)
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// Meters one sound source's chunks (one meter per route; made again when the format changes).
final class CaptureAudioMeter: Sendable {
    /// The meter of the format last seen.
    private let meter = Mutex<AudioLevelMeter?>(nil)

    /// Meters `chunk` and returns the levels of each of its channels.
    func levels(after chunk: LiveAudioChunk) -> [AudioChannelLevel] {
        let meter = self.meter.withLock { current -> AudioLevelMeter in
            if let meter = current, meter.channelCount == chunk.format.channelCount, meter.sampleRate == chunk.format.sampleRate {
                return meter
            }
            let made = AudioLevelMeter(channelCount: max(1, chunk.format.channelCount), sampleRate: max(1, chunk.format.sampleRate))
            current = made
            return made
        }
        meter.process(chunk)
        return meter.levels
    }
}

extension AVCaptureConnection {
    /// The number of audio channels a connection from `ports` has: the channel count of its audio
    /// port's format (the device's active format), else 2.
    static func audioChannelCount(of ports: [AVCaptureInput.Port]) -> Int {
        guard let port = ports.first(where: { $0.mediaType == .audio }) else { return 0 }
        if let format = port.formatDescription,
           let channels = CMAudioFormatDescriptionGetStreamBasicDescription(format)?.pointee.mChannelsPerFrame, channels > 0 {
            return Int(channels)
        }
        return 2
    }

    /// Sets each audio channel's levels (channel i from level i, after the channel's gain).
    func setAudioLevels(_ levels: [AudioChannelLevel]) {
        for (channel, level) in zip(audioChannels, levels) {
            let gain = channel.gain
            if gain == 1 {
                channel.setLevels(average: level.averagePowerLevel, peakHold: level.peakHoldLevel)
            } else if gain <= 0 {
                channel.setLevels(average: -160, peakHold: -160)
            } else {
                let shift = 20 * log10(gain)
                channel.setLevels(average: Self.shifted(level.averagePowerLevel, by: shift),
                                  peakHold: Self.shifted(level.peakHoldLevel, by: shift))
            }
        }
    }

    /// A level in dBFS moved by `shift` dB (silence stays −160; the floor is −160).
    private static func shifted(_ level: Float, by shift: Float) -> Float {
        level <= -160 ? -160 : max(-160, level + shift)
    }

    /// `chunk` with the connection's channel gains applied (the channels' `volume`, 0 for a
    /// disabled channel); the chunk itself when every channel is enabled at volume 1.
    func applyingChannelGains(to chunk: LiveAudioChunk) -> LiveAudioChunk {
        let gains = audioChannels.map(\.gain)
        guard gains.contains(where: { $0 != 1 }) else { return chunk }
        return chunk.applyingGains(gains)
    }
}
