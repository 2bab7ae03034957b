// pixman, the pixel-compositing library under Cairo's image surfaces: CoreGraphics' bitmap
// CGContext draws through it (compositing, scaled and transformed image drawing, coverage masks),
// so per-pixel work runs in an optimised C library whatever the client's build configuration.
// CoreGraphics and MediaEngine (its frame compositor) import this module, each with `internal import
// CPixman`, so no pixman type leaves them.
#include <pixman.h>
