import AVFoundation
import Foundation
import Testing

/// Collects completion-handler calls from any thread.
private final class Calls: @unchecked Sendable {
    struct Call { var requested: CMTime; var image: CGImage?; var actual: CMTime; var result: AVAssetImageGenerator.Result; var error: (any Error)? }
    private let lock = NSLock()
    private var list: [Call] = []
    private let done = DispatchSemaphore(value: 0)
    private let expected: Int
    init(expected: Int) { self.expected = expected }
    var all: [Call] { lock.withLock { list } }
    func add(_ c: Call) {
        let count = lock.withLock { list.append(c); return list.count }
        if count == expected { done.signal() }
    }
    func wait(seconds: Double = 60) -> Bool { done.wait(timeout: .now() + seconds) == .success }
}

private func exactGenerator(_ url: URL = GeneratorMedia.numbered) -> AVAssetImageGenerator {
    let generator = AVAssetImageGenerator(asset: AVURLAsset(url: url))
    generator.requestedTimeToleranceBefore = .zero
    generator.requestedTimeToleranceAfter = .zero
    return generator
}

@Suite("AVAssetImageGenerator")
struct ImageGeneratorTests {
    @Test("works on AVAsset(url:), the way most Apple code makes its asset")
    func plainAssetInitializer() throws {
        let generator = AVAssetImageGenerator(asset: AVAsset(url: GeneratorMedia.numbered))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        var actual = CMTime.invalid
        let image = try generator.copyCGImage(at: GeneratorMedia.time(37), actualTime: &actual)
        #expect(GeneratorMedia.number(in: image) == 37)
        #expect(actual == GeneratorMedia.time(37))
    }

