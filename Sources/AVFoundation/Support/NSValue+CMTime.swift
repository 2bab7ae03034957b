// NSValue boxes for CMTime, CMTimeRange and CMTimeMapping, as AVFoundation adds them on Apple
// platforms (boundary times, loaded time ranges, image generator request times).
import CoreMedia
import Foundation

extension NSValue {
    /// A value holding a `CMTime`.
    public convenience init(time: CMTime) {
        var t = time
        self.init(bytes: &t, objCType: NSValue.timeEncoding)
    }

    /// The `CMTime` this value holds; `.invalid` when it holds something else.
    public var timeValue: CMTime {
        guard String(cString: objCType) == NSValue.timeEncoding else { return .invalid }
        var t = CMTime.invalid
        getValue(&t)
        return t
    }

    /// A value holding a `CMTimeRange`.
    public convenience init(timeRange: CMTimeRange) {
        var r = timeRange
        self.init(bytes: &r, objCType: NSValue.timeRangeEncoding)
    }

    /// The `CMTimeRange` this value holds; `.invalid` when it holds something else.
    public var timeRangeValue: CMTimeRange {
        guard String(cString: objCType) == NSValue.timeRangeEncoding else { return .invalid }
        var r = CMTimeRange.invalid
        getValue(&r)
        return r
    }

    /// A value holding a `CMTimeMapping`.
    public convenience init(timeMapping: CMTimeMapping) {
        var m = timeMapping
        self.init(bytes: &m, objCType: NSValue.timeMappingEncoding)
    }

    /// The `CMTimeMapping` this value holds; `.invalid` when it holds something else.
    public var timeMappingValue: CMTimeMapping {
        guard String(cString: objCType) == NSValue.timeMappingEncoding else { return .invalid }
        var m = CMTimeMapping.invalid
        getValue(&m)
        return m
    }

    // swift-corelibs-foundation's NSValue cannot hold struct encodings ("{?=qiIq}" traps), so the
    // bytes are stored as a byte array whose length identifies the type.
    private static let timeEncoding = "[\(MemoryLayout<CMTime>.size)C]"
    private static let timeRangeEncoding = "[\(MemoryLayout<CMTimeRange>.size)C]"
    private static let timeMappingEncoding = "[\(MemoryLayout<CMTimeMapping>.size)C]"
}
