#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/buffer.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

/* Macros Swift cannot import. */
static inline int cffmpeg_averror(int e) { return AVERROR(e); }
static inline int cffmpeg_averror_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline long long cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }
#endif
