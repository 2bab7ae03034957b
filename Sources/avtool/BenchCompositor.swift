// The compositor case of `avtool bench`: MediaEngine's FrameCompositor blending two 1280×720 NV12
// frames (as a decoder hands them) in a cross-dissolve, decode-free, against ffmpeg's own blend —
// `xfade=transition=fade` on two lavfi colour sources — with the cost of the same command without
// the xfade (making the sources, converting to NV12) subtracted.
import AVFoundation
internal import MediaEngine

/// Times `frames` dissolve frames through the compositor (420v and BGRA output; a push at
/// fractional offsets, which takes the RGB path; a 1080p frame scaled to 720p dissolving in) and
/// ffmpeg's xfade over as many frames; prints one line per case with frames per second.
func benchCompositor(in dir: URL, frames: Int, repeats: Int) throws {
    let (w, h) = (1280, 720)
    let red = try nv12Frame(color: "red", width: w, height: h, in: dir)
    let green = try nv12Frame(color: "green", width: w, height: h, in: dir)
    let count = max(2, frames)
    let seconds = Double(count) / 30

    let big = try nv12Frame(color: "green", width: 1920, height: 1080, in: dir)

    func ours(_ format: OSType, push: Bool = false, scaled: Bool = false) throws -> Double {
        let compositor = try FrameCompositor(renderWidth: w, renderHeight: h, pixelFormat: format)
        return try best(of: repeats) {
            for i in 0..<count {
                let t = Float(i) / Float(count - 1)
                let layers: [CompositorLayer]
                if push {
                    // Offsets with a fraction: bilinear sampling on the RGB path.
                    let x = CGFloat(1280 * t) + 0.37
                    layers = [CompositorLayer(image: green, transform: CGAffineTransform(translationX: 1280 - x, y: 0)),
                              CompositorLayer(image: red, transform: CGAffineTransform(translationX: -x, y: 0))]
                } else if scaled {
                    // A 1080p clip dissolving in over a 720p one: scaled by libswscale on the planes.
                    layers = [CompositorLayer(image: big, transform: CGAffineTransform(scaleX: 2.0 / 3, y: 2.0 / 3), opacity: t),
                              CompositorLayer(image: red)]
                } else {
                    layers = [CompositorLayer(image: green, opacity: t), CompositorLayer(image: red)]
                }
                _ = try compositor.render(layers: layers, backgroundColor: (0, 0, 0, 1))
            }
        }
    }
    let sources = ["-f", "lavfi", "-i", "color=red:s=\(w)x\(h):r=30:d=\(seconds)",
                   "-f", "lavfi", "-i", "color=green:s=\(w)x\(h):r=30:d=\(seconds)"]
    let blend = try best(of: repeats) {
        try runFFmpeg(sources + ["-filter_complex", "[0][1]xfade=transition=fade:duration=\(seconds):offset=0,format=nv12",
                                 "-f", "null", "-"], threads: nil)
    }
    let baseline = try best(of: repeats) {
        try runFFmpeg(sources + ["-filter_complex", "[0]format=yuv420p,format=nv12[v];[1]nullsink", "-map", "[v]",
                                 "-f", "null", "-"], threads: nil)
    }
    let xfade = max(blend - baseline, 1e-6)
    // 1280×720 throughout; the push moves by fractional offsets, so it takes the RGB path.
    for (label, time) in [("compositor dissolve → 420v", try ours(OSType(fourCC: "420v"))),
                          ("compositor dissolve → BGRA", try ours(OSType(fourCC: "BGRA"))),
                          ("compositor push (RGB) → 420v", try ours(OSType(fourCC: "420v"), push: true)),
                          ("compositor 1080p on 720p → 420v", try ours(OSType(fourCC: "420v"), scaled: true))] {
        report("\(label), \(count) frames", time, xfade)
        print(String(format: "    %.0f frames/s (ffmpeg xfade: %.0f frames/s = %d frames in %.3f s − %.3f s without xfade)",
                     Double(count) / time, Double(count) / xfade, count, blend, baseline))
    }
}

/// One `width`×`height` frame of a lavfi colour in a `420v` pixel buffer, made by ffmpeg.
private func nv12Frame(color: String, width: Int, height: Int, in dir: URL) throws -> CVPixelBuffer {
    let file = dir.appendingPathComponent("compositor-\(color).nv12")
    try runFFmpeg(["-f", "lavfi", "-i", "color=\(color):s=\(width)x\(height)", "-frames:v", "1", "-pix_fmt", "nv12",
                   "-f", "rawvideo", file.path])
    let raw = try Data(contentsOf: file)
    guard raw.count >= width * height * 3 / 2 else { throw DemoError("ffmpeg made a short NV12 frame") }
    var made: CVPixelBuffer?
    CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &made)
    guard let buffer = made else { throw DemoError("no pixel buffer") }
    raw.withUnsafeBytes { copyNV12(from: $0.baseAddress!, into: buffer) }
    return buffer
}
