// CGColor: a colour as component values in a colour space, alpha last.

/// A set of components (colour components followed by alpha) that define a colour, with a
/// colour space that says what they mean.
public final class CGColor: @unchecked Sendable, Equatable, CustomStringConvertible {
    /// The colour's space.
    public let colorSpace: CGColorSpace?
    /// The colour components followed by alpha.
    public let components: [CGFloat]?

    /// The components in stable memory for `CGColorGetComponents`, freed with the colour.
    let componentStorage: UnsafeMutablePointer<CGFloat>?

    private init(space: CGColorSpace, raw: [CGFloat]) {
        self.colorSpace = space
        self.components = raw
        let storage = UnsafeMutablePointer<CGFloat>.allocate(capacity: raw.count)
        storage.initialize(from: raw, count: raw.count)
        self.componentStorage = storage
    }

    private convenience init(space: CGColorSpace, clamped values: [CGFloat]) {
        self.init(space: space, raw: values.map { $0.isNaN ? 0 : min(max($0, 0), 1) })
    }

    deinit { componentStorage?.deallocate() }

    /// A colour in the generic RGB colour space.
    public convenience init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        self.init(space: CGColorSpace(name: CGColorSpace.genericRGBName, model: .rgb),
                  clamped: [red, green, blue, alpha])
    }

    /// A colour in the sRGB colour space.
    public convenience init(srgbRed red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        self.init(space: CGColorSpace(name: CGColorSpace.sRGB, model: .rgb), clamped: [red, green, blue, alpha])
    }

    /// A colour in the generic grey colour space.
    public convenience init(gray: CGFloat, alpha: CGFloat) {
        self.init(space: CGColorSpace(name: CGColorSpace.genericGrayGamma2_2, model: .monochrome),
                  clamped: [gray, alpha])
    }

    /// A colour in the generic grey gamma 2.2 colour space.
    public convenience init(genericGrayGamma2_2Gray gray: CGFloat, alpha: CGFloat) {
        self.init(space: CGColorSpace(name: CGColorSpace.genericGrayGamma2_2, model: .monochrome),
                  clamped: [gray, alpha])
    }

    /// A colour in the generic CMYK colour space.
    public convenience init(genericCMYKCyan cyan: CGFloat, magenta: CGFloat, yellow: CGFloat, black: CGFloat,
                            alpha: CGFloat) {
        self.init(space: CGColorSpace(name: CGColorSpace.genericCMYK, model: .cmyk),
                  clamped: [cyan, magenta, yellow, black, alpha])
    }

    /// A colour from `space`'s n component values followed by alpha (n + 1 values are read).
    /// Values are clamped to 0...1. Nil for spaces without components (pattern, unknown); for an
    /// indexed space the single component is an index into its colour table.
    public convenience init?(colorSpace space: CGColorSpace, components: UnsafePointer<CGFloat>) {
        let count = space.numberOfComponents
        guard count > 0 else { return nil }
        var values = Array(UnsafeBufferPointer(start: components, count: count + 1))
        if space.model == .indexed {
            let last = CGFloat(max(space.colorTableCount - 1, 0))
            values[0] = min(max(values[0].isNaN ? 0 : values[0].rounded(), 0), last)
            values[count] = values[count].isNaN ? 0 : min(max(values[count], 0), 1)
            self.init(space: space, raw: values)
            return
        }
        self.init(space: space, clamped: values)
    }

    /// Opaque black in the generic grey space.
    public static let black = CGColor(gray: 0, alpha: 1)
    /// Opaque white in the generic grey space.
    public static let white = CGColor(gray: 1, alpha: 1)
    /// Fully transparent black in the generic grey space.
    public static let clear = CGColor(gray: 0, alpha: 0)

    /// The number of components, alpha included.
    public var numberOfComponents: Int { components?.count ?? 0 }

    /// The alpha component.
    public var alpha: CGFloat { components?.last ?? 0 }

    /// A copy of the colour.
    public func copy() -> CGColor? {
        guard let colorSpace, let components else { return nil }
        return CGColor(space: colorSpace, raw: components)
    }

    /// A copy of the colour with a different alpha (clamped to 0...1).
    public func copy(alpha: CGFloat) -> CGColor? {
        guard let colorSpace, var components else { return nil }
        components[components.count - 1] = alpha.isNaN ? 0 : min(max(alpha, 0), 1)
        return CGColor(space: colorSpace, raw: components)
    }

    /// The colour converted to `space`. Greyscale and RGB spaces convert into each other (grey
    /// becomes equal RGB components; RGB becomes grey by Rec. 601 luma weights) and within each
    /// model the components carry over unchanged; indexed colours convert through their table.
    /// Nil for other conversions (CMYK, Lab, XYZ), which need ICC colour management.
    public func converted(to space: CGColorSpace, intent: CGColorRenderingIntent,
                          options: CFDictionary?) -> CGColor? {
        guard let colorSpace, let components,
              let values = ColorConversion.convert(components, from: colorSpace, to: space)
        else { return nil }
        return CGColor(space: space, raw: values)
    }

    /// Two colours are equal when their spaces and components are equal.
    public static func == (lhs: CGColor, rhs: CGColor) -> Bool {
        lhs === rhs || (lhs.colorSpace == rhs.colorSpace && lhs.components == rhs.components)
    }

    /// A short description: the space and the components.
    public var description: String {
        "<CGColor \(colorSpace?.description ?? "no space") \(components ?? [])>"
    }
}

