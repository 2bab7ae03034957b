// Rubber Band (Breakfast Quay's time-stretching and pitch-shifting library, through its C API):
// scaled audio edits are time-stretched with it so they keep their pitch, as Apple's Spectral and
// TimeDomain time-pitch algorithms do. Only AVFoundation imports this module
// (`internal import CRubberBand`), in AudioTimeStretcher.swift.
#include <rubberband/rubberband-c.h>
