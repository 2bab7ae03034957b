import Foundation

/// A colour gradient: colours at locations from 0 to 1, drawn by
/// `CGContext.drawLinearGradient(_:start:end:options:)`, `drawRadialGradient` and
/// `drawConicGradient`. Colours interpolate linearly (premultiplied, in the context's model).
public final class CGGradient: Sendable {

    /// The stops, sorted by location (0...1).
    let stops: [(location: CGFloat, color: CGColor)]

    /// A gradient of `colors` (CGColor values) at `locations` (nil: evenly spaced from 0 to 1).
    /// Nil when there are no colours.
    public init?(colorsSpace space: CGColorSpace?, colors: CFArray, locations: UnsafePointer<CGFloat>?) {
        var list: [CGColor] = []
        for case let color as CGColor in colors { list.append(color) }
        guard !list.isEmpty else { return nil }
        stops = Self.sorted(list, locations: locations)
    }

    /// A gradient of `count` colours given as components in `space` (each colour's components
    /// followed by its alpha) at `locations` (nil: evenly spaced). Nil when `count` is below 1.
    public init?(colorSpace space: CGColorSpace, colorComponents components: UnsafePointer<CGFloat>,
                 locations: UnsafePointer<CGFloat>?, count: Int) {
        let n = space.numberOfComponents + 1
        guard count > 0, n > 1 else { return nil }
        var list: [CGColor] = []
        for i in 0..<count {
            let values = (0..<n).map { components[i * n + $0] }
            guard let color = CGColor(colorSpace: space, components: values) else { return nil }
            list.append(color)
        }
        stops = Self.sorted(list, locations: locations)
    }

    private static func sorted(_ colors: [CGColor], locations: UnsafePointer<CGFloat>?) -> [(location: CGFloat, color: CGColor)] {
        let count = colors.count
        let stops = colors.enumerated().map { i, color -> (location: CGFloat, color: CGColor) in
            let even = count == 1 ? 0 : CGFloat(i) / CGFloat(count - 1)
            let location = locations.map { $0[i] } ?? even
            return (location.isNaN ? even : min(max(location, 0), 1), color)
        }
        return stops.enumerated().sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
    }
}
