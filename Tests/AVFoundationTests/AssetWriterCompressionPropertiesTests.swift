// Video Toolbox's compression properties as published Apple code passes them in
// AVVideoCompressionPropertiesKey (kVTCompressionPropertyKey_…, kVTProfileLevel_…, the HDR keys):
// their values, what the written streams carry (ffprobe: profile, level, keyframes, colour tags,
// HDR side data; x264's option string), and the refusals Apple gives for the rest.
import AVFoundation
import Foundation
import Testing

@Suite struct AssetWriterCompressionPropertiesTests {
    @Test func videoToolboxConstantsHaveApplesValues() {
        #expect(kVTCompressionPropertyKey_ProfileLevel == "ProfileLevel")
        #expect(kVTCompressionPropertyKey_AverageBitRate == "AverageBitRate")
        #expect(kVTCompressionPropertyKey_ExpectedFrameRate == "ExpectedFrameRate")
        #expect(kVTCompressionPropertyKey_MaxKeyFrameInterval == "MaxKeyFrameInterval")
        #expect(kVTCompressionPropertyKey_MaxKeyFrameIntervalDuration == "MaxKeyFrameIntervalDuration")
        #expect(kVTCompressionPropertyKey_AllowFrameReordering == "AllowFrameReordering")
        #expect(kVTCompressionPropertyKey_RealTime == "RealTime")
        #expect(kVTCompressionPropertyKey_Quality == "Quality")
        #expect(kVTCompressionPropertyKey_DataRateLimits == "DataRateLimits")
        #expect(kVTCompressionPropertyKey_H264EntropyMode == "H264EntropyMode")
        #expect(kVTH264EntropyMode_CAVLC == "CAVLC" && kVTH264EntropyMode_CABAC == "CABAC")
        #expect(kVTCompressionPropertyKey_ColorPrimaries == "ColorPrimaries")
        #expect(kVTCompressionPropertyKey_HDRMetadataInsertionMode == "HDRMetadataInsertionMode")
        #expect(kVTHDRMetadataInsertionMode_Auto == "Auto" && kVTHDRMetadataInsertionMode_None == "None")
        #expect(kVTProfileLevel_HEVC_Main10_AutoLevel == "HEVC_Main10_AutoLevel")
        #expect(kVTProfileLevel_HEVC_Main_AutoLevel == "HEVC_Main_AutoLevel")
        #expect(kVTProfileLevel_HEVC_Main42210_AutoLevel == "HEVC_Main42210_AutoLevel")
        #expect(kVTProfileLevel_H264_High_AutoLevel == "H264_High_AutoLevel")
        #expect(kVTProfileLevel_H264_High_AutoLevel as String == AVVideoProfileLevelH264HighAutoLevel)
        #expect(kVTProfileLevel_H264_Baseline_1_3 == "H264_Baseline_1_3")
        #expect(kVTProfileLevel_H264_Main_5_2 == "H264_Main_5_2")
        #expect(kVTProfileLevel_H264_ConstrainedBaseline_AutoLevel == "H264_ConstrainedBaseline_AutoLevel")
        #expect(kVTProfileLevel_H264_ConstrainedHigh_AutoLevel == "H264_ConstrainedHigh_AutoLevel")
        #expect(kVTProfileLevel_H264_Extended_AutoLevel == "H264_Extended_AutoLevel")
        #expect(AVVideoAverageNonDroppableFrameRateKey == "AverageNonDroppableFrameRate")
        #expect(AVVideoTransferFunction_ITU_R_2100_HLG == "ITU_R_2100_HLG")
        #expect(AVVideoTransferFunction_SMPTE_ST_2084_PQ == "SMPTE_ST_2084_PQ")
    }

