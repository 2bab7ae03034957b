// swift-tools-version: 6.0
// AV Foundation for Linux: Apple's media frameworks (AVFoundation, CoreMedia, CoreVideo,
// the Core Graphics subset, ImageIO, VideoToolbox) reimplemented in Swift on FFmpeg.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "AVFoundationLinux",
    // Linux is the target; the macOS line only records what the code needs (Int128: macOS 15).
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AVFoundation", targets: ["AVFoundation"]),
        .library(name: "AVFAudio", targets: ["AVFAudio"]),
        .library(name: "CoreMedia", targets: ["CoreMedia"]),
        .library(name: "CoreVideo", targets: ["CoreVideo"]),
        .library(name: "CoreGraphics", targets: ["CoreGraphics"]),
        .library(name: "ImageIO", targets: ["ImageIO"]),
        .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
        .library(name: "VideoToolbox", targets: ["VideoToolbox"]),
        .library(name: "QuartzCore", targets: ["QuartzCore"]),
        .executable(name: "avtool", targets: ["avtool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C: FFmpeg 5.1 through pkg-config. Only MediaEngine imports it.
        .systemLibrary(
            name: "CFFmpeg",
            // libavfilter: its headers only (same include directory; libavfilter-dev), not linked —
            // the EQ node loads the library on first use (see shim.h).
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev",
                              "libswresample-dev", "libavfilter-dev"])]
        ),
        // C: pixman (the compositing library under Cairo's image surfaces) through pkg-config.
        // CoreGraphics (the bitmap CGContext draws through it) and MediaEngine (the frame compositor)
        // import it, both with `internal import`.
        .systemLibrary(
            name: "CPixman",
            pkgConfig: "pixman-1",
            providers: [.apt(["libpixman-1-dev"])]
        ),
        // C: Cairo (paths, strokes, gradients, clips) and Pango/HarfBuzz (text) — the rasteriser
        // under CGContext's path, gradient and text drawing, and so under QuartzCore's layers. No
        // pkgConfig: Pango's cflags carry -pthread, which SwiftPM refuses in a dependency; cairo.h
        // needs no flags and the small Pango subset is declared in the shim (see shim.h). Only
        // CoreGraphics imports it (`internal import`).
        .systemLibrary(
            name: "CCairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]
        ),
        // C: VOLK (GNU Radio's SIMD vector kernels) through pkg-config. AVFoundation (the audio
        // mixer's gain-and-sum), MediaEngine (the pixel converter's 'b64a' byte order, PNG/TIFF
        // un-premultiplication) and CoreGraphics (decoding 16-bit, float and indexed images) import it.
        .systemLibrary(
            name: "CVolk",
            pkgConfig: "volk",
            providers: [.apt(["libvolk2-dev"])]
        ),
        // C: Rubber Band (time-stretching keeping pitch) through pkg-config. Only AVFoundation
        // imports it: scaled audio edits are stretched with it.
        .systemLibrary(
            name: "CRubberBand",
            pkgConfig: "rubberband",
            providers: [.apt(["librubberband-dev"])]
        ),
        // C: espeak-ng (formant speech synthesis) through pkg-config. Only AVFAudio imports it
        // (`internal import`): AVSpeechSynthesizer and AVSpeechSynthesisVoice speak through it.
        .systemLibrary(
            name: "CEspeak",
            pkgConfig: "espeak-ng",
            providers: [.apt(["libespeak-ng-dev"])]
        ),
        // C: zbar (barcode and QR code reader) through pkg-config. Only MediaEngine imports it
        // (`internal import`): the capture metadata output's code scanner. Linked: it adds 3–5 % to
        // `avtool --help` start-up (measured; docs/ARCHITECTURE.md).
        .systemLibrary(
            name: "CZbar",
            pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]
        ),
        // C: SDL2 (windows for the capture preview and, later, the player) — headers only, loaded
        // with dlopen at the first window: loading it added 12–14 % to `avtool --help` start-up
        // (~20 more shared libraries; measured, docs/ARCHITECTURE.md). Only MediaEngine imports it.
        .target(name: "CSDL2", path: "Sources/CSDL2"),
        // C: the kernel's Video4Linux2 API (linux/videodev2.h, raw ioctls, no libv4l2) with its
        // request and fourcc macros re-exported as constants. Only MediaEngine imports it (cameras).
        .systemLibrary(
            name: "CV4L2",
            providers: [.apt(["linux-libc-dev"])]
        ),
        // C: XCB with MIT-SHM and XFIXES through pkg-config. Only MediaEngine imports it (screen
        // capture; XCB rather than Xlib, which exits the process when the X server goes away).
        .systemLibrary(
            name: "CXcb",
            pkgConfig: "xcb xcb-shm xcb-xfixes",
            providers: [.apt(["libxcb1-dev", "libxcb-shm0-dev", "libxcb-xfixes0-dev"])]
        ),
        // C: PulseAudio's client libraries (libpulse, libpulse-simple; headers in /usr/include,
        // linked by the module map). Only MediaEngine imports it (`internal import`): the sound
        // side of capture (Capture/PulseDirectory, PulseSource). No pkgConfig: libpulse's .pc
        // cflags (-D_REENTRANT -pthread) are flags SwiftPM refuses with a warning on every build.
        .systemLibrary(
            name: "CPulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // Swift layers, bottom up.
        .target(name: "CoreFoundationCompat", swiftSettings: strict),
        .target(name: "CoreAudioTypes", dependencies: ["CoreFoundationCompat"], swiftSettings: strict),
        .target(name: "CoreGraphics", dependencies: ["CoreFoundationCompat", "CPixman", "CCairo", "CVolk", "_Testing_CoreGraphics"],
                swiftSettings: strict),
        // Empty stand-in for the Testing library's CoreGraphics cross-import overlay (see its source).
        .target(name: "_Testing_CoreGraphics", swiftSettings: strict),
        .target(name: "UniformTypeIdentifiers", dependencies: ["CoreFoundationCompat"], swiftSettings: strict),
        .target(name: "CoreVideo", dependencies: ["CoreGraphics"], swiftSettings: strict),
        .target(name: "CoreMedia", dependencies: ["CoreVideo", "CoreAudioTypes"], swiftSettings: strict),
        // Core Animation: the CALayer tree and its animations, evaluated at a time and drawn through
        // CoreGraphics' rasteriser (pixman, Cairo, Pango).
        .target(name: "QuartzCore", dependencies: ["CoreGraphics", "CoreVideo"], swiftSettings: strict),
        // The engine: every FFmpeg call lives here.
        .target(name: "MediaEngine", dependencies: ["CFFmpeg", "CPixman", "CVolk", "CPulse", "CV4L2", "CXcb", "CZbar", "CSDL2",
                                                   "CoreMedia", "CoreVideo", "CoreGraphics"],
                swiftSettings: strict),
        // Public frameworks that stand on the engine.
        .target(name: "ImageIO", dependencies: ["CoreGraphics", "UniformTypeIdentifiers", "MediaEngine"], swiftSettings: strict),
        .target(name: "VideoToolbox", dependencies: ["CoreMedia", "CoreVideo", "MediaEngine"], swiftSettings: strict),
        // AVFAudio: formats, buffers, audio files and times, speech synthesis (re-exported by
        // AVFoundation, as on Apple).
        .target(name: "AVFAudio", dependencies: ["CoreAudioTypes", "CoreMedia", "MediaEngine", "CVolk", "CRubberBand", "CEspeak"], swiftSettings: strict),
        .target(name: "AVFoundation",
                dependencies: ["AVFAudio", "CoreMedia", "CoreVideo", "CoreGraphics", "QuartzCore", "CoreAudioTypes", "ImageIO", "UniformTypeIdentifiers",
                               "VideoToolbox", "MediaEngine", "CVolk"],
                swiftSettings: strict),
        .executableTarget(name: "avtool",
                          dependencies: ["AVFoundation", "MediaEngine", .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: strict),

        // What the test targets share: tools (ffmpeg, ffprobe), temporary directories, fixtures.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "CoreMediaTests", dependencies: ["CoreMedia"], swiftSettings: strict),
        .testTarget(name: "CoreVideoTests", dependencies: ["CoreVideo"], swiftSettings: strict),
        .testTarget(name: "CoreGraphicsTests", dependencies: ["CoreGraphics"], swiftSettings: strict),
        .testTarget(name: "QuartzCoreTests", dependencies: ["QuartzCore"], swiftSettings: strict),
        .testTarget(name: "MediaEngineTests", dependencies: ["MediaEngine", "CoreVideo", "CoreGraphics", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ImageIOTests", dependencies: ["ImageIO", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "VideoToolboxTests", dependencies: ["VideoToolbox"], swiftSettings: strict),
        .testTarget(name: "AVFAudioTests", dependencies: ["AVFAudio", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AVFoundationTests", dependencies: ["AVFoundation", "TestSupport"], swiftSettings: strict),
    ]
)
