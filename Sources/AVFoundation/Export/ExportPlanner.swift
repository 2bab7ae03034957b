// ExportPlanner: what an export writes — for each output track, the source tracks it is made
// from and the reader and writer settings — decided from the asset's tracks and the preset.
import CoreAudioTypes
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine

/// What an export writes for one output track: made from one source track (passthrough), the
/// mix of the enabled audio tracks, or the enabled video tracks through the compositor stage.
struct ExportTrackPlan: @unchecked Sendable {
    var mediaType: AVMediaType
    /// The source tracks, front first for video.
    var tracks: [AVAssetTrack]
    /// Reader output settings (nil: stored samples).
    var readerSettings: [String: Any]?
    /// Writer input settings (nil: passthrough).
    var writerSettings: [String: Any]?
    var hint: CMFormatDescription?
    var transform: CGAffineTransform = .identity
    var languageCode: String?
    var mediaTimeScale: CMTimeScale = 0
    var useAudioMix = false
    /// Video: the tracks are composed by the session's video composition (an
    /// `AVAssetReaderVideoCompositionOutput`), not shown front-most by the compositor stage.
    var useVideoComposition = false

    /// One line for `avtool convert --verbose`.
    var summary: String {
        let source = tracks.map { "track \($0.trackID)" }.joined(separator: "+")
        return "\(mediaType.spokenName) \(source): \(settingsSummary)"
    }

    /// The writer settings in one line, or passthrough.
    var settingsSummary: String {
        writerSettings.map(ExportTrackPlan.describe) ?? "passthrough (samples copied)"
    }

    static func describe(_ settings: [String: Any]) -> String {
        settings.keys.sorted().map { key in
            let value = settings[key]
            if let nested = value as? [String: Any] { return "\(key)={\(describe(nested))}" }
            if let codec = value as? AVVideoCodecType { return "\(key)=\(codec.rawValue)" }
            if key == AVFormatIDKey, let id = value as? AudioFormatID { return "\(key)='\(MuxerStreamFormat.fourCC(id))'" }
            return "\(key)=\(value.map { "\($0)" } ?? "nil")"
        }.joined(separator: ", ")
    }
}

