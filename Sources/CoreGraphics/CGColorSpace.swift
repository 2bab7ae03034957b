// CGColorSpace: which colours an image's component values mean.

/// The colour space families.
public enum CGColorSpaceModel: Int32, Sendable {
    case unknown = -1
    case monochrome = 0
    case rgb = 1
    case cmyk = 2
    case lab = 3
    case deviceN = 4
    case indexed = 5
    case pattern = 6
    case XYZ = 7
}

/// A colour space. The named spaces Apple code uses are available by name; on Linux they carry
/// their identity (name, model, component count) for tagging and conversion choices, without
/// ICC colour management.
public final class CGColorSpace: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The space's name, e.g. `CGColorSpace.sRGB`; nil for device spaces.
    public let name: CFString?
    /// The family of the space.
    public let model: CGColorSpaceModel

    package init(name: CFString?, model: CGColorSpaceModel) {
        self.name = name
        self.model = model
    }

    /// The named colour space; nil for a name this implementation does not know.
    public convenience init?(name: CFString) {
        guard let model = CGColorSpace.knownNames[name] else { return nil }
        self.init(name: name, model: model)
    }

    /// The number of colour components (excluding alpha).
    public var numberOfComponents: Int {
        switch model {
        case .monochrome: return 1
        case .cmyk: return 4
        case .unknown, .pattern: return 0
        case .indexed: return 1
        default: return 3
        }
    }

    /// True when the space is wide-gamut (Display P3, BT.2020, extended ranges).
    public var isWideGamutRGB: Bool {
        guard let name else { return false }
        return [CGColorSpace.displayP3, CGColorSpace.itur_2020, CGColorSpace.extendedSRGB,
                CGColorSpace.extendedLinearSRGB, CGColorSpace.dcip3].contains(name)
    }

    public static func == (lhs: CGColorSpace, rhs: CGColorSpace) -> Bool {
        lhs === rhs || (lhs.name == rhs.name && lhs.model == rhs.model)
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(model)
    }
    public var description: String { "<CGColorSpace \(name ?? "device") (\(model))>" }

    public static let sRGB: CFString = "kCGColorSpaceSRGB"
    public static let linearSRGB: CFString = "kCGColorSpaceLinearSRGB"
    public static let extendedSRGB: CFString = "kCGColorSpaceExtendedSRGB"
    public static let extendedLinearSRGB: CFString = "kCGColorSpaceExtendedLinearSRGB"
    public static let genericRGBLinear: CFString = "kCGColorSpaceGenericRGBLinear"
    public static let displayP3: CFString = "kCGColorSpaceDisplayP3"
    public static let dcip3: CFString = "kCGColorSpaceDCIP3"
    public static let itur_709: CFString = "kCGColorSpaceITUR_709"
    public static let itur_2020: CFString = "kCGColorSpaceITUR_2020"
    public static let adobeRGB1998: CFString = "kCGColorSpaceAdobeRGB1998"
    public static let genericGrayGamma2_2: CFString = "kCGColorSpaceGenericGrayGamma2_2"
    public static let linearGray: CFString = "kCGColorSpaceLinearGray"
    public static let extendedGray: CFString = "kCGColorSpaceExtendedGray"
    public static let genericCMYK: CFString = "kCGColorSpaceGenericCMYK"
    public static let genericXYZ: CFString = "kCGColorSpaceGenericXYZ"

    private static let knownNames: [CFString: CGColorSpaceModel] = [
        sRGB: .rgb, linearSRGB: .rgb, extendedSRGB: .rgb, extendedLinearSRGB: .rgb, genericRGBLinear: .rgb,
        displayP3: .rgb, dcip3: .rgb, itur_709: .rgb, itur_2020: .rgb, adobeRGB1998: .rgb,
        genericGrayGamma2_2: .monochrome, linearGray: .monochrome, extendedGray: .monochrome,
        genericCMYK: .cmyk, genericXYZ: .XYZ,
    ]
}

/// The device RGB colour space.
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(name: nil, model: .rgb) }
/// The device grey colour space.
public func CGColorSpaceCreateDeviceGray() -> CGColorSpace { CGColorSpace(name: nil, model: .monochrome) }
/// The device CMYK colour space.
public func CGColorSpaceCreateDeviceCMYK() -> CGColorSpace { CGColorSpace(name: nil, model: .cmyk) }
/// A named colour space (`CGColorSpaceCreateWithName`).
public func CGColorSpaceCreateWithName(_ name: CFString) -> CGColorSpace? { CGColorSpace(name: name) }
