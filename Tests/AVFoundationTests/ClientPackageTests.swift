// Published AV Foundation code compiles unchanged against this project: the PublishedIdioms
// client package (Tests/ClientPackages/PublishedIdioms), written the way thumbnailers, metadata
// readers, audio extractors, images-to-movie writers and Apple's reader/writer samples are
// written, is built with `swift build` in the Swift 6 and Swift 5 language modes, run, and its
// answers are checked against ffprobe.
import AVFoundation
import Foundation
import Testing
import TestSupport

/// Builds the client package once per test process, in `.build/client-packages` (inside the
/// project's own build folder: nothing is left in the source tree, and a second run is incremental).
enum ClientPackage {
    static let packageDirectory = AssetFixtures.root.appendingPathComponent("Tests/ClientPackages/PublishedIdioms")
    static let scratch = AssetFixtures.root.appendingPathComponent(".build/client-packages")

    struct BuildFailure: Error, CustomStringConvertible {
        let log: String
        var description: String { log }
    }

    /// The folder holding the two executables, or the build's output.
    static let binDirectory: Result<URL, BuildFailure> = {
        let first = build()
        // SwiftPM's incremental build of a path dependency does not notice source files that were
        // added, moved or removed since the last build ("missing inputs", "cannot find … in
        // scope"): a failed build is tried once more afresh (a real error fails both).
        guard case .failure = first else { return first }
        try? FileManager.default.removeItem(at: scratch)
        return build()
    }()

    /// One `swift build` of the client package into `scratch`.
    private static func build() -> Result<URL, BuildFailure> {
        let resolved = packageDirectory.appendingPathComponent("Package.resolved")
        let hadResolved = FileManager.default.fileExists(atPath: resolved.path)
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = ["swift", "build", "--package-path", packageDirectory.path, "--scratch-path", scratch.path]
        var environment = ProcessInfo.processInfo.environment
        let toolchain = "/opt/swift/usr/bin"
        if FileManager.default.fileExists(atPath: toolchain + "/swift") {
            environment["PATH"] = toolchain + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        }
        build.environment = environment
        let pipe = Pipe()
        build.standardOutput = pipe
        build.standardError = pipe
        do { try build.run() } catch { return .failure(BuildFailure(log: "cannot run swift build: \(error)")) }
        let log = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        build.waitUntilExit()
        // SwiftPM records the resolution beside the manifest; leave the source tree as it was.
        if !hadResolved { try? FileManager.default.removeItem(at: resolved) }
        guard build.terminationStatus == 0 else { return .failure(BuildFailure(log: log)) }
        return .success(scratch.appendingPathComponent("debug"))
    }

    /// Runs one of the executables ("PublishedIdioms" — Swift 6 mode — or "PublishedIdioms5").
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, lines: [String]) {
        let bin = try binDirectory.get()
        let result = try AssetFixtures.run(bin.appendingPathComponent(executable).path, arguments)
        return (result.status, result.output.split(separator: "\n").map(String.init))
    }

    static func line(_ lines: [String], _ prefix: String) -> String? {
        lines.first { $0.hasPrefix(prefix + " ") }.map { String($0.dropFirst(prefix.count + 1)) }
    }
}

@Suite("Published client code builds and runs (Swift 6 and Swift 5 modes)", .serialized)
struct ClientPackageTests {
    static let executables = ["PublishedIdioms", "PublishedIdioms5"]

    @Test("the client package builds in both language modes")
    func builds() {
        if case .failure(let failure) = ClientPackage.binDirectory { Issue.record("swift build failed:\n\(failure.log)") }
        for name in Self.executables {
            let path = ClientPackage.scratch.appendingPathComponent("debug/\(name)").path
            #expect(FileManager.default.isExecutableFile(atPath: path), "\(name)")
        }
    }

