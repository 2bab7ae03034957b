// zbar's image scanner (libzbar0), imported by MediaEngine only.
#ifndef AVF_CZBAR_SHIM_H
#define AVF_CZBAR_SHIM_H
#include <zbar.h>

/// The FourCC of an 8-bit grey image ('Y800'); zbar_fourcc is a macro Swift cannot import.
static const unsigned long AVF_ZBAR_Y800 = 0x30303859UL;
#endif
