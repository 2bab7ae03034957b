// CGColorSpace: which colours an image's component values mean.

/// A colour space. The named spaces Apple code uses are available by name; on Linux they carry
/// their identity (name, model, component count) for tagging and conversion choices, without
/// ICC colour management.
public final class CGColorSpace: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The space's name, e.g. `CGColorSpace.sRGB`; nil for device and indexed spaces.
    public let name: CFString?
    /// The family of the space.
    public let model: CGColorSpaceModel
    /// The base space of an indexed space; nil otherwise.
    public let baseColorSpace: CGColorSpace?
    /// The colour table of an indexed space: `colorTableCount` entries of the base space's
    /// component count bytes each.
    private let table: [UInt8]

    package init(name: CFString?, model: CGColorSpaceModel) {
        self.name = name
        self.model = model
        self.baseColorSpace = nil
        self.table = []
    }

    /// The named colour space; nil for a name this implementation does not know.
    public convenience init?(name: CFString) {
        guard let model = CGColorSpace.knownNames[name] else { return nil }
        self.init(name: name, model: model)
    }

    /// An indexed colour space: pixel values 0...`last` select entries of `colorTable`, each
    /// holding one byte per component of `baseSpace`. Nil when `last` is outside 0...255 or the
    /// base space is itself indexed or has no components.
    public init?(indexedBaseSpace baseSpace: CGColorSpace, last: Int, colorTable: UnsafePointer<UInt8>) {
        let components = baseSpace.numberOfComponents
        guard (0...255).contains(last), components > 0, baseSpace.model != .indexed,
              baseSpace.model != .pattern else { return nil }
        self.name = nil
        self.model = .indexed
        self.baseColorSpace = baseSpace
        self.table = Array(UnsafeBufferPointer(start: colorTable, count: (last + 1) * components))
    }

    /// The number of colour components (excluding alpha).
    public var numberOfComponents: Int {
        switch model {
        case .monochrome, .indexed: return 1
        case .cmyk: return 4
        case .unknown, .pattern, .deviceN: return 0
        case .rgb, .lab, .XYZ: return 3
        }
    }

    /// True when the space is a wide-gamut RGB space (Display P3, DCI-P3, BT.2020, BT.2100, the
    /// extended-range sRGB spaces).
    public var isWideGamutRGB: Bool {
        guard model == .rgb, let name else { return false }
        return CGColorSpace.wideGamutNames.contains(name)
    }

    /// True when the space can be a drawing destination (greyscale, RGB and CMYK spaces).
    public var supportsOutput: Bool {
        [.monochrome, .rgb, .cmyk].contains(model)
    }

    /// The number of entries in an indexed space's colour table; 0 for other spaces.
    public var colorTableCount: Int {
        guard let baseColorSpace, baseColorSpace.numberOfComponents > 0 else { return 0 }
        return table.count / baseColorSpace.numberOfComponents
    }

    /// The colour table of an indexed space; nil for other spaces.
    public var colorTable: [UInt8]? { model == .indexed ? table : nil }

    /// Two spaces are equal when they are the same object or have the same name, model, base
    /// and colour table.
    public static func == (lhs: CGColorSpace, rhs: CGColorSpace) -> Bool {
        lhs === rhs || (lhs.name == rhs.name && lhs.model == rhs.model
                        && lhs.baseColorSpace == rhs.baseColorSpace && lhs.table == rhs.table)
    }
    /// Hashes the name and model.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(model)
    }
    /// A short description: name (or "device") and model.
    public var description: String { "<CGColorSpace \(name ?? "device") (\(model))>" }

    /// The standard Red Green Blue (sRGB) colour space.
    nonisolated(unsafe) public static let sRGB: CFString = "kCGColorSpaceSRGB"
    /// sRGB primaries with a linear transfer function.
    nonisolated(unsafe) public static let linearSRGB: CFString = "kCGColorSpaceLinearSRGB"
    /// Extended-range sRGB (values outside 0...1 allowed).
    nonisolated(unsafe) public static let extendedSRGB: CFString = "kCGColorSpaceExtendedSRGB"
    /// Extended-range linear sRGB.
    nonisolated(unsafe) public static let extendedLinearSRGB: CFString = "kCGColorSpaceExtendedLinearSRGB"
    /// Generic RGB with a linear transfer function.
    nonisolated(unsafe) public static let genericRGBLinear: CFString = "kCGColorSpaceGenericRGBLinear"
    /// Display P3.
    nonisolated(unsafe) public static let displayP3: CFString = "kCGColorSpaceDisplayP3"
    /// Display P3 with the PQ transfer function.
    nonisolated(unsafe) public static let displayP3_PQ: CFString = "kCGColorSpaceDisplayP3_PQ"
    /// Display P3 with the HLG transfer function.
    nonisolated(unsafe) public static let displayP3_HLG: CFString = "kCGColorSpaceDisplayP3_HLG"
    /// DCI-P3.
    nonisolated(unsafe) public static let dcip3: CFString = "kCGColorSpaceDCIP3"
    /// ITU-R BT.709 (HD video).
    nonisolated(unsafe) public static let itur_709: CFString = "kCGColorSpaceITUR_709"
    /// ITU-R BT.2020.
    nonisolated(unsafe) public static let itur_2020: CFString = "kCGColorSpaceITUR_2020"
    /// ITU-R BT.2100 with the PQ transfer function.
    nonisolated(unsafe) public static let itur_2100_PQ: CFString = "kCGColorSpaceITUR_2100_PQ"
    /// ITU-R BT.2100 with the HLG transfer function.
    nonisolated(unsafe) public static let itur_2100_HLG: CFString = "kCGColorSpaceITUR_2100_HLG"
    /// Adobe RGB (1998).
    nonisolated(unsafe) public static let adobeRGB1998: CFString = "kCGColorSpaceAdobeRGB1998"
    /// ROMM RGB.
    nonisolated(unsafe) public static let rommrgb: CFString = "kCGColorSpaceROMMRGB"
    /// Generic grey with a 2.2 gamma.
    nonisolated(unsafe) public static let genericGrayGamma2_2: CFString = "kCGColorSpaceGenericGrayGamma2_2"
    /// Grey with a linear transfer function.
    nonisolated(unsafe) public static let linearGray: CFString = "kCGColorSpaceLinearGray"
    /// Extended-range grey.
    nonisolated(unsafe) public static let extendedGray: CFString = "kCGColorSpaceExtendedGray"
    /// Extended-range linear grey.
    nonisolated(unsafe) public static let extendedLinearGray: CFString = "kCGColorSpaceExtendedLinearGray"
    /// Generic CMYK.
    nonisolated(unsafe) public static let genericCMYK: CFString = "kCGColorSpaceGenericCMYK"
    /// Generic CIE XYZ.
    nonisolated(unsafe) public static let genericXYZ: CFString = "kCGColorSpaceGenericXYZ"
    /// Generic CIE L*a*b*.
    nonisolated(unsafe) public static let genericLab: CFString = "kCGColorSpaceGenericLab"

    /// The name Core Graphics gives the generic RGB space (`CGColor(red:green:blue:alpha:)`).
    nonisolated(unsafe) static let genericRGBName: CFString = "kCGColorSpaceGenericRGB"
    /// The name Core Graphics gives the generic grey space.
    nonisolated(unsafe) static let genericGrayName: CFString = "kCGColorSpaceGenericGray"

    nonisolated(unsafe) private static let wideGamutNames: Set<CFString> = [
        displayP3, displayP3_PQ, displayP3_HLG, dcip3, itur_2020, itur_2100_PQ, itur_2100_HLG,
        extendedSRGB, extendedLinearSRGB, rommrgb,
    ]

    nonisolated(unsafe) private static let knownNames: [CFString: CGColorSpaceModel] = [
        sRGB: .rgb, linearSRGB: .rgb, extendedSRGB: .rgb, extendedLinearSRGB: .rgb, genericRGBLinear: .rgb,
        displayP3: .rgb, displayP3_PQ: .rgb, displayP3_HLG: .rgb, dcip3: .rgb, itur_709: .rgb, itur_2020: .rgb,
        itur_2100_PQ: .rgb, itur_2100_HLG: .rgb, adobeRGB1998: .rgb, rommrgb: .rgb, genericRGBName: .rgb,
        genericGrayGamma2_2: .monochrome, genericGrayName: .monochrome, linearGray: .monochrome,
        extendedGray: .monochrome, extendedLinearGray: .monochrome,
        genericCMYK: .cmyk, genericXYZ: .XYZ, genericLab: .lab,
    ]
}

