// Exact CMTime arithmetic the sample buffer needs (sums, offsets, comparisons), kept internal to
// this module so it does not add public CMTime API.

/// Exact arithmetic on numeric CMTimes: results use a common timescale; nil on overflow or
/// when an operand is not a valid numeric time.
enum SampleTime {
    /// kCMTimeInvalid.
    static let invalid = CMTime()
    /// Zero in the given timescale.
    static func zero(_ timescale: CMTimeScale = 1) -> CMTime { CMTime(value: 0, timescale: timescale, flags: .valid, epoch: 0) }

    /// Valid and numeric (not infinite or indefinite).
    static func isNumeric(_ t: CMTime) -> Bool {
        t.flags.contains(.valid) && t.flags.intersection(.impliedValueFlagsMask).isEmpty && t.timescale > 0
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }

    private static func make(_ value: Int128, _ timescale: Int128, _ epoch: CMTimeEpoch) -> CMTime? {
        guard let v = Int64(exactly: value), let s = Int32(exactly: timescale) else { return nil }
        return CMTime(value: v, timescale: s, flags: .valid, epoch: epoch)
    }

    /// `a + sign·b`.
    private static func combine(_ a: CMTime, _ b: CMTime, _ sign: Int128) -> CMTime? {
        guard isNumeric(a), isNumeric(b) else { return nil }
        if a.timescale == b.timescale {
            return make(Int128(a.value) + sign * Int128(b.value), Int128(a.timescale), a.epoch)
        }
        let g = gcd(Int64(a.timescale), Int64(b.timescale))
        let l = Int128(a.timescale) / Int128(g) * Int128(b.timescale)
        let v = Int128(a.value) * (l / Int128(a.timescale)) + sign * Int128(b.value) * (l / Int128(b.timescale))
        return make(v, l, a.epoch)
    }

    /// a + b.
    static func add(_ a: CMTime, _ b: CMTime) -> CMTime? { combine(a, b, 1) }
    /// a − b.
    static func subtract(_ a: CMTime, _ b: CMTime) -> CMTime? { combine(a, b, -1) }
    /// t × n.
    static func multiply(_ t: CMTime, _ n: Int) -> CMTime? {
        guard isNumeric(t) else { return nil }
        return make(Int128(t.value) * Int128(n), Int128(t.timescale), t.epoch)
    }

    /// a < b, for numeric times.
    static func less(_ a: CMTime, _ b: CMTime) -> Bool {
        Int128(a.value) * Int128(b.timescale) < Int128(b.value) * Int128(a.timescale)
    }

    /// A time stored in an attachment: a CMTime dictionary ("value", "timescale", "flags", "epoch").
    static func fromAttachment(_ v: AnyObject?) -> CMTime? {
        guard let d = FormatDescriptionValues.dictionary(v),
              let value = FormatDescriptionValues.number(d["value"]), let scale = FormatDescriptionValues.number(d["timescale"]),
              let flags = FormatDescriptionValues.number(d["flags"]) else { return nil }
        let epoch = FormatDescriptionValues.number(d["epoch"]) ?? 0
        guard let v = Int64(exactly: value), let s = Int32(exactly: scale), let f = UInt32(exactly: flags),
              let e = Int64(exactly: epoch) else { return nil }
        return CMTime(value: v, timescale: s, flags: CMTimeFlags(rawValue: f), epoch: e)
    }
}
