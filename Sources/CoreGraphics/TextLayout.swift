// Text for CATextLayer and ported drawing code: a Pango layout (shaped by HarfBuzz, fonts found
// by fontconfig with per-script fallback) drawn through Cairo into a CGContext.
internal import CCairo
import Foundation

/// Laid-out text: runs of styled text, wrapped or truncated to a width, aligned, measured and
/// drawn into a context with its first line at the top of a rectangle (y up user space).
package final class TextLayout {
    /// A stretch of text in one style.
    package struct Run: Sendable {
        /// The characters.
        package var text: String
        /// An Apple font name ("Helvetica-Bold", "AvenirNext-DemiBold", "System"…), mapped by
        /// `FontSubstitution`.
        package var fontName: String
        /// The font size in user-space units (points).
        package var fontSize: CGFloat
        /// The colour; nil is opaque white (CATextLayer's default foreground colour).
        package var color: CGColor?
        /// A single underline.
        package var underline: Bool
        /// A line through the middle.
        package var strikethrough: Bool
        /// Extra space after each character, in user-space units.
        package var kern: CGFloat

        package init(text: String, fontName: String = "Helvetica", fontSize: CGFloat = 36, color: CGColor? = nil,
                     underline: Bool = false, strikethrough: Bool = false, kern: CGFloat = 0) {
            self.text = text
            self.fontName = fontName
            self.fontSize = fontSize
            self.color = color
            self.underline = underline
            self.strikethrough = strikethrough
            self.kern = kern
        }
    }

    /// Horizontal placement of lines.
    package enum Alignment: Sendable {
        /// Left for left-to-right paragraphs, right for right-to-left ones.
        case natural, left, right, center, justified
    }

    /// Where text that does not fit is cut (with an ellipsis).
    package enum Truncation: Sendable {
        case none, start, middle, end
    }

    // The Pango objects (GObjects, owned here).
    private let context: OpaquePointer
    private let layout: OpaquePointer
    private let isEmpty: Bool
    private let constrained: Bool
    private let alignment: Alignment
    /// Whether the text's first strong character is right-to-left.
    private let isRightToLeft: Bool

    /// Lays out `runs`. With `maxWidth`, text wraps at that width when `wraps` (words, then
    /// characters) and is cut with an ellipsis per `truncation` (then on one line when not
    /// wrapping, on the last line otherwise).
    package init(runs: [Run], maxWidth: CGFloat? = nil, wraps: Bool = false, alignment: Alignment = .natural,
                 truncation: Truncation = .none) {
        let fontMap = pango_cairo_font_map_get_default()
        let pangoContext: OpaquePointer = pango_font_map_create_context(fontMap)
        context = pangoContext
        // Unhinted, unquantised metrics: the same layout at any scale or transform.
        if let options = cairo_font_options_create() {
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            pango_cairo_context_set_font_options(pangoContext, options)
            cairo_font_options_destroy(options)
        }
        let layout: OpaquePointer = pango_layout_new(pangoContext)
        self.layout = layout
        self.alignment = alignment
        var utf8: [UInt8] = []
        let attributes = pango_attr_list_new()
        for run in runs {
            let start = UInt32(utf8.count)
            // NUL would end the C string early; drop it.
            utf8.append(contentsOf: run.text.utf8.filter { $0 != 0 })
            let end = UInt32(utf8.count)
            guard end > start else { continue }
            func insert(_ attribute: UnsafeMutablePointer<PangoAttribute>?) {
                guard let attribute else { return }
                attribute.pointee.start_index = start
                attribute.pointee.end_index = end
                pango_attr_list_insert(attributes, attribute)
            }
            let face = FontSubstitution.face(for: run.fontName)
            if let description = pango_font_description_new() {
                pango_font_description_set_family(description, face.family)
                pango_font_description_set_weight(description, Int32(face.weight))
                pango_font_description_set_style(description, face.italic ? Int32(PANGO_STYLE_ITALIC) : Int32(PANGO_STYLE_NORMAL))
                let size = run.fontSize.isFinite ? min(max(run.fontSize, 0.1), 10_000) : 12
                pango_font_description_set_absolute_size(description, Double(size) * Double(PANGO_SCALE))
                insert(pango_attr_font_desc_new(description))
                pango_font_description_free(description)
            }
            let rgba = Self.rgba(run.color)
            func channel(_ v: CGFloat) -> UInt16 { UInt16((min(max(v, 0), 1) * 65535).rounded()) }
            insert(pango_attr_foreground_new(channel(rgba[0]), channel(rgba[1]), channel(rgba[2])))
            if rgba[3] < 1 { insert(pango_attr_foreground_alpha_new(channel(rgba[3]))) }
            if run.underline { insert(pango_attr_underline_new(Int32(PANGO_UNDERLINE_SINGLE))) }
            if run.strikethrough { insert(pango_attr_strikethrough_new(1)) }
            if run.kern != 0, run.kern.isFinite {
                insert(pango_attr_letter_spacing_new(Int32(min(max(run.kern, -1000), 1000) * CGFloat(PANGO_SCALE))))
            }
        }
        isEmpty = utf8.isEmpty
        utf8.append(0)
        isRightToLeft = utf8.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                pango_layout_set_text(layout, $0, Int32(buffer.count - 1))
                let direction = pango_find_base_dir($0, Int32(buffer.count - 1))
                return direction == 1 || direction == 5
            }
        }
        pango_layout_set_attributes(layout, attributes)
        pango_attr_list_unref(attributes)
        let width = maxWidth.flatMap { $0.isFinite && $0 > 0 ? min($0, 1_000_000) : nil }
        constrained = width != nil && (wraps || truncation != .none)
        if let width, constrained {
            pango_layout_set_width(layout, Int32(width * CGFloat(PANGO_SCALE)))
            pango_layout_set_wrap(layout, Int32(PANGO_WRAP_WORD_CHAR))
        }
        switch truncation {
        case .none: pango_layout_set_ellipsize(layout, Int32(PANGO_ELLIPSIZE_NONE))
        case .start: pango_layout_set_ellipsize(layout, Int32(PANGO_ELLIPSIZE_START))
        case .middle: pango_layout_set_ellipsize(layout, Int32(PANGO_ELLIPSIZE_MIDDLE))
        case .end: pango_layout_set_ellipsize(layout, Int32(PANGO_ELLIPSIZE_END))
        }
        if truncation != .none && !wraps {
            pango_layout_set_height(layout, 0)   // one line per paragraph, then truncate
            pango_layout_set_single_paragraph_mode(layout, 1)
        }
        switch alignment {
        case .natural:
            pango_layout_set_alignment(layout, Int32(PANGO_ALIGN_LEFT))   // auto-dir: RTL paragraphs go right
        case .justified:
            pango_layout_set_alignment(layout, Int32(PANGO_ALIGN_LEFT))
            pango_layout_set_justify(layout, 1)
        case .left:
            pango_layout_set_auto_dir(layout, 0)
            pango_layout_set_alignment(layout, Int32(PANGO_ALIGN_LEFT))
        case .right:
            pango_layout_set_auto_dir(layout, 0)
            pango_layout_set_alignment(layout, Int32(PANGO_ALIGN_RIGHT))
        case .center:
            pango_layout_set_auto_dir(layout, 0)
            pango_layout_set_alignment(layout, Int32(PANGO_ALIGN_CENTER))
        }
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(layout))
        g_object_unref(UnsafeMutableRawPointer(context))
    }

    /// A colour as device RGBA (nil: opaque white; colours that do not convert: opaque white).
    private static func rgba(_ color: CGColor?) -> [CGFloat] {
        guard let color, let space = color.colorSpace, let components = color.components,
              let rgb = ColorConversion.convert(components, from: space, to: CGColorSpace(name: nil, model: .rgb))
        else { return [1, 1, 1, 1] }
        return [CGFloat(rgb[0]), CGFloat(rgb[1]), CGFloat(rgb[2]), color.alpha.isNaN ? 0 : color.alpha]
    }

    /// The logical extents in Pango units.
    private var logical: PangoRectangle {
        var rect = PangoRectangle()
        pango_layout_get_extents(layout, nil, &rect)
        return rect
    }

    /// The logical size of the text (line boxes, not ink); zero for empty text.
    package var size: CGSize {
        guard !isEmpty else { return .zero }
        let r = logical
        return CGSize(width: CGFloat(r.width) / CGFloat(PANGO_SCALE), height: CGFloat(r.height) / CGFloat(PANGO_SCALE))
    }

    /// The number of lines (0 for empty text).
    package var lineCount: Int { isEmpty ? 0 : Int(pango_layout_get_line_count(layout)) }

    /// How many glyphs no installed font has (drawn as boxes).
    package var unknownGlyphCount: Int { isEmpty ? 0 : Int(pango_layout_get_unknown_glyphs_count(layout)) }

    /// The distance from the top of the layout to the first line's baseline.
    package var baseline: CGFloat { isEmpty ? 0 : CGFloat(pango_layout_get_baseline(layout)) / CGFloat(PANGO_SCALE) }

    /// Whether truncation cut some text.
    package var isTruncated: Bool { pango_layout_is_ellipsized(layout) != 0 }

    /// Draws the text into `rect` (user space, y up): the first line at the top (`rect.maxY`),
    /// glyphs upright, lines aligned within `rect.width`, clipped to `rect`. Honours the
    /// context's clip, alpha, blend mode and shadow.
    package func draw(in context: CGContext, in rect: CGRect) {
        let r = rect.standardized
        guard !isEmpty, !r.isNull, r.width > 0, r.height > 0, r.width.isFinite, r.height.isFinite,
              r.minX.isFinite, r.minY.isFinite else { return }
        let t = context.ctm
        let determinant = t.a * t.d - t.b * t.c
        guard determinant != 0, determinant.isFinite else { return }
        // Without a layout width Pango aligns lines to the widest; place that block in the rect.
        var dx: CGFloat = 0
        if !constrained {
            let extents = logical
            let blockWidth = CGFloat(extents.width) / CGFloat(PANGO_SCALE)
            let x0 = CGFloat(extents.x) / CGFloat(PANGO_SCALE)
            let slack = r.width - blockWidth
            switch alignment {
            case .left: dx = -x0
            case .right: dx = slack - x0
            case .center: dx = slack / 2 - x0
            case .natural, .justified:
                dx = isRightToLeft ? slack - x0 : -x0
            }
        }
        let user = context.userMatrix
        let layout = self.layout
        let bounds = r.applying(context.ctm).applying(context.deviceToTarget)
        context.render(bounds: bounds) { cr in
            var m = user
            cairo_set_matrix(cr, &m)
            cairo_translate(cr, Double(r.minX), Double(r.maxY))
            cairo_scale(cr, 1, -1)
            cairo_rectangle(cr, 0, 0, Double(r.width), Double(r.height))
            cairo_clip(cr)
            cairo_move_to(cr, Double(dx), 0)
            pango_cairo_show_layout(cr, layout)
        }
    }
}
