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

/* libavfilter, loaded on first use (dlopen), not linked: linking it pulls in ~80 more shared
   libraries and doubles every process's start-up; only the EQ node (AudioFilterGraph) needs it.
   Its headers give the types; the functions come through this table. */
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <dlfcn.h>
#include <pthread.h>

typedef struct {
    AVFilterGraph *(*graph_alloc)(void);
    void (*graph_free)(AVFilterGraph **);
    const AVFilter *(*get_by_name)(const char *);
    int (*graph_create_filter)(AVFilterContext **, const AVFilter *, const char *, const char *, void *, AVFilterGraph *);
    AVFilterInOut *(*inout_alloc)(void);
    void (*inout_free)(AVFilterInOut **);
    int (*graph_parse_ptr)(AVFilterGraph *, const char *, AVFilterInOut **, AVFilterInOut **, void *);
    int (*graph_config)(AVFilterGraph *, void *);
    int (*buffersrc_add_frame_flags)(AVFilterContext *, AVFrame *, int);
    int (*buffersink_get_frame)(AVFilterContext *, AVFrame *);
} cffmpeg_avfilter_api;

typedef struct {
    cffmpeg_avfilter_api api;
    int loaded;
} cffmpeg_avfilter_state;

/* The one table (a function's static: Swift's importer emits those, not header globals). */
static inline cffmpeg_avfilter_state *cffmpeg_avfilter_storage(void) {
    static cffmpeg_avfilter_state state;
    return &state;
}

static inline void cffmpeg_avfilter_load(void) {
    void *lib = dlopen("libavfilter.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    cffmpeg_avfilter_api t;
    *(void **)&t.graph_alloc = dlsym(lib, "avfilter_graph_alloc");
    *(void **)&t.graph_free = dlsym(lib, "avfilter_graph_free");
    *(void **)&t.get_by_name = dlsym(lib, "avfilter_get_by_name");
    *(void **)&t.graph_create_filter = dlsym(lib, "avfilter_graph_create_filter");
    *(void **)&t.inout_alloc = dlsym(lib, "avfilter_inout_alloc");
    *(void **)&t.inout_free = dlsym(lib, "avfilter_inout_free");
    *(void **)&t.graph_parse_ptr = dlsym(lib, "avfilter_graph_parse_ptr");
    *(void **)&t.graph_config = dlsym(lib, "avfilter_graph_config");
    *(void **)&t.buffersrc_add_frame_flags = dlsym(lib, "av_buffersrc_add_frame_flags");
    *(void **)&t.buffersink_get_frame = dlsym(lib, "av_buffersink_get_frame");
    if (!t.graph_alloc || !t.graph_free || !t.get_by_name || !t.graph_create_filter || !t.inout_alloc || !t.inout_free
        || !t.graph_parse_ptr || !t.graph_config || !t.buffersrc_add_frame_flags || !t.buffersink_get_frame) return;
    cffmpeg_avfilter_storage()->api = t;
    cffmpeg_avfilter_storage()->loaded = 1;
}

/* libavfilter's functions, or NULL when libavfilter.so.8 cannot be loaded. */
static inline const cffmpeg_avfilter_api *cffmpeg_avfilter(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cffmpeg_avfilter_load);
    cffmpeg_avfilter_state *state = cffmpeg_avfilter_storage();
    return state->loaded ? &state->api : NULL;
}

/* Macros Swift cannot import. */
static inline int cffmpeg_averror(int e) { return AVERROR(e); }
static inline int cffmpeg_averror_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline long long cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }
#endif
