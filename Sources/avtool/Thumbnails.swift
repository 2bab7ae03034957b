// `avtool thumbnails`: still images of a video at chosen times, through AVAssetImageGenerator.
import ArgumentParser
import AVFoundation
import Synchronization

struct Thumbnails: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write PNG thumbnails of a video at given times (or evenly spread), optionally with a contact sheet.")

    @Argument(help: "The video file.")
    var file: String

    @Option(help: "Comma-separated times in seconds (e.g. 0,1.5,10).")
    var times: String?

    @Option(help: "Number of thumbnails spread evenly over the duration.")
    var count: Int?

    @Flag(help: "Exact frames (both time tolerances zero) instead of the nearest keyframes.")
    var exact = false

    @Option(name: .customLong("max-size"), help: "Largest thumbnail size, WxH (0 leaves a dimension free), e.g. 320x0.")
    var maxSize: String?

    @Option(name: .shortAndLong, help: "Folder for the PNG files.")
    var output: String

    @Option(help: "Also write a contact sheet (a grid of all thumbnails) to this PNG file.")
    var sheet: String?

    func validate() throws {
        guard (times == nil) != (count == nil) else { throw ValidationError("give either --times or --count") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let maxSize, Self.parseSize(maxSize) == nil { throw ValidationError("--max-size must look like 320x240") }
        if let times, Self.parseTimes(times) == nil { throw ValidationError("--times must be comma-separated seconds") }
    }

    func run() throws {
        let url = URL(fileURLWithPath: file)
        let asset = AVURLAsset(url: url)
        let requested: [CMTime]
        if let times {
            requested = Self.parseTimes(times)!.map { CMTime(seconds: $0, preferredTimescale: 90000) }
        } else {
            let duration: CMTime
            do {
                duration = try blocking { try await asset.load(.duration) }
            } catch {
                throw ThumbnailError(description: "\(file): \(errorText(error))")
            }
            requested = Self.spread(count!, over: duration)
        }
        let generator = AVAssetImageGenerator(asset: asset)
        if exact {
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
        }
        if let maxSize { generator.maximumSize = Self.parseSize(maxSize)! }
        let dir = URL(fileURLWithPath: output, isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)

        let results = ThumbnailResults(count: requested.count)
        let saving = DispatchQueue(label: "avtool.thumbnails.png", attributes: .concurrent)
        let inFlight = DispatchSemaphore(value: 4)
        let order = Dictionary(requested.enumerated().map { ($0.element.value, $0.offset) }, uniquingKeysWith: { a, _ in a })
        generator.generateCGImagesAsynchronously(forTimes: requested.map { NSValue(time: $0) }) { time, image, actual, result, error in
            let index = order[time.value] ?? 0
            guard result == .succeeded, let image else {
                results.fail(index, error.map(errorText) ?? "cancelled")
                return
            }
            let name = String(format: "thumb-%03d-%.3fs.png", index, time.seconds)
            let file = dir.appendingPathComponent(name)
            // Encode PNGs on other cores while the generator decodes on; at most 4 wait at once.
            inFlight.wait()
            saving.async {
                defer { inFlight.signal() }
                do {
                    try save(image, to: file, type: .png, properties: nil)
                    results.succeed(index, image: image,
                                    line: "\(file.path)  \(image.width)×\(image.height)  frame at \(String(format: "%.3f", actual.seconds)) s")
                } catch {
                    results.fail(index, errorText(error))
                }
            }
        }
        let outcome = results.wait()
        for line in outcome.lines { print(line) }
        if let sheet {
            let images = outcome.images.compactMap { $0 }
            if !images.isEmpty {
                try save(try Self.contactSheet(images), to: URL(fileURLWithPath: sheet), type: .png, properties: nil)
                print("contact sheet: \(sheet)")
            }
        }
        if let failure = outcome.failures.first {
            throw ThumbnailError(description: "thumbnail \(failure.index) failed: \(failure.message)")
        }
    }

    /// `n` times spread evenly over `duration`: the middles of `n` equal slices.
    static func spread(_ n: Int, over duration: CMTime) -> [CMTime] {
        (0 ..< n).map { i in CMTimeMultiplyByRatio(duration, multiplier: Int32(2 * i + 1), divisor: Int32(2 * n)) }
    }

    static func parseTimes(_ s: String) -> [Double]? {
        let values = s.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 }) else { return nil }
        return values.map { $0! }
    }

    static func parseSize(_ s: String) -> CGSize? {
        let parts = s.lowercased().split(separator: "x").map { Int($0) }
        guard parts.count == 2, let w = parts[0], let h = parts[1], w >= 0, h >= 0 else { return nil }
        return CGSize(width: w, height: h)
    }

    /// A grid of the images (as near square as the count allows), each cell the largest
    /// image's size, on a dark background with 4 px gaps, drawn with CGContext.
    static func contactSheet(_ images: [CGImage]) throws -> CGImage {
        let columns = Int(Double(images.count).squareRoot().rounded(.up))
        let rows = (images.count + columns - 1) / columns
        let cellW = images.map(\.width).max()!, cellH = images.map(\.height).max()!
        let gap = 4
        let width = columns * cellW + (columns + 1) * gap, height = rows * cellH + (rows + 1) * gap
        guard let context = CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                                      space: CGColorSpaceCreateDeviceRGB(),
                                      bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else {
            throw ThumbnailError(description: "cannot make a \(width)×\(height) contact sheet")
        }
        context.setFillColor(gray: 0.12, alpha: 1)
        context.fill(CGRect(x: 0, y: 0, width: width, height: height))
        for (i, image) in images.enumerated() {
            let column = i % columns, row = i / columns
            // Core Graphics' origin is bottom-left: row 0 is drawn at the top.
            let x = gap + column * (cellW + gap) + (cellW - image.width) / 2
            let y = height - (gap + row * (cellH + gap)) - cellH + (cellH - image.height) / 2
            context.draw(image, in: CGRect(x: x, y: y, width: image.width, height: image.height))
        }
        guard let sheet = context.makeImage() else { throw ThumbnailError(description: "cannot make the contact sheet") }
        return sheet
    }
}

