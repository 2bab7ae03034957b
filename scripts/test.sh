#!/usr/bin/env bash
# The whole test suite: installs what the machine lacks (scripts/setup.sh), builds everything
# with its tests, fails on any compiler warning in our own code, then runs every test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
cd "$ROOT"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "test: building" >&2
if ! swift build --build-tests >"$log" 2>&1; then
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
swift test --skip-build "$@"
