// ReaderPassthroughSource: a track's samples as stored (no decoding), for track outputs with nil
// output settings — compressed sample buffers ready to be written again.
import CoreAudioTypes
import CoreMedia
import Foundation
internal import MediaEngine

/// Produces one sample buffer per stored sample, in decode order, with the track's format
/// description, the container's exact decode and presentation times and durations, and the
/// sample's bytes (the demuxer's packet, byte for byte). Video samples carry
/// `kCMSampleAttachmentKey_NotSync` (non-keyframes), `DependsOnOthers` and, where the container
/// or the H.264 NAL headers tell, `IsDependedOnByOthers`, and `DoNotDisplay` where the edit list
/// does not present the sample (FFmpeg's discard flag); audio samples carry packet
/// descriptions, and `TrimDurationAtStart`/`AtEnd` where a packet reaches outside the range (the
/// encoder priming an edit list skips).
///
/// With `copiesSampleData`, each block buffer owns a copy of the bytes; without, it references
/// the demuxer's packet memory (kept alive by the block buffer, nothing copied).
final class ReaderPassthroughSource: ReaderSampleSource, SegmentStage {
    private let url: URL
    /// The flag the demuxer reads with when a segment walker gives one (to stop it from another
    /// thread); nil: a fresh one per start.
    private let cancellation: DemuxerCancellation?
    private let streamIndex: Int
    private let copiesSampleData: Bool
    private let formatDescription: CMFormatDescription?
    /// Where an edited track's presentation ends in the asset's timeline (+infinity without an
    /// edit list): samples after it are not read, audio trims stop there.
    private let trackEnd: CMTime
    private var packets: PacketSource?
    private var pendingRanges: [CMTimeRange] = []
    private var range = CMTimeRange.invalid
    private var isAudio = false
    private var asbd: AudioStreamBasicDescription?
    /// NAL length field size of length-prefixed H.264 (avcC), to read `nal_ref_idc`.
    private var h264LengthSize: Int?
    /// The time after the last sample, for samples the container gives no time (nil: the
    /// window's clock start).
    private var clock: CMTime?

    init(source: SourceTrack, copiesSampleData: Bool, cancellation: DemuxerCancellation? = nil) {
        url = source.url
        self.cancellation = cancellation
        streamIndex = source.streamIndex
        formatDescription = source.stream.formatDescription
        self.copiesSampleData = copiesSampleData
        trackEnd = source.presentationEnd
    }

    func start(timeRange: CMTimeRange) throws {
        let packets = try ReaderTrackPackets.open(url: url, streamIndex: streamIndex,
                                                   cancellation: cancellation ?? DemuxerCancellation())
        self.packets = packets
        let stream = packets.stream
        isAudio = stream.kind == .audio
        asbd = formatDescription.flatMap { CMAudioFormatDescriptionGetStreamBasicDescription($0)?.pointee }
        // AAC read from inside the track comes with the packet before, marked
        // trimmed whole (TrimDurationAtStart): the decoder needs it for the first shown frames.
        if isAudio, stream.codecName == "aac" { packets.prerollPackets = 1 }
        if stream.codecName == "h264", stream.extradata.count > 4, stream.extradata.first == 1 {
            h264LengthSize = Int(stream.extradata[stream.extradata.startIndex + 4] & 3) + 1
        }
        try reset(timeRanges: [timeRange])
    }

    func reset(timeRanges: [CMTimeRange]) throws {
        pendingRanges = ReaderTrackPackets.clamp(timeRanges, to: trackEnd)
        range = .invalid
        try advance()
    }

    /// Moves to the next range that has samples; leaves `range` invalid when none is left.
    private func advance() throws {
        guard let packets else { return }
        while !pendingRanges.isEmpty {
            let next = pendingRanges.removeFirst()
            if try packets.positionForReading(next) {
                range = next
                clock = nil
                return
            }
        }
        range = .invalid
    }

    func next() throws -> CMSampleBuffer? {
        guard let packets else { return nil }
        while range.isValid {
            if packets.cancellation.isCancelled { return nil }
            if let packet = try packets.nextForReading() {
                return try sampleBuffer(for: packet)
            }
            try advance()
        }
        return nil
    }

    func reposition(to range: CMTimeRange) throws {
        if packets == nil { try start(timeRange: range) } else { try reset(timeRanges: [range]) }
    }

    func cancel() {
        packets?.cancel()
        packets = nil
        pendingRanges = []
        range = .invalid
    }

    // MARK: Sample buffers

