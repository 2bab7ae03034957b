#!/usr/bin/env bash
# Structure-aware fuzzing of the read path through avtool, one process per command, so a trap
# shows as a signal exit instead of taking the driver down.
#
#   scripts/fuzz.sh [COUNT [FIRST [JOBS]]]     (defaults: 200 mutants per seed file, from 0, 2 jobs)
#   environment: FUZZ_DIR (work directory, default a new /tmp/avfuzz.*), FUZZ_TIMEOUT (seconds per
#   command, default 30), FUZZ_AVTOOL (the avtool binary, default .build/debug/avtool)
#
# Seed files (MP4 H.264+AAC, fragmented MP4, MOV with an edit list and metadata, M4A with iTunes
# tags and a cover, MP3 with ID3v2) are made with the ffmpeg CLI; each is mutated COUNT times by
# the engine HostileInputTests uses (Tests/AVFoundationTests/HostileInputMutator.swift, compiled
# here with swiftc): mutant n of seed S is always the same bytes. Every mutant goes through
# `avtool info`, `meta`, `meta --set`, `thumbnails`, `convert` (passthrough, and a re-encode with
# PresetAppleM4A or Preset640x480) and `decode`, each
# with a timeout. Reported: a death by signal (exit >= 128), a hang (timeout), an output left
# behind by a failed write, a modified input, and a failure message that gives no reason.
# Exit status 1 when anything was reported. Needs a debug build (swift build).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COUNT="${1:-200}"
FIRST="${2:-0}"
JOBS="${3:-2}"
TIMEOUT="${FUZZ_TIMEOUT:-30}"
command -v swiftc >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
AVTOOL="${FUZZ_AVTOOL:-$ROOT/.build/debug/avtool}"   # FUZZ_AVTOOL: another build (release, an older one)
[[ -x "$AVTOOL" ]] || { echo "fuzz: $AVTOOL is missing (swift build)" >&2; exit 2; }

WORK="${FUZZ_DIR:-$(mktemp -d /tmp/avfuzz.XXXXXX)}"
mkdir -p "$WORK/seeds" "$WORK/mutants" "$WORK/out"
echo "fuzz: working in $WORK" >&2

MUTATE="$ROOT/.build/fuzz-mutate"
ENGINE="$ROOT/Tests/AVFoundationTests/HostileInputMutator.swift"
RANDOM_ENGINE="$ROOT/Tests/TestSupport/SplitMix64.swift"
if [[ ! -x "$MUTATE" || "$ENGINE" -nt "$MUTATE" || "$RANDOM_ENGINE" -nt "$MUTATE" || "$ROOT/scripts/fuzz/FuzzMutate.swift" -nt "$MUTATE" ]]; then
    swiftc -O -parse-as-library "$ROOT/scripts/fuzz/FuzzMutate.swift" "$ENGINE" "$RANDOM_ENGINE" -o "$MUTATE" || exit 2
fi

# The seed files (the same commands as HostileInputTests.makeSeeds).
F=(ffmpeg -hide_banner -loglevel error -y)
V=(-f lavfi -i testsrc=size=64x48:rate=10:duration=1 -f lavfi -i sine=frequency=440:duration=1
   -c:v libx264 -g 5 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 32k -shortest)
S="$WORK/seeds"
"${F[@]}" "${V[@]}" "$S/plain.mp4" &&
"${F[@]}" "${V[@]}" -movflags frag_keyframe+empty_moov+default_base_moof "$S/fragmented.mp4" &&
"${F[@]}" "${V[@]}" -metadata title=Hostile -metadata artist=Fuzz -metadata comment=Mutant "$S/edited.mov" &&
"${F[@]}" -f lavfi -i testsrc=size=16x16:rate=1:duration=1 -frames:v 1 "$WORK/cover.png" &&
"${F[@]}" -f lavfi -i sine=frequency=440:duration=1 -i "$WORK/cover.png" -map 0 -map 1 -c:a aac -b:a 32k -c:v png \
    -disposition:v attached_pic -metadata title=Hostile -metadata artist=Fuzz -metadata album=Seeds -metadata track=3/9 "$S/tagged.m4a" &&
"${F[@]}" -f lavfi -i sine=frequency=440:duration=1 -i "$WORK/cover.png" -map 0 -map 1 -c:a libmp3lame -b:a 32k -c:v png \
    -disposition:v attached_pic -id3v2_version 3 -metadata title=Hostile -metadata artist=Fuzz -metadata album=Seeds "$S/tagged.mp3" \
    || { echo "fuzz: ffmpeg could not make the seed files" >&2; exit 2; }

