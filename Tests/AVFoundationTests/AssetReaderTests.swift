// AVAssetReader with track outputs, written from Apple's documented behaviour: the status
// machine, which outputs can be added, decoding to pixel buffers in a time range (checked against
// ffprobe), the right pictures (a video that shows its frame number), every pixel format, scaling,
// edit lists, random access and outputs read from several threads.
import AVFoundation
import Foundation
import Testing

/// Test media for the reader: a 60-frame 320×240 30 fps H.264 video with B-frames whose top band
/// shows each frame's number in binary (16 bits, one 20-pixel column per bit), made once per
/// process with the ffmpeg CLI.
enum ReaderFixtures {
    static let frameCount = 60
    static let timescale: Int32 = 15360

    static let numbered: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("asset-reader-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("numbered.mp4")
        let geq = "geq=lum='if(lt(Y\\,32)\\,255*mod(floor(N/pow(2\\,floor(X/20)))\\,2)\\,mod(X+Y+3*N\\,200)+28)'"
        _ = try? AssetFixtures.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                                              "nullsrc=s=320x240:r=30:d=2,format=gray,\(geq),format=yuv420p",
                                              "-c:v", "libx264", "-preset", "veryfast",
                                              "-x264-params", "bframes=3:b-adapt=0:b-pyramid=none:keyint=24:min-keyint=24:scenecut=0",
                                              url.path])
        return url
    }()

    /// The time of frame `n` of the numbered video.
    static func time(_ n: Int) -> CMTime { CMTime(value: Int64(n) * 512, timescale: timescale) }

    /// The number a BGRA picture of the numbered video shows (any size).
    static func number(in buffer: CVPixelBuffer) -> Int {
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
        let row = CVPixelBufferGetBytesPerRow(buffer)
        let sx = Double(CVPixelBufferGetWidth(buffer)) / 320, sy = Double(CVPixelBufferGetHeight(buffer)) / 240
        var n = 0
        for k in 0 ..< 16 {
            let x = Int((Double(k * 20) + 10) * sx), y = Int(16 * sy)
            if base[y * row + x * 4 + 1] > 128 { n |= 1 << k }
        }
        return n
    }

    static func track(_ url: URL, _ type: AVMediaType = .video) async throws -> (AVAsset, AVAssetTrack) {
        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: type).first)
        return (asset, track)
    }

    /// Every sample buffer of `output` until it returns nil.
    static func readAll(_ output: AVAssetReaderOutput) -> [CMSampleBuffer] {
        var buffers: [CMSampleBuffer] = []
        while let buffer = output.copyNextSampleBuffer() { buffers.append(buffer) }
        return buffers
    }

    static var bgra: [String: Any] { [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA] }
    static var v420: [String: Any] { [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange] }
}

