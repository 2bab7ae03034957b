// PCMSampleBuffers: the one builder of linear PCM sample buffers and their format descriptions,
// for every producer of decoded audio — the reader's audio source, the capture data outputs, the
// renderer's format conversion.
import CoreAudioTypes
import CoreMedia
import Foundation
package import MediaEngine

package enum PCMSampleBuffers {
    /// An audio format description for `format`, with `layout` (AudioChannelLayout bytes).
    package static func formatDescription(_ format: AudioPCMFormat, layout: Data) -> CMAudioFormatDescription? {
        var asbd = format.streamBasicDescription
        var description: CMAudioFormatDescription?
        let status = layout.withUnsafeBytes { raw -> OSStatus in
            // The layout's bytes, copied into properly aligned memory.
            let size = max(raw.count, MemoryLayout<AudioChannelLayout>.size)
            let aligned = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<AudioChannelLayout>.alignment)
            defer { aligned.deallocate() }
            aligned.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            aligned.copyMemory(from: raw.baseAddress!, byteCount: raw.count)
            return CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: raw.count,
                                                  layout: aligned.assumingMemoryBound(to: AudioChannelLayout.self),
                                                  magicCookieSize: 0, magicCookie: nil, extensions: nil, formatDescriptionOut: &description)
        }
        return status == noErr ? description : nil
    }

    /// A ready sample buffer of `frameCount` packets holding a copy of `bytes` (non-interleaved
    /// channels one after another), presented at `pts`.
    package static func sampleBuffer(_ bytes: Data, frameCount: Int, description: CMAudioFormatDescription, pts: CMTime) -> CMSampleBuffer? {
        let length = bytes.count
        guard length > 0 else { return nil }
        var block: CMBlockBuffer?
        guard CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: length, blockAllocator: nil,
                                                 customBlockSource: nil, offsetToData: 0, dataLength: length,
                                                 flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block) == noErr,
              let block else { return nil }
        let copied = bytes.withUnsafeBytes { raw -> OSStatus in
            guard let base = raw.baseAddress else { return -1 }
            return CMBlockBufferReplaceDataBytes(with: base, blockBuffer: block, offsetIntoDestination: 0, dataLength: length)
        }
        guard copied == noErr else { return nil }
        var sample: CMSampleBuffer?
        guard CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: block, formatDescription: description,
                                                                   sampleCount: frameCount, presentationTimeStamp: pts,
                                                                   packetDescriptions: nil, sampleBufferOut: &sample) == noErr
        else { return nil }
        return sample
    }
}
