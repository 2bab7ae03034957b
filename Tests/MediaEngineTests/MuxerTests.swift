// The engine's muxer: exclusive creation, I/O errors with their POSIX codes, abort, and streams
// described by Core Media format descriptions (passthrough).
import CoreAudioTypes
import CoreMedia
import Foundation
import MediaEngine
import Testing

@Suite struct MuxerTests {
    static func temp(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("muxer-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name)
    }

    static func pcmFormat() -> CMFormatDescription {
        var asbd = AudioStreamBasicDescription(mSampleRate: 8000, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: 2, mFramesPerPacket: 1, mBytesPerFrame: 2, mChannelsPerFrame: 1,
                                               mBitsPerChannel: 16, mReserved: 0)
        var format: CMFormatDescription?
        CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                       magicCookie: nil, extensions: nil, formatDescriptionOut: &format)
        return format!
    }

    @Test func anExistingFileIsRefusedWithEEXISTAndLeftAlone() throws {
        let url = try Self.temp("taken.wav")
        try Data([1, 2, 3]).write(to: url)
        #expect {
            _ = try Muxer(url: url, options: Muxer.Options(formatName: "wav"))
        } throws: { error in
            (error as? MediaError)?.posixErrorCode == EEXIST
        }
        #expect(try Data(contentsOf: url) == Data([1, 2, 3]))
    }

    @Test func aMissingDirectoryIsFileNotFound() throws {
        let url = try Self.temp("none").appendingPathComponent("x.wav")
        #expect {
            _ = try Muxer(url: url, options: Muxer.Options(formatName: "wav"))
        } throws: { error in
            if case .fileNotFound = error as? MediaError { return true }
            return false
        }
    }

    @Test func abortDeletesTheFile() throws {
        let url = try Self.temp("aborted.wav")
        let muxer = try Muxer(url: url, options: Muxer.Options(formatName: "wav"))
        #expect(FileManager.default.fileExists(atPath: url.path))
        muxer.abort()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func pcmPacketsMakeAWaveFile() throws {
        let url = try Self.temp("tone.wav")
        let muxer = try Muxer(url: url, options: Muxer.Options(formatName: "wav"))
        let stream = try muxer.addStream(formatDescription: Self.pcmFormat(), options: Muxer.StreamOptions(timescale: 8000))
        try muxer.start()
        #expect(muxer.isStarted)
        for i in 0..<4 {
            let bytes = [UInt8](repeating: UInt8(i), count: 200)
            let packet = try bytes.withUnsafeBytes {
                try EncodedPacket(copying: $0, pts: Int64(i * 100), dts: Int64(i * 100), duration: 100, isKeyframe: true, timescale: 8000)
            }
            try muxer.write(packet, stream: stream)
        }
        try muxer.finish()
        #expect(muxer.isFinished)
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        #expect(size >= 800 + 44)
    }

    /// Edit lists handed to `finish` replace libavformat's single edit: several entries, an empty
    /// one first, in the movie's own timescales, with the track and movie durations they give.
    @Test func finishWritesEditListsWithSeveralEntries() throws {
        let url = try Self.temp("edited.mov")
        let muxer = try Muxer(url: url, options: Muxer.Options(formatName: "mov"))
        let stream = try muxer.addStream(formatDescription: Self.pcmFormat(), options: Muxer.StreamOptions(timescale: 8000))
        try muxer.start()
        for i in 0..<40 {  // 4 s in 0.1 s packets
            let bytes = [UInt8](repeating: UInt8(i), count: 1600)
            let packet = try bytes.withUnsafeBytes {
                try EncodedPacket(copying: $0, pts: Int64(i * 800), dts: Int64(i * 800), duration: 800, isKeyframe: true, timescale: 8000)
            }
            try muxer.write(packet, stream: stream)
        }
        let second = { (value: Int64) in CMTime(value: value, timescale: 1) }
        try muxer.finish(edits: [stream: [MovieEdit(duration: CMTime(value: 1, timescale: 2), mediaStart: nil),
                                          MovieEdit(duration: second(1), mediaStart: second(1)),
                                          MovieEdit(duration: second(1), mediaStart: second(3))]])
        let reader = ISOBoxReader(bytes: try #require(try MediaFile(url: url).topLevelPayload("moov", maximum: 1 << 20)))
        let root = ISOBox(type: FourCC.code("moov"), payloadStart: 0, end: reader.bytes.count)
        let mvhd = try #require(reader.child("mvhd", of: root))
        let movieScale = Int64(try #require(reader.u32(mvhd.payloadStart + 12)))
        let elst = try #require(reader.descend(root, ["trak", "edts", "elst"]))
        #expect(EditListBox.entries(reader, elst) == [.empty(duration: UInt64(movieScale / 2)),
                                                       EditListEntry(segmentDuration: UInt64(movieScale), mediaTime: 8000),
                                                       EditListEntry(segmentDuration: UInt64(movieScale), mediaTime: 24000)])
        let tkhd = try #require(reader.descend(root, ["trak", "tkhd"]))
        #expect(reader.versionedField(tkhd, version0: 20, version1: 28) == UInt64(movieScale * 5 / 2))
        #expect(reader.versionedField(mvhd, version0: 16, version1: 24) == UInt64(movieScale * 5 / 2))

        // Not a QuickTime-family movie: refused before anything is written.
        let wave = try Muxer(url: try Self.temp("tone.wav"), options: Muxer.Options(formatName: "wav"))
        _ = try wave.addStream(formatDescription: Self.pcmFormat(), options: Muxer.StreamOptions(timescale: 8000))
        #expect(throws: MediaError.self) { try wave.finish(edits: [0: [MovieEdit(duration: second(1), mediaStart: .zero)]]) }
        wave.abort()
    }

    @Test func passthroughNeedsTheCodecsConfiguration() throws {
        var h264: CMFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: 64, height: 64, extensions: nil,
                                       formatDescriptionOut: &h264)
        let muxer = try Muxer(url: try Self.temp("x.mp4"), options: Muxer.Options(formatName: "mp4"))
        defer { muxer.abort() }
        #expect(throws: MediaError.self) { try muxer.addStream(formatDescription: h264!, options: Muxer.StreamOptions(timescale: 600)) }
        var vp8: CMFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: FourCharCode(fourCC: "VP80"), width: 64, height: 64, extensions: nil,
                                       formatDescriptionOut: &vp8)
        #expect(throws: MediaError.self) { try muxer.addStream(formatDescription: vp8!, options: Muxer.StreamOptions(timescale: 600)) }
    }

    @Test func theAudioSpecificConfigIsFoundInsideAnESDescriptor() {
        let asc = Data([0x12, 0x10])
        var es = Data([0x03, 0x19, 0x00, 0x00, 0x00, 0x04, 0x11, 0x40, 0x15, 0x00, 0x00, 0x00,
                       0x00, 0x01, 0xF4, 0x00, 0x00, 0x01, 0xF4, 0x00, 0x05, 0x02])
        es.append(asc)
        es.append(contentsOf: [0x06, 0x01, 0x02])
        #expect(MuxerStreamFormat.audioSpecificConfig(fromESDS: es) == asc)
        #expect(MuxerStreamFormat.audioSpecificConfig(fromESDS: Data([0x05, 0x01])) == nil)
    }
}