    private func sampleBuffer(for packet: DemuxerPacket) throws -> CMSampleBuffer {
        let data = try blockBuffer(for: packet)
        var pts = packet.presentationTime
        var dts = packet.decodeTime
        let duration = packet.duration
        if !pts.isValid, let packets {
            // No time in the container: the samples follow each other from the window's start.
            pts = dts.isValid ? dts : clock ?? packets.clockStart
            if !dts.isValid { dts = pts }
        }
        if duration.isNumeric, pts.isNumeric { clock = max(clock ?? pts, pts + duration) }
        var buffer: CMSampleBuffer?
        if isAudio, let asbd, let formatDescription {
            buffer = audioSampleBuffer(data, packet: packet, pts: pts, asbd: asbd, formatDescription: formatDescription)
        }
        if buffer == nil {
            var timing = CMSampleTimingInfo(duration: duration, presentationTimeStamp: pts, decodeTimeStamp: dts)
            var size = packet.size
            let status = CMSampleBufferCreateReady(allocator: nil, dataBuffer: data, formatDescription: formatDescription,
                                                   sampleCount: 1, sampleTimingEntryCount: 1, sampleTimingArray: &timing,
                                                   sampleSizeEntryCount: 1, sampleSizeArray: &size, sampleBufferOut: &buffer)
            guard status == noErr else { throw Self.failure("cannot make a sample buffer (\(status))", url: url) }
        }
        guard let buffer else { throw Self.failure("cannot make a sample buffer", url: url) }
        if isAudio {
            setTrims(on: buffer, pts: pts, duration: duration, length: CMSampleBufferGetDuration(buffer))
        } else {
            setDependencies(on: buffer, packet: packet)
        }
        return buffer
    }