/// Plans an export: which tracks, with which reader and writer settings.
///
/// As Apple's export does without a video composition or audio mix, it plans from every enabled
/// track: passthrough copies each track the file type can hold; re-encoding presets write one
/// video track from the enabled video tracks (composed as `VideoCompositorStage` shows them: the
/// front-most track with media at each time) and one audio track mixing every enabled audio
/// track. Only tracks' public properties are used (media type, enabled, formats, size,
/// transform, time range), so any asset whose tracks read through `AVAssetReader` plans alike.
enum ExportPlanner {
    /// The plans for `asset` with `preset` into `fileType`; throws an AVError when the preset
    /// cannot export the asset.
    /// With a `videoComposition`, a re-encoding preset writes one video track of the frames the
    /// composition makes of every enabled video track: its render size (fitted to the preset's
    /// box), a frame every `frameDuration`, no transform (the composition applied the tracks').
    static func plan(asset: AVAsset, preset: ExportPreset, fileType: AVFileType, audioMix: AVAudioMix?,
                     videoComposition: AVVideoComposition? = nil) throws -> [ExportTrackPlan] {
        // Tracks without media (an empty composition track) have nothing to export.
        let tracks = asset.tracks.filter { $0.isEnabled && $0.formatSource != nil }
        let videoTracks = tracks.filter { $0.mediaType == .video }
        let audioTracks = tracks.filter { $0.mediaType == .audio }
        var plans: [ExportTrackPlan] = []
        guard let container = WriterContainer.all[fileType] else { throw unsupported("The file type \(fileType.rawValue) cannot be written.") }
        if preset.isPassthrough {
            for track in tracks where container.mediaTypes.contains(track.mediaType) {
                guard let format = track.formatDescriptions.first.map({ $0 as! CMFormatDescription }) else { continue }
                if container.canPassThrough(format) != nil { continue }
                if track.isMadeOfSegments, let problem = segmentsProblem(track, container: container) {
                    throw AVError(.operationNotSupportedForPreset, userInfo: [
                        NSLocalizedDescriptionKey: "Operation Not Supported",
                        NSLocalizedFailureReasonErrorKey: "The preset \(preset.name) cannot copy track \(track.trackID) into a "
                            + "\(fileType.rawValue) file: \(problem) Use a preset that re-encodes.",
                    ])
                }
                var plan = ExportTrackPlan(mediaType: track.mediaType, tracks: [track], hint: format)
                plan.transform = track.preferredTransform
                plan.languageCode = track.languageCode
                plan.mediaTimeScale = track.naturalTimeScale
                plans.append(plan)
            }
            if plans.isEmpty {
                throw unsupported("No track of the asset can be copied into a \(fileType.rawValue) file.")
            }
            return plans
        }
        if case .encode(let codec, let box, let bitRate, let quality, let profile, _) = preset.video, let track = videoTracks.first {
            let shown = videoComposition == nil ? composedTracks(videoTracks) : videoTracks
            let stored = videoComposition?.renderSize ?? track.naturalSize
            let size = ExportPreset.fittedSize(CGSize(width: abs(stored.width), height: abs(stored.height)), box: box)
            var reader: [String: Any] = [
                kCVPixelBufferPixelFormatTypeKey as String: codec == .proRes422 ? kCVPixelFormatType_422YpCbCr8 : OSType(fourCC: "y420"),
            ]
            if videoComposition != nil, codec != .proRes422 {
                // Source frames passed through stay the decoder's planar pictures; composed
                // frames are rendered straight in the encoder's bi-planar 4:2:0.
                reader[kCVPixelBufferPixelFormatTypeKey as String] = [OSType(fourCC: "y420"), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange]
            }
            if size.width != Int(stored.width) || size.height != Int(stored.height) {
                reader[kCVPixelBufferWidthKey as String] = size.width
                reader[kCVPixelBufferHeightKey as String] = size.height
            }
            var properties: [String: Any] = [:]
            if let bitRate { properties[AVVideoAverageBitRateKey] = bitRate }
            if let quality { properties[AVVideoQualityKey] = quality }
            if let profile { properties[AVVideoProfileLevelKey] = profile }
            var fps = shown.map(\.nominalFrameRate).max() ?? 0
            if let frameDuration = videoComposition?.frameDuration, frameDuration.isNumeric, frameDuration > .zero {
                fps = Float(1 / frameDuration.seconds)
            }
            if fps > 0, codec != .proRes422 { properties[AVVideoExpectedSourceFrameRateKey] = Double(fps) }
            var writer: [String: Any] = [AVVideoCodecKey: codec, AVVideoWidthKey: size.width, AVVideoHeightKey: size.height]
            if !properties.isEmpty { writer[AVVideoCompressionPropertiesKey] = properties }
            var plan = ExportTrackPlan(mediaType: .video, tracks: shown, readerSettings: reader, writerSettings: writer)
            plan.transform = videoComposition == nil ? track.preferredTransform : .identity
            plan.useVideoComposition = videoComposition != nil
            plan.languageCode = track.languageCode
            plans.append(plan)
        } else if case .encode = preset.video, !preset.acceptsAudioOnly, videoTracks.isEmpty {
            throw AVError(.operationNotSupportedForPreset, userInfo: [
                NSLocalizedDescriptionKey: "Operation Not Supported",
                NSLocalizedFailureReasonErrorKey: "The preset \(preset.name) needs a video track; the asset has none.",
            ])
        }
        if !audioTracks.isEmpty, container.mediaTypes.contains(.audio) {
            let first = audioTracks[0]
            let mixes = audioMix != nil || audioTracks.count > 1
            // A mix keeps the richest of its tracks: the highest rate, the most channels.
            let formats = (mixes ? audioTracks : [first]).compactMap { track in
                (track.formatDescriptions.first as! CMFormatDescription?).flatMap { CMAudioFormatDescriptionGetStreamBasicDescription($0)?.pointee }
            }
            let sourceRate = formats.map(\.mSampleRate).max() ?? 48000
            let sourceChannels = Int(formats.map(\.mChannelsPerFrame).max() ?? 2)
            switch preset.audio {
            case .none:
                break
            case .aac(let bitRate, let maxChannels):
                let (rate, channels, bitRate) = ExportPreset.aacOutput(bitRate: bitRate, maxChannels: maxChannels,
                                                                       sourceRate: sourceRate, sourceChannels: sourceChannels)
                let reader: [String: Any] = [
                    AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32,
                    AVLinearPCMIsNonInterleaved: false, AVLinearPCMIsBigEndianKey: false,
                    AVSampleRateKey: rate, AVNumberOfChannelsKey: channels,
                ]
                let writer: [String: Any] = [
                    AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels, AVEncoderBitRateKey: bitRate,
                ]
                var plan = ExportTrackPlan(mediaType: .audio, tracks: mixes ? audioTracks : [first], readerSettings: reader, writerSettings: writer)
                plan.useAudioMix = mixes
                plan.languageCode = first.languageCode
                plans.append(plan)
            case .lpcm:
                var pcm: [String: Any] = [
                    AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: false, AVLinearPCMBitDepthKey: 16,
                    AVLinearPCMIsNonInterleaved: false, AVLinearPCMIsBigEndianKey: false,
                    AVSampleRateKey: sourceRate, AVNumberOfChannelsKey: sourceChannels,
                ]
                if sourceChannels > 2 {
                    // More than stereo needs its layout spelled out: the source's, else the
                    // usual one for the count (5.1: L R C LFE Ls Rs).
                    var size = 0
                    let format = first.formatDescriptions.first as! CMFormatDescription?
                    if let format, let layout = CMAudioFormatDescriptionGetChannelLayout(format, sizeOut: &size), size > 0,
                       AudioChannelSet(audioChannelLayout: Data(bytes: layout, count: size))?.count == sourceChannels {
                        pcm[AVChannelLayoutKey] = Data(bytes: layout, count: size)
                    } else {
                        pcm[AVChannelLayoutKey] = AVOutputSettingsAssistant.layoutData(channels: sourceChannels)
                    }
                }
                var plan = ExportTrackPlan(mediaType: .audio, tracks: mixes ? audioTracks : [first], readerSettings: pcm, writerSettings: pcm)
                plan.useAudioMix = mixes
                plan.languageCode = first.languageCode
                plans.append(plan)
            }
        }
        if plans.isEmpty {
            throw AVError(.operationNotSupportedForPreset, userInfo: [
                NSLocalizedDescriptionKey: "Operation Not Supported",
                NSLocalizedFailureReasonErrorKey: "The preset \(preset.name) has nothing to export from this asset.",
            ])
        }
        for plan in plans {
            if let problem = writerProblem(plan, container: container) {
                throw unsupported("The preset \(preset.name) cannot write the asset's \(plan.mediaType.spokenName) track to a "
                                  + "\(fileType.rawValue) file with settings {\(plan.settingsSummary)}: \(problem)")
            }
        }
        return plans
    }