    /// Writes `count` 160×120 frames of `codec` with `properties` (and `extra` top-level keys).
    private func write(_ codec: AVVideoCodecType, _ properties: [String: Any], extra: [String: Any] = [:], name: String,
                       count: Int = 8, fps: Int32 = 30) async throws -> (url: URL, stream: [String: String]) {
        var settings: [String: Any] = [AVVideoCodecKey: codec, AVVideoWidthKey: 160, AVVideoHeightKey: 120,
                                       AVVideoCompressionPropertiesKey: properties]
        settings.merge(extra) { $1 }
        let url = try WriterFixtures.outputURL(name)
        let writer = try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: settings, count: count,
                                                          width: 160, height: 120, fps: fps)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        return (url, try WriterFixtures.stream(url))
    }

    /// x264's option string, which it writes into the stream.
    private func x264Options(_ url: URL) throws -> String {
        let text = try AssetFixtures.run("/usr/bin/strings", [url.path]).output
        return text.split(separator: "\n").first { $0.contains("x264 - core") }.map(String.init) ?? ""
    }

    @Test(arguments: [
        (kVTProfileLevel_H264_High_4_2 as String, "High", "42", "yuv420p"),
        (kVTProfileLevel_H264_Main_5_1 as String, "Main", "51", "yuv420p"),
        (kVTProfileLevel_H264_Baseline_1_3 as String, "Constrained Baseline", "13", "yuv420p"),
        (kVTProfileLevel_H264_ConstrainedBaseline_AutoLevel as String, "Constrained Baseline", nil, "yuv420p"),
        (kVTProfileLevel_H264_ConstrainedHigh_AutoLevel as String, "High", nil, "yuv420p"),
        (kVTProfileLevel_HEVC_Main_AutoLevel as String, "Main", nil, "yuv420p"),
        (kVTProfileLevel_HEVC_Main10_AutoLevel as String, "Main 10", nil, "yuv420p10le"),
        (kVTProfileLevel_HEVC_Main42210_AutoLevel as String, "Rext", nil, "yuv422p10le"),
    ] as [(String, String, String?, String)])
    func profileLevelsAreWritten(_ value: String, _ profile: String, _ level: String?, _ pixelFormat: String) async throws {
        let codec: AVVideoCodecType = value.hasPrefix("HEVC") ? .hevc : .h264
        let (url, stream) = try await write(codec, [kVTCompressionPropertyKey_ProfileLevel as String: value], name: "\(value).mov")
        #expect(stream["profile"] == profile, "\(value)")
        if let level { #expect(stream["level"] == level, "\(value)") }
        #expect(stream["pix_fmt"] == pixelFormat, "\(value)")
        if value == kVTProfileLevel_H264_ConstrainedHigh_AutoLevel as String {
            // Constrained High: no B-frames.
            #expect(try x264Options(url).contains(" bframes=0 "))
            #expect(stream["has_b_frames"] == "0")
        }
    }

    @Test func theVideoToolboxKeysAreHonoured() async throws {
        // Written as Apple code writes them: CFString keys and values in one dictionary.
        let properties: [String: Any] = [
            kVTCompressionPropertyKey_ProfileLevel as String: kVTProfileLevel_H264_Main_AutoLevel as String,
            kVTCompressionPropertyKey_MaxKeyFrameInterval as String: 5,
            kVTCompressionPropertyKey_H264EntropyMode as String: kVTH264EntropyMode_CAVLC as String,
            kVTCompressionPropertyKey_AverageBitRate as String: 300_000,
            kVTCompressionPropertyKey_DataRateLimits as String: [50_000, 1] as [Any],
            kVTCompressionPropertyKey_ExpectedFrameRate as String: 30,
            kVTCompressionPropertyKey_RealTime as String: true,
            kVTCompressionPropertyKey_MinAllowedFrameQP as String: 12,
            kVTCompressionPropertyKey_MaxAllowedFrameQP as String: 40,
            kVTCompressionPropertyKey_ColorPrimaries as String: AVVideoColorPrimaries_ITU_R_709_2,
            kVTCompressionPropertyKey_TransferFunction as String: AVVideoTransferFunction_ITU_R_709_2,
            kVTCompressionPropertyKey_YCbCrMatrix as String: AVVideoYCbCrMatrix_ITU_R_709_2,
        ]
        let (url, stream) = try await write(.h264, properties, name: "vt-keys.mov", count: 16)
        #expect(stream["profile"] == "Main")
        #expect(stream["color_primaries"] == "bt709" && stream["color_transfer"] == "bt709" && stream["color_space"] == "bt709")
        let keys = try WriterFixtures.packets(url).enumerated().filter { $0.element.key }.map(\.offset)
        #expect(keys.first == 0 && keys.count >= 3 && zip(keys, keys.dropFirst()).allSatisfy { $1 - $0 <= 5 }, "\(keys)")
        let options = try x264Options(url)
        #expect(options.contains("cabac=0"), "\(options)")
        #expect(options.contains("keyint=5 "), "\(options)")
        // 50 000 bytes a second: a 400 kb/s peak over a 400 kbit buffer.
        #expect(options.contains("vbv_maxrate=400 ") && options.contains("vbv_bufsize=400 "), "\(options)")
        #expect(options.contains("qpmin=12 ") && options.contains("qpmax=40 "), "\(options)")
        // RealTime: x264's veryfast preset (one reference, subpixel refinement 2).
        #expect(options.contains("subme=2 ") && options.contains(" ref=1 "), "\(options)")
    }

    @Test func constantBitRateIsStrict() async throws {
        let (url, _) = try await write(.h264, [kVTCompressionPropertyKey_ConstantBitRate as String: 500_000,
                                               kVTCompressionPropertyKey_ExpectedFrameRate as String: 30],
                                       name: "cbr.mov", count: 30)
        let options = try x264Options(url)
        #expect(options.contains("rc=cbr ") && options.contains("bitrate=500 "), "\(options)")
        #expect(options.contains("vbv_maxrate=500 ") && options.contains("nal_hrd=cbr"), "\(options)")
        // Padded to the rate: one second of pictures is about 500 kbit (62.5 kB).
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        #expect(size > 40_000 && size < 90_000, "\(size) bytes")
    }

    @Test func nonDroppableFrameRateAndTemporalCompressionShapeTheGOP() async throws {
        // Every frame non-droppable: no B-frames.
        let (url, stream) = try await write(.h264, [AVVideoAverageNonDroppableFrameRateKey: 30, AVVideoExpectedSourceFrameRateKey: 30],
                                            name: "nondroppable.mov", count: 12)
        #expect(stream["has_b_frames"] == "0")
        #expect(try x264Options(url).contains(" bframes=0 "))
        // A third of them: at most two B-frames in a row.
        let (third, _) = try await write(.h264, [AVVideoAverageNonDroppableFrameRateKey: 10, AVVideoExpectedSourceFrameRateKey: 30],
                                         name: "nondroppable10.mov", count: 12)
        #expect(try x264Options(third).contains(" bframes=2 "))
        // No temporal compression: every frame a keyframe.
        let (intra, _) = try await write(.hevc, [kVTCompressionPropertyKey_AllowTemporalCompression as String: false],
                                         name: "intra.mov", count: 6)
        let packets = try WriterFixtures.packets(intra)
        #expect(packets.count == 6 && packets.allSatisfy { $0.key })
    }

    /// SMPTE ST 2086 for a P3-D65 1000-nit mastering display, big-endian: G, B, R, white point
    /// (0.00002 units), max and min luminance (0.0001 cd/m²).
    private static let masteringDisplay: Data = {
        var bytes: [UInt8] = []
        for v in [13250, 34500, 7500, 3000, 34000, 16000, 15635, 16450] as [UInt16] { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        for v in [10_000_000, 50] as [UInt32] { bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return Data(bytes)
    }()

    @Test(arguments: [true, false])
    func hdrTenBitHEVCCarriesItsColourTagsAndMetadata(_ insert: Bool) async throws {
        let properties: [String: Any] = [
            kVTCompressionPropertyKey_ProfileLevel as String: kVTProfileLevel_HEVC_Main10_AutoLevel as String,
            kVTCompressionPropertyKey_HDRMetadataInsertionMode as String: (insert ? kVTHDRMetadataInsertionMode_Auto : kVTHDRMetadataInsertionMode_None) as String,
            kVTCompressionPropertyKey_MasteringDisplayColorVolume as String: Self.masteringDisplay,
            kVTCompressionPropertyKey_ContentLightLevelInfo as String: Data([0x03, 0xE8, 0x01, 0x90]),  // 1000, 400 nits
        ]
        let colour: [String: Any] = [AVVideoColorPropertiesKey: [AVVideoColorPrimariesKey: AVVideoColorPrimaries_ITU_R_2020,
                                                                 AVVideoTransferFunctionKey: AVVideoTransferFunction_SMPTE_ST_2084_PQ,
                                                                 AVVideoYCbCrMatrixKey: AVVideoYCbCrMatrix_ITU_R_2020]]
        let (url, stream) = try await write(.hevc, properties, extra: colour, name: "pq-\(insert).mov", count: 4)
        #expect(stream["profile"] == "Main 10")
        #expect(stream["color_primaries"] == "bt2020")
        #expect(stream["color_transfer"] == "smpte2084")
        #expect(stream["color_space"] == "bt2020nc")
        let side = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_frames",
                                                     "-show_entries", "frame_side_data", "-of", "default=nw=1", url.path]).output
        #expect(side.contains("Mastering display metadata") == insert, "\(side)")
        #expect(side.contains("Content light level metadata") == insert, "\(side)")
        if insert {
            #expect(side.contains("max_content=1000") && side.contains("max_average=400"), "\(side)")
            #expect(side.contains("max_luminance=10000000/10000"), "\(side)")
        }
    }

    @Test func publishedAppleCodeFormsCompileAndWork() async throws {
        // As published Apple code writes them: CFString keys and values straight in the literal,
        // and AVVideo… keys with a Video Toolbox value cast to String.
        let cfForm: [String: Any] = [
            AVVideoCodecKey: AVVideoCodecType.hevc, AVVideoWidthKey: 160, AVVideoHeightKey: 120,
            AVVideoCompressionPropertiesKey: [kVTCompressionPropertyKey_ProfileLevel: kVTProfileLevel_HEVC_Main10_AutoLevel],
        ]
        let url = try WriterFixtures.outputURL("cf-form.mov")
        var writer = try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: cfForm, count: 3, width: 160, height: 120)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try WriterFixtures.stream(url)["profile"] == "Main 10")
        let stringForm: [String: Any] = [
            AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 160, AVVideoHeightKey: 120,
            AVVideoCompressionPropertiesKey: [AVVideoProfileLevelKey: kVTProfileLevel_H264_Main_AutoLevel as String,
                                              AVVideoH264EntropyModeKey: kVTH264EntropyMode_CABAC as String],
        ]
        let url2 = try WriterFixtures.outputURL("string-form.mov")
        writer = try await WriterFixtures.writeFrames(to: url2, fileType: .mov, settings: stringForm, count: 3, width: 160, height: 120)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try WriterFixtures.stream(url2)["profile"] == "Main")
        #expect(try x264Options(url2).contains("cabac=1"))
    }

    @Test func sdrVideoGetsNoHDRMetadata() async throws {
        // Video Toolbox inserts HDR metadata only into HDR streams: BT.709 gets none.
        let properties: [String: Any] = [
            kVTCompressionPropertyKey_MasteringDisplayColorVolume as String: Self.masteringDisplay,
            kVTCompressionPropertyKey_ContentLightLevelInfo as String: Data([0x03, 0xE8, 0x01, 0x90]),
            kVTCompressionPropertyKey_TransferFunction as String: AVVideoTransferFunction_ITU_R_709_2,
        ]
        // Three frames, as the HDR cases write: a two-frame libx265 clip is refused now and then by the
        // mov muxer under CPU load ("pts/dts pair unsupported"), a writer fault noted for the next issue.
        let (url, stream) = try await write(.hevc, properties, name: "sdr.mov", count: 3)
        #expect(stream["color_transfer"] == "bt709")
        let side = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_frames",
                                                     "-show_entries", "frame_side_data", "-of", "default=nw=1", url.path]).output
        #expect(!side.contains("Mastering display metadata") && !side.contains("Content light level metadata"), "\(side)")
    }

    @Test func hlgTagsComeFromTheCompressionProperties() async throws {
        let properties: [String: Any] = [
            kVTCompressionPropertyKey_ProfileLevel as String: kVTProfileLevel_HEVC_Main10_AutoLevel as String,
            kVTCompressionPropertyKey_ColorPrimaries as String: AVVideoColorPrimaries_ITU_R_2020,
            kVTCompressionPropertyKey_TransferFunction as String: AVVideoTransferFunction_ITU_R_2100_HLG,
            kVTCompressionPropertyKey_YCbCrMatrix as String: AVVideoYCbCrMatrix_ITU_R_2020,
        ]
        let (_, stream) = try await write(.hevc, properties, name: "hlg.mov", count: 3)
        #expect(stream["color_primaries"] == "bt2020")
        #expect(stream["color_transfer"] == "arib-std-b67")
        #expect(stream["color_space"] == "bt2020nc")
    }

    @Test func whatTheseEncodersCannotDoIsNotApplicable() throws {
        let writer = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("apply.mov"), fileType: .mov)
        func settings(_ codec: AVVideoCodecType, _ properties: [String: Any]) -> [String: Any] {
            [AVVideoCodecKey: codec, AVVideoWidthKey: 64, AVVideoHeightKey: 64, AVVideoCompressionPropertiesKey: properties]
        }
        let profile = kVTCompressionPropertyKey_ProfileLevel as String
        // Real Video Toolbox values libx264/libx265 cannot write: canApply answers false.
        #expect(!writer.canApply(outputSettings: settings(.h264, [profile: kVTProfileLevel_H264_Extended_AutoLevel as String]), forMediaType: .video))
        #expect(!writer.canApply(outputSettings: settings(.hevc, [profile: kVTProfileLevel_HEVC_Monochrome_AutoLevel as String]), forMediaType: .video))
        #expect(!writer.canApply(outputSettings: settings(.h264, [kVTCompressionPropertyKey_ConstantBitRate as String: 1_000_000,
                                                                  kVTCompressionPropertyKey_AverageBitRate as String: 1_000_000]),
                                 forMediaType: .video))
        #expect(!writer.canApply(outputSettings: settings(.h264, [kVTCompressionPropertyKey_MaxH264SliceBytes as String: 1200]), forMediaType: .video))
        #expect(!writer.canApply(outputSettings: settings(.h264, [kVTCompressionPropertyKey_ContentLightLevelInfo as String: Data([0, 1, 0, 1])]),
                                 forMediaType: .video))
        // What they can: true.
        for value in [kVTProfileLevel_H264_High_5_2, kVTProfileLevel_H264_ConstrainedHigh_AutoLevel, kVTProfileLevel_H264_Baseline_AutoLevel] {
            #expect(writer.canApply(outputSettings: settings(.h264, [profile: value as String]), forMediaType: .video), "\(value)")
        }
        for value in [kVTProfileLevel_HEVC_Main_AutoLevel, kVTProfileLevel_HEVC_Main10_AutoLevel, kVTProfileLevel_HEVC_Main42210_AutoLevel] {
            #expect(writer.canApply(outputSettings: settings(.hevc, [profile: value as String]), forMediaType: .video), "\(value)")
        }
        #expect(!writer.canApply(outputSettings: settings(.h264, [kVTCompressionPropertyKey_VBVMaxBitRate as String: 1_000_000]), forMediaType: .video))
        #expect(writer.canApply(outputSettings: settings(.hevc, [kVTCompressionPropertyKey_ExpectedDuration as String: 10.0,
                                                                 kVTCompressionPropertyKey_MaximizePowerEfficiency as String: true,
                                                                 kVTCompressionPropertyKey_MaximumRealTimeFrameRate as String: 60]),
                                forMediaType: .video))
    }

    @Test func anUnknownCompressionPropertyStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAssetWriterInput(mediaType: .video, outputSettings: [
                AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 64, AVVideoHeightKey: 64,
                AVVideoCompressionPropertiesKey: ["NoSuchProperty": 1]])
        }
        expectExit(result, says: "-[AVAssetWriterInput initWithMediaType:outputSettings:sourceFormatHint:] "
                   + "Compression property NoSuchProperty is not supported for video codec type avc1")
    }

    @Test func anH264OnlyPropertyOnHEVCStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAssetWriterInput(mediaType: .video, outputSettings: [
                AVVideoCodecKey: AVVideoCodecType.hevc, AVVideoWidthKey: 64, AVVideoHeightKey: 64,
                AVVideoCompressionPropertiesKey: [kVTCompressionPropertyKey_H264EntropyMode as String: kVTH264EntropyMode_CABAC as String]])
        }
        expectExit(result, says: "Compression property H264EntropyMode is not supported for video codec type hvc1")
    }

    @Test func anUnknownProfileLevelStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAssetWriterInput(mediaType: .video, outputSettings: [
                AVVideoCodecKey: AVVideoCodecType.hevc, AVVideoWidthKey: 64, AVVideoHeightKey: 64,
                AVVideoCompressionPropertiesKey: [kVTCompressionPropertyKey_ProfileLevel as String: kVTProfileLevel_H264_High_AutoLevel as String]])
        }
        expectExit(result, says: "unknown ProfileLevel value H264_High_AutoLevel for codec hvc1")
    }
}
