// CGColorSpaceModel: the families of colour spaces.

/// The colour space families.
public enum CGColorSpaceModel: Int32, Sendable {
    /// An unknown model.
    case unknown = -1
    /// A greyscale model (one component).
    case monochrome = 0
    /// An RGB model (three components).
    case rgb = 1
    /// A CMYK model (four components).
    case cmyk = 2
    /// A CIE L*a*b* model.
    case lab = 3
    /// A DeviceN model.
    case deviceN = 4
    /// An indexed model: one component indexing a colour table in a base space.
    case indexed = 5
    /// A pattern model.
    case pattern = 6
    /// A CIE XYZ model.
    case XYZ = 7
}