@Suite("AVAssetReader")
struct AssetReaderTests {
    @Test("status moves unknown → reading → completed once the output returned nil")
    func statusMachine() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
        let reader = try AVAssetReader(asset: asset)
        #expect(reader.status == .unknown)
        #expect(reader.error == nil)
        #expect(reader.asset === asset)
        #expect(reader.timeRange == CMTimeRange(start: .zero, duration: .positiveInfinity))
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: ReaderFixtures.v420)
        #expect(output.mediaType == .video)
        #expect(output.alwaysCopiesSampleData)
        #expect(!output.supportsRandomAccess)
        #expect(output.track === track)
        #expect(output.audioTimePitchAlgorithm == .spectral)
        output.audioTimePitchAlgorithm = .varispeed
        #expect(output.audioTimePitchAlgorithm.rawValue == "Varispeed")
        reader.add(output)
        #expect(reader.outputs == [output])
        #expect(reader.startReading())
        #expect(reader.status == .reading)
        var count = 0
        while let buffer = output.copyNextSampleBuffer() {
            count += 1
            #expect(reader.status == .reading)
            let image = try #require(buffer.imageBuffer)
            #expect(CVPixelBufferGetPixelFormatType(image) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(buffer.formatDescription?.mediaSubType == .init(rawValue: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange))
        }
        #expect(count == ReaderFixtures.frameCount)
        #expect(reader.status == .completed)
        #expect(output.copyNextSampleBuffer() == nil)
        #expect(reader.status == .completed)
    }

    @Test("cancelReading stops every output; nothing changes afterwards")
    func cancel() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: ReaderFixtures.bgra)
        reader.add(output)
        #expect(reader.startReading())
        #expect(output.copyNextSampleBuffer() != nil)
        reader.cancelReading()
        #expect(reader.status == .cancelled)
        #expect(output.copyNextSampleBuffer() == nil)
        reader.cancelReading()
        #expect(reader.status == .cancelled)
        #expect(reader.error == nil)
    }

    @Test("canAdd: not after reading started, not twice, not another reader's output, not another asset's track")
    func canAddRules() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
        let (_, foreignTrack) = try await ReaderFixtures.track(ReaderFixtures.numbered)
        let reader = try AVAssetReader(asset: asset)
        let other = try AVAssetReader(asset: asset)
        let first = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        #expect(reader.canAdd(first))
        reader.add(first)
        #expect(!reader.canAdd(first))
        #expect(!other.canAdd(first))
        #expect(!reader.canAdd(AVAssetReaderTrackOutput(track: foreignTrack, outputSettings: nil)))
        let second = AVAssetReaderTrackOutput(track: track, outputSettings: ReaderFixtures.bgra)
        #expect(reader.canAdd(second))
        reader.add(second)
        #expect(reader.startReading())
        #expect(!reader.canAdd(AVAssetReaderTrackOutput(track: track, outputSettings: nil)))
        #expect(reader.outputs.count == 2)
        reader.cancelReading()
    }

    @Test("a file that cannot be opened any more: startReading returns false, status failed, the asset's error")
    func unopenable() async throws {
        guard let source = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let bytes = try Data(contentsOf: source)
        for damage in ["cut", "removed"] {
            let url = try AssetFixtures.tempDirectory().appendingPathComponent("\(damage).mp4")
            try bytes.write(to: url)
            let (asset, track) = try await ReaderFixtures.track(url)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: ReaderFixtures.bgra)
            reader.add(output)
            // The file changes after its tracks were loaded: its movie box (at the end) is cut
            // off, or it is gone.
            if damage == "cut" {
                try bytes.prefix(bytes.count / 2).write(to: url)
            } else {
                try FileManager.default.removeItem(at: url)
            }
            #expect(!reader.startReading())
            #expect(reader.status == .failed)
            let error = try #require(reader.error as NSError?)
            if damage == "cut" {
                #expect(error.domain == AVFoundationErrorDomain)
                #expect(error.code == AVError.Code.fileFailedToParse.rawValue)
            } else {
                #expect(error.domain == NSURLErrorDomain)
                #expect(error.code == NSURLErrorFileDoesNotExist)
            }
            #expect(output.copyNextSampleBuffer() == nil)
            reader.cancelReading()
            #expect(reader.status == .failed)
        }
    }

    @Test("a file cut short while reading: the samples before the cut, then failed with fileFailedToParse")
    func failsMidRead() async throws {
        guard let source = AssetFixtures.fixture("bigbuckbunny.mp4"), AssetFixtures.hasFFmpeg else { return }
        let dir = try AssetFixtures.tempDirectory()
        let faststart = dir.appendingPathComponent("faststart.mp4")
        _ = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", source.path, "-c", "copy", "-movflags", "+faststart",
                                             faststart.path])
        let bytes = try Data(contentsOf: faststart)
        let cut = dir.appendingPathComponent("cut.mp4")
        try bytes.prefix(bytes.count * 6 / 10).write(to: cut)
        for settings in [nil, ReaderFixtures.v420] {
            let (asset, track) = try await ReaderFixtures.track(cut)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
            reader.add(output)
            #expect(reader.startReading())
            let buffers = ReaderFixtures.readAll(output)
            #expect(buffers.count > 20 && buffers.count < 132)
            #expect(reader.status == .failed)
            let error = try #require(reader.error as NSError?)
            #expect(error.domain == AVFoundationErrorDomain)
            #expect(error.code == AVError.Code.fileFailedToParse.rawValue || error.code == AVError.Code.decodeFailed.rawValue)
        }
    }

    @Test("420v in a time range: the frames ffprobe lists whose presentation overlaps it, with their times")
    func timeRange420v() async throws {
        guard let url = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 2, timescale: 1))
        // ffprobe's frames: pts and duration in the 1/12800 time base.
        let probed = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                       "frame=pts,pkt_duration", "-of", "csv=p=0", url.path]).output
        let frames = probed.split(separator: "\n").compactMap { line -> (CMTime, CMTime)? in
            let f = line.split(separator: ",").compactMap { Int64($0) }
            guard f.count == 2 else { return nil }
            return (CMTime(value: f[0], timescale: 12800), CMTime(value: f[1], timescale: 12800))
        }
        #expect(frames.count == 132)
        let expected = frames.filter { $0.0 < range.end && $0.0 + $0.1 > range.start }
        let (asset, track) = try await ReaderFixtures.track(url)
        let reader = try AVAssetReader(asset: asset)
        reader.timeRange = range
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: ReaderFixtures.v420)
        output.alwaysCopiesSampleData = false
        reader.add(output)
        #expect(reader.startReading())
        let buffers = ReaderFixtures.readAll(output)
        #expect(reader.status == .completed)
        #expect(buffers.count == expected.count)
        #expect(buffers.count == 50)
        #expect(buffers.map(\.presentationTimeStamp) == expected.map(\.0))
        #expect(buffers.map(\.duration) == expected.map(\.1))
        #expect(buffers.allSatisfy { !$0.decodeTimeStamp.isValid })
        let image = try #require(buffers.first?.imageBuffer)
        #expect(CVPixelBufferGetWidth(image) == 1280 && CVPixelBufferGetHeight(image) == 720)
        #expect(CVPixelBufferGetPixelFormatType(image) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        let description = try #require(buffers.first?.formatDescription)
        #expect(CMFormatDescriptionGetMediaType(description) == kCMMediaType_Video)
        #expect(CMVideoFormatDescriptionGetDimensions(description).width == 1280)
        #expect(CMVideoFormatDescriptionMatchesImageBuffer(description, imageBuffer: image))
    }

    @Test("BGRA: each picture of a B-frame video is the right one, in presentation order at its time")
    func bgraRightPictures() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
        #expect(track.requiresFrameReordering)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: ReaderFixtures.bgra)
        reader.add(output)
        #expect(reader.startReading())
        let buffers = ReaderFixtures.readAll(output)
        #expect(buffers.count == ReaderFixtures.frameCount)
        for (n, buffer) in buffers.enumerated() {
            let image = try #require(buffer.imageBuffer)
            #expect(CVPixelBufferGetPixelFormatType(image) == kCVPixelFormatType_32BGRA)
            #expect(ReaderFixtures.number(in: image) == n)
            #expect(buffer.presentationTimeStamp == ReaderFixtures.time(n))
            #expect(buffer.duration == CMTime(value: 512, timescale: ReaderFixtures.timescale))
        }
        #expect(reader.status == .completed)
    }

    @Test("every supported pixel format, alone or first in an array, and scaling to a requested size")
    func pixelFormatsAndScaling() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
        let formats: [OSType] = [
            kCVPixelFormatType_32BGRA, kCVPixelFormatType_32ARGB, kCVPixelFormatType_32RGBA, kCVPixelFormatType_32ABGR,
            kCVPixelFormatType_24RGB, kCVPixelFormatType_24BGR, kCVPixelFormatType_OneComponent8, kCVPixelFormatType_64ARGB,
            kCVPixelFormatType_422YpCbCr8, kCVPixelFormatType_422YpCbCr8_yuvs, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
            kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange,
            kCVPixelFormatType_422YpCbCr8BiPlanarFullRange, kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange,
            kCVPixelFormatType_420YpCbCr10BiPlanarFullRange, kCVPixelFormatType_420YpCbCr8Planar,
            kCVPixelFormatType_420YpCbCr8PlanarFullRange,
        ]
        for (i, format) in formats.enumerated() {
            let reader = try AVAssetReader(asset: asset)
            reader.timeRange = CMTimeRange(start: ReaderFixtures.time(30), duration: ReaderFixtures.time(2))
            let value: Any = i % 2 == 0 ? format : [NSNumber(value: format), NSNumber(value: kCVPixelFormatType_32BGRA)]
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: value])
            reader.add(output)
            #expect(reader.startReading())
            let buffers = ReaderFixtures.readAll(output)
            #expect(buffers.count == 2, "format \(format)")
            #expect(reader.status == .completed)
            for buffer in buffers {
                let image = try #require(buffer.imageBuffer)
                #expect(CVPixelBufferGetPixelFormatType(image) == format)
                #expect(CVPixelBufferGetWidth(image) == 320 && CVPixelBufferGetHeight(image) == 240)
                #expect(buffer.formatDescription?.mediaSubType.rawValue == format)
            }
        }
        // Scaled to 160×120 (and a 64-byte row alignment): still the right pictures.
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA, kCVPixelBufferWidthKey as String: 160,
            kCVPixelBufferHeightKey as String: 120, kCVPixelBufferBytesPerRowAlignmentKey as String: 256,
            AVVideoDecompressionPropertiesKey: [String: Any](),
        ])
        reader.add(output)
        #expect(reader.startReading())
        let buffers = ReaderFixtures.readAll(output)
        #expect(buffers.count == ReaderFixtures.frameCount)
        for (n, buffer) in buffers.enumerated() {
            let image = try #require(buffer.imageBuffer)
            #expect(CVPixelBufferGetWidth(image) == 160 && CVPixelBufferGetHeight(image) == 120)
            #expect(CVPixelBufferGetBytesPerRow(image) % 256 == 0)
            #expect(ReaderFixtures.number(in: image) == n)
        }
    }

    @Test("the decoder's own format: the same pictures whether the output copies them or hands out the decoder's buffers")
    func nativeFormatCopies() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
        var planes: [[Data]] = []
        for copies in [true, false] {
            let reader = try AVAssetReader(asset: asset)
            reader.timeRange = CMTimeRange(start: ReaderFixtures.time(20), duration: ReaderFixtures.time(6))
            // No pixel format: the decoder's (4:2:0 planar, video range).
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: [:])
            output.alwaysCopiesSampleData = copies
            reader.add(output)
            #expect(reader.startReading())
            var pass: [Data] = []
            for buffer in ReaderFixtures.readAll(output) {
                let image = try #require(buffer.imageBuffer)
                #expect(CVPixelBufferGetPixelFormatType(image) == kCVPixelFormatType_420YpCbCr8Planar)
                CVPixelBufferLockBaseAddress(image, .readOnly)
                for plane in 0 ..< CVPixelBufferGetPlaneCount(image) {
                    let base = try #require(CVPixelBufferGetBaseAddressOfPlane(image, plane))
                    let row = CVPixelBufferGetBytesPerRowOfPlane(image, plane)
                    let width = CVPixelBufferGetWidthOfPlane(image, plane)
                    var data = Data()
                    for y in 0 ..< CVPixelBufferGetHeightOfPlane(image, plane) { data.append(Data(bytes: base + y * row, count: width)) }
                    pass.append(data)
                }
                CVPixelBufferUnlockBaseAddress(image, .readOnly)
            }
            #expect(pass.count == 6 * 3)
            planes.append(pass)
        }
        #expect(planes[0] == planes[1])
    }

    @Test("an edit list that starts ten frames into the media: the first picture is frame 10, at time zero")
    func editListStart() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        var file = try MP4Bytes(ReaderFixtures.numbered)
        let list = try #require(file.editList())
        #expect(list.entries.count == 1)
        let movieScale = try #require(file.timescale(["moov", "mvhd"]))
        let (duration, mediaTime, _, _) = list.entries[0]
        let skipped = Int64(10 * 512)   // ten frames in the media timescale (1/15360)
        let cut = UInt64(10 * Int64(movieScale) / 30)
        try file.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 0, entries: [(duration - cut, mediaTime + skipped, 1, 0)]))
        let url = try file.write("edited.mp4")
        let (asset, track) = try await ReaderFixtures.track(url)
        #expect(track.timeRange.start == .zero)
        for settings in [ReaderFixtures.bgra, nil] {
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
            reader.add(output)
            #expect(reader.startReading())
            let buffers = ReaderFixtures.readAll(output)
            #expect(reader.status == .completed)
            if settings != nil {
                #expect(buffers.count == ReaderFixtures.frameCount - 10)
                let first = try #require(buffers.first)
                #expect(first.presentationTimeStamp == .zero)
                #expect(ReaderFixtures.number(in: try #require(first.imageBuffer)) == 10)
                #expect(ReaderFixtures.number(in: try #require(buffers.last?.imageBuffer)) == ReaderFixtures.frameCount - 1)
            } else {
                // As stored: every sample from the keyframe, the skipped ones before time zero.
                #expect(buffers.count == ReaderFixtures.frameCount)
                let shown = buffers.map(\.presentationTimeStamp).sorted()
                #expect(shown[10] == .zero)
                #expect(shown[0] == CMTime(value: -skipped, timescale: ReaderFixtures.timescale))
            }
        }

        // An edit starting at frame 30, past the keyframe of frame 24: FFmpeg leaves out the samples
        // before that keyframe; the reader reads the rest and does not take the file for a cut one.
        var later = try MP4Bytes(ReaderFixtures.numbered)
        try later.replace(["moov", "trak", "edts", "elst"],
                          with: MP4Bytes.elst(version: 0, entries: [(duration - UInt64(movieScale), mediaTime + 30 * 512, 1, 0)]))
        let (laterAsset, laterTrack) = try await ReaderFixtures.track(try later.write("later.mp4"))
        for settings in [ReaderFixtures.bgra, nil] {
            let reader = try AVAssetReader(asset: laterAsset)
            let output = AVAssetReaderTrackOutput(track: laterTrack, outputSettings: settings)
            reader.add(output)
            #expect(reader.startReading())
            let buffers = ReaderFixtures.readAll(output)
            #expect(reader.status == .completed, "\(String(describing: reader.error))")
            if settings != nil {
                #expect(buffers.map { ReaderFixtures.number(in: $0.imageBuffer!) } == Array(30 ..< 60))
                #expect(buffers.first?.presentationTimeStamp == .zero)
            } else {
                #expect(buffers.count == 36)
                #expect(buffers.first.map { CMSampleBufferGetSampleAttachmentsArray($0, createIfNecessary: false) } != nil)
            }
        }

        // An empty edit (ffmpeg's output offset) delays the track: its first picture is at 1 s.
        let delayed = try AssetFixtures.generate("delayed.mp4", ["-f", "lavfi", "-i", "testsrc=d=1:s=160x120:r=25", "-c:v", "libx264",
                                                                 "-pix_fmt", "yuv420p", "-output_ts_offset", "1"])
        let (delayedAsset, delayedTrack) = try await ReaderFixtures.track(delayed)
        #expect(delayedTrack.timeRange.start == CMTime(value: 1, timescale: 1))
        let reader = try AVAssetReader(asset: delayedAsset)
        let output = AVAssetReaderTrackOutput(track: delayedTrack, outputSettings: ReaderFixtures.v420)
        reader.add(output)
        #expect(reader.startReading())
        let buffers = ReaderFixtures.readAll(output)
        #expect(buffers.count == 25)
        #expect(buffers.first?.presentationTimeStamp.seconds == 1)

        // An edit that ends half way: the track presents one second; the samples after it are not read.
        let long = try AssetFixtures.generate("long.mp4", ["-f", "lavfi", "-i", "testsrc=d=2:s=160x120:r=25", "-c:v", "libx264",
                                                           "-pix_fmt", "yuv420p", "-bf", "0"])
        var halved = try MP4Bytes(long)
        let edit = try #require(halved.editList()?.entries.first)
        try halved.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 0, entries: [(edit.0 / 2, edit.1, 1, 0)]))
        let (halvedAsset, halvedTrack) = try await ReaderFixtures.track(try halved.write("halved.mp4"))
        #expect(halvedTrack.timeRange.end == CMTime(value: 1, timescale: 1))
        for settings in [ReaderFixtures.v420, nil] {
            let reader = try AVAssetReader(asset: halvedAsset)
            let output = AVAssetReaderTrackOutput(track: halvedTrack, outputSettings: settings)
            reader.add(output)
            #expect(reader.startReading())
            let buffers = ReaderFixtures.readAll(output)
            #expect(reader.status == .completed)
            #expect(buffers.count == 25)
            #expect(buffers.last.map { $0.presentationTimeStamp + $0.duration } == CMTime(value: 1, timescale: 1))
        }
    }

    @Test("streams whose container gives no times (H.264 elementary stream, MPEG program stream): samples follow each other from zero")
    func untimedStreams() async throws {
        guard AssetFixtures.hasFFmpeg, let mpeg = AssetFixtures.fixture("blue.mpg") else { return }
        let raw = try AssetFixtures.generate("raw.h264", ["-f", "lavfi", "-i", "testsrc=d=1:s=160x120:r=25", "-c:v", "libx264",
                                                          "-pix_fmt", "yuv420p", "-bf", "2", "-f", "h264"])
        for (url, count, frame) in [(raw, 25, CMTime(value: 1, timescale: 25)), (mpeg, 24, CMTime(value: 1, timescale: 30))] {
            for settings in [ReaderFixtures.bgra, nil] {
                let (asset, track) = try await ReaderFixtures.track(url)
                let reader = try AVAssetReader(asset: asset)
                let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
                reader.add(output)
                #expect(reader.startReading())
                let buffers = ReaderFixtures.readAll(output)
                #expect(reader.status == .completed)
                #expect(buffers.count == count, "\(url.lastPathComponent)")
                #expect(buffers.map(\.duration).allSatisfy { $0 == frame }, "\(url.lastPathComponent)")
                if settings != nil {
                    // Pictures in presentation order, one frame apart from zero.
                    #expect(buffers.enumerated().allSatisfy { $0.element.presentationTimeStamp == CMTimeMultiply(frame, multiplier: Int32($0.offset)) })
                } else {
                    #expect(buffers.first?.presentationTimeStamp == .zero)
                    #expect(buffers.allSatisfy { $0.presentationTimeStamp.isNumeric })
                }
            }
        }
    }

    @Test("random access: reset for later ranges after nil; completes only once marked final")
    func randomAccess() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let (asset, track) = try await ReaderFixtures.track(ReaderFixtures.numbered)
        let reader = try AVAssetReader(asset: asset)
        reader.timeRange = CMTimeRange(start: .zero, duration: ReaderFixtures.time(15))
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: ReaderFixtures.bgra)
        output.supportsRandomAccess = true
        reader.add(output)
        #expect(reader.startReading())
        func numbers() -> [Int] { ReaderFixtures.readAll(output).map { ReaderFixtures.number(in: $0.imageBuffer!) } }
        #expect(numbers() == Array(0 ..< 15))
        #expect(reader.status == .reading)
        output.reset(forReadingTimeRanges: [NSValue(timeRange: CMTimeRange(start: ReaderFixtures.time(30), duration: ReaderFixtures.time(5))),
                                            NSValue(timeRange: CMTimeRange(start: ReaderFixtures.time(50), duration: .positiveInfinity))])
        #expect(numbers() == Array(30 ..< 35) + Array(50 ..< 60))
        #expect(reader.status == .reading)
        // Backwards is fine across passes.
        output.reset(forReadingTimeRanges: [NSValue(timeRange: CMTimeRange(start: ReaderFixtures.time(3), duration: ReaderFixtures.time(2)))])
        #expect(numbers() == [3, 4])
        output.markConfigurationAsFinal()
        #expect(reader.status == .completed)
        #expect(output.copyNextSampleBuffer() == nil)
    }

    @Test("two outputs read on two threads at once: decoded video and stored audio, each complete")
    func outputsOnThreads() async throws {
        guard let url = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let asset = AVURLAsset(url: url)
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let audio = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let reader = try AVAssetReader(asset: asset)
        let videoOutput = AVAssetReaderTrackOutput(track: video, outputSettings: ReaderFixtures.bgra)
        let audioOutput = AVAssetReaderTrackOutput(track: audio, outputSettings: nil)
        reader.add(videoOutput)
        reader.add(audioOutput)
        #expect(reader.startReading())
        let outputs = [videoOutput, audioOutput]
        let counts = Counts()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            var n = 0
            while outputs[i].copyNextSampleBuffer() != nil { n += 1 }
            counts.set(i, n)
        }
        #expect(counts.values == [0: 132, 1: 249])
        #expect(reader.status == .completed)
    }
}

/// Counts gathered from several threads.
final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int: Int] = [:]
    func set(_ key: Int, _ value: Int) { lock.withLock { stored[key] = value } }
    var values: [Int: Int] { lock.withLock { stored } }
}
