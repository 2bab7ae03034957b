// AVPlayerItemOutput and AVPlayerItemVideoOutput: pull-style access to the pictures a player
// item decodes — the app asks for the picture of an item time (usually the time of the next
// display refresh) and gets a pixel buffer in the format it asked for.
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

/// What a player item output's delegate is told.
public protocol AVPlayerItemOutputPullDelegate: AnyObject {
    /// New media is about to arrive (after `requestNotificationOfMediaDataChange(withAdvanceInterval:)`).
    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput)
    /// The pictures queued were flushed (a seek).
    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput)
}

extension AVPlayerItemOutputPullDelegate {
    public func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) {}
    public func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {}
}

/// The abstract class of a player item's outputs.
open class AVPlayerItemOutput: NSObject, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose mutable state is all in Mutexes.
    private struct Common {
        var suppresses = false
        weak var item: AVPlayerItem?
    }

    private let common = Mutex(Common())

    /// Whether the player stops drawing the item's video in its layers while this output is
    /// attached (default false).
    open var suppressesPlayerRendering: Bool {
        get { common.withLock { $0.suppresses } }
        set {
            common.withLock { $0.suppresses = newValue }
            if let item = common.withLock({ $0.item }), let player = item.state.withLock({ $0.player }) {
                player.engine.outputsChanged()
            }
        }
    }

    /// The item time shown at host time `hostTimeInSeconds` (`CACurrentMediaTime()`'s clock):
    /// invalid while the output is not attached to the current item of a player.
    open func itemTime(forHostTime hostTimeInSeconds: CFTimeInterval) -> CMTime {
        guard let item = common.withLock({ $0.item }), let timebase = item.timebase else { return .invalid }
        let host = CMTime(seconds: hostTimeInSeconds, preferredTimescale: 1_000_000_000)
        return CMSyncConvertTime(host, from: CMClockGetHostTimeClock(), to: timebase)
    }

    /// The item time at a host time in the clock's native units (nanoseconds on Linux).
    open func itemTime(forMachAbsoluteTime machAbsoluteTime: Int64) -> CMTime {
        itemTime(forHostTime: Double(machAbsoluteTime) / 1e9)
    }

    /// The item the output is attached to.
    var attachedItem: AVPlayerItem? { common.withLock { $0.item } }

    func attach(to item: AVPlayerItem) { common.withLock { $0.item = item } }
    func detach(from item: AVPlayerItem) { common.withLock { if $0.item === item { $0.item = nil } } }

    /// A picture the item decoded (the engine, on its feeding thread).
    func receive(_ frame: CMSampleBuffer) {}
    /// The item's pictures were flushed (a seek).
    func flushed() {}
}