/// Conversion of colour component values (colour components followed by alpha) between the
/// greyscale, RGB and indexed models, without ICC colour management.
enum ColorConversion {
    /// The Rec. 601 luma of RGB values.
    static func luma(_ r: CGFloat, _ g: CGFloat, _ b: CGFloat) -> CGFloat {
        0.299 * r + 0.587 * g + 0.114 * b
    }

    static func convert(_ values: [CGFloat], from source: CGColorSpace, to destination: CGColorSpace) -> [CGFloat]? {
        var values = values
        var source = source
        if source.model == .indexed, let base = source.baseColorSpace, let table = source.colorTable {
            let n = base.numberOfComponents
            let index = Int(values[0])
            guard index >= 0, (index + 1) * n <= table.count else { return nil }
            values = (0..<n).map { CGFloat(table[index * n + $0]) / 255 } + [values[values.count - 1]]
            source = base
        }
        let alpha = values[values.count - 1]
        switch (source.model, destination.model) {
        case (.rgb, .rgb), (.monochrome, .monochrome), (.cmyk, .cmyk):
            return values
        case (.monochrome, .rgb):
            return [values[0], values[0], values[0], alpha]
        case (.rgb, .monochrome):
            return [luma(values[0], values[1], values[2]), alpha]
        default:
            return nil
        }
    }
}

/// A colour from `space`'s components followed by alpha.
@discardableResult
public func CGColorCreate(_ space: CGColorSpace?, _ components: UnsafePointer<CGFloat>?) -> CGColor? {
    guard let space, let components else { return nil }
    return CGColor(colorSpace: space, components: components)
}
/// A colour in the generic RGB space.
@discardableResult
public func CGColorCreateGenericRGB(_ red: CGFloat, _ green: CGFloat, _ blue: CGFloat, _ alpha: CGFloat) -> CGColor {
    CGColor(red: red, green: green, blue: blue, alpha: alpha)
}
/// A colour in the generic grey space.
@discardableResult
public func CGColorCreateGenericGray(_ gray: CGFloat, _ alpha: CGFloat) -> CGColor {
    CGColor(gray: gray, alpha: alpha)
}
/// A colour in the generic grey gamma 2.2 space.
@discardableResult
public func CGColorCreateGenericGrayGamma2_2(_ gray: CGFloat, _ alpha: CGFloat) -> CGColor {
    CGColor(genericGrayGamma2_2Gray: gray, alpha: alpha)
}
/// A colour in the generic CMYK space.
@discardableResult
public func CGColorCreateGenericCMYK(_ cyan: CGFloat, _ magenta: CGFloat, _ yellow: CGFloat, _ black: CGFloat,
                                     _ alpha: CGFloat) -> CGColor {
    CGColor(genericCMYKCyan: cyan, magenta: magenta, yellow: yellow, black: black, alpha: alpha)
}
/// A colour in the sRGB space.
@discardableResult
public func CGColorCreateSRGB(_ red: CGFloat, _ green: CGFloat, _ blue: CGFloat, _ alpha: CGFloat) -> CGColor {
    CGColor(srgbRed: red, green: green, blue: blue, alpha: alpha)
}
/// A copy of `color`.
@discardableResult
public func CGColorCreateCopy(_ color: CGColor?) -> CGColor? { color?.copy() }
/// A copy of `color` with a different alpha.
@discardableResult
public func CGColorCreateCopyWithAlpha(_ color: CGColor?, _ alpha: CGFloat) -> CGColor? { color?.copy(alpha: alpha) }
/// `color` converted to `space`.
@discardableResult
public func CGColorCreateCopyByMatchingToColorSpace(_ space: CGColorSpace?, _ intent: CGColorRenderingIntent,
                                                    _ color: CGColor?, _ options: CFDictionary?) -> CGColor? {
    guard let space, let color else { return nil }
    return color.converted(to: space, intent: intent, options: options)
}
/// A pointer to `color`'s components (alive as long as the colour); nil for nil.
@discardableResult
public func CGColorGetComponents(_ color: CGColor?) -> UnsafePointer<CGFloat>? {
    color?.componentStorage.map { UnsafePointer($0) }
}
/// The number of components of `color`, alpha included.
@discardableResult
public func CGColorGetNumberOfComponents(_ color: CGColor?) -> Int { color?.numberOfComponents ?? 0 }
/// The alpha of `color`.
@discardableResult
public func CGColorGetAlpha(_ color: CGColor?) -> CGFloat { color?.alpha ?? 0 }
/// The colour space of `color`.
@discardableResult
public func CGColorGetColorSpace(_ color: CGColor?) -> CGColorSpace? { color?.colorSpace }
/// Whether two colours are equal (same space, same components).
@discardableResult
public func CGColorEqualToColor(_ color1: CGColor?, _ color2: CGColor?) -> Bool {
    switch (color1, color2) {
    case (nil, nil): return true
    case let (lhs?, rhs?): return lhs == rhs
    default: return false
    }
}
/// The constant colour named `colorName` (`kCGColorBlack`, `kCGColorWhite`, `kCGColorClear`).
@discardableResult
public func CGColorGetConstantColor(_ colorName: CFString) -> CGColor? {
    switch colorName {
    case kCGColorBlack: return .black
    case kCGColorWhite: return .white
    case kCGColorClear: return .clear
    default: return nil
    }
}
/// The name of opaque black.
nonisolated(unsafe) public let kCGColorBlack: CFString = "kCGColorBlack"
/// The name of opaque white.
nonisolated(unsafe) public let kCGColorWhite: CFString = "kCGColorWhite"
/// The name of transparent black.
nonisolated(unsafe) public let kCGColorClear: CFString = "kCGColorClear"
