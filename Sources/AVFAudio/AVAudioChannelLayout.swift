// AVAudioChannelLayout: an AudioChannelLayout (what each channel of a format carries).
import CoreAudioTypes
import Foundation

/// Describes the roles of a format's channels: a layout tag (`kAudioChannelLayoutTag_Stereo`…)
/// or, for tag `kAudioChannelLayoutTag_UseChannelDescriptions`/`…UseChannelBitmap`, the full
/// `AudioChannelLayout` structure.
open class AVAudioChannelLayout: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; `storage` owns the layout's bytes.
    private let storage: UnsafeMutableRawPointer
    private let byteCount: Int

    /// A layout with the given tag; nil for `kAudioChannelLayoutTag_UseChannelDescriptions`
    /// (that needs descriptions: use `init(layout:)`).
    public convenience init?(layoutTag: AudioChannelLayoutTag) {
        guard layoutTag != kAudioChannelLayoutTag_UseChannelDescriptions else { return nil }
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = layoutTag
        self.init(layout: &layout)
    }

    /// A layout copied from `layout` (with its channel descriptions).
    public init(layout: UnsafePointer<AudioChannelLayout>) {
        let count = Int(layout.pointee.mNumberChannelDescriptions)
        byteCount = AudioChannelLayout.sizeInBytes(maximumDescriptions: max(count, 1))
        storage = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: MemoryLayout<AudioChannelLayout>.alignment)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        storage.copyMemory(from: UnsafeRawPointer(layout), byteCount: AudioChannelLayout.sizeInBytes(maximumDescriptions: count))
        super.init()
    }

    deinit { storage.deallocate() }

    /// The layout's tag.
    open var layoutTag: AudioChannelLayoutTag { layout.pointee.mChannelLayoutTag }

    /// The layout structure (valid as long as this object lives).
    open var layout: UnsafePointer<AudioChannelLayout> {
        UnsafePointer(storage.assumingMemoryBound(to: AudioChannelLayout.self))
    }

    /// The number of channels the layout describes.
    open var channelCount: AVAudioChannelCount {
        let l = layout.pointee
        switch l.mChannelLayoutTag {
        case kAudioChannelLayoutTag_UseChannelDescriptions: return l.mNumberChannelDescriptions
        case kAudioChannelLayoutTag_UseChannelBitmap: return UInt32(l.mChannelBitmap.rawValue.nonzeroBitCount)
        default: return AudioChannelLayoutTag_GetNumberOfChannels(l.mChannelLayoutTag)
        }
    }

    /// The layout's bytes (for settings dictionaries and format descriptions).
    var layoutData: Data {
        Data(bytes: storage, count: AudioChannelLayout.sizeInBytes(maximumDescriptions: Int(layout.pointee.mNumberChannelDescriptions)))
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioChannelLayout else { return false }
        return layoutData == other.layoutData
    }

    open override var hash: Int { layoutData.hashValue }
}
