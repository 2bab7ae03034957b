// AVPlayerItemLegibleOutput: the text of a player item's selected legible option (subtitles,
// captions) pushed to a delegate as attributed strings at the item times they show.
import CoreMedia
import Dispatch
import Foundation
import Synchronization

/// What a push-style player item output's delegate is told.
public protocol AVPlayerItemOutputPushDelegate: AnyObject {
    /// What the output delivered before was flushed (a seek, another item or selection).
    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput)
}

extension AVPlayerItemOutputPushDelegate {
    public func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {}
}

/// What a legible output's delegate is told.
public protocol AVPlayerItemLegibleOutputPushDelegate: AVPlayerItemOutputPushDelegate {
    /// The text showing from `itemTime` on: one attributed string per cue (empty when the text
    /// goes away), and the cues' samples in their native form when the output asked for their
    /// media subtype.
    func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                       nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime)
}

extension AVPlayerItemLegibleOutputPushDelegate {
    public func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                              nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime) {}
}

/// An output that vends the text of a player item's selected legible media selection option.
///
/// Each time the text on screen changes — a cue starts or ends, the playhead jumps — the
/// delegate gets the strings now showing (one per cue; none when the text went away) on its
/// queue, `advanceIntervalForDelegateInvocation` seconds before the item time they show at.
/// Strings carry `kCMTextMarkupAttribute_` attributes (italic, bold, underline; with the default
/// styling resolution also the white foreground). Nothing is delivered while no legible option
/// is selected. With `suppressesPlayerRendering` the player's layers draw no text (the video still shows).
open class AVPlayerItemLegibleOutput: AVPlayerItemOutput, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose mutable state is all in `state` (a Mutex).

    /// How much of the text's styling the strings keep.
    public struct TextStylingResolution: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The source's styling with the user's caption preferences applied.
        public static let `default` = TextStylingResolution(rawValue: "AVPlayerItemLegibleOutputTextStylingResolutionDefault")
        /// Only the source's styling and the rules of its format (no default colour).
        public static let sourceAndRulesOnly = TextStylingResolution(rawValue: "AVPlayerItemLegibleOutputTextStylingResolutionSourceAndRulesOnly")
    }

    private struct State {
        var delegate = DelegateReference()
        var delegateQueue: DispatchQueue?
        var advance: TimeInterval = 0
        var styling = TextStylingResolution.default
        /// The cues last delivered (their identities), nil when nothing was delivered yet.
        var delivered: [Int]?
    }

    /// The delegate, weakly. @unchecked Sendable: the app's object is only read and called on its delegate queue, as Apple calls it.
    private struct DelegateReference: @unchecked Sendable {
        weak var delegate: (any AVPlayerItemLegibleOutputPushDelegate)?
    }

    private let state = Mutex(State())
    private let nativeSubtypes: [NSNumber]

    /// An output that vends every cue as attributed strings.
    public override init() {
        nativeSubtypes = []
        super.init()
    }

    /// An output that vends cues of the given media subtypes (four-character codes) as sample
    /// buffers instead of strings.
    public init(mediaSubtypesForNativeRepresentation subtypes: [NSNumber]) {
        nativeSubtypes = subtypes
        super.init()
    }

    /// The delegate (held weakly).
    open var delegate: (any AVPlayerItemLegibleOutputPushDelegate)? { state.withLock { $0.delegate.delegate } }
    /// The queue the delegate is called on.
    open var delegateQueue: DispatchQueue? { state.withLock { $0.delegateQueue } }

    /// Sets the delegate and the queue it is called on (a delegate needs a queue).
    open func setDelegate(_ delegate: (any AVPlayerItemLegibleOutputPushDelegate)?, queue delegateQueue: DispatchQueue?) {
        precondition(delegate == nil || delegateQueue != nil,
                     "*** -[AVPlayerItemLegibleOutput setDelegate:queue:] delegate queue must not be NULL when a delegate is set")
        state.withLock { s in
            s.delegate = DelegateReference(delegate: delegate)
            s.delegateQueue = delegateQueue
            s.delivered = nil
        }
        legibleStateChanged()
    }

    /// How many seconds early the delegate is called (default 0).
    open var advanceIntervalForDelegateInvocation: TimeInterval {
        get { state.withLock { $0.advance } }
        set {
            state.withLock { $0.advance = newValue.isFinite ? max(0, newValue) : 0 }
            legibleStateChanged()
        }
    }

    /// How much styling the strings keep (default `.default`).
    open var textStylingResolution: TextStylingResolution {
        get { state.withLock { $0.styling } }
        set { state.withLock { $0.styling = newValue } }
    }

    /// The media subtypes vended as sample buffers.
    var mediaSubtypesForNativeRepresentation: [NSNumber] { nativeSubtypes }

    override func flushed() {
        guard let queue = state.withLock({ s -> DispatchQueue? in
            s.delivered = nil
            return s.delegate.delegate == nil ? nil : s.delegateQueue
        }) else { return }
        // The delegate is read on its queue: it never crosses threads.
        queue.async { self.currentDelegate?.outputSequenceWasFlushed(self) }
    }

    /// The delegate now (it is held weakly).
    private var currentDelegate: (any AVPlayerItemLegibleOutputPushDelegate)? { state.withLock { $0.delegate.delegate } }

    override func attach(to item: AVPlayerItem) {
        super.attach(to: item)
        state.withLock { $0.delivered = nil }
        legibleStateChanged()
    }

    /// Asks the item's player to look at the text again (a delegate or advance changed).
    private func legibleStateChanged() {
        guard let item = attachedItem, let player = item.state.withLock({ $0.player }), player.currentItem === item else { return }
        player.engine.legible.refresh()
    }

    /// Delivers the cues showing unless they were the last ones delivered: cues of a media
    /// subtype asked for natively as sample buffers, the others as strings. The strings are made
    /// and the delegate read on the delegate's queue, so neither crosses threads.
    func deliver(_ cues: [LegiblePresenter.Cue], itemTime: CMTime) {
        let ids = cues.map(\.id)
        let target = state.withLock { s -> (DispatchQueue, TextStylingResolution)? in
            guard s.delivered != ids, let queue = s.delegateQueue, s.delegate.delegate != nil else { return nil }
            // Nothing showing when nothing was delivered (since the start or a flush) is no news.
            defer { s.delivered = ids }
            if s.delivered == nil && ids.isEmpty { return nil }
            return (queue, s.styling)
        }
        guard let (queue, styling) = target else { return }
        let native = Set(nativeSubtypes.map(\.uint32Value))
        let nativeCues = cues.filter { cue in cue.format.map { native.contains(CMFormatDescriptionGetMediaSubType($0)) } ?? false }
        let textCues = cues.filter { cue in !nativeCues.contains { $0.id == cue.id } }
        queue.async {
            let strings = textCues.map(LegiblePresenter.markupString)
            let out = styling == .default ? strings.map(Self.withDefaultColour) : strings
            let samples: [Any] = nativeCues.compactMap(Self.nativeSample)
            self.currentDelegate?.legibleOutput(self, didOutputAttributedStrings: out, nativeSampleBuffers: samples, forItemTime: itemTime)
        }
    }

    /// A cue as its track stores it: a sample buffer with the track's format description, the
    /// cue's time and duration, and the text in the subtype's sample format — 'tx3g': a 16-bit
    /// big-endian length and the UTF-8 text (3GPP TS 26.245); 'wvtt': a 'vttc' box holding a
    /// 'payl' box with the text (ISO/IEC 14496-30); others: the UTF-8 text.
    static func nativeSample(_ cue: LegiblePresenter.Cue) -> CMSampleBuffer? {
        guard let format = cue.format else { return nil }
        let text = Data(cue.runs.map(\.text).joined().utf8)
        var bytes = Data()
        func box(_ type: String, _ payload: Data) -> Data {
            var out = Data()
            let size = UInt32(8 + payload.count)
            out.append(contentsOf: [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)])
            out.append(contentsOf: Array(type.utf8))
            out.append(payload)
            return out
        }
        switch CMFormatDescriptionGetMediaSubType(format) {
        case kCMTextFormatType_3GText:
            let length = UInt16(clamping: text.count)
            bytes.append(contentsOf: [UInt8(length >> 8), UInt8(length & 0xFF)])
            bytes.append(text.prefix(Int(length)))
        case kCMSubtitleFormatType_WebVTT:
            bytes = box("vttc", box("payl", text))
        default:
            bytes = text
        }
        var block: CMBlockBuffer?
        guard CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: bytes.count, blockAllocator: nil,
                                                 customBlockSource: nil, offsetToData: 0, dataLength: bytes.count,
                                                 flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block) == noErr,
              let block else { return nil }
        let copied = bytes.withUnsafeBytes { raw in
            CMBlockBufferReplaceDataBytes(with: raw.baseAddress!, blockBuffer: block, offsetIntoDestination: 0, dataLength: raw.count)
        }
        guard copied == noErr else { return nil }
        var timing = CMSampleTimingInfo(duration: cue.end - cue.start, presentationTimeStamp: cue.start, decodeTimeStamp: .invalid)
        var size = bytes.count
        var sample: CMSampleBuffer?
        guard CMSampleBufferCreateReady(allocator: nil, dataBuffer: block, formatDescription: format, sampleCount: 1,
                                        sampleTimingEntryCount: 1, sampleTimingArray: &timing, sampleSizeEntryCount: 1,
                                        sampleSizeArray: &size, sampleBufferOut: &sample) == noErr else { return nil }
        return sample
    }

    /// The advance, in item time.
    var advance: CMTime { CMTime(seconds: advanceIntervalForDelegateInvocation, preferredTimescale: 1_000_000) }

    /// White text (what the default caption style shows) where the source gave no colour.
    private static func withDefaultColour(_ string: NSAttributedString) -> NSAttributedString {
        let key = NSAttributedString.Key(rawValue: kCMTextMarkupAttribute_ForegroundColorARGB as String)
        let copy = NSMutableAttributedString(attributedString: string)
        copy.enumerateAttribute(key, in: NSRange(location: 0, length: copy.length), options: []) { value, range, _ in
            if value == nil { copy.addAttribute(key, value: [1.0, 1.0, 1.0, 1.0] as [Double], range: range) }
        }
        return copy
    }
}