/// Why `avtool thumbnails` failed.
struct ThumbnailError: Error, CustomStringConvertible {
    let description: String
}

/// The thumbnails' outcomes, filled in from the generator's handler thread.
private final class ThumbnailResults: Sendable {
    private struct Results {
        var remaining: Int
        var lines: [String?]
        var images: [CGImage?]
        var failures: [(index: Int, message: String)] = []
    }
    private let results: Mutex<Results>
    private let done = DispatchSemaphore(value: 0)

    init(count: Int) {
        results = Mutex(Results(remaining: count, lines: Array(repeating: nil, count: count), images: Array(repeating: nil, count: count)))
        if count == 0 { done.signal() }
    }

    func succeed(_ i: Int, image: CGImage, line: String) {
        finish { $0.images[i] = image; $0.lines[i] = line }
    }

    func fail(_ i: Int, _ message: String) {
        finish { $0.failures.append((i, message)); $0.lines[i] = "thumbnail \(i): \(message)" }
    }

    private func finish(_ body: (inout Results) -> Void) {
        let last = results.withLock { r -> Bool in
            body(&r)
            r.remaining -= 1
            return r.remaining == 0
        }
        if last { done.signal() }
    }

    func wait() -> (lines: [String], images: [CGImage?], failures: [(index: Int, message: String)]) {
        done.wait()
        return results.withLock { r in (r.lines.compactMap { $0 }, r.images, r.failures.sorted { $0.index < $1.index }) }
    }
}

/// Runs an async throwing operation to completion from synchronous code.
func blocking<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await operation()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// A result handed from a task to a waiting thread.
final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
