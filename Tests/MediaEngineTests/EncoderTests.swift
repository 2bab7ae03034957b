// The engine's encoders: pixel buffers to packets (zero-copy where the codec reads the layout,
// converted otherwise) and linear PCM layouts to the layouts files store.
import CoreMedia
import CoreVideo
import Foundation
import MediaEngine
import Testing

@Suite struct EncoderTests {
    static func buffer(_ format: OSType, width: Int = 64, height: Int = 48, value: UInt8 = 90) -> CVPixelBuffer {
        var buffer: CVPixelBuffer?
        CVPixelBufferCreate(nil, width, height, format, nil, &buffer)
        CVPixelBufferLockBaseAddress(buffer!, [])
        let planes = max(1, CVPixelBufferGetPlaneCount(buffer!))
        for p in 0..<planes {
            let base = CVPixelBufferGetPlaneCount(buffer!) > 0 ? CVPixelBufferGetBaseAddressOfPlane(buffer!, p)! : CVPixelBufferGetBaseAddress(buffer!)!
            let bytes = CVPixelBufferGetPlaneCount(buffer!) > 0
                ? CVPixelBufferGetBytesPerRowOfPlane(buffer!, p) * CVPixelBufferGetHeightOfPlane(buffer!, p)
                : CVPixelBufferGetBytesPerRow(buffer!) * height
            memset(base, Int32(p == 0 ? value : 128), bytes)
        }
        CVPixelBufferUnlockBaseAddress(buffer!, [])
        return buffer!
    }

    /// Encodes `count` pictures and drains the encoder.
    static func encode(_ settings: Encoder.VideoSettings, count: Int, format: OSType) throws -> (Encoder, [EncodedPacket]) {
        let encoder = try Encoder(video: settings)
        var packets: [EncodedPacket] = []
        for i in 0..<count {
            try encoder.encode(buffer(format, width: 64, height: 48, value: UInt8(40 + i * 5)), pts: Int64(i) * 20)
            packets += try encoder.receivePackets()
        }
        try encoder.finish()
        packets += try encoder.receivePackets()
        return (encoder, packets)
    }

