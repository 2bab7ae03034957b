// pixman, the pixel-compositing library under Cairo's image surfaces: CoreGraphics' bitmap
// CGContext draws through it (compositing, scaled and transformed image drawing, coverage masks),
// so per-pixel work runs in an optimised C library whatever the client's build configuration.
// Only CoreGraphics imports this module (`internal import CPixman`).
#include <pixman.h>
