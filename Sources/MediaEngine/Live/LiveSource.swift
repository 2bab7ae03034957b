// LiveSource: what a live video source (camera, screen, virtual camera) gives the capture stages —
// a list of formats, then frames stamped with capture time on a clock, until stopped. No C types.
import CoreMedia
import CoreVideo
import Foundation

/// One captured picture: the pixels, when they were captured (on the source's clock, the host
/// time clock in a capture session) and for how long they stand, and the source's frame counter.
// Invariant: holds a pixel buffer (C memory) that no one writes once it is delivered.
package struct LiveFrame: @unchecked Sendable {
    /// The picture (read-only by convention: every output of a session may hold the same buffer).
    package let pixelBuffer: CVPixelBuffer
    /// Capture time on the source's clock.
    package let pts: CMTime
    /// The frame's duration (the source's frame interval).
    package let duration: CMTime
    /// The source's frame counter: 0 for the first frame after `start`, one more for each frame
    /// the source produced (a gap means frames were dropped before delivery).
    package let sequence: UInt64

    package init(pixelBuffer: CVPixelBuffer, pts: CMTime, duration: CMTime, sequence: UInt64) {
        self.pixelBuffer = pixelBuffer
        self.pts = pts
        self.duration = duration
        self.sequence = sequence
    }
}

/// A video format a live source can deliver: pixel format, size and the frame rates it supports
/// (one range, `minFrameRate…maxFrameRate` frames per second).
package struct LiveVideoFormat: Sendable, Hashable, CustomStringConvertible {
    /// The Core Video pixel format of delivered buffers (`'420v'` for virtual cameras).
    package var pixelFormat: OSType
    package var width: Int
    package var height: Int
    package var minFrameRate: Double
    package var maxFrameRate: Double
    /// The shortest frame interval (1 / `maxFrameRate`), exact for whole and NTSC rates.
    package var minFrameDuration: CMTime
    /// The longest frame interval (1 / `minFrameRate`).
    package var maxFrameDuration: CMTime
    /// The only intervals the device offers, shortest first, when it offers a list rather than
    /// a range (a webcam's 30, 25, 20, 15, 10, 5 fps); empty: any interval from
    /// `minFrameDuration` to `maxFrameDuration`.
    package var discreteFrameDurations: [CMTime]

    package init(pixelFormat: OSType, width: Int, height: Int, minFrameDuration: CMTime, maxFrameDuration: CMTime,
                 discreteFrameDurations: [CMTime] = []) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.minFrameDuration = minFrameDuration
        self.maxFrameDuration = maxFrameDuration
        self.discreteFrameDurations = discreteFrameDurations
        maxFrameRate = minFrameDuration.seconds > 0 ? 1 / minFrameDuration.seconds : 0
        minFrameRate = maxFrameDuration.seconds > 0 ? 1 / maxFrameDuration.seconds : 0
    }

    /// Whether the device can run at `duration` between frames: one of its intervals (to the
    /// microsecond, so 1001/30000 matches 33367/1000000), or inside its range.
    package func supports(frameDuration duration: CMTime) -> Bool {
        guard duration.isNumeric else { return false }
        if !discreteFrameDurations.isEmpty {
            return discreteFrameDurations.contains { abs(CMTimeSubtract($0, duration).seconds) < 1e-6 }
        }
        return duration >= minFrameDuration && duration <= maxFrameDuration
    }

    package var description: String {
        let fourCC = String(bytes: withUnsafeBytes(of: pixelFormat.bigEndian) { Array($0) }, encoding: .ascii) ?? "\(pixelFormat)"
        if discreteFrameDurations.count > 1 {
            let rates = discreteFrameDurations.map { String(format: "%g", 1 / $0.seconds) }
            return "'\(fourCC)' \(width)x\(height) @ {\(rates.joined(separator: " "))} fps"
        }
        return "'\(fourCC)' \(width)x\(height) @ \(minFrameRate)-\(maxFrameRate) fps"
    }
}

/// Why a live source stopped on its own, or could not start.
package enum LiveSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device (or a virtual camera's file) is gone.
    case disconnected(String)
    /// The format asked for is not one of the source's formats.
    case unsupportedFormat(String)
    /// Reading or decoding failed.
    case failed(String)

    package var description: String {
        switch self {
        case .disconnected(let m): return "device disconnected: \(m)"
        case .unsupportedFormat(let m): return "unsupported format: \(m)"
        case .failed(let m): return m
        }
    }
}

/// A source of live video: cameras, screens and virtual cameras implement it; capture sessions
/// (and the player's picture path) consume it through the shared stages (`ClockedPump`,
/// `DropLateQueue`).
///
/// `start` begins delivering frames on a thread of the source's own, stamped on `clock`;
/// `deliver` must return quickly (hand the frame to a `DropLateQueue`). `failed` is called at most
/// once, when the source stops on its own (no frame is delivered after it). `stop()` blocks until
/// no `deliver` call is running and none will be made; after it the source may be started again.
package protocol LiveSource: AnyObject, Sendable {
    /// The formats the source can deliver.
    var formats: [LiveVideoFormat] { get }
    /// Starts delivering frames of `format` every `frameDuration` (between the format's min and
    /// max frame durations).
    func start(format: LiveVideoFormat, frameDuration: CMTime, clock: CMClock,
               deliver: @escaping @Sendable (LiveFrame) -> Void,
               failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError)
    /// Stops delivering (see the protocol's description); idempotent.
    func stop()
}

extension LiveSource {
    /// Throws `.unsupportedFormat` unless `format` is one of the source's formats and
    /// `frameDuration` lies within its frame-duration range (`name` says whose formats).
    func checkStart(format: LiveVideoFormat, frameDuration: CMTime, of name: String) throws(LiveSourceError) {
        guard formats.contains(format) else { throw .unsupportedFormat("\(format) is not a format of \(name)") }
        guard frameDuration.isNumeric, frameDuration >= format.minFrameDuration, frameDuration <= format.maxFrameDuration else {
            throw .unsupportedFormat("a frame duration of \(frameDuration.seconds) s is outside \(format)")
        }
    }
}
