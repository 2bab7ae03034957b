// CATextLayer: a layer that draws a plain or attributed string.
import CoreGraphics
import Foundation

/// How text that does not fit is truncated.
public struct CATextLayerTruncationMode: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a mode from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Not truncated (the default).
    public static let none = CATextLayerTruncationMode(rawValue: "none")
    /// Truncated at the start.
    public static let start = CATextLayerTruncationMode(rawValue: "start")
    /// Truncated at the end.
    public static let end = CATextLayerTruncationMode(rawValue: "end")
    /// Truncated in the middle.
    public static let middle = CATextLayerTruncationMode(rawValue: "middle")
}

/// How text is aligned in the layer's bounds.
public struct CATextLayerAlignmentMode: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a mode from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The script's natural alignment (the default).
    public static let natural = CATextLayerAlignmentMode(rawValue: "natural")
    /// Left-aligned.
    public static let left = CATextLayerAlignmentMode(rawValue: "left")
    /// Right-aligned.
    public static let right = CATextLayerAlignmentMode(rawValue: "right")
    /// Centred.
    public static let center = CATextLayerAlignmentMode(rawValue: "center")
    /// Justified.
    public static let justified = CATextLayerAlignmentMode(rawValue: "justified")
}

/// A layer that draws text: a String in its font, size and colour, or an NSAttributedString
/// with its own attributes.
open class CATextLayer: CALayer {
    /// The text: a String or an NSAttributedString.
    open var string: Any? {
        get { get(\.text.string) }
        set { set(\.text.string, newValue) }
    }

    /// The font: a font name (String; default "Helvetica").
    open var font: CFTypeRef? {
        get { get(\.text.font) }
        set { set(\.text.font, newValue) }
    }

    /// The font size (default 36).
    open var fontSize: CGFloat {
        get { get(\.text.fontSize) }
        set { if newValue.isFinite { set(\.text.fontSize, newValue, key: "fontSize") } }
    }

    /// The colour of plain text (default opaque white).
    open var foregroundColor: CGColor? {
        get { get(\.text.foregroundColor) }
        set { set(\.text.foregroundColor, newValue, key: "foregroundColor") }
    }

    /// Whether the text wraps at the bounds' width (default false).
    open var isWrapped: Bool {
        get { get(\.text.isWrapped) }
        set { set(\.text.isWrapped, newValue) }
    }

    /// How text that does not fit is truncated (default `.none`).
    open var truncationMode: CATextLayerTruncationMode {
        get { get(\.text.truncationMode) }
        set { set(\.text.truncationMode, newValue) }
    }

    /// How the text is aligned (default `.natural`).
    open var alignmentMode: CATextLayerAlignmentMode {
        get { get(\.text.alignmentMode) }
        set { set(\.text.alignmentMode, newValue) }
    }

    /// Whether glyph positions are quantised to whole pixels (a hint).
    open var allowsFontSubpixelQuantization: Bool {
        get { get(\.text.allowsFontSubpixelQuantization) }
        set { set(\.text.allowsFontSubpixelQuantization, newValue) }
    }

    /// The size of the text as laid out in the layer's font (wrapped at the bounds' width when
    /// `isWrapped`), plus nothing: what a layer of exactly the text's size needs.
    open override func preferredFrameSize() -> CGSize {
        let tree = renderTree(at: nil)
        guard case .text(let text) = tree.content else { return .zero }
        let size = LayerContentPainter.textSize(text, maxWidth: isWrapped && bounds.width > 0 ? bounds.width : nil)
        return CGSize(width: size.width.rounded(.up), height: size.height.rounded(.up))
    }

    override func subclassValue(forKey key: String) -> Any? {
        switch key {
        case "string": return string
        case "font": return font
        case "fontSize": return NSNumber(value: Double(fontSize))
        case "foregroundColor": return foregroundColor
        case "wrapped", "isWrapped": return NSNumber(value: isWrapped)
        default: return nil
        }
    }

    override func setSubclassValue(_ value: Any?, forKey key: String) -> Bool {
        switch key {
        case "string": string = value
        case "font": font = value.map { $0 as AnyObject }
        case "fontSize": if let v = AnimValue(value)?.scalar { fontSize = CGFloat(v) }
        case "foregroundColor": foregroundColor = value as? CGColor
        case "wrapped", "isWrapped": if let v = AnimValue(value)?.scalar { isWrapped = v != 0 }
        default: return false
        }
        return true
    }
}
