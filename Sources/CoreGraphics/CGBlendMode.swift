/// How drawn colours combine with the colours already in the context. Drawn through Cairo's
/// operators of the same meaning (the PDF separable and non-separable blend modes and the
/// Porter-Duff operators); `plusDarker` has no Cairo operator and is approximated by `multiply`.
public enum CGBlendMode: Int32, Sendable {
    /// Source over destination.
    case normal = 0
    /// Source × destination.
    case multiply = 1
    /// 1 − (1 − source)(1 − destination).
    case screen = 2
    /// Multiply or screen depending on the destination.
    case overlay = 3
    /// The darker of source and destination.
    case darken = 4
    /// The lighter of source and destination.
    case lighten = 5
    /// Destination brightened to reflect the source.
    case colorDodge = 6
    /// Destination darkened to reflect the source.
    case colorBurn = 7
    /// Darken or lighten depending on the source (diffuse light).
    case softLight = 8
    /// Multiply or screen depending on the source.
    case hardLight = 9
    /// |source − destination|.
    case difference = 10
    /// Like difference with lower contrast.
    case exclusion = 11
    /// The source's hue with the destination's saturation and luminosity.
    case hue = 12
    /// The source's saturation with the destination's hue and luminosity.
    case saturation = 13
    /// The source's hue and saturation with the destination's luminosity.
    case color = 14
    /// The source's luminosity with the destination's hue and saturation.
    case luminosity = 15
    /// R = 0.
    case clear = 16
    /// R = S.
    case copy = 17
    /// R = S × Da.
    case sourceIn = 18
    /// R = S × (1 − Da).
    case sourceOut = 19
    /// R = S × Da + D × (1 − Sa).
    case sourceAtop = 20
    /// R = S × (1 − Da) + D.
    case destinationOver = 21
    /// R = D × Sa.
    case destinationIn = 22
    /// R = D × (1 − Sa).
    case destinationOut = 23
    /// R = S × (1 − Da) + D × Sa.
    case destinationAtop = 24
    /// R = S × (1 − Da) + D × (1 − Sa).
    case xor = 25
    /// R = max(0, 1 − ((1 − D) + (1 − S))) (approximated by `multiply`).
    case plusDarker = 26
    /// R = min(1, S + D).
    case plusLighter = 27
}
