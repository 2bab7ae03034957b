// Loads SDL2 with dlopen and fills the function table (see include/CSDL2.h).
#include "CSDL2.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static avf_sdl_api api;
static const avf_sdl_api *loaded = NULL;
static char error_text[512] = "";
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libSDL2-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(error_text, sizeof error_text, "cannot load SDL2 (libSDL2-2.0.so.0): %s", why ? why : "unknown error");
        return;
    }
#define AVF_SDL_SYMBOL(field, name)                                                                          \
    do {                                                                                                     \
        *(void **)(&api.field) = dlsym(library, name);                                                       \
        if (api.field == NULL) {                                                                             \
            snprintf(error_text, sizeof error_text, "SDL2 (libSDL2-2.0.so.0) lacks %s: 2.0.16 or newer is needed", name); \
            return;                                                                                          \
        }                                                                                                    \
    } while (0)
    AVF_SDL_SYMBOL(SetHint, "SDL_SetHint");
    AVF_SDL_SYMBOL(InitSubSystem, "SDL_InitSubSystem");
    AVF_SDL_SYMBOL(QuitSubSystem, "SDL_QuitSubSystem");
    AVF_SDL_SYMBOL(GetCurrentVideoDriver, "SDL_GetCurrentVideoDriver");
    AVF_SDL_SYMBOL(GetError, "SDL_GetError");
    AVF_SDL_SYMBOL(CreateWindow, "SDL_CreateWindow");
    AVF_SDL_SYMBOL(DestroyWindow, "SDL_DestroyWindow");
    AVF_SDL_SYMBOL(GetWindowID, "SDL_GetWindowID");
    AVF_SDL_SYMBOL(SetWindowTitle, "SDL_SetWindowTitle");
    AVF_SDL_SYMBOL(SetWindowSize, "SDL_SetWindowSize");
    AVF_SDL_SYMBOL(SetWindowPosition, "SDL_SetWindowPosition");
    AVF_SDL_SYMBOL(CreateRenderer, "SDL_CreateRenderer");
    AVF_SDL_SYMBOL(DestroyRenderer, "SDL_DestroyRenderer");
    AVF_SDL_SYMBOL(GetRendererOutputSize, "SDL_GetRendererOutputSize");
    AVF_SDL_SYMBOL(CreateTexture, "SDL_CreateTexture");
    AVF_SDL_SYMBOL(DestroyTexture, "SDL_DestroyTexture");
    AVF_SDL_SYMBOL(UpdateTexture, "SDL_UpdateTexture");
    AVF_SDL_SYMBOL(UpdateNVTexture, "SDL_UpdateNVTexture");
    AVF_SDL_SYMBOL(SetRenderDrawColor, "SDL_SetRenderDrawColor");
    AVF_SDL_SYMBOL(RenderClear, "SDL_RenderClear");
    AVF_SDL_SYMBOL(RenderCopyEx, "SDL_RenderCopyEx");
    AVF_SDL_SYMBOL(RenderPresent, "SDL_RenderPresent");
    AVF_SDL_SYMBOL(PollEvent, "SDL_PollEvent");
    AVF_SDL_SYMBOL(SetYUVConversionMode, "SDL_SetYUVConversionMode");
    AVF_SDL_SYMBOL(SetTextureBlendMode, "SDL_SetTextureBlendMode");
    AVF_SDL_SYMBOL(SetWindowFullscreen, "SDL_SetWindowFullscreen");
#undef AVF_SDL_SYMBOL
    loaded = &api;
}

const avf_sdl_api *avf_sdl_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *avf_sdl_load_error(void) {
    pthread_once(&once, load);
    return error_text;
}
