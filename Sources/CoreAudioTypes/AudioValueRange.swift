// A closed range of Float64 values (sample rates, volumes).

/// A range `mMinimum...mMaximum`.
public struct AudioValueRange: Sendable, Equatable {
    /// The low end.
    public var mMinimum: Float64
    /// The high end.
    public var mMaximum: Float64

    /// The range 0...0.
    public init() {
        mMinimum = 0
        mMaximum = 0
    }

    /// A range with both ends given.
    public init(mMinimum: Float64, mMaximum: Float64) {
        self.mMinimum = mMinimum
        self.mMaximum = mMaximum
    }
}
