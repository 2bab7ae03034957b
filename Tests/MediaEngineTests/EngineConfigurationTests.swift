import Testing
import Foundation
import CFFmpeg
@testable import MediaEngine

@Suite("Engine configuration")
struct EngineConfigurationTests {
    @Test func ffmpegLogIsQuietByDefault() throws {
        // Apple's frameworks print nothing on bad input; neither may FFmpeg inside the engine.
        try #require(ProcessInfo.processInfo.environment["AVFOUNDATION_FFMPEG_LOG"] == nil)
        _ = ImageCodec.decode(Data("not an image".utf8))
        #expect(MediaEngine.logLevel == AV_LOG_QUIET)
        #expect(MediaEngine.ffmpegVersion.hasPrefix("5.1") || MediaEngine.ffmpegVersion.hasPrefix("n5.1"))
    }
}