    @Test("CMTime helpers the app declares, UTType calls, CF idioms, URLSession and status observation give Apple's answers",
          arguments: executables)
    func idioms(_ executable: String) throws {
        let (status, lines) = try ClientPackage.run(executable, ["idioms"])
        #expect(status == 0, "\(lines)")
        #expect(ClientPackage.line(lines, "cmtime") == "sum=6/30 doubled=0.4 half=1.5 third=1.0 sorted=true")
        #expect(ClientPackage.line(lines, "uti") ==
            "mp4ext=mp4 movmime=video/quicktime unknown=application/octet-stream filetype=true"
            + " m4atype=public.mpeg-4-audio movtype=true url=clip.mov kept=song.m4a m4a=public.mpeg-4-audio"
            + " audio=true mp3=audio/mpeg wav=wav aiff=aiff legacy=true")
        let bgra = kCVPixelFormatType_32BGRA
        #expect(ClientPackage.line(lines, "cfdict") ==
            "format=\(bgra) bridged=\(bgra) cfkeys=\(bgra) swift=\(bgra) width=true height=false")
        #expect(ClientPackage.line(lines, "cftypes") == "string,number,boolean,dictionary,array,pixelbuffer pixelbuffer=true")
        #expect(ClientPackage.line(lines, "cfmisc") == "flags=0 codec=\(kCMVideoCodecType_H264) data=3:6 bool=true pool=42")
        #expect(ClientPackage.line(lines, "network") == "method=GET range=bytes=0- timeout=30.0 type=public.mpeg-4")
        // An NSObject subclass observing a writer's status: unknown (initial), writing, cancelled.
        #expect(ClientPackage.line(lines, "kvo") == "statuses=0,1,4")
        #expect(ClientPackage.line(lines, "roundtrip") ==
            "before=true set=[false, false, false, false] cleared=[true, true, true, true]")
    }

    @Test("SDK names: string types as CFString/NSString, Core Audio constants, screen access, manual KVO, activities, time constants",
          arguments: executables)
    func names(_ executable: String) throws {
        let (status, lines) = try ClientPackage.run(executable, ["names"])
        #expect(status == 0, "\(lines)")
        #expect(ClientPackage.line(lines, "notifications") == "heard=4")
        #expect(ClientPackage.line(lines, "bridge") ==
            "heic=public.heic video=vide codec=avc1 keys=2 space=comn identifier=common/title format=com.apple.quicktime.mdta"
            + " preset=AVCaptureSessionPresetHigh gravity=AVLayerVideoGravityResizeAspect pitch=Spectral"
            + " output=AVOutputSettingsPreset1920x1080 back=true object=true raw=com.apple.quicktime-movie")
        #expect(ClientPackage.line(lines, "destination") == "written=3 jpeg=public.jpeg")
        #expect(ClientPackage.line(lines, "formats") ==
            "apac,usac,flac,opus,ac-3,ec-3,ilbc,samr channels=[12, 4, 24, 6] param=-50")
        #expect(ClientPackage.line(lines, "system") ==
            "access=true activity=true later=true seconds=1.5 msec=1000000 usec=1000 ints=7")
        // willChangeValue/didChangeValue (by key and by key path) reach observe(_:) handlers, once per
        // real change, with the old value; an invalidated observation hears nothing.
        #expect(ClientPackage.line(lines, "manual") == "title:untitled>Interview seconds:1")
    }

    @Test("the sync-attachment idioms flag exactly the packets ffprobe calls keyframes", arguments: executables)
    func keyframes(_ executable: String) throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing"); return }
        // A fixed GOP of 7 with B-frames and no scene-cut keyframes: keyframes at 0, 7, 14, 21, 28.
        let movie = try AssetFixtures.generate("gop.mp4", [
            "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "3", "-c:v", "libx264", "-g", "7",
            "-keyint_min", "7", "-sc_threshold", "0", "-bf", "2", "-pix_fmt", "yuv420p",
        ])
        defer { try? FileManager.default.removeItem(at: movie.deletingLastPathComponent()) }
        let flags = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags",
                                                      "-of", "csv=p=0", movie.path]).output
        let expected = flags.split(separator: "\n").map { $0.contains("K") ? "K" : "_" }.joined()
        #expect(expected.count == 30 && expected.filter { $0 == "K" }.count == 5, "\(expected)")
        let (status, lines) = try ClientPackage.run(executable, ["keyframes", movie.path])
        #expect(status == 0, "\(lines)")
        for idiom in ["keyframes-cf", "keyframes-bridged", "keyframes-strings", "keyframes-overlay"] {
            #expect(ClientPackage.line(lines, idiom) == expected, "\(idiom)")
        }
        #expect(ClientPackage.line(lines, "keyframes-typeids") == "true")
        #expect(ClientPackage.line(lines, "keyframes-status") == "completed")
    }

    @Test("a Kamera-style camera controller focuses, exposes, lights the torch, takes a photo, records and switches cameras",
          arguments: executables)
    func cameraController(_ executable: String) throws {
        guard let services = try? CaptureServices.current.get() else {
            if CaptureServices.areRequired { Issue.record("the capture services are missing") }
            else { print("skipped: no capture services (scripts/test.sh starts PulseAudio and Xvfb)") }
            return
        }
        let bin = try ClientPackage.binDirectory.get()
        let dir = try AssetFixtures.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A back camera with focus, exposure and a torch, and a plain front camera.
        let cameras = "testsrc:640x480@30?focus&exposure&torch&position=back,testsrc:640x480@30?position=front"
        let run = try services.run("env", ["AVFOUNDATION_VIRTUAL_CAMERAS=\(cameras)",
                                           bin.appendingPathComponent(executable).path, "camera", dir.path], deadline: 90)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(run.status == 0, "\(lines) \(run.errors)")
        #expect(ClientPackage.line(lines, "camera") == "position=1 count=2 running=true", "\(lines)")
        #expect(ClientPackage.line(lines, "focus") == "mode=0 point=0.25,0.5", "auto focus ends locked")
        #expect(ClientPackage.line(lines, "exposure") == "mode=0", "locked by the observer once settled")
        #expect(ClientPackage.line(lines, "torch") == "has=true on=true off=true")
        #expect(ClientPackage.line(lines, "photo") == "bytes=true")
        #expect(try AssetFixtures.probe(dir.appendingPathComponent("photo.jpg"), "stream=codec_name,width,height") == "mjpeg\n640\n480")
        #expect(ClientPackage.line(lines, "movie") == "error=none")
        let movie = dir.appendingPathComponent("movie.mov")
        #expect(try AssetFixtures.probe(movie, "stream=codec_type") == "video\naudio")
        let duration = try #require(Double(try AssetFixtures.probe(movie, "format=duration")))
        #expect(duration > 1.5 && duration < 3, "\(duration)")
        #expect(ClientPackage.line(lines, "switched") == "true position=2")
        #expect(ClientPackage.line(lines, "stopped") == "running=false")
    }

    @Test("the thumbnailer writes a 160-wide PNG of the requested frame")
    func thumbnail() throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing"); return }
        let movie = try AssetFixtures.generate("thumb.mov", [
            "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
        ])
        let dir = movie.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("thumb.png")
        let (status, lines) = try ClientPackage.run("PublishedIdioms", ["thumbnail", movie.path, png.path])
        #expect(status == 0, "\(lines)")
        #expect(ClientPackage.line(lines, "thumbnail") == "size=160x120 actual=1.0 typeid=true png=true")
        #expect(try AssetFixtures.probe(png, "stream=codec_name,width,height") == "png\n160\n120")
    }

    @Test("a subtitle reader picks the French option and collects its strings through a legible output",
          arguments: ["PublishedIdioms", "PublishedIdioms5"])
    func subtitles(_ executable: String) throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing"); return }
        let dir = TestTools.makeTemporaryDirectory("client-subtitles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let movie = try SubtitleMedia.movie(in: dir)
        let (status, lines) = try ClientPackage.run(executable, ["subtitles", movie.path, "fr"])
        #expect(status == 0, "\(lines)")
        #expect(ClientPackage.line(lines, "subtitles") == "French: 0.5 Bonjour le monde | 2.0 Deuxième ligne un/deuxième ligne deux | 4.0 Fin en gras",
                "\(lines)")
    }

    @Test("the metadata reader finds title, artist, duration and size, old style and async")
    func metadata() throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing"); return }
        let movie = try AssetFixtures.generate("tagged.mp4", [
            "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            "-metadata", "title=Client Title", "-metadata", "artist=Client Artist",
        ])
        defer { try? FileManager.default.removeItem(at: movie.deletingLastPathComponent()) }
        let duration = try #require(Double(try AssetFixtures.probe(movie, "format=duration")))
        let (status, lines) = try ClientPackage.run("PublishedIdioms", ["metadata", movie.path])
        #expect(status == 0, "\(lines)")
        let info = try #require(ClientPackage.line(lines, "metadata"))
        #expect(info.hasPrefix("title=Client Title artist=Client Artist duration="), "\(info)")
        #expect(info.hasSuffix(" size=64x48"), "\(info)")
        let reported = info.split(separator: " ").first { $0.hasPrefix("duration=") }.flatMap { Double($0.dropFirst(9)) }
        #expect(abs((reported ?? 0) - duration) < 0.05, "\(info) vs \(duration)")
        let async = try #require(ClientPackage.line(lines, "metadata-async"))
        #expect(async.hasPrefix("title=Client Title duration="), "\(async)")
    }

    @Test("the audio extractor's reader/writer loop turns a movie's sound into a stereo AAC .m4a")
    func extractAudio() throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing"); return }
        let movie = try AssetFixtures.generate("sound.mov", [
            "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
            "-t", "2", "-ac", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le",
        ])
        let dir = movie.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let m4a = dir.appendingPathComponent("sound.m4a")
        let (status, lines) = try ClientPackage.run("PublishedIdioms", ["extract-audio", movie.path, m4a.path])
        #expect(status == 0, "\(lines)")
        #expect(ClientPackage.line(lines, "audio") == "frames=88200")
        #expect(try AssetFixtures.probe(m4a, "stream=codec_name,sample_rate,channels") == "aac\n44100\n2")
        let duration = try #require(Double(try AssetFixtures.probe(m4a, "format=duration")))
        #expect(abs(duration - 2.0) < 0.05, "\(duration)")
    }

    @Test("a two-clip editor (tracks A/B, opacity ramp, audio fades) exports a cross-dissolve", arguments: ["PublishedIdioms", "PublishedIdioms5"])
    func crossDissolveEditor(_ executable: String) throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing"); return }
        let dir = try AssetFixtures.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var clips: [String] = []
        for (name, colour) in [("red", "red"), ("green", "0x00FF00")] {
            let clip = dir.appendingPathComponent("\(name).mov")
            _ = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=160x120:r=30:d=3",
                                                 "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:d=3", "-c:v", "libx264",
                                                 "-pix_fmt", "yuv420p", "-c:a", "aac", "-video_track_timescale", "600", clip.path])
            clips.append(clip.path)
        }
        let movie = dir.appendingPathComponent("edited.mp4")
        let (status, lines) = try ClientPackage.run(executable, ["edit"] + clips + [movie.path])
        #expect(status == 0, "\(lines)")
        #expect(ClientPackage.line(lines, "composition") == "duration=5.0 segments=[1, 2, 1, 2]", "\(lines)")
        #expect(ClientPackage.line(lines, "edit") == "status=completed", "\(lines)")
        let duration = try #require(Double(try AssetFixtures.probe(movie, "format=duration")))
        #expect(abs(duration - 5) < 0.1, "\(duration)")
        // Red, then the dissolve's midpoint, then green, as ffmpeg decodes them.
        for (seconds, expected) in [(1.0, (255, 0, 0)), (2.5, (128, 128, 0)), (4.0, (0, 255, 0))] {
            let (_, data) = try TestTools.run("ffmpeg", ["-v", "error", "-ss", String(seconds), "-i", movie.path, "-frames:v", "1",
                                                         "-vf", "crop=2:2:80:60", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            #expect(data.count == 12)
            guard data.count == 12 else { continue }
            let (r, g, b) = (Int(data[0]), Int(data[1]), Int(data[2]))
            #expect(abs(r - expected.0) < 20 && abs(g - expected.1) < 20 && abs(b - expected.2) < 20, "\(seconds) s: \(r),\(g),\(b)")
        }
    }

    @Test("an overlay exporter's subtitle, watermark and fading title reach the exported frames", arguments: ["PublishedIdioms", "PublishedIdioms5"])
    func titleOverlay(_ executable: String) throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing"); return }
        let dir = try AssetFixtures.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("grey.mov")
        _ = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x404040:s=320x240:r=30:d=2",
                                             "-c:v", "libx264", "-pix_fmt", "yuv420p", "-video_track_timescale", "600", clip.path])
        let movie = dir.appendingPathComponent("titled.mp4")
        let (status, lines) = try ClientPackage.run(executable, ["overlay", clip.path, movie.path])
        #expect(status == 0, "\(lines)")
        #expect(ClientPackage.line(lines, "overlay") == "status=completed", "\(lines)")
        /// R, G, B at (x, y) of the frame at `seconds`, as ffmpeg decodes the file (top-left origin).
        func rgb(_ seconds: Double, _ x: Int, _ y: Int) throws -> (Int, Int, Int) {
            let (_, data) = try TestTools.run("ffmpeg", ["-v", "error", "-ss", String(seconds), "-i", movie.path, "-frames:v", "1",
                                                         "-vf", "crop=2:2:\(x):\(y)", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            return data.count == 12 ? (Int(data[0]), Int(data[1]), Int(data[2])) : (-1, -1, -1)
        }
        func near(_ a: (Int, Int, Int), _ b: (Int, Int, Int), _ tolerance: Int = 24) -> Bool {
            abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
        }
        // The watermark: blue in the top-right corner (y up in the layer tree) in every frame.
        for t in [0.0, 1.0, 1.9] { #expect(near(try rgb(t, 294, 24), (0, 0, 255)), "watermark at \(t) s") }
        // The title fades in linearly over the first second, then stays: yellow over grey.
        let half = try rgb(0.5, 159, 119)
        #expect(near(half, ((255 + 64) / 2, (255 + 64) / 2, 64 / 2), 24), "title at 0.5 s: \(half)")
        #expect(near(try rgb(1.5, 159, 119), (255, 255, 0)), "title at 1.5 s")
        #expect(near(try rgb(0.0, 159, 119), (64, 64, 64)), "title at 0 s")
        // The subtitle: white text along the bottom 60 rows, somewhere.
        let (_, strip) = try TestTools.run("ffmpeg", ["-v", "error", "-ss", "1", "-i", movie.path, "-frames:v", "1",
                                                      "-vf", "crop=320:60:0:180,format=gray", "-f", "rawvideo", "-"])
        #expect(strip.filter { $0 > 200 }.count > 100, "no white subtitle pixels at the bottom")
    }

    @Test("images drawn into pixel buffers become an H.264 movie of those colours")
    func imagesToMovie() throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing"); return }
        let dir = try AssetFixtures.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let movie = dir.appendingPathComponent("made.mov")
        let (status, lines) = try ClientPackage.run("PublishedIdioms", ["images-to-movie", movie.path])
        #expect(status == 0, "\(lines)")
        #expect(ClientPackage.line(lines, "movie") == "written=true")
        #expect(try AssetFixtures.probe(movie, "stream=codec_name,width,height") == "h264\n64\n48")
        let frames = try AssetFixtures.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                       "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", movie.path])
        #expect(frames.output.trimmingCharacters(in: .whitespacesAndNewlines) == "10")
        // The centre pixel of the first and last frames: red, then blue.
        for (index, expected) in [(0, (255, 0, 0)), (9, (0, 0, 255))] {
            let raw = dir.appendingPathComponent("frame\(index).rgb")
            _ = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", movie.path, "-vf", "select=eq(n\\,\(index))",
                                                 "-vframes", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
            let bytes = [UInt8](try Data(contentsOf: raw))
            #expect(bytes.count == 64 * 48 * 3)
            guard bytes.count == 64 * 48 * 3 else { continue }
            let at = (24 * 64 + 32) * 3
            let (r, g, b) = (Int(bytes[at]), Int(bytes[at + 1]), Int(bytes[at + 2]))
            #expect(abs(r - expected.0) < 24 && abs(g - expected.1) < 24 && abs(b - expected.2) < 24, "frame \(index): \(r),\(g),\(b)")
        }
    }
}