LIST="$WORK/mutants.tsv"
: >"$LIST"
# The seeds themselves first: every command must succeed on them (proof the commands work).
for seed in "$S"/*; do cp "$seed" "$WORK/mutants/"; printf '%s\tseed\n' "$WORK/mutants/$(basename "$seed")" >>"$LIST"; done
for seed in "$S"/*; do "$MUTATE" "$seed" "$WORK/mutants" "$FIRST" "$COUNT" >>"$LIST" || exit 2; done

# One mutant through every command; prints one line per problem.
run_one() {
    local file="$1" edits="$2" out="$WORK/out/$(basename "$1")"
    local ext="${file##*.}" before after status
    [[ "$ext" == mp3 ]] && ext=mov   # passthrough of MP3 into .m4a fails in FFmpeg's ipod muxer
    before="$(sha256sum <"$file")"
    check() { # name, status, stderr file, output that must not exist on failure
        local name="$1" status="$2" err="$3" made="${4:-}"
        if [[ "$edits" == seed ]]; then
            # (Audio files have no picture for thumbnails.)
            [[ "$name" == thumbnails && "$file" =~ \.(m4a|mp3)$ ]] || (( status == 0 )) || echo "CONTROL $name $file: exit $status on the unmutated seed: $(tail -1 "$err")"
        elif (( status == 124 || status == 137 )); then echo "HANG $name $file [$edits]"
        elif (( status >= 128 )); then
            # The Swift backtracer names the failure and the first frame in our sources.
            echo "SIGNAL $((status - 128)) $name $file [$edits]: $(grep -m1 -oE '(Swift runtime failure|Fatal error)[^:]*' "$err")" \
                 "$(grep -m1 -oE '[^ ]+ in [^ ]+ at /[^ ]*/Sources/[^ ]*:[0-9]+' "$err" | sed -E 's/ in [^ ]+ at .*\/Sources\// @ /')"
        elif (( status == 64 )); then echo "USAGE $name $file: $(tail -1 "$err")"  # the driver's command line is wrong
        elif (( status != 0 )); then
            [[ -n "$made" && -e "$made" ]] && echo "LEFTOVER $name $file [$edits]: $made ($(stat -c %s "$made") bytes)"
            # A failure must say why: not a bare "Cannot Open", an empty list or a dangling colon.
            grep -qE '(supported: ?\)|: *$|Cannot Open *$|\(\))' "$err" && echo "NOREASON $name $file [$edits]: $(tail -1 "$err")"
        fi
        return 0
    }
    timeout -k 5 "$TIMEOUT" "$AVTOOL" info "$file" >/dev/null 2>"$out.err"; check info $? "$out.err"
    timeout -k 5 "$TIMEOUT" "$AVTOOL" meta "$file" >/dev/null 2>"$out.err"; check meta $? "$out.err"
    timeout -k 5 "$TIMEOUT" "$AVTOOL" meta "$file" --set title=Fuzzed -o "$out.set.$ext" >/dev/null 2>"$out.err"
    check meta-set $? "$out.err" "$out.set.$ext"
    # meta --set writes through a hidden temporary beside OUT: none may remain.
    compgen -G "$WORK/out/.$(basename "$out").set.*" >/dev/null && echo "LEFTOVER meta-set $file [$edits]: temporary file"
    timeout -k 5 "$TIMEOUT" "$AVTOOL" thumbnails "$file" --count 2 -o "$out.thumbs" >/dev/null 2>"$out.err"; check thumbnails $? "$out.err"
    timeout -k 5 "$TIMEOUT" "$AVTOOL" convert -s "$file" -o "$out.conv.$ext" -p PresetPassthrough --quiet >/dev/null 2>"$out.err"
    check convert $? "$out.err" "$out.conv.$ext"
    # A re-encode too (decoders, resampler, encoders, the writer): AAC for audio files, 640x480 for movies.
    local preset=Preset640x480
    [[ "$ext" == m4a || "${file##*.}" == mp3 ]] && preset=PresetAppleM4A && ext=m4a
    timeout -k 5 "$TIMEOUT" "$AVTOOL" convert -s "$file" -o "$out.enc.$ext" -p "$preset" --quiet >/dev/null 2>"$out.err"
    check convert-$preset $? "$out.err" "$out.enc.$ext"
    timeout -k 5 "$TIMEOUT" "$AVTOOL" decode "$file" --format stored >/dev/null 2>"$out.err"; check decode $? "$out.err"
    after="$(sha256sum <"$file")"
    [[ "$before" == "$after" ]] || echo "MODIFIED $file [$edits]"
    rm -rf "$out".*
}
export -f run_one
export WORK AVTOOL TIMEOUT

START=$(date +%s)
REPORT="$WORK/report.txt"
tr '\t' '\n' <"$LIST" | xargs -d '\n' -n 2 -P "$JOBS" bash -c 'run_one "$0" "$1"' >"$REPORT"
N=$(( $(wc -l <"$LIST") - $(ls "$S" | wc -l) ))
echo "fuzz: $N mutants ($COUNT per seed file from $FIRST), $(( $(date +%s) - START )) s" >&2
for kind in SIGNAL HANG LEFTOVER MODIFIED NOREASON CONTROL USAGE; do
    echo "fuzz: $kind $(grep -c "^$kind" "$REPORT")" >&2
done
if [[ -s "$REPORT" ]]; then
    sort "$REPORT" | head -100
    echo "fuzz: full report in $REPORT" >&2
    exit 1
fi
echo "fuzz: clean" >&2
