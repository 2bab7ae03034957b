// VOLK (the Vector-Optimized Library of Kernels, GNU Radio's SIMD kernels picked at run time for
// the CPU: SSE/AVX/NEON): the audio mixer's gain-and-sum, the pixel converter's 'b64a' byte
// order and the audio repacker's big-endian and signed 8-bit samples run through it, so
// per-sample work is vectorised C whatever the client's build configuration. AVFoundation
// (LiveAudioSampleBuffer.swift), AVFAudio
// (AudioGainKernel.swift: both mixers' gains; AudioRenderCore.swift, AudioMixOutput.swift;
// Speech: espeak-ng's 16-bit samples to float) and MediaEngine (PixelRepack.swift, AudioResampler.swift,
// Live/AudioLevelMeter.swift: capture level meters) import
// this module (`internal import CVolk`). The wrappers below only name the kernels:
// VOLK's dispatchers are C function-pointer globals, which Swift 6 would see as shared mutable state.
#include <volk/volk.h>

/// sum[i] += source[i]
static inline void avf_volk_accumulate(float *sum, const float *source, unsigned int count) {
    volk_32f_x2_add_32f(sum, sum, source, count);
}

/// out[i] = source[i] * gain
static inline void avf_volk_scale(float *out, const float *source, float gain, unsigned int count) {
    volk_32f_s32f_multiply_32f(out, source, gain, count);
}

/// out[i] = a[i] * b[i]
static inline void avf_volk_multiply(float *out, const float *a, const float *b, unsigned int count) {
    volk_32f_x2_multiply_32f(out, a, b, count);
}

/// out[i] = source[i] + offset
static inline void avf_volk_offset(float *out, const float *source, float offset, unsigned int count) {
    volk_32f_s32f_add_32f(out, source, offset, count);
}

/// Reverses the 2 bytes of each of `count` 16-bit words, in place.
static inline void avf_volk_byteswap16(uint16_t *words, unsigned int count) {
    volk_16u_byteswap(words, count);
}

/// Reverses the 4 bytes of each of `count` 32-bit words, in place.
static inline void avf_volk_byteswap32(uint32_t *words, unsigned int count) {
    volk_32u_byteswap(words, count);
}

/// out[i] = source[i] * 256 (signed 8-bit → 16-bit)
static inline void avf_volk_convert_8i_16i(int16_t *out, const int8_t *source, unsigned int count) {
    volk_8i_convert_16i(out, source, count);
}

/// out[i] = source[i] >> 8 (signed 16-bit → 8-bit, the top byte)
static inline void avf_volk_convert_16i_8i(int8_t *out, const int16_t *source, unsigned int count) {
    volk_16i_convert_8i(out, source, count);
}

/// Reverses the 8 bytes of each of `count` 64-bit words, in place.
static inline void avf_volk_byteswap64(uint64_t *words, unsigned int count) {
    volk_64u_byteswap(words, count);
}

/// out[i] = max(a[i], b[i])
static inline void avf_volk_max(float *out, const float *a, const float *b, unsigned int count) {
    volk_32f_x2_max_32f(out, a, b, count);
}

/// left[i] = interleaved[2i], right[i] = interleaved[2i + 1] (stereo float frames, as complex pairs)
static inline void avf_volk_deinterleave2(float *left, float *right, const float *interleaved, unsigned int frames) {
    volk_32fc_deinterleave_32f_x2(left, right, (const lv_32fc_t *)interleaved, frames);
}

/// interleaved[2i] = left[i], interleaved[2i + 1] = right[i]
static inline void avf_volk_interleave2(float *interleaved, const float *left, const float *right, unsigned int frames) {
    volk_32f_x2_interleave_32fc((lv_32fc_t *)interleaved, left, right, frames);
}

/// out[i] = source[i] / scale (signed 16-bit → float; scale 32768 gives −1…1)
static inline void avf_volk_convert_16i_32f(float *out, const int16_t *source, float scale, unsigned int count) {
    volk_16i_s32f_convert_32f(out, source, scale, count);
}

/// out[i] = a[i] / b[i]
static inline void avf_volk_divide(float *out, const float *a, const float *b, unsigned int count) {
    volk_32f_x2_divide_32f(out, a, b, count);
}

/// out[i] = min(a[i], b[i])
static inline void avf_volk_min(float *out, const float *a, const float *b, unsigned int count) {
    volk_32f_x2_min_32f(out, a, b, count);
}

/// out[i] = (float)source[i] (32-bit integers → float; exact below 2^24)
static inline void avf_volk_convert_32i_32f(float *out, const int32_t *source, unsigned int count) {
    volk_32i_s32f_convert_32f(out, source, 1.0f, count);
}

/// out[i] = source[i] as a 32-bit integer (for whole-number floats: exact)
static inline void avf_volk_convert_32f_32i(int32_t *out, const float *source, unsigned int count) {
    volk_32f_s32f_convert_32i(out, source, 1.0f, count);
}

/// out[i] = (double)source[i]
static inline void avf_volk_convert_32f_64f(double *out, const float *source, unsigned int count) {
    volk_32f_convert_64f(out, source, count);
}

/// out[i] = (float)source[i]
static inline void avf_volk_convert_64f_32f(float *out, const double *source, unsigned int count) {
    volk_64f_convert_32f(out, source, count);
}

/// out[i] = a[i] + b[i] (doubles)
static inline void avf_volk_add64(double *out, const double *a, const double *b, unsigned int count) {
    volk_64f_x2_add_64f(out, a, b, count);
}

/// out[i] = a[i] * b[i] (doubles)
static inline void avf_volk_multiply64(double *out, const double *a, const double *b, unsigned int count) {
    volk_64f_x2_multiply_64f(out, a, b, count);
}

/// out[i] = min(a[i], b[i]) (doubles)
static inline void avf_volk_min64(double *out, const double *a, const double *b, unsigned int count) {
    volk_64f_x2_min_64f(out, a, b, count);
}