    @Test func nv12PicturesReachLibx264WithoutACopy() throws {
        var s = Encoder.VideoSettings(codec: .h264, width: 64, height: 48, timescale: 600,
                                      sourcePixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        s.threads = 1
        let (encoder, packets) = try Self.encode(s, count: 10, format: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        #expect(encoder.codecName == "libx264")
        #expect(encoder.framesSent == 10)
        #expect(encoder.framesSentWithoutCopy == 10)
        #expect(packets.count == 10)
        #expect(packets.first?.isKeyframe == true)
        #expect(Set(packets.compactMap(\.pts)) == Set((0..<10).map { Int64($0) * 20 }))
        let dts = packets.compactMap(\.dts)
        #expect(dts == dts.sorted())
        // Global header: the configuration is in extradata, as MP4/QuickTime need.
        #expect(!encoder.extradata.isEmpty)
    }

    @Test func bgraPicturesAreConverted() throws {
        let s = Encoder.VideoSettings(codec: .h264, width: 64, height: 48, timescale: 30, sourcePixelFormat: kCVPixelFormatType_32BGRA)
        let (encoder, packets) = try Self.encode(s, count: 5, format: kCVPixelFormatType_32BGRA)
        #expect(encoder.framesSentWithoutCopy == 0)
        #expect(packets.count == 5)
    }

    @Test func proResUsesTenBitFourTwoTwo() throws {
        let s = Encoder.VideoSettings(codec: .proRes(profile: 3), width: 64, height: 48, timescale: 600,
                                      sourcePixelFormat: kCVPixelFormatType_32BGRA)
        let (encoder, packets) = try Self.encode(s, count: 3, format: kCVPixelFormatType_32BGRA)
        #expect(encoder.codecName == "prores_ks")
        #expect(packets.count == 3)
        #expect(packets.allSatisfy { $0.isKeyframe })
        #expect(Encoder.VideoCodec.proRes(profile: 3).sampleEntry == FourCharCode(fourCC: "apch"))
    }

    @Test func invalidSizesAreRefused() {
        #expect(throws: MediaError.self) {
            _ = try Encoder(video: Encoder.VideoSettings(codec: .h264, width: 0, height: 48, timescale: 600,
                                                         sourcePixelFormat: kCVPixelFormatType_32BGRA))
        }
    }

    @Test func qualityMapsToARateFactor() {
        #expect(Encoder.crf(quality: 1) == 10)
        #expect(Encoder.crf(quality: 0.5) == 25)
        #expect(Encoder.crf(quality: 0) == 40)
        #expect(Encoder.crf(quality: .nan) == 25)
    }

    // MARK: Linear PCM

    typealias Layout = MuxerStreamFormat.PCMLayout

    @Test func pcmLayoutsConvertWithoutAResamplerOnlyWhereFFmpegsCodecsMeet() {
        let s16le = Layout(bits: 16, isFloat: false, isBigEndian: false)
        let s16be = Layout(bits: 16, isFloat: false, isBigEndian: true)
        let s24be = Layout(bits: 24, isFloat: false, isBigEndian: true)
        let s32le = Layout(bits: 32, isFloat: false, isBigEndian: false)
        let f32le = Layout(bits: 32, isFloat: true, isBigEndian: false)
        let f32be = Layout(bits: 32, isFloat: true, isBigEndian: true)
        #expect(EncoderPCM.canConvert(s16le, to: s16be))
        #expect(EncoderPCM.canConvert(s32le, to: s24be))
        #expect(EncoderPCM.canConvert(f32le, to: f32be))
        #expect(!EncoderPCM.canConvert(s16le, to: f32le))
        #expect(!EncoderPCM.canConvert(s16le, to: s24be))
        #expect(!EncoderPCM.canConvert(Layout(bits: 16, isFloat: false, isBigEndian: false, isNonInterleaved: true), to: s16le))
        #expect(s16be.codecName == "pcm_s16be")
        #expect(Layout(bits: 8, isFloat: false, isBigEndian: false, isSigned: false).codecName == "pcm_u8")
    }

    @Test func byteOrderChangesSwapEverySample() throws {
        let pcm = try EncoderPCM(input: Layout(bits: 16, isFloat: false, isBigEndian: false),
                                 output: Layout(bits: 16, isFloat: false, isBigEndian: true), channels: 2, sampleRate: 8000)
        let samples: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
        let packet = try samples.withUnsafeBytes { try pcm.packet($0, pts: 100) }
        #expect(packet.pts == 100)
        #expect(packet.duration == 2)
        #expect(packet.withUnsafeBytes { Array($0) } == [0x02, 0x01, 0x04, 0x03, 0x06, 0x05, 0x08, 0x07])
    }

    @Test func sameLayoutsAreCopied() throws {
        let layout = Layout(bits: 24, isFloat: false, isBigEndian: false)
        let pcm = try EncoderPCM(input: layout, output: layout, channels: 1, sampleRate: 48_000)
        let samples: [UInt8] = [1, 2, 3, 4, 5, 6]
        let packet = try samples.withUnsafeBytes { try pcm.packet($0, pts: 0) }
        #expect(packet.duration == 2)
        #expect(packet.withUnsafeBytes { Array($0) } == samples)
        #expect(throws: MediaError.self) { try [UInt8](repeating: 0, count: 4).withUnsafeBytes { try pcm.packet($0, pts: 0) } }
    }

    @Test func conversionsNeedingAResamplerAreRefused() {
        #expect(throws: MediaError.self) {
            _ = try EncoderPCM(input: Layout(bits: 16, isFloat: false, isBigEndian: false),
                               output: Layout(bits: 32, isFloat: true, isBigEndian: false), channels: 2, sampleRate: 44_100)
        }
    }
}
