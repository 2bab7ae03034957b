// VirtualDevices: the cameras named by AVFOUNDATION_VIRTUAL_CAMERAS — test patterns and media files
// played in a loop — described as devices (stable unique ID, name, formats) without opening them.
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// One virtual camera: what `AVCaptureDevice` shows of it and how to make its source.
package struct VirtualCamera: Sendable, Equatable {
    /// What the camera shows.
    package enum Kind: Sendable, Equatable {
        /// The generated test pattern at its native size and whole frame rate.
        case testPattern(width: Int, height: Int, framesPerSecond: Int)
        /// A media file played in a loop (an image: one picture repeated).
        case file(URL)
    }

    /// The controls a test pattern camera pretends to have (`testsrc:…?focus&torch&position=front`).
    package struct Options: Sendable, Equatable {
        package var focus = false
        package var exposure = false
        package var whiteBalance = false
        package var torch = false
        package var flash = false
        package var position: CameraPosition = .unspecified

        package init() {}

        /// The options in their written order (`focus&exposure&whitebalance&torch&flash&position=front`),
        /// empty when none is set.
        package var spelling: String {
            var parts: [String] = []
            if focus { parts.append("focus") }
            if exposure { parts.append("exposure") }
            if whiteBalance { parts.append("whitebalance") }
            if torch { parts.append("torch") }
            if flash { parts.append("flash") }
            switch position {
            case .front: parts.append("position=front")
            case .back: parts.append("position=back")
            case .unspecified: break
            }
            return parts.joined(separator: "&")
        }

        /// The capabilities of a camera with these options: each control present offers every
        /// mode Apple has for it and a point of interest, and starts continuous.
        package var capabilities: LiveCameraCapabilities {
            var c = LiveCameraCapabilities()
            if focus {
                c.focusModes = Set(CameraFocusMode.allCases)
                c.focusPointOfInterest = true
                c.focusMode = .continuousAutoFocus
            }
            if exposure {
                c.exposureModes = Set(CameraExposureMode.allCases)
                c.exposurePointOfInterest = true
                c.exposureMode = .continuousAutoExposure
            }
            if whiteBalance {
                c.whiteBalanceModes = Set(CameraWhiteBalanceMode.allCases)
                c.whiteBalanceMode = .continuousAutoWhiteBalance
            }
            c.hasTorch = torch
            c.hasFlash = flash
            c.position = position
            return c
        }
    }

    package let kind: Kind
    /// A test pattern camera's pretend controls (none for file cameras).
    package var options = Options()
    /// Stable across runs and processes: `virtual:testsrc:640x480@30`, `virtual:/abs/path.mov`.
    package let uniqueID: String
    package let localizedName: String
    package let modelID = "virtual"
    package let manufacturer = "AVFoundation for Linux"

    /// The sizes offered below a camera's native size (presets, format switches).
    package static let standardSizes: [(width: Int, height: Int)] = [
        (1920, 1080), (1280, 720), (960, 540), (640, 480), (480, 360), (352, 288), (320, 240), (192, 144),
    ]

    /// The formats of a test pattern camera: its native size and every smaller standard size,
    /// each `'420v'` at 1…`framesPerSecond` fps. Empty for a file camera (see `FileLoopSource.formats`).
    package var formats: [LiveVideoFormat] {
        guard case .testPattern(let width, let height, let fps) = kind else { return [] }
        return Self.formats(width: width, height: height, minFrameDuration: CMTime(value: 1, timescale: Int32(fps)))
    }

    /// The native size and the smaller standard sizes (both sides no larger), at frame
    /// durations from `minFrameDuration` to 1 s.
    package static func formats(width: Int, height: Int, minFrameDuration: CMTime) -> [LiveVideoFormat] {
        var sizes = [(width, height)]
        for s in standardSizes where s.width <= width && s.height <= height && (s.width, s.height) != (width, height) {
            sizes.append((s.width, s.height))
        }
        return sizes.map {
            LiveVideoFormat(pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, width: $0.0, height: $0.1,
                            minFrameDuration: minFrameDuration, maxFrameDuration: CMTime(value: 1, timescale: 1))
        }
    }

    /// Whether the camera can deliver now: always for a pattern, while the file exists for a file.
    package var isConnected: Bool {
        switch kind {
        case .testPattern: return true
        case .file(let url): return FileManager.default.fileExists(atPath: url.path)
        }
    }

    /// A source for the camera (nothing is opened until it starts).
    package func makeSource() -> any LiveSource {
        switch kind {
        case .testPattern:
            return TestPatternSource(formats: formats, lightKey: options.torch ? uniqueID : nil)
        case .file(let url):
            return FileLoopSource(url: url)
        }
    }
}

