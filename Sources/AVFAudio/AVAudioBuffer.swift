// AVAudioBuffer, AVAudioPCMBuffer, AVAudioCompressedBuffer: audio in memory with its format, as
// an AudioBufferList (one buffer per channel when deinterleaved, one in all when interleaved).
import CoreAudioTypes
import Foundation

/// Audio data in a format, in an `AudioBufferList`.
/// Not Sendable, as Apple's is not: its sizes change in place; one thread at a time.
open class AVAudioBuffer: NSObject {
    /// The format of the audio.
    public let format: AVAudioFormat
    let list: UnsafeMutableAudioBufferListPointer
    private let memory: [UnsafeMutableRawPointer]

    init(format: AVAudioFormat, buffers: Int, bytesPerBuffer: Int, channelsPerBuffer: Int) {
        self.format = format
        list = AudioBufferList.allocate(maximumBuffers: max(buffers, 1))
        var memory: [UnsafeMutableRawPointer] = []
        for i in 0..<max(buffers, 1) {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: max(bytesPerBuffer, 1), alignment: 16)
            // memset, not initializeMemory(as:repeating:count:): the generic stdlib loop clears
            // byte by byte through value witnesses (10 % of `avtool say -o`'s time in a profile).
            memset(raw, 0, max(bytesPerBuffer, 1))
            memory.append(raw)
            list[i] = AudioBuffer(mNumberChannels: UInt32(channelsPerBuffer), mDataByteSize: 0, mData: raw)
        }
        self.memory = memory
        super.init()
    }

    deinit {
        for raw in memory { raw.deallocate() }
        free(list.unsafeMutablePointer)
    }

    /// The buffer list (its sizes say how many bytes are valid).
    open var audioBufferList: UnsafePointer<AudioBufferList> { UnsafePointer(list.unsafeMutablePointer) }
    /// The buffer list, to change the audio in place.
    open var mutableAudioBufferList: UnsafeMutablePointer<AudioBufferList> { list.unsafeMutablePointer }
}

/// Linear PCM audio: `frameCapacity` frames of room, `frameLength` of them valid.
open class AVAudioPCMBuffer: AVAudioBuffer {
    /// How many frames the buffer holds at most.
    public let frameCapacity: AVAudioFrameCount
    private var length: AVAudioFrameCount = 0
    private let channelPointers: UnsafeMutablePointer<UnsafeMutableRawPointer>

    /// A buffer for `frameCapacity` frames of `format` (a PCM format); nil for other formats.
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) {
        let d = format.streamDescription.pointee
        guard d.mFormatID == kAudioFormatLinearPCM, d.mBytesPerFrame > 0, d.mChannelsPerFrame > 0 else { return nil }
        let deinterleaved = !format.isInterleaved
        let buffers = deinterleaved ? Int(d.mChannelsPerFrame) : 1
        self.frameCapacity = frameCapacity
        channelPointers = .allocate(capacity: Int(d.mChannelsPerFrame))
        super.init(format: format, buffers: buffers, bytesPerBuffer: Int(frameCapacity) * Int(d.mBytesPerFrame),
                   channelsPerBuffer: deinterleaved ? 1 : Int(d.mChannelsPerFrame))
        let sampleBytes = Int(d.mBitsPerChannel / 8)
        for c in 0..<Int(d.mChannelsPerFrame) {
            channelPointers[c] = deinterleaved ? list[c].mData! : list[0].mData! + c * sampleBytes
        }
    }

    deinit { channelPointers.deallocate() }

    /// How many frames are valid (at most `frameCapacity`); setting it sets the buffer list's sizes.
    open var frameLength: AVAudioFrameCount {
        get { length }
        set {
            precondition(newValue <= frameCapacity, "AVAudioPCMBuffer: frameLength \(newValue) exceeds frameCapacity \(frameCapacity)")
            length = newValue
            let bytes = UInt32(newValue) * format.streamDescription.pointee.mBytesPerFrame
            for i in 0..<list.count { list[i].mDataByteSize = bytes }
        }
    }

    /// Samples between one frame's sample of a channel and the next frame's: the channel count
    /// when interleaved, else 1.
    open var stride: Int { format.isInterleaved ? Int(format.channelCount) : 1 }

    /// Each channel's float samples (nil unless the format is float32). Interleaved: one pointer
    /// per channel into the one buffer, `stride` apart.
    open var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? { channels(.pcmFormatFloat32) }
    /// Each channel's 16-bit samples (nil unless the format is int16).
    open var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? { channels(.pcmFormatInt16) }
    /// Each channel's 32-bit integer samples (nil unless the format is int32).
    open var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? { channels(.pcmFormatInt32) }

    private func channels<T>(_ wanted: AVAudioCommonFormat) -> UnsafePointer<UnsafeMutablePointer<T>>? {
        guard format.commonFormat == wanted else { return nil }
        return UnsafeRawPointer(channelPointers).assumingMemoryBound(to: UnsafeMutablePointer<T>.self)
    }

}

/// Compressed audio: packets and their descriptions.
open class AVAudioCompressedBuffer: AVAudioBuffer {
    /// How many packets the buffer holds at most.
    public let packetCapacity: AVAudioPacketCount
    /// The largest packet the buffer holds, in bytes.
    public let maximumPacketSize: Int
    /// The packets' descriptions (nil for formats whose packets all have one size).
    public let packetDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
    private var packets: AVAudioPacketCount = 0

    /// A buffer for `packetCapacity` packets of up to `maximumPacketSize` bytes of `format`.
    public init(format: AVAudioFormat, packetCapacity: AVAudioPacketCount, maximumPacketSize: Int) {
        self.packetCapacity = packetCapacity
        self.maximumPacketSize = maximumPacketSize
        let variable = format.streamDescription.pointee.mBytesPerPacket == 0
        packetDescriptions = variable ? .allocate(capacity: max(Int(packetCapacity), 1)) : nil
        packetDescriptions?.initialize(repeating: AudioStreamPacketDescription(), count: max(Int(packetCapacity), 1))
        super.init(format: format, buffers: 1, bytesPerBuffer: Int(packetCapacity) * maximumPacketSize,
                   channelsPerBuffer: Int(format.channelCount))
    }

    /// A buffer for `packetCapacity` packets of a format whose packets have a fixed size.
    public convenience init(format: AVAudioFormat, packetCapacity: AVAudioPacketCount) {
        let size = Int(format.streamDescription.pointee.mBytesPerPacket)
        precondition(size > 0, "AVAudioCompressedBuffer: the format's packets have no fixed size; give maximumPacketSize")
        self.init(format: format, packetCapacity: packetCapacity, maximumPacketSize: size)
    }

    deinit { packetDescriptions?.deallocate() }

    /// How many packets are valid.
    open var packetCount: AVAudioPacketCount {
        get { packets }
        set {
            precondition(newValue <= packetCapacity, "AVAudioCompressedBuffer: packetCount exceeds packetCapacity")
            packets = newValue
        }
    }

    /// The packets' bytes.
    open var data: UnsafeMutableRawPointer { list[0].mData! }
    /// The room for packets, in bytes.
    open var byteCapacity: UInt32 { UInt32(Int(packetCapacity) * maximumPacketSize) }
    /// How many bytes are valid.
    open var byteLength: UInt32 {
        get { list[0].mDataByteSize }
        set { list[0].mDataByteSize = min(newValue, byteCapacity) }
    }
}