    /// The packet's bytes: a copy, or a reference to the packet's own memory.
    private func blockBuffer(for packet: DemuxerPacket) throws -> CMBlockBuffer {
        var block: CMBlockBuffer?
        let size = packet.size
        if copiesSampleData || size == 0 {
            let status = CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: size, blockAllocator: nil,
                                                            customBlockSource: nil, offsetToData: 0, dataLength: size,
                                                            flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
            guard status == kCMBlockBufferNoErr, let block else { throw Self.failure("out of memory", url: url) }
            if size > 0 {
                try packet.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress,
                          CMBlockBufferReplaceDataBytes(with: base, blockBuffer: block, offsetIntoDestination: 0,
                                                        dataLength: size) == kCMBlockBufferNoErr else {
                        throw Self.failure("cannot copy a sample", url: url)
                    }
                }
            }
            return block
        }
        // Zero copy: the block is the packet's payload; the block buffer keeps the packet alive and
        // lets it go when it is disposed.
        let owner = Unmanaged.passRetained(packet).toOpaque()
        var source = CMBlockBufferCustomBlockSource(version: kCMBlockBufferCustomBlockSourceVersion, AllocateBlock: nil,
                                                    FreeBlock: { refCon, _, _ in
                                                        if let refCon { Unmanaged<DemuxerPacket>.fromOpaque(refCon).release() }
                                                    }, refCon: owner)
        let base = packet.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress) }
        let status = CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: base, blockLength: size, blockAllocator: kCFAllocatorNull,
                                                        customBlockSource: &source, offsetToData: 0, dataLength: size, flags: 0,
                                                        blockBufferOut: &block)
        guard status == kCMBlockBufferNoErr, let block else {
            Unmanaged<DemuxerPacket>.fromOpaque(owner).release()
            throw Self.failure("cannot reference a sample (\(status))", url: url)
        }
        return block
    }

    /// An audio sample buffer with a packet description (compressed formats) or the packet's
    /// frames (linear PCM); nil when the format cannot describe the packet.
    private func audioSampleBuffer(_ data: CMBlockBuffer, packet: DemuxerPacket, pts: CMTime, asbd: AudioStreamBasicDescription,
                                   formatDescription: CMFormatDescription) -> CMSampleBuffer? {
        var buffer: CMSampleBuffer?
        let size = packet.size
        if asbd.mBytesPerPacket > 0 && asbd.mFramesPerPacket > 0 {
            let count = size / Int(asbd.mBytesPerPacket)
            guard count > 0, count * Int(asbd.mBytesPerPacket) == size else { return nil }
            let status = CMAudioSampleBufferCreateReadyWithPacketDescriptions(
                allocator: nil, dataBuffer: data, formatDescription: formatDescription, sampleCount: count,
                presentationTimeStamp: pts, packetDescriptions: nil, sampleBufferOut: &buffer)
            return status == noErr ? buffer : nil
        }
        var frames: UInt32 = 0
        if asbd.mFramesPerPacket == 0 {
            // Variable frames per packet: the packet's duration in samples.
            guard asbd.mSampleRate > 0, packet.duration.isNumeric else { return nil }
            let samples = CMTimeConvertScale(packet.duration, timescale: Int32(asbd.mSampleRate), method: .roundHalfAwayFromZero)
            guard samples.isNumeric, let n = UInt32(exactly: samples.value), n > 0 else { return nil }
            frames = n
        }
        var description = AudioStreamPacketDescription(mStartOffset: 0, mVariableFramesInPacket: frames, mDataByteSize: UInt32(size))
        let status = CMAudioSampleBufferCreateReadyWithPacketDescriptions(
            allocator: nil, dataBuffer: data, formatDescription: formatDescription, sampleCount: 1,
            presentationTimeStamp: pts, packetDescriptions: &description, sampleBufferOut: &buffer)
        return status == noErr ? buffer : nil
    }

    /// Sync and dependency attachments of a video (or other non-audio) sample.
    private func setDependencies(on buffer: CMSampleBuffer, packet: DemuxerPacket) {
        let attachments = buffer.sampleAttachments[0]
        if packet.isKeyframe {
            attachments[.dependsOnOthers] = kCFBooleanFalse
        } else {
            attachments[.notSync] = kCFBooleanTrue
            attachments[.dependsOnOthers] = kCFBooleanTrue
        }
        if let droppable = isDroppable(packet) {
            attachments[.isDependedOnByOthers] = droppable ? kCFBooleanFalse : kCFBooleanTrue
        }
        // A sample the edit list does not present (read for decoding an edit's first frames, or
        // the keyframe FFmpeg reads after an edit's end, which would present at the next edit's
        // start): returned, as stored, but not to be displayed — as the segment walker marks
        // its decode-only samples.
        if packet.isDiscarded { attachments[.doNotDisplay] = kCFBooleanTrue }
    }

    /// Whether no other sample refers to this one: the container's disposable flag, else for
    /// length-prefixed H.264 whether every slice has `nal_ref_idc` 0; nil when unknown.
    private func isDroppable(_ packet: DemuxerPacket) -> Bool? {
        if packet.isDiscardable { return true }
        guard let lengthSize = h264LengthSize else { return nil }
        return packet.withUnsafeBytes { bytes -> Bool? in
            var offset = 0
            var sawSlice = false
            while offset + lengthSize <= bytes.count {
                var length = 0
                for i in 0..<lengthSize { length = length << 8 | Int(bytes[offset + i]) }
                offset += lengthSize
                guard length > 0, offset + length <= bytes.count else { return nil }
                let header = bytes[offset]
                let type = header & 0x1F
                if type == 1 || type == 5 {
                    if header >> 5 & 3 != 0 { return false }
                    sawSlice = true
                }
                offset += length
            }
            return sawSlice ? true : nil
        }
    }

    /// Trim attachments for an audio packet presenting partly outside the range (or past the
    /// track's end): the priming an edit list skips, the padding after the last sample.
    /// Trims of an audio packet `length` long (its frames, as the buffer counts them) of which
    /// the container shows `duration` (shorter for the last packet of an encoder's stream: the
    /// rest is padding): what lies before the range's start or after its end, the track's edit
    /// or the shown duration.
    private func setTrims(on buffer: CMSampleBuffer, pts: CMTime, duration: CMTime, length: CMTime) {
        let length = length.isNumeric && length > .zero ? length : duration
        guard pts.isNumeric, length.isNumeric, length > .zero else { return }
        let start = max(range.start, .zero)
        var end = min(range.end, trackEnd)
        if duration.isNumeric, duration > .zero, duration < length { end = min(end, pts + duration) }
        let packetEnd = pts + length
        if pts < start {
            let trim = min(length, start - pts)
            CMSetAttachment(buffer, key: kCMSampleBufferAttachmentKey_TrimDurationAtStart,
                            value: CMTimeCopyAsDictionary(trim, allocator: nil), attachmentMode: kCMAttachmentMode_ShouldPropagate)
        }
        if end.isNumeric, packetEnd > end, pts < end {
            CMSetAttachment(buffer, key: kCMSampleBufferAttachmentKey_TrimDurationAtEnd,
                            value: CMTimeCopyAsDictionary(packetEnd - max(end, pts), allocator: nil),
                            attachmentMode: kCMAttachmentMode_ShouldPropagate)
        }
    }

    static func failure(_ reason: String, url: URL?) -> any Error {
        AVError.from(.other(code: 0, message: reason), url: url)
    }
}
