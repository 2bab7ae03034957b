// AVAudioSourceNode: a node whose sound a client block writes, asked for on the engine's render
// thread (real-time or offline) in the node's output format, as an AudioBufferList.
import CoreAudioTypes
import Foundation
import Synchronization
internal import CVolk

/// Supplies `frameCount` frames into `outputData` (the node's output format); sets `isSilence`
/// when they are all zero; a status other than `noErr` makes them silence.
public typealias AVAudioSourceNodeRenderBlock = (UnsafeMutablePointer<ObjCBool>, UnsafePointer<AudioTimeStamp>,
                                                 AVAudioFrameCount, UnsafeMutablePointer<AudioBufferList>) -> OSStatus

/// The render side of a source node: the client's block fills a buffer in the connection's
/// format (zeroed first), which becomes the engine's planar Float32 — directly for Float32
/// formats, through an `AVAudioConverter` for the others.
final class SourceRenderer: NodeRenderer {
    typealias Render = @Sendable (UnsafeMutablePointer<ObjCBool>, UnsafePointer<AudioTimeStamp>,
                                  AVAudioFrameCount, UnsafeMutablePointer<AudioBufferList>) -> OSStatus
    let common: RendererCommon
    private let block: Render
    /// The converter from a non-Float32 block format to the engine's, for the format it was made for.
    private let converter = Mutex<(format: AVAudioFormat, converter: AVAudioConverter?)?>(nil)

    init(format: AVAudioFormat, block: @escaping Render) {
        common = RendererCommon(defaultFormat: format, inputs: 0, outputs: 1)
        self.block = block
    }

    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        let channels = Int(format.channelCount)
        guard frames > 0, let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames)) else {
            return .silence(channels: channels, frames: frames)
        }
        buffer.frameLength = AVAudioFrameCount(frames)
        let list = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        let own = list.map { $0.mData }
        for b in list where b.mData != nil { memset(b.mData!, 0, Int(b.mDataByteSize)) }
        var silent = ObjCBool(false)
        var time = AudioTimeStamp()
        time.mSampleTime = Float64(pass.sampleTime)
        time.mFlags = .sampleTimeValid
        if let host = pass.hostTime {
            time.mHostTime = AVAudioTime.hostTime(forSeconds: host)
            time.mFlags.insert(.hostTimeValid)
        }
        let status = block(&silent, &time, AVAudioFrameCount(frames), buffer.mutableAudioBufferList)
        guard status == noErr, !silent.boolValue else { return .silence(channels: channels, frames: frames) }
        // The block may point the buffers at memory of its own (valid until the next call).
        for (b, ownData) in own.enumerated() where list[b].mData != ownData {
            if let theirs = list[b].mData, let ownData {
                memcpy(ownData, theirs, min(Int(list[b].mDataByteSize), Int(buffer.frameCapacity * format.streamDescription.pointee.mBytesPerFrame)))
            }
            list[b].mData = ownData
        }
        if format.commonFormat == .pcmFormatFloat32, !format.isInterleaved || channels <= 2 {
            return EngineBlock(planes: buffer.planes(frames: frames), frames: frames).mapped(to: channels)
        }
        let converted: AVAudioConverter? = converter.withLock { c in
            if c == nil || !(c!.format.isEqual(format)) {
                let standard = AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: format.channelCount)
                c = (format, standard.flatMap { AVAudioConverter(from: format, to: $0) })
            }
            return c?.converter
        }
        guard let converted, let out = AVAudioPCMBuffer(pcmFormat: converted.outputFormat, frameCapacity: AVAudioFrameCount(frames)),
              (try? converted.convert(to: out, from: buffer)) != nil else {
            return .silence(channels: channels, frames: frames)
        }
        return EngineBlock(planes: out.planes(frames: frames), frames: frames)
    }
}

/// A node whose sound a block supplies.
open class AVAudioSourceNode: AVAudioNode, AVAudioMixing {
    /// A source node whose block writes in its output connection's format.
    public convenience init(renderBlock block: @escaping AVAudioSourceNodeRenderBlock) {
        self.init(format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!, renderBlock: block)
    }

    /// A source node whose block writes in `format` (the output bus's format until a connection
    /// gives another).
    public init(format: AVAudioFormat, renderBlock block: @escaping AVAudioSourceNodeRenderBlock) {
        // The client's block is called on the engine's render thread, as Apple's is.
        nonisolated(unsafe) let render = block
        super.init(renderer: SourceRenderer(format: format) { silence, time, frames, data in render(silence, time, frames, data) })
    }
}
