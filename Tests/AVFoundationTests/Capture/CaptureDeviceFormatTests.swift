// AVCaptureDevice.Format over a camera that offers a list of frame rates rather than a range
// (a V4L2 driver's discrete intervals): one single-rate AVFrameRateRange per rate, fastest
// first, and only those rates accepted.
@testable import AVFoundation
import CoreMedia
import Foundation
import MediaEngine
import Testing

extension CaptureTests {
    @Suite("AVCaptureDevice.Format frame rates")
    struct DeviceFormatTests {
        @Test func discreteRatesAreSingleRateRangesFastestFirst() {
            let durations = [CMTime(value: 1, timescale: 30), CMTime(value: 1, timescale: 15), CMTime(value: 1, timescale: 5)]
            let live = LiveVideoFormat(pixelFormat: kCVPixelFormatType_422YpCbCr8_yuvs, width: 640, height: 480,
                                       minFrameDuration: durations[0], maxFrameDuration: durations[2],
                                       discreteFrameDurations: durations)
            let format = AVCaptureDevice.Format(live: live)
            let ranges = format.videoSupportedFrameRateRanges
            #expect(ranges.map(\.maxFrameRate) == [30, 15, 5])
            #expect(ranges.allSatisfy { $0.minFrameRate == $0.maxFrameRate && $0.minFrameDuration == $0.maxFrameDuration })
            #expect(format.supports(frameDuration: CMTime(value: 1, timescale: 15)))
            #expect(!format.supports(frameDuration: CMTime(value: 1, timescale: 20)))
            // A range: one AVFrameRateRange, anything inside it.
            let range = AVCaptureDevice.Format(live: LiveVideoFormat(pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                                                     width: 640, height: 480, minFrameDuration: durations[0],
                                                                     maxFrameDuration: durations[2]))
            #expect(range.videoSupportedFrameRateRanges.map(\.maxFrameRate) == [30])
            #expect(range.supports(frameDuration: CMTime(value: 1, timescale: 20)))
        }
    }
}
