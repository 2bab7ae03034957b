// CMTime helpers of the kind many apps declare for themselves. Apple's overlay has `+`, `-` and
// the comparisons only, so these must not collide with anything `import AVFoundation` brings.
import AVFoundation

func += (lhs: inout CMTime, rhs: CMTime) {
    lhs = CMTimeAdd(lhs, rhs)
}

func -= (lhs: inout CMTime, rhs: CMTime) {
    lhs = lhs - rhs
}

func * (time: CMTime, multiplier: Int32) -> CMTime {
    return CMTimeMultiply(time, multiplier: multiplier)
}

func * (time: CMTime, multiplier: Float64) -> CMTime {
    return CMTimeMultiplyByFloat64(time, multiplier: multiplier)
}

func *= (time: inout CMTime, multiplier: Int32) {
    time = time * multiplier
}

func / (time: CMTime, divisor: Int32) -> CMTime {
    return CMTimeMultiplyByRatio(time, multiplier: 1, divisor: divisor)
}

enum TimeHelpers {
    static func run() {
        let frame = CMTime(value: 1, timescale: 30)
        var t = CMTime.zero
        for _ in 0..<7 { t += frame }
        t -= frame
        var doubled = t
        doubled *= 2
        let half = CMTimeMake(value: 3, timescale: 1) * 0.5
        let third = CMTime(seconds: 3, preferredTimescale: 600) / 3
        print("cmtime sum=\(t.value)/\(t.timescale) doubled=\(doubled.seconds) half=\(half.seconds) third=\(third.seconds)"
              + " sorted=\(t < doubled && CMTimeCompare(half, third) > 0)")
    }
}
