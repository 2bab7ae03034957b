// Output settings as Apple code writes them: the constants' values, what canApply answers, the
// output settings assistant's presets, and the writer's configuration properties.
import AVFoundation
import Foundation
import Testing

@Suite struct AssetWriterSettingsTests {
    @Test func codecTypesAndKeysHaveApplesValues() {
        #expect(AVVideoCodecType.h264.rawValue == "avc1")
        #expect(AVVideoCodecType.hevc.rawValue == "hvc1")
        #expect(AVVideoCodecType.hevcWithAlpha.rawValue == "muxa")
        #expect(AVVideoCodecType.jpeg.rawValue == "jpeg")
        #expect(AVVideoCodecType.proRes422.rawValue == "apcn")
        #expect(AVVideoCodecType.proRes422HQ.rawValue == "apch")
        #expect(AVVideoCodecType.proRes422LT.rawValue == "apcs")
        #expect(AVVideoCodecType.proRes422Proxy.rawValue == "apco")
        #expect(AVVideoCodecType.proRes4444.rawValue == "ap4h")
        #expect(AVVideoCodecKey == "AVVideoCodecKey")
        #expect(AVVideoWidthKey == "AVVideoWidthKey")
        #expect(AVVideoHeightKey == "AVVideoHeightKey")
        #expect(AVVideoCompressionPropertiesKey == "AVVideoCompressionPropertiesKey")
        #expect(AVVideoAverageBitRateKey == "AverageBitRate")
        #expect(AVVideoQualityKey == "Quality")
        #expect(AVVideoMaxKeyFrameIntervalKey == "MaxKeyFrameInterval")
        #expect(AVVideoMaxKeyFrameIntervalDurationKey == "MaxKeyFrameIntervalDuration")
        #expect(AVVideoAllowFrameReorderingKey == "AllowFrameReordering")
        #expect(AVVideoProfileLevelKey == "ProfileLevel")
        #expect(AVVideoExpectedSourceFrameRateKey == "ExpectedFrameRate")
        #expect(AVVideoProfileLevelH264HighAutoLevel == "H264_High_AutoLevel")
        #expect(AVVideoProfileLevelH264Baseline30 == "H264_Baseline_3_0")
        #expect(AVVideoScalingModeResizeAspectFill == "AVVideoScalingModeResizeAspectFill")
        #expect(AVVideoColorPropertiesKey == "AVVideoColorPropertiesKey")
        #expect(AVVideoColorPrimariesKey == "ColorPrimaries")
        #expect(AVVideoYCbCrMatrix_ITU_R_601_4 == "ITU_R_601_4")
        #expect(AVFormatIDKey == "AVFormatIDKey")
        #expect(AVLinearPCMIsNonInterleaved == "AVLinearPCMIsNonInterleaved")
    }

    @Test func canApplyAnswersPerFileTypeAndCodec() throws {
        let dir = try AssetFixtures.tempDirectory()
        func writer(_ type: AVFileType, _ name: String) throws -> AVAssetWriter {
            try AVAssetWriter(outputURL: dir.appendingPathComponent(name), fileType: type)
        }
        func video(_ codec: AVVideoCodecType) -> [String: Any] { [AVVideoCodecKey: codec, AVVideoWidthKey: 64, AVVideoHeightKey: 64] }
        let mov = try writer(.mov, "a.mov"), mp4 = try writer(.mp4, "a.mp4"), m4a = try writer(.m4a, "a.m4a")
        for codec in [AVVideoCodecType.h264, .hevc, .jpeg, .proRes422, .proRes4444] {
            #expect(mov.canApply(outputSettings: video(codec), forMediaType: .video), "\(codec)")
        }
        #expect(mp4.canApply(outputSettings: video(.h264), forMediaType: .video))
        #expect(mp4.canApply(outputSettings: video(.hevc), forMediaType: .video))
        #expect(!mp4.canApply(outputSettings: video(.proRes422), forMediaType: .video))
        #expect(!mov.canApply(outputSettings: video(.hevcWithAlpha), forMediaType: .video))
        #expect(!m4a.canApply(outputSettings: video(.h264), forMediaType: .video))
        #expect(!mov.canApply(outputSettings: video(.h264), forMediaType: .audio))
        #expect(!mov.canApply(outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA], forMediaType: .video))
        #expect(!mov.canApply(outputSettings: [AVVideoCodecKey: "avc1", AVVideoWidthKey: -4, AVVideoHeightKey: 64], forMediaType: .video))
        #expect(mov.canApply(outputSettings: nil, forMediaType: .video))
        #expect(!mov.canApply(outputSettings: nil, forMediaType: .text))
    }

