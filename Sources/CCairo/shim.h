// Cairo (paths, strokes, gradients, clips, shadows' blur source) and Pango with HarfBuzz (text
// layout and shaping in any script, fonts through fontconfig): the rasteriser under CoreGraphics'
// CGContext and, through it, QuartzCore's layers. Only CoreGraphics imports this module
// (`internal import CCairo`), so no Cairo or Pango type leaves it.
//
// cairo.h is found in /usr/include without flags. Pango's headers need include paths (glib,
// harfbuzz, fribidi…) that only pkg-config gives, and its cflags carry -pthread, which SwiftPM
// refuses in a dependency's build (as for libpulse). So the small part of Pango and GObject used
// here is declared below, by hand, exactly as Pango 1.50's headers declare it (a stable C ABI:
// opaque handles, int enums, the public PangoAttribute and PangoRectangle structs), and the
// libraries are linked by name (libpango1.0-dev, libcairo2-dev).
#include <cairo/cairo.h>
#include <stdint.h>

typedef int pango_gboolean;
typedef struct _PangoContext PangoContext;
typedef struct _PangoLayout PangoLayout;
typedef struct _PangoLayoutIter PangoLayoutIter;
typedef struct _PangoFontDescription PangoFontDescription;
typedef struct _PangoAttrList PangoAttrList;
typedef struct _PangoAttrClass PangoAttrClass;
typedef struct _PangoFontMap PangoFontMap;
typedef struct _PangoLayoutLine PangoLayoutLine;

typedef struct _PangoAttribute {
    const PangoAttrClass *klass;
    unsigned int start_index;
    unsigned int end_index;
} PangoAttribute;

typedef struct _PangoRectangle {
    int x;
    int y;
    int width;
    int height;
} PangoRectangle;

enum { PANGO_SCALE = 1024 };
enum { PANGO_ALIGN_LEFT = 0, PANGO_ALIGN_CENTER = 1, PANGO_ALIGN_RIGHT = 2 };
enum { PANGO_WRAP_WORD = 0, PANGO_WRAP_CHAR = 1, PANGO_WRAP_WORD_CHAR = 2 };
enum { PANGO_ELLIPSIZE_NONE = 0, PANGO_ELLIPSIZE_START = 1, PANGO_ELLIPSIZE_MIDDLE = 2, PANGO_ELLIPSIZE_END = 3 };
enum { PANGO_STYLE_NORMAL = 0, PANGO_STYLE_OBLIQUE = 1, PANGO_STYLE_ITALIC = 2 };
enum { PANGO_WEIGHT_NORMAL = 400, PANGO_WEIGHT_BOLD = 700 };
enum { PANGO_UNDERLINE_NONE = 0, PANGO_UNDERLINE_SINGLE = 1 };

// GObject
void g_object_unref(void *object);

// Pango: fonts
PangoFontDescription *pango_font_description_new(void);
PangoFontDescription *pango_font_description_from_string(const char *str);
void pango_font_description_free(PangoFontDescription *desc);
void pango_font_description_set_family(PangoFontDescription *desc, const char *family);
const char *pango_font_description_get_family(const PangoFontDescription *desc);
void pango_font_description_set_size(PangoFontDescription *desc, int size);
void pango_font_description_set_absolute_size(PangoFontDescription *desc, double size);
void pango_font_description_set_weight(PangoFontDescription *desc, int weight);
void pango_font_description_set_style(PangoFontDescription *desc, int style);
char *pango_font_description_to_string(const PangoFontDescription *desc);
void g_free(void *mem);

// Pango: layouts
PangoLayout *pango_layout_new(PangoContext *context);
void pango_layout_set_text(PangoLayout *layout, const char *text, int length);
void pango_layout_set_font_description(PangoLayout *layout, const PangoFontDescription *desc);
void pango_layout_set_attributes(PangoLayout *layout, PangoAttrList *attrs);
void pango_layout_set_width(PangoLayout *layout, int width);
void pango_layout_set_height(PangoLayout *layout, int height);
void pango_layout_set_wrap(PangoLayout *layout, int wrap);
void pango_layout_set_ellipsize(PangoLayout *layout, int ellipsize);
void pango_layout_set_alignment(PangoLayout *layout, int alignment);
void pango_layout_set_single_paragraph_mode(PangoLayout *layout, pango_gboolean setting);
void pango_layout_set_auto_dir(PangoLayout *layout, pango_gboolean auto_dir);
void pango_layout_set_justify(PangoLayout *layout, pango_gboolean justify);
int pango_find_base_dir(const char *text, int length);   // PangoDirection: 1 = RTL, 5 = weak RTL
void pango_layout_get_extents(PangoLayout *layout, PangoRectangle *ink_rect, PangoRectangle *logical_rect);
void pango_layout_get_pixel_extents(PangoLayout *layout, PangoRectangle *ink_rect, PangoRectangle *logical_rect);
int pango_layout_get_baseline(PangoLayout *layout);
int pango_layout_get_line_count(PangoLayout *layout);
int pango_layout_get_unknown_glyphs_count(PangoLayout *layout);
pango_gboolean pango_layout_is_ellipsized(PangoLayout *layout);
pango_gboolean pango_layout_is_wrapped(PangoLayout *layout);
PangoLayoutIter *pango_layout_get_iter(PangoLayout *layout);
void pango_layout_iter_free(PangoLayoutIter *iter);
pango_gboolean pango_layout_iter_next_line(PangoLayoutIter *iter);
int pango_layout_iter_get_baseline(PangoLayoutIter *iter);
void pango_layout_iter_get_line_extents(PangoLayoutIter *iter, PangoRectangle *ink_rect, PangoRectangle *logical_rect);

// Pango: attributes (byte ranges of the UTF-8 text)
PangoAttrList *pango_attr_list_new(void);
void pango_attr_list_unref(PangoAttrList *list);
void pango_attr_list_insert(PangoAttrList *list, PangoAttribute *attr);
PangoAttribute *pango_attr_foreground_new(uint16_t red, uint16_t green, uint16_t blue);
PangoAttribute *pango_attr_foreground_alpha_new(uint16_t alpha);
PangoAttribute *pango_attr_font_desc_new(const PangoFontDescription *desc);
PangoAttribute *pango_attr_underline_new(int underline);
PangoAttribute *pango_attr_strikethrough_new(pango_gboolean strikethrough);
PangoAttribute *pango_attr_letter_spacing_new(int letter_spacing);

// PangoCairo
PangoFontMap *pango_cairo_font_map_get_default(void);
PangoContext *pango_font_map_create_context(PangoFontMap *fontmap);
PangoLayout *pango_cairo_create_layout(cairo_t *cr);
void pango_cairo_update_layout(cairo_t *cr, PangoLayout *layout);
void pango_cairo_show_layout(cairo_t *cr, PangoLayout *layout);
void pango_cairo_layout_path(cairo_t *cr, PangoLayout *layout);
void pango_cairo_context_set_resolution(PangoContext *context, double dpi);
void pango_cairo_context_set_font_options(PangoContext *context, const cairo_font_options_t *options);
