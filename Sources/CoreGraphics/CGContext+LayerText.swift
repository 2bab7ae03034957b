// CGContext+LayerText: CATextLayer's text as a package primitive for QuartzCore's LayerRenderer —
// runs of text laid out by Pango (fonts through fontconfig, shaping by HarfBuzz) in a box, wrapped
// or not, aligned, truncated, and drawn by Cairo onto a layer surface (BGRA premultiplied).
internal import CCairo

/// One run of text with its attributes, for `CGContext.drawLayerText`.
package struct LayerTextRun: Sendable {
    package var text: String
    /// An Apple font name ("Helvetica", "GillSans-Bold", "Avenir-Heavy").
    package var fontName: String
    package var fontSize: CGFloat
    /// Unpremultiplied device RGB and alpha.
    package var color: (red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat)
    package var underline = false
    package var strikethrough = false
    package var kern: CGFloat = 0
    package init(text: String, fontName: String, fontSize: CGFloat,
                 color: (red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat)) {
        self.text = text
        self.fontName = fontName
        self.fontSize = fontSize
        self.color = color
    }
}

extension CGContext {
    /// Draws `runs` laid out in a box `size` wide and tall whose top-left corner is text space's
    /// origin (x right, y down); `textToDevice` maps text space to device space (y up).
    /// `wrapped` breaks lines at the box width; `alignment` is "left", "right", "center",
    /// "justified" or "natural"; `truncation` "none", "start", "middle", "end" ellipsizes lines
    /// that do not fit. Lines below the box are not drawn. Only on a layer surface layout.
    package func drawLayerText(_ runs: [LayerTextRun], size: CGSize, textToDevice: CGAffineTransform, wrapped: Bool,
                               alignment: String, truncation: String, alpha: CGFloat) {
        guard isLayerSurfaceLayout, let data, alpha > 0, !runs.isEmpty, size.width > 0, size.height > 0,
              size.width.isFinite, size.height.isFinite else { return }
        let t = textToDevice.concatenating(CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: CGFloat(height)))
        guard [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite), t.a * t.d - t.b * t.c != 0 else { return }
        guard let surface = cairo_image_surface_create_for_data(data.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                                 Int32(width), Int32(height), Int32(bytesPerRow))
        else { return }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { return }
        defer { cairo_destroy(cr) }
        var matrix = cairo_matrix_t(xx: Double(t.a), yx: Double(t.b), xy: Double(t.c), yy: Double(t.d),
                                    x0: Double(t.tx), y0: Double(t.ty))
        cairo_set_matrix(cr, &matrix)
        cairo_rectangle(cr, 0, 0, Double(size.width), Double(size.height))
        cairo_clip(cr)
        guard let layout = pango_cairo_create_layout(cr) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        // Text and attributes (byte ranges of the UTF-8 whole).
        var text = ""
        guard let attributes = pango_attr_list_new() else { return }
        defer { pango_attr_list_unref(attributes) }
        for run in runs {
            let start = UInt32(text.utf8.count)
            text += run.text
            let end = UInt32(text.utf8.count)
            guard end > start else { continue }
            func insert(_ attribute: UnsafeMutablePointer<PangoAttribute>?) {
                guard let attribute else { return }
                attribute.pointee.start_index = start
                attribute.pointee.end_index = end
                pango_attr_list_insert(attributes, attribute)
            }
            func channel(_ v: CGFloat) -> UInt16 { UInt16((min(max(v.isNaN ? 0 : v, 0), 1) * 65535).rounded()) }
            if let font = Self.fontDescription(run.fontName, size: run.fontSize) {
                insert(pango_attr_font_desc_new(font))
                pango_font_description_free(font)
            }
            insert(pango_attr_foreground_new(channel(run.color.red), channel(run.color.green), channel(run.color.blue)))
            insert(pango_attr_foreground_alpha_new(max(1, channel(run.color.alpha * alpha))))
            if run.underline { insert(pango_attr_underline_new(Int32(PANGO_UNDERLINE_SINGLE))) }
            if run.strikethrough { insert(pango_attr_strikethrough_new(1)) }
            if run.kern != 0, run.kern.isFinite {
                insert(pango_attr_letter_spacing_new(Int32((run.kern * CGFloat(PANGO_SCALE)).rounded())))
            }
        }
        pango_layout_set_text(layout, text, Int32(text.utf8.count))
        pango_layout_set_attributes(layout, attributes)
        let width = Int32(min(size.width * CGFloat(PANGO_SCALE), 1e9))
        if wrapped {
            pango_layout_set_width(layout, width)
            pango_layout_set_wrap(layout, Int32(PANGO_WRAP_WORD_CHAR))
        } else {
            pango_layout_set_single_paragraph_mode(layout, 0)
            pango_layout_set_width(layout, truncation != "none" || alignment == "center" || alignment == "right"
                                   ? width : -1)
        }
        switch truncation {
        case "start": pango_layout_set_ellipsize(layout, Int32(PANGO_ELLIPSIZE_START))
        case "middle": pango_layout_set_ellipsize(layout, Int32(PANGO_ELLIPSIZE_MIDDLE))
        case "end": pango_layout_set_ellipsize(layout, Int32(PANGO_ELLIPSIZE_END))
        default: break
        }
        if truncation != "none", wrapped {
            // Wrapped and truncated: as many lines as fit, the last one ellipsized.
            pango_layout_set_height(layout, Int32(min(size.height * CGFloat(PANGO_SCALE), 1e9)))
        }
        switch alignment {
        case "center": pango_layout_set_alignment(layout, Int32(PANGO_ALIGN_CENTER))
        case "right": pango_layout_set_alignment(layout, Int32(PANGO_ALIGN_RIGHT))
        default: pango_layout_set_alignment(layout, Int32(PANGO_ALIGN_LEFT))
        }
        pango_cairo_update_layout(cr, layout)
        cairo_move_to(cr, 0, 0)
        pango_cairo_show_layout(cr, layout)
        cairo_surface_flush(surface)
    }

    /// A Pango font description for an Apple font name: the family before the dash (with its
    /// words split: "HelveticaNeue" → "Helvetica Neue"), the weight and style from the suffix.
    private static func fontDescription(_ name: String, size: CGFloat) -> OpaquePointer? {
        guard let description = pango_font_description_new() else { return nil }
        let parts = name.split(separator: "-", maxSplits: 1).map(String.init)
        var family = parts.first ?? "Helvetica"
        // Split CamelCase family names.
        var spaced = ""
        for (i, c) in family.enumerated() {
            if i > 0, c.isUppercase, let previous = spaced.last, previous.isLowercase { spaced.append(" ") }
            spaced.append(c)
        }
        family = spaced.isEmpty ? "Helvetica" : spaced
        if family.hasPrefix(".") || family.lowercased().contains("system") { family = "sans-serif" }
        pango_font_description_set_family(description, family)
        let style = (parts.count > 1 ? parts[1] : "").lowercased()
        if ["bold", "heavy", "black", "semibold", "demibold"].contains(where: { style.contains($0) }) {
            pango_font_description_set_weight(description, Int32(PANGO_WEIGHT_BOLD))
        }
        if style.contains("italic") || style.contains("oblique") {
            pango_font_description_set_style(description, Int32(PANGO_STYLE_ITALIC))
        }
        let points = size.isFinite && size > 0 ? min(size, 4096) : 36
        pango_font_description_set_absolute_size(description, Double(points) * Double(PANGO_SCALE))
        return description
    }
}