    @Test func canAddAndAddFollowTheWritersState() throws {
        let url = try WriterFixtures.outputURL("state.mp4")
        let writer = try AVAssetWriter(url: url, fileType: .mp4)
        #expect(writer.outputURL == url)
        #expect(writer.outputFileType == .mp4)
        #expect(writer.status == .unknown)
        #expect(writer.inputs.isEmpty)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: [AVVideoCodecKey: AVVideoCodecType.h264,
                                                                          AVVideoWidthKey: 64, AVVideoHeightKey: 64])
        #expect(writer.canAdd(input))
        writer.add(input)
        #expect(writer.inputs.count == 1)
        #expect(!writer.canAdd(input))
        let other = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("other.mp4"), fileType: .mp4)
        #expect(!other.canAdd(input))
        #expect(writer.startWriting())
        #expect(writer.status == .writing)
        #expect(!writer.canAdd(AVAssetWriterInput(mediaType: .video, outputSettings: [AVVideoCodecKey: AVVideoCodecType.h264,
                                                                                     AVVideoWidthKey: 64, AVVideoHeightKey: 64])))
        writer.cancelWriting()
    }

    @Test func writerAndInputPropertiesHaveApplesDefaults() throws {
        let writer = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("defaults.mov"), fileType: .mov)
        #expect(!writer.movieFragmentInterval.isValid)
        #expect(!writer.overallDurationHint.isValid)
        #expect(writer.movieTimeScale == 0)
        #expect(!writer.shouldOptimizeForNetworkUse)
        #expect(writer.metadata.isEmpty)
        #expect(writer.directoryForTemporaryFiles == nil)
        writer.overallDurationHint = CMTime(value: 10, timescale: 1)
        #expect(writer.overallDurationHint == CMTime(value: 10, timescale: 1))
        let input = AVAssetWriterInput(mediaType: .audio, outputSettings: nil)
        #expect(input.mediaType == .audio)
        #expect(input.outputSettings == nil)
        #expect(input.sourceFormatHint == nil)
        #expect(input.transform == .identity)
        #expect(input.naturalSize == .zero)
        #expect(input.mediaTimeScale == 0)
        #expect(input.languageCode == nil)
        #expect(input.extendedLanguageTag == nil)
        #expect(!input.expectsMediaDataInRealTime)
        #expect(!input.isReadyForMoreMediaData)
    }

    @Test func unwritableTemporaryDirectoryFailsStartWriting() throws {
        let writer = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("tmpdir.mov"), fileType: .mov)
        writer.directoryForTemporaryFiles = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        writer.add(AVAssetWriterInput(mediaType: .video, outputSettings: [AVVideoCodecKey: AVVideoCodecType.h264,
                                                                         AVVideoWidthKey: 64, AVVideoHeightKey: 64]))
        #expect(!writer.startWriting())
        #expect(writer.status == .failed)
    }

    @Test(arguments: [("en", nil, "eng"), (nil, "de-DE", "deu"), ("fra", "en-US", "fra")] as [(String?, String?, String)])
    func languageCodesAndTagsBecomeTheTracksISO6392Language(_ code: String?, _ tag: String?, _ expected: String) async throws {
        let url = try WriterFixtures.outputURL("lang.mov")
        try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: [AVVideoCodecKey: AVVideoCodecType.h264,
                                                                                AVVideoWidthKey: 64, AVVideoHeightKey: 64],
                                             count: 1, width: 64, height: 64) { _, input in
            input.languageCode = code
            input.extendedLanguageTag = tag
        }
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
        #expect(try await track.load(.languageCode) == expected)
    }

    // MARK: AVOutputSettingsAssistant

    @Test func assistantPresetsGiveSettingsTheWriterTakes() throws {
        let presets = AVOutputSettingsAssistant.availableOutputSettingsPresets()
        #expect(presets.contains(.preset1280x720))
        #expect(presets.contains(.hevc1920x1080))
        #expect(!presets.contains(.hevc1920x1080WithAlpha))
        #expect(AVOutputSettingsPreset.preset640x480.rawValue == "AVOutputSettingsPreset640x480")
        #expect(AVOutputSettingsPreset.hevc3840x2160.rawValue == "AVOutputSettingsPresetHEVC3840x2160")
        #expect(AVOutputSettingsAssistant(preset: .hevc1920x1080WithAlpha) == nil)
        #expect(AVOutputSettingsAssistant(preset: AVOutputSettingsPreset("nonsense")) == nil)
        let dir = try AssetFixtures.tempDirectory()
        for preset in presets {
            let assistant = try #require(AVOutputSettingsAssistant(preset: preset))
            #expect(assistant.outputFileType == .mov)
            let video = try #require(assistant.videoSettings)
            let writer = try AVAssetWriter(outputURL: dir.appendingPathComponent("\(preset.rawValue).mov"), fileType: assistant.outputFileType)
            #expect(writer.canApply(outputSettings: video, forMediaType: .video), "\(preset.rawValue)")
            #expect(assistant.audioSettings?[AVFormatIDKey] as? NSNumber == NSNumber(value: kAudioFormatMPEG4AAC))
        }
        let hd = try #require(AVOutputSettingsAssistant(preset: .preset1920x1080)?.videoSettings)
        #expect((hd[AVVideoCodecKey] as? AVVideoCodecType) == .h264)
        #expect((hd[AVVideoWidthKey] as? NSNumber)?.intValue == 1920)
        #expect((hd[AVVideoHeightKey] as? NSNumber)?.intValue == 1080)
        let hevc = try #require(AVOutputSettingsAssistant(preset: .hevc3840x2160)?.videoSettings)
        #expect((hevc[AVVideoCodecKey] as? AVVideoCodecType) == .hevc)
    }

    @Test func assistantNeverEnlargesAKnownSource() throws {
        let assistant = try #require(AVOutputSettingsAssistant(preset: .preset1920x1080))
        var format: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: 640, height: 360, extensions: nil,
                                       formatDescriptionOut: &format)
        assistant.sourceVideoFormat = format
        assistant.sourceVideoAverageFrameDuration = CMTime(value: 1, timescale: 25)
        #expect(assistant.sourceVideoAverageFrameDuration == CMTime(value: 1, timescale: 25))
        let video = try #require(assistant.videoSettings)
        #expect((video[AVVideoWidthKey] as? NSNumber)?.intValue == 640)
        #expect((video[AVVideoHeightKey] as? NSNumber)?.intValue == 360)
        let full = try #require(AVOutputSettingsAssistant(preset: .preset1920x1080)?.videoSettings)
        let rate = { (s: [String: Any]) in ((s[AVVideoCompressionPropertiesKey] as? [String: Any])?[AVVideoAverageBitRateKey] as? NSNumber)?.intValue ?? 0 }
        #expect(rate(video) < rate(full))
        // A mono 22.05 kHz source keeps its channel count and rate.
        var asbd = AudioStreamBasicDescription(mSampleRate: 22_050, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: 2, mFramesPerPacket: 1, mBytesPerFrame: 2, mChannelsPerFrame: 1,
                                               mBitsPerChannel: 16, mReserved: 0)
        var audioFormat: CMAudioFormatDescription?
        CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0, magicCookie: nil,
                                       extensions: nil, formatDescriptionOut: &audioFormat)
        assistant.sourceAudioFormat = audioFormat
        let audio = try #require(assistant.audioSettings)
        #expect((audio[AVNumberOfChannelsKey] as? NSNumber)?.intValue == 1)
        #expect((audio[AVSampleRateKey] as? NSNumber)?.doubleValue == 22_050)
    }

    @Test func assistantVideoSettingsWriteAFile() async throws {
        let assistant = try #require(AVOutputSettingsAssistant(preset: .preset640x480))
        let url = try WriterFixtures.outputURL("assistant.mov")
        let writer = try await WriterFixtures.writeFrames(to: url, fileType: assistant.outputFileType, settings: assistant.videoSettings!,
                                                          count: 5, width: 640, height: 480)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let stream = try WriterFixtures.stream(url)
        #expect(stream["width"] == "640")
        #expect(stream["profile"] == "High")
        #expect(stream["color_primaries"] == "bt709")
    }

    @Test func invalidVideoSettingsStopTheProgram() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAssetWriterInput(mediaType: .video, outputSettings: [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 64,
                                                                      AVVideoHeightKey: 64, AVVideoScalingModeKey: AVVideoScalingModeFit])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("AVAssetWriterInput does not currently support AVVideoScalingModeFit"))
        }
    }

    @Test func videoSettingsWithoutASizeNeedAHint() async {
        await #expect(processExitsWith: .failure) {
            _ = AVAssetWriterInput(mediaType: .video, outputSettings: [AVVideoCodecKey: AVVideoCodecType.h264])
        }
    }
}