/// An output that hands out the pictures of a player item as pixel buffers, pull-style.
///
/// The player gives the output each picture as it is decoded (ahead of display); the output
/// keeps the pictures not yet passed (at most 12 — older ones are dropped when the app does not
/// pull). `hasNewPixelBuffer(forItemTime:)` is true when a picture presenting at or before the
/// item time is newer than the last one copied; `copyPixelBuffer(forItemTime:itemTimeForDisplay:)`
/// returns that picture, converted to the pixel format asked for (`kCVPixelBufferPixelFormatTypeKey`;
/// default: the decoder's own), and drops the older ones.
open class AVPlayerItemVideoOutput: AVPlayerItemOutput, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose mutable state is all in `state` (a Mutex).
    private struct State {
        var frames: [CMSampleBuffer] = []
        var lastCopied = CMTime.invalid
        var delegate = DelegateReference()
        var delegateQueue: DispatchQueue?
        var notifyAdvance: TimeInterval?
    }

    /// The delegate, weakly. @unchecked Sendable: the delegate is only called on its own queue, as Apple calls it.
    private struct DelegateReference: @unchecked Sendable {
        weak var delegate: (any AVPlayerItemOutputPullDelegate)?
    }

    private let state = Mutex(State())
    private let pixelFormat: OSType?
    private let size: (width: Int, height: Int)?

    /// An output delivering buffers with `pixelBufferAttributes` (nil: the decoder's format).
    public init(pixelBufferAttributes: [String: Any]?) {
        pixelFormat = AVPlayerItemVideoOutput.format(pixelBufferAttributes)
        if let w = pixelBufferAttributes?[kCVPixelBufferWidthKey as String] as? Int,
           let h = pixelBufferAttributes?[kCVPixelBufferHeightKey as String] as? Int, w > 0, h > 0 {
            size = (w, h)
        } else {
            size = nil
        }
        super.init()
    }

    /// An output delivering buffers described by video output settings (pixel buffer keys).
    public convenience init(outputSettings: [String: Any]?) {
        self.init(pixelBufferAttributes: outputSettings)
    }

    private static func format(_ attributes: [String: Any]?) -> OSType? {
        guard let value = attributes?[kCVPixelBufferPixelFormatTypeKey as String] else { return nil }
        if let n = value as? OSType { return n }
        if let n = value as? Int { return OSType(truncatingIfNeeded: n) }
        if let n = value as? NSNumber { return n.uint32Value }
        if let list = value as? [Any], let first = list.first { return format([kCVPixelBufferPixelFormatTypeKey as String: first]) }
        return nil
    }

    /// The delegate (held weakly) and the queue its methods are called on.
    open var delegate: (any AVPlayerItemOutputPullDelegate)? { state.withLock { $0.delegate }.delegate }
    open var delegateQueue: DispatchQueue? { state.withLock { $0.delegateQueue } }

    open func setDelegate(_ delegate: (any AVPlayerItemOutputPullDelegate)?, queue delegateQueue: DispatchQueue?) {
        let reference = DelegateReference(delegate: delegate)
        state.withLock { s in
            s.delegate = reference
            s.delegateQueue = delegateQueue
        }
    }

    /// Asks the delegate to be told (once) when new pictures are about to arrive.
    open func requestNotificationOfMediaDataChange(withAdvanceInterval interval: TimeInterval) {
        state.withLock { $0.notifyAdvance = interval }
    }

    /// Whether a picture for `itemTime` newer than the last copied is there.
    open func hasNewPixelBuffer(forItemTime itemTime: CMTime) -> Bool {
        state.withLock { s in
            guard let frame = Self.latest(s.frames, at: itemTime) else { return false }
            return !s.lastCopied.isValid || frame.presentationTimeStamp != s.lastCopied
        }
    }

    /// The picture to show at `itemTime` (nil when none is there); `itemTimeForDisplay` gets its
    /// presentation time.
    open func copyPixelBuffer(forItemTime itemTime: CMTime,
                              itemTimeForDisplay outItemTimeForDisplay: UnsafeMutablePointer<CMTime>?) -> CVPixelBuffer? {
        let frame: CMSampleBuffer? = state.withLock { s in
            guard let frame = Self.latest(s.frames, at: itemTime) else { return nil }
            let pts = frame.presentationTimeStamp
            s.frames.removeAll { $0.presentationTimeStamp < pts }
            s.lastCopied = pts
            return frame
        }
        guard let frame, let image = frame.imageBuffer else { return nil }
        outItemTimeForDisplay?.pointee = frame.presentationTimeStamp
        let format = pixelFormat ?? CVPixelBufferGetPixelFormatType(image)
        if format == CVPixelBufferGetPixelFormatType(image), size == nil { return image }
        return try? PixelConverter.shared.makePixelBuffer(from: image, pixelFormat: format, width: size?.width, height: size?.height)
    }

    /// The latest frame presenting at or before `time` (the first, if all are later but it is
    /// within a frame of `time`).
    private static func latest(_ frames: [CMSampleBuffer], at time: CMTime) -> CMSampleBuffer? {
        guard time.isNumeric else { return nil }
        return frames.last { $0.presentationTimeStamp <= time }
    }

    override func receive(_ frame: CMSampleBuffer) {
        let notify: (DelegateReference, DispatchQueue)? = state.withLock { s in
            s.frames.append(frame)
            if s.frames.count > 12 { s.frames.removeFirst(s.frames.count - 12) }
            guard s.notifyAdvance != nil, s.delegate.delegate != nil else { return nil }
            s.notifyAdvance = nil
            return (s.delegate, s.delegateQueue ?? .main)
        }
        if let (reference, queue) = notify {
            queue.async { reference.delegate?.outputMediaDataWillChange(self) }
        }
    }

    override func flushed() {
        let notify: (DelegateReference, DispatchQueue)? = state.withLock { s in
            s.frames = []
            s.lastCopied = .invalid
            guard s.delegate.delegate != nil else { return nil }
            return (s.delegate, s.delegateQueue ?? .main)
        }
        if let (reference, queue) = notify {
            queue.async { reference.delegate?.outputSequenceWasFlushed(self) }
        }
    }
}
