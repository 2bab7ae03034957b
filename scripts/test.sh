#!/usr/bin/env bash
# The whole test suite: installs what the machine lacks (scripts/setup.sh), builds everything
# with its tests, fails on any compiler warning in our own code, then runs every test with the
# capture test services up (scripts/capture-services.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
cd "$ROOT"

# `--sanitize thread` (or address, undefined): the whole suite built and run under that sanitizer,
# in a build directory of its own (.build-thread…), so the normal build is left as it is. Slow
# (ThreadSanitizer: several times the normal run); not what CI runs.
build=(--build-tests)
testing=()
if [[ "${1:-}" == "--sanitize" && -n "${2:-}" ]]; then
    build+=(--sanitize="$2" --scratch-path "$ROOT/.build-$2")
    testing+=(--sanitize="$2" --scratch-path "$ROOT/.build-$2")
    shift 2
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "test: building" >&2
if ! swift build "${build[@]}" >"$log" 2>&1; then
    grep -E "error:" "$log" | head -50 >&2 || tail -50 "$log" >&2
    echo "test: build failed" >&2
    exit 1
fi
# Our own code must build without warnings (dependencies' warnings are not ours to fix).
ours="$(grep -E "^$ROOT/(Sources|Tests)/.*warning:" "$log" | sort -u || true)"
if [[ -n "$ours" ]]; then
    echo "$ours" >&2
    echo "test: compiler warnings in our code (listed above)" >&2
    exit 1
fi
# The services capture tests talk to (a private PulseAudio with a null sink, Xvfb), up for the
# whole run and stopped however it ends (failure, Ctrl-C): the EXIT trap runs on both.
# Services someone started by hand before (scripts/capture-services.sh start) are used and left running.
services="$ROOT/.build/capture-services.env"
export AVFOUNDATION_CAPTURE_SERVICES="$services"
if ! "$ROOT/scripts/capture-services.sh" status; then
    trap 'rm -f "$log"; "$ROOT/scripts/capture-services.sh" stop' EXIT
fi
trap 'exit 130' INT
trap 'exit 143' TERM
echo "test: starting capture services" >&2
if ! "$ROOT/scripts/capture-services.sh" start >/dev/null; then
    echo "test: capture services did not start (see above)" >&2
    exit 1
fi
set -a
# shellcheck disable=SC1090
. "$services"
set +a
swift test --skip-build "${testing[@]}" "$@"