/// The device RGB colour space.
@discardableResult
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(name: nil, model: .rgb) }
/// The device grey colour space.
@discardableResult
public func CGColorSpaceCreateDeviceGray() -> CGColorSpace { CGColorSpace(name: nil, model: .monochrome) }
/// The device CMYK colour space.
@discardableResult
public func CGColorSpaceCreateDeviceCMYK() -> CGColorSpace { CGColorSpace(name: nil, model: .cmyk) }
/// A named colour space (`CGColorSpaceCreateWithName`).
@discardableResult
public func CGColorSpaceCreateWithName(_ name: CFString?) -> CGColorSpace? {
    guard let name else { return nil }
    return CGColorSpace(name: name)
}
/// An indexed colour space over `baseSpace` (`CGColorSpaceCreateIndexed`).
@discardableResult
public func CGColorSpaceCreateIndexed(_ baseSpace: CGColorSpace?, _ lastIndex: Int,
                                      _ colorTable: UnsafePointer<UInt8>?) -> CGColorSpace? {
    guard let baseSpace, let colorTable else { return nil }
    return CGColorSpace(indexedBaseSpace: baseSpace, last: lastIndex, colorTable: colorTable)
}
/// The model of `space`; `.unknown` for nil.
@discardableResult
public func CGColorSpaceGetModel(_ space: CGColorSpace?) -> CGColorSpaceModel { space?.model ?? .unknown }
/// The number of colour components of `space`; 0 for nil.
@discardableResult
public func CGColorSpaceGetNumberOfComponents(_ space: CGColorSpace?) -> Int { space?.numberOfComponents ?? 0 }
/// The name of `space`, if it has one.
@discardableResult
public func CGColorSpaceCopyName(_ space: CGColorSpace?) -> CFString? { space?.name }
/// The name of `space`, if it has one (`CGColorSpaceGetName`).
@discardableResult
public func CGColorSpaceGetName(_ space: CGColorSpace?) -> CFString? { space?.name }
/// Whether `space` is a wide-gamut RGB space.
@discardableResult
public func CGColorSpaceIsWideGamutRGB(_ space: CGColorSpace) -> Bool { space.isWideGamutRGB }
/// Whether `space` can be a drawing destination.
@discardableResult
public func CGColorSpaceSupportsOutput(_ space: CGColorSpace) -> Bool { space.supportsOutput }
/// The base space of an indexed space.
@discardableResult
public func CGColorSpaceGetBaseColorSpace(_ space: CGColorSpace?) -> CGColorSpace? { space?.baseColorSpace }
/// The number of entries in an indexed space's colour table.
@discardableResult
public func CGColorSpaceGetColorTableCount(_ space: CGColorSpace?) -> Int { space?.colorTableCount ?? 0 }
/// Copies an indexed space's colour table into `table` (which must hold
/// `colorTableCount × base components` bytes); does nothing for other spaces.
public func CGColorSpaceGetColorTable(_ space: CGColorSpace?, _ table: UnsafeMutablePointer<UInt8>) {
    guard let colorTable = space?.colorTable else { return }
    table.update(from: colorTable, count: colorTable.count)
}
