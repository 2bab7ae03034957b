// Arithmetic on numbers read from files. Sizes, counts, offsets and timestamps in a container are
// untrusted: Swift's `+`, `-` and `*` trap on overflow, so sums and differences of such numbers
// go through these (clamped to the type's range), or through `…ReportingOverflow` where an
// overflow must become an error instead.
extension FixedWidthInteger {
    /// `self + other`, clamped to the type's range.
    package func saturatingAdding(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, clamped to the type's range.
    package func saturatingSubtracting(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }

    /// `self * other`, clamped to the type's range.
    package func saturatingMultiplying(_ other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) != (other < 0) ? .min : .max) : product
    }
}