/// Parses `AVFOUNDATION_VIRTUAL_CAMERAS`.
///
/// The value is a comma-separated list of entries:
/// - `testsrc:WIDTHxHEIGHT@FPS` — the test pattern; sides even, 128…7680 × 96…4320, FPS a whole
///   number 1…240 (e.g. `testsrc:640x480@30`), optionally followed by `?` and `&`-separated
///   pretend controls: `focus`, `exposure`, `whitebalance`, `torch`, `flash`, `position=front|back`
///   (e.g. `testsrc:1280x720@30?focus&exposure&torch&position=back`). The unique ID carries the
///   options in a fixed order.
/// - anything else — the path of a media file (relative paths are taken from the current
///   directory); the file need not exist yet: the camera is connected while it does.
///
/// Entries that cannot be used are skipped with a message saying why (`problems`), never a
/// crash; blank entries are ignored; a camera named twice is listed once.
package enum VirtualDevices {
    package static let environmentVariable = "AVFOUNDATION_VIRTUAL_CAMERAS"

    /// The cameras of a value and the entries skipped, with why.
    package struct Parsed: Sendable, Equatable {
        package var cameras: [VirtualCamera] = []
        package var problems: [String] = []
    }

    /// Parses `value`; relative file paths are resolved against `currentDirectory`.
    package static func parse(_ value: String,
                              currentDirectory: String = FileManager.default.currentDirectoryPath) -> Parsed {
        var parsed = Parsed()
        for raw in value.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = raw.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty { continue }
            let camera: VirtualCamera
            switch parseEntry(entry, currentDirectory: currentDirectory) {
            case .success(let c): camera = c
            case .failure(let problem):
                parsed.problems.append("\(environmentVariable): entry '\(entry)' skipped: \(problem.message)")
                continue
            }
            if !parsed.cameras.contains(where: { $0.uniqueID == camera.uniqueID }) { parsed.cameras.append(camera) }
        }
        return parsed
    }

    /// The cameras the environment names; each skipped entry is reported once per process on
    /// standard error.
    package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [VirtualCamera] {
        guard let value = environment[environmentVariable] else { return [] }
        let parsed = parse(value)
        let fresh = reported.withLock { seen in parsed.problems.filter { seen.insert($0).inserted } }
        for problem in fresh { FileHandle.standardError.write(Data("AVFoundation: \(problem)\n".utf8)) }
        return parsed.cameras
    }

    private static let reported = Mutex<Set<String>>([])

    private struct Problem: Error { let message: String }

    private static func parseEntry(_ entry: String, currentDirectory: String) -> Result<VirtualCamera, Problem> {
        let prefix = "testsrc:"
        if entry.hasPrefix(prefix) {
            var spec = Substring(entry.dropFirst(prefix.count))
            var options = VirtualCamera.Options()
            if let question = spec.firstIndex(of: "?") {
                for option in spec[spec.index(after: question)...].split(separator: "&") {
                    switch option.lowercased() {
                    case "focus": options.focus = true
                    case "exposure": options.exposure = true
                    case "whitebalance": options.whiteBalance = true
                    case "torch": options.torch = true
                    case "flash": options.flash = true
                    case "position=front": options.position = .front
                    case "position=back": options.position = .back
                    default:
                        return .failure(Problem(message: "unknown option '\(option)': expected focus, exposure, whitebalance, torch, flash, position=front or position=back"))
                    }
                }
                spec = spec[..<question]
            }
            let parts = spec.split(separator: "@", omittingEmptySubsequences: false)
            let size = parts.first?.split(separator: "x", omittingEmptySubsequences: false) ?? []
            guard parts.count == 2, size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
                  let fps = Int(parts[1]) else {
                return .failure(Problem(message: "expected testsrc:WIDTHxHEIGHT@FPS, e.g. testsrc:640x480@30"))
            }
            guard (128...7680).contains(width), (96...4320).contains(height), width % 2 == 0, height % 2 == 0 else {
                return .failure(Problem(message: "the size must have even sides of 128…7680 × 96…4320, not \(width)x\(height)"))
            }
            guard (1...240).contains(fps) else {
                return .failure(Problem(message: "the frame rate must be a whole number of 1…240 frames per second, not \(fps)"))
            }
            let suffix = options.spelling.isEmpty ? "" : "?\(options.spelling)"
            var camera = VirtualCamera(kind: .testPattern(width: width, height: height, framesPerSecond: fps),
                                       uniqueID: "virtual:testsrc:\(width)x\(height)@\(fps)\(suffix)",
                                       localizedName: "Test Pattern \(width)x\(height) @ \(fps) fps")
            camera.options = options
            return .success(camera)
        }
        if entry.hasPrefix("testsrc") {
            return .failure(Problem(message: "expected testsrc:WIDTHxHEIGHT@FPS, e.g. testsrc:640x480@30"))
        }
        let base = URL(fileURLWithPath: currentDirectory, isDirectory: true)
        let url = URL(fileURLWithPath: entry, relativeTo: entry.hasPrefix("/") ? nil : base).standardizedFileURL
        if url.path.hasSuffix("/") || (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
            return .failure(Problem(message: "\(url.path) is a directory, not a media file"))
        }
        return .success(VirtualCamera(kind: .file(url), uniqueID: "virtual:\(url.path)",
                                      localizedName: url.deletingPathExtension().lastPathComponent))
    }
}
