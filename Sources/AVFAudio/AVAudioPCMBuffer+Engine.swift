// The bridge between AVAudioPCMBuffer and the pipeline's PCM (AudioPCMFormat, and blocks whose
// channel buffers lie one after another): one place for the format mapping and the copies.
import CoreAudioTypes
import Foundation
internal import MediaEngine

extension AVAudioFormat {
    /// The engine's description of this PCM format (nil for compressed formats).
    var enginePCMFormat: AudioPCMFormat? {
        let d = streamDescription.pointee
        guard d.mFormatID == kAudioFormatLinearPCM, d.mBitsPerChannel % 8 == 0, d.mBitsPerChannel > 0 else { return nil }
        let isFloat = d.mFormatFlags & kAudioFormatFlagIsFloat != 0
        let signed = d.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0
        let channels = Int(d.mChannelsPerFrame)
        let set = channelLayout.flatMap { AudioChannelSet(audioChannelLayout: $0.layoutData) }.flatMap { $0.count == channels ? $0 : nil }
            ?? AudioChannelSet(count: channels)
        let format = AudioPCMFormat(sampleRate: Int(d.mSampleRate.rounded()), channels: set,
                                    sampleType: isFloat ? .float : (signed ? .signedInteger : .unsignedInteger),
                                    bitsPerSample: Int(d.mBitsPerChannel), isBigEndian: d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0,
                                    isInterleaved: isInterleaved)
        return format.problem == nil ? format : nil
    }
}

extension AVAudioPCMBuffer {
    /// Calls `body` with the first `frames` frames as the engine takes them: the one buffer when
    /// interleaved, else the channels' buffers packed one after another.
    func withEngineBytes<R>(frames: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let list = UnsafeMutableAudioBufferListPointer(mutableAudioBufferList)
        let planeBytes = frames * Int(format.streamDescription.pointee.mBytesPerFrame)
        if list.count == 1, let data = list[0].mData {
            return try body(UnsafeRawBufferPointer(start: data, count: planeBytes))
        }
        let packed = UnsafeMutableRawPointer.allocate(byteCount: max(planeBytes * list.count, 1), alignment: 16)
        defer { packed.deallocate() }
        for (b, channel) in list.enumerated() {
            guard let data = channel.mData else { continue }
            (packed + b * planeBytes).copyMemory(from: data, byteCount: planeBytes)
        }
        return try body(UnsafeRawBufferPointer(start: packed, count: planeBytes * list.count))
    }

    /// Copies `frames` frames of `bytes` (the engine's layout: buffers one after another, each
    /// `total` frames long), from its frame `first`, into this buffer at frame `offset`.
    func copyEngineBytes(_ bytes: UnsafeRawBufferPointer, total: Int, from first: Int, frames: Int, at offset: Int) {
        let list = UnsafeMutableAudioBufferListPointer(mutableAudioBufferList)
        let frameBytes = Int(format.streamDescription.pointee.mBytesPerFrame)
        let planeBytes = total * frameBytes
        for b in 0..<list.count {
            guard let destination = list[b].mData, (b + 1) * planeBytes <= bytes.count else { continue }
            (destination + offset * frameBytes).copyMemory(from: bytes.baseAddress! + b * planeBytes + first * frameBytes,
                                                          byteCount: frames * frameBytes)
        }
    }
}