    /// The enabled video tracks (front first) a re-encoded export reads: those the compositor
    /// shows somewhere — not wholly hidden behind tracks in front — and whose transform is the
    /// front track's (the output track keeps it; a track turned otherwise needs rendering, which
    /// comes with video compositions).
    static func composedTracks(_ videoTracks: [AVAssetTrack]) -> [AVAssetTrack] {
        guard let front = videoTracks.first, videoTracks.count > 1 else { return videoTracks }
        let alike = videoTracks.filter { $0.preferredTransform == front.preferredTransform }
        let ranges = alike.map(\.timeRange)
        let instructions = VideoCompositorStage.frontMostInstructions(ranges: ranges, within: CMTimeRange(start: .zero, duration: .positiveInfinity))
        let used = Set(instructions.map(\.passthroughSource))
        return alike.indices.filter { $0 == 0 || used.contains($0) }.map { alike[$0] }
    }

    /// Why a track made of segments cannot be copied as stored samples into one track of
    /// `container` (nil when it can): its segments must all come from streams of one format
    /// (same codec, size and configuration), play at their own rate, and the container must
    /// hold edit lists (QuickTime family).
    static func segmentsProblem(_ track: AVAssetTrack, container: WriterContainer) -> String? {
        guard container.isQuickTime else { return "only QuickTime-family files hold the edit lists a composition needs." }
        let media = track.mediaSegments.filter { !$0.isEmpty }
        if media.contains(where: \.isScaled) { return "it has scaled segments, whose stored samples cannot play at another rate." }
        let formats = media.compactMap { $0.source?.stream.formatDescription }
        guard formats.count == media.count, let first = formats.first else { return "a segment's source has no format description." }
        if let other = media.first(where: { segment in
            segment.source?.stream.formatDescription.map { !WriterTrack.describeSameStream(first, $0) } ?? true
        }), let url = other.source?.url {
            return "its segments come from sources whose formats differ (\(url.lastPathComponent) is not coded as "
                + "\(media[0].source?.url.lastPathComponent ?? "the first"))."
        }
        return nil
    }

    /// Why the writer would not take `plan`'s settings for `container`; nil when it takes them
    /// (the question `AVAssetWriter.canApply(outputSettings:forMediaType:)` asks, with its reason).
    static func writerProblem(_ plan: ExportTrackPlan, container: WriterContainer) -> String? {
        guard let settings = plan.writerSettings else { return nil }  // passthrough: checked by canPassThrough
        switch WriterOutputSettings.parse(settings, mediaType: plan.mediaType) {
        case .failure(let error): return error.reason
        case .success(let parsed): return container.canEncode(parsed, hint: plan.hint)
        }
    }

    static func unsupported(_ reason: String) -> AVError {
        AVError(.operationNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "Operation Stopped", NSLocalizedFailureReasonErrorKey: reason])
    }
}

extension ExportPreset {
    /// The x264/x265 speed preset the video encoder runs with.
    var speed: String? {
        if case .encode(_, _, _, _, _, let speed) = video { return speed }
        return nil
    }
}

/// What an export would write, for tools (`avtool convert --verbose`); not part of Apple's API,
/// hence behind an SPI.
@_spi(Tools) public enum ExportPlanInspection {
    /// One line per written track: the reader→writer settings, or passthrough.
    public static func plans(asset: AVAsset, presetName: String, fileType: AVFileType) throws -> [String] {
        guard let preset = ExportPreset.named(presetName) else { return [] }
        var lines = try ExportPlanner.plan(asset: asset, preset: preset, fileType: fileType, audioMix: nil).map(\.summary)
        if let speed = preset.speed { lines.append("video encoder speed preset: \(speed)") }
        return lines
    }
}
