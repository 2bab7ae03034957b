// espeak-ng (the formant speech synthesizer, 1.49+ API) through pkg-config `espeak-ng`: AVFAudio's
// speech synthesis (AVSpeechSynthesizer, AVSpeechSynthesisVoice) speaks through it. Only AVFAudio
// imports this module (`internal import CEspeak`, in Speech/EspeakEngine.swift), and every call goes
// through EspeakEngine's one lock: the library keeps its voice, parameters and callback in globals.
#include <stdio.h>
#include <wchar.h>
#include <espeak-ng/speak_lib.h>
#include <espeak-ng/espeak_ng.h>
