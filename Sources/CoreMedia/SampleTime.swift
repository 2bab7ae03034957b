// The time arithmetic sample buffers need, as thin wrappers over CMTime's own exact arithmetic
// (CMTimeAdd, CMTimeMultiply, CMTimeCompare, CMTimeMakeFromDictionary) that answer nil where a
// result is not a plain numeric time, so timing code can fall back explicitly.

/// Numeric-only views of CMTime arithmetic for sample-buffer timing.
enum SampleTime {
    /// kCMTimeInvalid.
    static let invalid = CMTime.invalid
    /// Zero in the given timescale.
    static func zero(_ timescale: CMTimeScale = 1) -> CMTime { CMTime(value: 0, timescale: timescale) }

    /// Valid and numeric (not infinite or indefinite).
    static func isNumeric(_ t: CMTime) -> Bool { t.isNumeric }

    /// a + b, when both are numeric and the sum is.
    static func add(_ a: CMTime, _ b: CMTime) -> CMTime? { numeric(a, b) { CMTimeAdd(a, b) } }
    /// a − b, when both are numeric and the difference is.
    static func subtract(_ a: CMTime, _ b: CMTime) -> CMTime? { numeric(a, b) { CMTimeSubtract(a, b) } }
    /// t × n, when t is numeric and the product is.
    static func multiply(_ t: CMTime, _ n: Int) -> CMTime? {
        guard let m = Int32(exactly: n) else { return nil }
        return numeric(t, t) { CMTimeMultiply(t, multiplier: m) }
    }
    /// a < b, by exact rational value.
    static func less(_ a: CMTime, _ b: CMTime) -> Bool { CMTimeCompare(a, b) < 0 }

    /// A time stored in an attachment as a CMTime dictionary (CMTimeCopyAsDictionary's shape).
    static func fromAttachment(_ v: AnyObject?) -> CMTime? {
        guard let d = v as? NSDictionary else { return nil }
        let t = CMTimeMakeFromDictionary(d)
        return t.isValid ? t : nil
    }

    private static func numeric(_ a: CMTime, _ b: CMTime, _ op: () -> CMTime) -> CMTime? {
        guard a.isNumeric, b.isNumeric else { return nil }
        let r = op()
        return r.isNumeric ? r : nil
    }
}
