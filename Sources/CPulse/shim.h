// PulseAudio's client library (libpulse: the asynchronous API on a threaded main loop, and
// libpulse-simple). Only MediaEngine imports this module (`internal import CPulse`): the sound
// side of capture (Capture/PulseDirectory.swift lists sources and watches them come and go,
// Capture/PulseSource.swift records one). The constants below stand in for macros Swift does not
// import (casts, aliases of enum values).
#include <pulse/pulseaudio.h>
#include <pulse/simple.h>
#include <pulse/error.h>

/// PA_INVALID_INDEX
static const uint32_t AVF_PA_INVALID_INDEX = PA_INVALID_INDEX;
/// 32-bit float samples in this machine's byte order.
static const pa_sample_format_t AVF_PA_SAMPLE_FLOAT32NE = PA_SAMPLE_FLOAT32NE;
/// PA_CHANNELS_MAX
static const unsigned AVF_PA_CHANNELS_MAX = PA_CHANNELS_MAX;
