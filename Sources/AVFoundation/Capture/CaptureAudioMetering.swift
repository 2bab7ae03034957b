// CaptureAudioMetering: the levels of every audio connection (AVCaptureAudioChannel's
// averagePowerLevel and peakHoldLevel), metered by MediaEngine's AudioLevelMeter once per chunk a
// session's sound source delivers — whatever the connection's output, delegate or no delegate.
import CoreMedia
import Foundation
internal import MediaEngine

/// Meters one sound source's chunks (one meter per route; made again when the format changes).
final class CaptureAudioMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var meter: AudioLevelMeter?

    /// Meters `chunk` and returns the levels of each of its channels.
    func levels(after chunk: LiveAudioChunk) -> [AudioChannelLevel] {
        let meter = lock.withLock { () -> AudioLevelMeter in
            if let meter = self.meter, meter.channelCount == chunk.format.channelCount, meter.sampleRate == chunk.format.sampleRate {
                return meter
            }
            let made = AudioLevelMeter(channelCount: max(1, chunk.format.channelCount), sampleRate: max(1, chunk.format.sampleRate))
            self.meter = made
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

    /// Sets each audio channel's levels (channel i from level i).
    func setAudioLevels(_ levels: [AudioChannelLevel]) {
        for (channel, level) in zip(audioChannels, levels) {
            channel.setLevels(average: level.averagePowerLevel, peakHold: level.peakHoldLevel)
        }
    }
}
