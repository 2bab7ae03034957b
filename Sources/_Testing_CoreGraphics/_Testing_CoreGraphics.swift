// The toolchain's Testing module declares a cross-import overlay for a module named
// CoreGraphics (on Apple platforms it makes CGImage attachable to tests). Because our Core
// Graphics subset uses Apple's module name, any file that imports both Testing and CoreGraphics
// (directly, or through AVFoundation) makes the compiler look for `_Testing_CoreGraphics`. This
// empty module is that overlay: CoreGraphics depends on it, so it is always built beside it and
// clients' test targets compile without extra flags. It deliberately imports nothing, so nothing
// from the Testing library is linked into programs.
