// SDL2's declarations (types, constants) and a table of its functions loaded with dlopen at the
// first use, so processes that never open a window do not load SDL2 and the ~20 libraries it
// needs. Imported by MediaEngine only (`internal import`).
#ifndef AVF_CSDL2_H
#define AVF_CSDL2_H
#include <SDL2/SDL.h>

#pragma clang assume_nonnull begin

/// The SDL2 functions MediaEngine calls, as pointers into the library dlopen loaded.
typedef struct avf_sdl_api {
    __typeof__(SDL_SetHint) *SetHint;
    __typeof__(SDL_InitSubSystem) *InitSubSystem;
    __typeof__(SDL_QuitSubSystem) *QuitSubSystem;
    __typeof__(SDL_GetCurrentVideoDriver) *GetCurrentVideoDriver;
    __typeof__(SDL_GetError) *GetError;
    __typeof__(SDL_CreateWindow) *CreateWindow;
    __typeof__(SDL_DestroyWindow) *DestroyWindow;
    __typeof__(SDL_GetWindowID) *GetWindowID;
    __typeof__(SDL_SetWindowTitle) *SetWindowTitle;
    __typeof__(SDL_SetWindowSize) *SetWindowSize;
    __typeof__(SDL_SetWindowPosition) *SetWindowPosition;
    __typeof__(SDL_CreateRenderer) *CreateRenderer;
    __typeof__(SDL_DestroyRenderer) *DestroyRenderer;
    __typeof__(SDL_GetRendererOutputSize) *GetRendererOutputSize;
    __typeof__(SDL_CreateTexture) *CreateTexture;
    __typeof__(SDL_DestroyTexture) *DestroyTexture;
    __typeof__(SDL_UpdateTexture) *UpdateTexture;
    __typeof__(SDL_UpdateNVTexture) *UpdateNVTexture;
    __typeof__(SDL_SetRenderDrawColor) *SetRenderDrawColor;
    __typeof__(SDL_RenderClear) *RenderClear;
    __typeof__(SDL_RenderCopyEx) *RenderCopyEx;
    __typeof__(SDL_RenderPresent) *RenderPresent;
    __typeof__(SDL_PollEvent) *PollEvent;
    __typeof__(SDL_SetYUVConversionMode) *SetYUVConversionMode;
    __typeof__(SDL_SetTextureBlendMode) *SetTextureBlendMode;
    __typeof__(SDL_SetWindowFullscreen) *SetWindowFullscreen;
} avf_sdl_api;

/// Loads SDL2 (once per process; thread-safe) and returns its function table, or NULL when the
/// library or one of the functions is missing; `avf_sdl_load_error` then says why.
const avf_sdl_api *_Nullable avf_sdl_load(void);

/// Why `avf_sdl_load` returned NULL (empty when it did not).
const char *avf_sdl_load_error(void);

/// The event type of an SDL_Event (a union Swift reads awkwardly).
static inline Uint32 avf_sdl_event_type(const SDL_Event *event) { return event->type; }
/// The window event of an SDL_WINDOWEVENT event, and the window it is for.
static inline Uint8 avf_sdl_window_event(const SDL_Event *event) { return event->window.event; }
static inline Uint32 avf_sdl_window_event_id(const SDL_Event *event) { return event->window.windowID; }
/// A key press: its window, key code (SDLK_*: the character for printable keys) and modifiers.
static inline Uint32 avf_sdl_key_window(const SDL_Event *event) { return event->key.windowID; }
static inline Sint32 avf_sdl_key_code(const SDL_Event *event) { return event->key.keysym.sym; }
static inline Uint16 avf_sdl_key_modifiers(const SDL_Event *event) { return event->key.keysym.mod; }
/// Non-zero when the key press is the keyboard's auto-repeat of a held key.
static inline Uint8 avf_sdl_key_repeat(const SDL_Event *event) { return event->key.repeat; }
/// A mouse button press: its window and where (window pixels, top-left origin).
static inline Uint32 avf_sdl_button_window(const SDL_Event *event) { return event->button.windowID; }
static inline Sint32 avf_sdl_button_x(const SDL_Event *event) { return event->button.x; }
static inline Sint32 avf_sdl_button_y(const SDL_Event *event) { return event->button.y; }
/// A mouse motion: its window.
static inline Uint32 avf_sdl_motion_window(const SDL_Event *event) { return event->motion.windowID; }

#pragma clang assume_nonnull end

#endif
