// The engine's encoders: pixel buffers to packets (zero-copy where the codec reads the layout,
// converted otherwise). The audio encoder has its own suite (EncoderAudioTests).
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
}