    @Test("defaults are Apple's")
    func defaults() {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: GeneratorMedia.numbered))
        #expect(generator.appliesPreferredTrackTransform == false)
        #expect(generator.maximumSize == .zero)
        #expect(generator.apertureMode == .cleanAperture)
        #expect(generator.requestedTimeToleranceBefore == .positiveInfinity)
        #expect(generator.requestedTimeToleranceAfter == .positiveInfinity)
        #expect(AVAssetImageGenerator.ApertureMode.encodedPixels.rawValue == "EncodedPixels")
        #expect(AVAssetImageGenerator.Result.cancelled.rawValue == 2)
    }

    @Test("zero tolerance: every frame's time, mid-interval and just before the next frame give that frame")
    func exactFrames() throws {
        let generator = exactGenerator()
        for n in Array(0 ..< 60) + Array(stride(from: 61, to: 360, by: 13)) + [358, 359] {
            for time in [GeneratorMedia.time(n), CMTime(value: Int64(n) * 512 + 300, timescale: 15360),
                         CMTime(value: Int64(n + 1) * 3000 - 1, timescale: 90000)] {
                var actual = CMTime.invalid
                let image = try generator.copyCGImage(at: time, actualTime: &actual)
                #expect(GeneratorMedia.number(in: image) == n, "requested \(time.seconds)")
                #expect(actual == GeneratorMedia.time(n))
            }
        }
    }

    @Test("zero tolerance at the ends: t = 0 and past the end give the first and last frames")
    func ends() throws {
        let generator = exactGenerator()
        var actual = CMTime.invalid
        #expect(GeneratorMedia.number(in: try generator.copyCGImage(at: .zero, actualTime: &actual)) == 0)
        #expect(actual == .zero)
        for end in [CMTime(value: 12, timescale: 1), CMTime(value: 100, timescale: 1)] {
            #expect(GeneratorMedia.number(in: try generator.copyCGImage(at: end, actualTime: &actual)) == 359)
            #expect(actual == GeneratorMedia.time(359))
        }
    }

    @Test("images are opaque BGRX (noneSkipFirst), 8 bits, the video's size")
    func imageFormat() throws {
        let image = try exactGenerator().copyCGImage(at: GeneratorMedia.time(10), actualTime: nil)
        #expect(image.width == 320 && image.height == 240)
        #expect(image.bitsPerComponent == 8 && image.bitsPerPixel == 32)
        #expect(image.alphaInfo == .noneSkipFirst)
        #expect(image.byteOrderInfo == .order32Little)
        // The skip byte (the last of each BGRX pixel) is 255.
        let bytes = [UInt8](image.dataProvider!.data! as Data)
        #expect(stride(from: 3, to: bytes.count, by: 4).allSatisfy { bytes[$0] == 255 })
    }

    @Test("default tolerance gives a nearby keyframe; actualTime names the frame shown")
    func defaultTolerance() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: GeneratorMedia.numbered))
        for n in [5, 30, 100, 200, 350] {
            var actual = CMTime.invalid
            let image = try generator.copyCGImage(at: GeneratorMedia.time(n), actualTime: &actual)
            let shown = GeneratorMedia.number(in: image)
            #expect(shown % 48 == 0)
            #expect(abs(shown - n) <= 24)
            #expect(actual == GeneratorMedia.time(shown))
        }
    }

    @Test("a tolerance window: the frame shown lies inside it and actualTime names it")
    func windows() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: GeneratorMedia.numbered))
        for (before, after) in [(0.1, 0.1), (0.0, 0.5), (0.5, 0.0), (1.0, 1.0)] {
            generator.requestedTimeToleranceBefore = CMTime(seconds: before, preferredTimescale: 600)
            generator.requestedTimeToleranceAfter = CMTime(seconds: after, preferredTimescale: 600)
            for n in [10, 47, 49, 130, 250] {
                let requested = GeneratorMedia.time(n)
                var actual = CMTime.invalid
                let image = try generator.copyCGImage(at: requested, actualTime: &actual)
                #expect(actual == GeneratorMedia.time(GeneratorMedia.number(in: image)))
                #expect(actual.seconds >= requested.seconds - before - 1e-9)
                #expect(actual.seconds <= requested.seconds + after + 1e-9)
            }
        }
    }

    @Test("maximumSize fits inside, keeps the aspect ratio, treats 0 as unconstrained, never enlarges")
    func maximumSize() throws {
        let generator = exactGenerator()
        for (max, expected) in [(CGSize(width: 160, height: 160), (160, 120)), (CGSize(width: 160, height: 0), (160, 120)),
                                (CGSize(width: 0, height: 60), (80, 60)), (CGSize(width: 1000, height: 1000), (320, 240)),
                                (CGSize.zero, (320, 240))] {
            generator.maximumSize = max
            let image = try generator.copyCGImage(at: GeneratorMedia.time(77), actualTime: nil)
            #expect(image.width == expected.0 && image.height == expected.1, "\(max)")
            #expect(GeneratorMedia.number(in: image) == 77)
        }
    }

    @Test("appliesPreferredTrackTransform applies the track matrix as ffmpeg's autorotate does, before maximumSize")
    func preferredTransform() throws {
        let generator = exactGenerator(GeneratorMedia.rotated)
        let plain = try generator.copyCGImage(at: GeneratorMedia.time(123), actualTime: nil)
        #expect(plain.width == 320 && plain.height == 240)
        #expect(GeneratorMedia.number(in: plain) == 123)
        generator.appliesPreferredTrackTransform = true
        let turned = try generator.copyCGImage(at: GeneratorMedia.time(123), actualTime: nil)
        #expect(turned.width == 240 && turned.height == 320)
        // FFmpeg 5.1 writes `rotate=90` as the matrix (0, −1, 1, 0): a quarter turn counter-clockwise
        // on screen, so source (x, y) lands at (y, 319 − x) and the number's row becomes the left
        // column, read bottom to top. ffmpeg's own autorotate agrees (checked against its decode).
        #expect(GeneratorMedia.decodeBits({ k in (16, 319 - (k * 20 + 10)) }, in: turned) == 123)
        let ffmpegRotated = GeneratorMedia.ffmpeg(["-i", GeneratorMedia.rotated.path, "-vf", "select=eq(n\\,123)", "-frames:v", "1",
                                                   "-f", "rawvideo", "-pix_fmt", "bgra", "-"])
        #expect(ffmpegRotated.count == 240 * 320 * 4)
        let ours = turned.dataProvider!.data! as Data
        var worst = 0
        for i in stride(from: 0, to: min(ours.count, ffmpegRotated.count), by: 4) {
            for c in 0 ..< 3 { worst = max(worst, abs(Int(ours[i + c]) - Int(ffmpegRotated[i + c]))) }
        }
        #expect(worst <= 8)
        generator.maximumSize = CGSize(width: 120, height: 0)
        let small = try generator.copyCGImage(at: GeneratorMedia.time(123), actualTime: nil)
        #expect(small.width == 120 && small.height == 160)
        #expect(GeneratorMedia.decodeBits({ k in (8, 159 - (k * 20 + 10) / 2) }, in: small) == 123)
    }

    @Test("batch, async and AsyncSequence forms agree with copyCGImage")
    func formsAgree() async throws {
        let times = [300, 5, 47, 48, 49, 200, 201, 5].map(GeneratorMedia.time)
        let generator = exactGenerator()
        let calls = Calls(expected: times.count)
        generator.generateCGImagesAsynchronously(forTimes: times.map { NSValue(time: $0) }) { requested, image, actual, result, error in
            calls.add(.init(requested: requested, image: image, actual: actual, result: result, error: error))
        }
        #expect(calls.wait())
        let batch = calls.all
        #expect(batch.count == times.count)
        #expect(Set(batch.map { $0.requested.value }) == Set(times.map(\.value)))
        for call in batch {
            #expect(call.result == .succeeded && call.error == nil)
            let image = try #require(call.image)
            #expect(call.actual == call.requested)
            #expect(GeneratorMedia.time(GeneratorMedia.number(in: image)) == call.requested)
        }
        var index = 0
        for await element in generator.images(for: times) {
            #expect(element.requestedTime == times[index])
            #expect(try element.actualTime == times[index])
            #expect(GeneratorMedia.time(GeneratorMedia.number(in: try element.image)) == times[index])
            index += 1
        }
        #expect(index == times.count)
        for time in times {
            let (image, actual) = try await generator.image(at: time)
            let copied = try generator.copyCGImage(at: time, actualTime: nil)
            #expect(actual == time)
            #expect(image.dataProvider!.data! as Data == copied.dataProvider!.data! as Data)
        }
    }

    @Test("cancelAllCGImageGeneration completes every pending request as cancelled, one call per time")
    func cancellation() throws {
        let generator = exactGenerator()
        let times = (0 ..< 100).map { GeneratorMedia.time(($0 * 37) % 360) }
        let calls = Calls(expected: times.count)
        generator.generateCGImagesAsynchronously(forTimes: times.map { NSValue(time: $0) }) { requested, image, actual, result, error in
            calls.add(.init(requested: requested, image: image, actual: actual, result: result, error: error))
        }
        generator.cancelAllCGImageGeneration()
        #expect(calls.wait())
        let all = calls.all
        #expect(all.count == 100)
        #expect(all.filter { $0.result == .cancelled }.count > 50)
        for call in all where call.result == .cancelled { #expect(call.image == nil) }
        // The generator still works afterwards.
        #expect(GeneratorMedia.number(in: try generator.copyCGImage(at: GeneratorMedia.time(3), actualTime: nil)) == 3)
    }

    @Test("the generator keeps itself alive until its batch completes")
    func keepsItselfAlive() {
        let calls = Calls(expected: 3)
        do {
            let generator = exactGenerator()
            generator.generateCGImagesAsynchronously(forTimes: [1, 2, 3].map { NSValue(time: GeneratorMedia.time($0)) }) { r, i, a, res, e in
                calls.add(.init(requested: r, image: i, actual: a, result: res, error: e))
            }
        }
        #expect(calls.wait())
        #expect(calls.all.allSatisfy { $0.result == .succeeded })
    }

    @Test("an asset without video: creation succeeds, requests fail with AVError.noImageAtTime")
    func audioOnly() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: GeneratorMedia.audioOnly))
        #expect {
            try generator.copyCGImage(at: .zero, actualTime: nil)
        } throws: { error in
            (error as? AVError)?.code == .noImageAtTime && !(error as NSError).localizedFailureReason!.isEmpty
        }
    }

    @Test("missing, non-media, truncated and corrupted files give errors, never a crash or hang")
    func badFiles() throws {
        // The generator reports what loading the same asset reports (a missing file is Apple's
        // NSURLErrorDomain -1100; a non-media file AVError.fileFormatNotRecognized).
        for (url, domain, code) in [(GeneratorMedia.dir.appendingPathComponent("missing.mp4"), NSURLErrorDomain, NSURLErrorFileDoesNotExist),
                                    (GeneratorMedia.garbage, AVFoundationErrorDomain, AVError.Code.fileFormatNotRecognized.rawValue)] {
            let asset = AVURLAsset(url: url)
            var loadError: NSError?
            _ = asset.tracks
            #expect(asset.statusOfValue(forKey: "tracks", error: &loadError) == .failed)
            #expect(loadError?.domain == domain && loadError?.code == code)
            let generator = AVAssetImageGenerator(asset: asset)
            #expect { try generator.copyCGImage(at: .zero, actualTime: nil) } throws: { error in
                (error as NSError).domain == domain && (error as NSError).code == code
            }
            let calls = Calls(expected: 2)
            generator.generateCGImagesAsynchronously(forTimes: [NSValue(time: .zero), NSValue(time: GeneratorMedia.time(9))]) { r, i, a, res, e in
                calls.add(.init(requested: r, image: i, actual: a, result: res, error: e))
            }
            #expect(calls.wait())
            #expect(calls.all.allSatisfy { $0.result == .failed && ($0.error as NSError?)?.code == code })
        }
        // Truncated: the frames that survive decode; the others fail (or the file fails to open).
        for url in [GeneratorMedia.truncated, GeneratorMedia.corrupted] {
            let generator = exactGenerator(url)
            for n in [0, 100, 200, 359] {
                do {
                    var actual = CMTime.invalid
                    let image = try generator.copyCGImage(at: GeneratorMedia.time(n), actualTime: &actual)
                    #expect(image.width == 320)
                    #expect(actual.isValid)
                } catch {
                    #expect(error is AVError)
                }
            }
        }
    }
}
