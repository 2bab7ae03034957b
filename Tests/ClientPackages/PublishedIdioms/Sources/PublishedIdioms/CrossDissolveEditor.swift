// A two-clip editor in the shape of the book's "15 Seconds" builders and Apple's simple editor
// samples: the clips on alternating composition tracks A and B overlapping by the transition,
// a cross-dissolve made of pass-through and transition instructions with an opacity ramp, the
// clips' sound faded in and out by an audio mix, exported with exportAsynchronously and a
// semaphore.
import AVFoundation

final class CrossDissolveEditor {
    let clips: [AVAsset]
    let transitionDuration = CMTimeMake(value: 1, timescale: 1)

    init(urls: [URL]) {
        clips = urls.map { AVURLAsset(url: $0, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true]) }
    }

    func buildComposition() throws -> (AVMutableComposition, AVMutableVideoComposition, AVMutableAudioMix) {
        let composition = AVMutableComposition()
        let videoTracks = [
            composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)!,
            composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)!,
        ]
        let audioTracks = [
            composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!,
            composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!,
        ]

        var passThroughRanges: [CMTimeRange] = []
        var transitionRanges: [CMTimeRange] = []
        var cursor = CMTime.zero
        for (i, clip) in clips.enumerated() {
            let trackIndex = i % 2
            let timeRange = CMTimeRangeMake(start: .zero, duration: clip.duration)
            let clipVideoTrack = clip.tracks(withMediaType: .video)[0]
            try videoTracks[trackIndex].insertTimeRange(timeRange, of: clipVideoTrack, at: cursor)
            if let clipAudioTrack = clip.tracks(withMediaType: .audio).first {
                try audioTracks[trackIndex].insertTimeRange(timeRange, of: clipAudioTrack, at: cursor)
            }
            var passThrough = CMTimeRangeMake(start: cursor, duration: timeRange.duration)
            if i > 0 {
                passThrough.start = CMTimeAdd(passThrough.start, transitionDuration)
                passThrough.duration = CMTimeSubtract(passThrough.duration, transitionDuration)
            }
            if i + 1 < clips.count {
                passThrough.duration = CMTimeSubtract(passThrough.duration, transitionDuration)
            }
            passThroughRanges.append(passThrough)
            cursor = CMTimeAdd(cursor, timeRange.duration)
            cursor = CMTimeSubtract(cursor, transitionDuration)
            if i + 1 < clips.count {
                transitionRanges.append(CMTimeRangeMake(start: cursor, duration: transitionDuration))
            }
        }

        var instructions: [AVVideoCompositionInstructionProtocol] = []
        for i in 0..<clips.count {
            let trackIndex = i % 2
            let passThroughInstruction = AVMutableVideoCompositionInstruction()
            passThroughInstruction.timeRange = passThroughRanges[i]
            let passThroughLayer = AVMutableVideoCompositionLayerInstruction(assetTrack: videoTracks[trackIndex])
            passThroughInstruction.layerInstructions = [passThroughLayer]
            instructions.append(passThroughInstruction)

            if i < transitionRanges.count {
                let transitionInstruction = AVMutableVideoCompositionInstruction()
                transitionInstruction.timeRange = transitionRanges[i]
                let fromLayer = AVMutableVideoCompositionLayerInstruction(assetTrack: videoTracks[trackIndex])
                let toLayer = AVMutableVideoCompositionLayerInstruction(assetTrack: videoTracks[1 - trackIndex])
                fromLayer.setOpacityRamp(fromStartOpacity: 1.0, toEndOpacity: 0.0, timeRange: transitionRanges[i])
                transitionInstruction.layerInstructions = [fromLayer, toLayer]
                instructions.append(transitionInstruction)
            }
        }

        let videoComposition = AVMutableVideoComposition()
        videoComposition.instructions = instructions
        videoComposition.frameDuration = CMTimeMake(value: 1, timescale: 30)
        videoComposition.renderSize = videoTracks[0].naturalSize

        let fadeIn = AVMutableAudioMixInputParameters(track: audioTracks[0])
        fadeIn.setVolumeRamp(fromStartVolume: 0.0, toEndVolume: 1.0, timeRange: CMTimeRangeMake(start: .zero, duration: transitionDuration))
        let fadeOut = AVMutableAudioMixInputParameters(track: audioTracks[1])
        fadeOut.setVolumeRamp(fromStartVolume: 1.0, toEndVolume: 0.0,
                              timeRange: CMTimeRangeMake(start: CMTimeSubtract(composition.duration, transitionDuration),
                                                         duration: transitionDuration))
        let audioMix = AVMutableAudioMix()
        audioMix.inputParameters = [fadeIn, fadeOut]
        return (composition, videoComposition, audioMix)
    }

    func export(to url: URL) throws -> AVAssetExportSession.Status {
        let (composition, videoComposition, audioMix) = try buildComposition()
        guard composition.tracks(withMediaType: .video).count == 2,
              let session = AVAssetExportSession(asset: composition.copy() as! AVAsset, presetName: AVAssetExportPresetMediumQuality) else {
            throw ExtractionError.failed("cannot export")
        }
        print("composition duration=\(CMTimeGetSeconds(composition.duration)) segments=\(composition.tracks.map { $0.segments.count })")
        try? FileManager.default.removeItem(at: url)
        session.outputURL = url
        session.outputFileType = .mp4
        session.videoComposition = videoComposition
        session.audioMix = audioMix
        let semaphore = DispatchSemaphore(value: 0)
        session.exportAsynchronously {
            semaphore.signal()
        }
        semaphore.wait()
        if let error = session.error { print("export error: \(error.localizedDescription)") }
        return session.status
    }

    static func run(_ urls: [URL], output: URL) throws {
        let status = try CrossDissolveEditor(urls: urls).export(to: output)
        print("edit status=\(status == .completed ? "completed" : "failed")")
    }
}
