#!/usr/bin/env bash
# The services capture tests need, private to one test run: a PulseAudio daemon with a null sink
# (`avf_null`; its monitor `avf_null.monitor` records what is played into it) and an Xvfb X server
# (1920×1080×24, MIT-SHM and XFIXES) on a free display number. Nothing touches a user's session:
# PulseAudio runs with its own configuration, home, runtime directory and socket in a fresh
# temporary directory; Xvfb picks a display nobody uses and listens on no TCP port.
#
#   scripts/capture-services.sh start   start both (again: nothing to do while they run); prints
#                                       the services file's path
#   scripts/capture-services.sh stop    stop the processes it started (by PID) and clean up
#   scripts/capture-services.sh status  exit 0 when both run
#
# The services file (default .build/capture-services.env; AVFOUNDATION_CAPTURE_SERVICES overrides)
# holds shell assignments tests read: PULSE_SERVER, DISPLAY, the PIDs and the runtime directory.
# Works as root and as a normal user. A missing program or a service that does not come up within
# 15 s stops the script with a message saying which (exit 1), never a hang.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FILE="${AVFOUNDATION_CAPTURE_SERVICES:-$ROOT/.build/capture-services.env}"
TIMEOUT=15

say() { echo "capture-services: $*" >&2; }
die() { echo "capture-services: error: $*" >&2; exit 1; }

# The value of KEY in the services file (empty when absent).
field() { [[ -f "$FILE" ]] && sed -n "s/^$1=//p" "$FILE" | head -1 | tr -d "'" || true; }

# Whether PID runs the program NAME (a PID alone may have been reused by something else).
runs() {
    local pid="$1" name="$2"
    [[ "$pid" =~ ^[0-9]+$ ]] && [[ -r "/proc/$pid/cmdline" ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$name"
}

running() {
    local xvfb pulse dir
    xvfb="$(field AVF_XVFB_PID)"; pulse="$(field AVF_PULSE_PID)"; dir="$(field AVF_CAPTURE_RUNTIME)"
    [[ -n "$dir" ]] && runs "$xvfb" Xvfb && runs "$pulse" "$dir/ci.pa"
}

# Stops PID if it still runs NAME — or, with OWN, if it is alive at all (a child this script
# started and has not reaped cannot have been reused): TERM, up to 5 s, then KILL.
stop_pid() {
    local pid="$1" name="$2" own="${3:-}"
    check() { if [[ -n "$own" ]]; then [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; else runs "$pid" "$name"; fi; }
    check || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do
        check || return 0
        # A child of ours that exited stays a zombie until we exit: it is stopped.
        [[ -n "$own" && "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" == Z ]] && return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
}

# Stops the services in the file and removes it; `stop own` from the script that started them.
stop() {
    [[ -f "$FILE" ]] || return 0
    local dir own="${1:-}"
    dir="$(field AVF_CAPTURE_RUNTIME)"
    # pacat drains its buffer on TERM: it is killed.
    local pacat; pacat="$(field AVF_PACAT_PID)"
    if [[ -n "$own" ]] && [[ "$pacat" =~ ^[0-9]+$ ]] || runs "$pacat" avf-keepalive; then kill -KILL "$pacat" 2>/dev/null || true; fi
    stop_pid "$(field AVF_PULSE_PID)" "${dir:-/nonexistent}/ci.pa" "$own"
    stop_pid "$(field AVF_XVFB_PID)" Xvfb "$own"
    # Only a directory this script made (its name says so) is removed.
    if [[ -n "$dir" && -d "$dir" && "$(basename "$dir")" == avf-capture.* ]]; then rm -rf "$dir"; fi
    rm -f "$FILE"
}

start() {
    if running; then
        echo "$FILE"
        return 0
    fi
    stop   # a stale file from a run that was killed
    local missing=()
    for tool in Xvfb:xvfb xdpyinfo:x11-utils pulseaudio:pulseaudio pactl:pulseaudio-utils; do
        command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool%%:*} (apt package ${tool#*:})")
    done
    (( ${#missing[@]} == 0 )) || die "missing ${missing[*]}; run scripts/setup.sh"

    # The socket's path must fit a sockaddr_un (108 bytes): a long TMPDIR is passed over for /tmp.
    local dir base="${TMPDIR:-/tmp}"
    (( ${#base} <= 60 )) || base=/tmp
    dir="$(mktemp -d "$base/avf-capture.XXXXXX")"
    chmod 700 "$dir"
    mkdir -m 700 "$dir/pulse" "$dir/xdg" "$dir/home"
    mkdir -p "$(dirname "$FILE")"
    # Written before anything starts, so that `stop` cleans up after a failure half-way.
    printf "AVF_CAPTURE_RUNTIME='%s'\n" "$dir" >"$FILE"
    trap 'stop own' EXIT   # any failure from here on (die, set -e) stops what was started

    # X: Xvfb chooses the first free display and writes its number to fd 3 once it accepts clients.
    Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp -noreset \
        3>"$dir/display" </dev/null >"$dir/xvfb.log" 2>&1 &
    local xvfb=$!
    echo "AVF_XVFB_PID=$xvfb" >>"$FILE"

    # PulseAudio: no default script (-n), only what ci.pa loads; anonymous access on our socket.
    cat >"$dir/ci.pa" <<EOF
load-module module-native-protocol-unix auth-anonymous=1 socket=$dir/pulse/native
load-module module-null-sink sink_name=avf_null sink_properties=device.description=AVFNullSink rate=48000 channels=2
set-default-sink avf_null
set-default-source avf_null.monitor
EOF
    # Clients (pactl, paplay, our capture code) use this configuration: no autospawn of a daemon
    # of their own, and a cookie file here rather than in the user's home.
    printf "autospawn = no\ncookie-file = %s/pulse/cookie\n" "$dir" >"$dir/client.conf"
    HOME="$dir/home" XDG_RUNTIME_DIR="$dir/xdg" PULSE_RUNTIME_PATH="$dir/pulse" PULSE_STATE_PATH="$dir/pulse" \
        XDG_CONFIG_HOME="$dir/home" DBUS_SESSION_BUS_ADDRESS=disabled: \
        pulseaudio -n -F "$dir/ci.pa" --daemonize=no --exit-idle-time=-1 --disallow-exit --use-pid-file=no \
        --realtime=no --high-priority=no --log-target=file:"$dir/pulse.log" \
        </dev/null >"$dir/pulse.out" 2>&1 &
    local pulse=$!
    echo "AVF_PULSE_PID=$pulse" >>"$FILE"

    local server="unix:$dir/pulse/native" display="" deadline=$((SECONDS + TIMEOUT))
    until [[ -n "$display" ]] && xdpyinfo -display ":$display" >/dev/null 2>&1; do
        kill -0 "$xvfb" 2>/dev/null || die "Xvfb exited: $(tail -5 "$dir/xvfb.log" | tr '\n' ' ')"
        (( SECONDS < deadline )) || die "Xvfb did not accept clients within ${TIMEOUT} s: $(tail -5 "$dir/xvfb.log" | tr '\n' ' ')"
        display="$(tr -dc 0-9 <"$dir/display")"
        sleep 0.1
    done
    until PULSE_SERVER="$server" PULSE_CLIENTCONFIG="$dir/client.conf" timeout 5 pactl info >/dev/null 2>&1; do
        kill -0 "$pulse" 2>/dev/null || die "pulseaudio exited: $(tail -5 "$dir/pulse.log" "$dir/pulse.out" 2>/dev/null | tr '\n' ' ')"
        (( SECONDS < deadline )) || die "pulseaudio did not answer within ${TIMEOUT} s: $(tail -5 "$dir/pulse.log" | tr '\n' ' ')"
        sleep 0.1
    done
    # An idle null sink renders in 2 s blocks, so a recording's first sound from its monitor came
    # up to 2 s late (a microphone has no such delay): a low-latency stream of silence keeps the
    # sink rendering in 20 ms steps, as a sound card with a player does.
    PULSE_SERVER="$server" PULSE_CLIENTCONFIG="$dir/client.conf" pacat --playback --device=avf_null --latency-msec=20 \
        --raw --format=s16le --rate=48000 --channels=2 --client-name=avf-keepalive --stream-name=silence \
        </dev/zero >"$dir/pacat.out" 2>&1 &
    echo "AVF_PACAT_PID=$!" >>"$FILE"
    until PULSE_SERVER="$server" PULSE_CLIENTCONFIG="$dir/client.conf" pactl list short sink-inputs 2>/dev/null | grep -q .; do
        (( SECONDS < deadline )) || die "the null sink's silence stream did not start within ${TIMEOUT} s"
        sleep 0.05
    done
    # A fresh daemon's monitor holds back its first second or so of sound: read it away here, so
    # the first recording of a run starts with sound like the later ones.
    PULSE_SERVER="$server" PULSE_CLIENTCONFIG="$dir/client.conf" timeout 5 parec --device=avf_null.monitor --latency-msec=20 \
        --raw --format=s16le --rate=48000 --channels=2 2>/dev/null | head -c 192000 >/dev/null || true
    trap - EXIT
    {
        echo "DISPLAY=:$display"
        echo "PULSE_SERVER=$server"
        echo "PULSE_CLIENTCONFIG=$dir/client.conf"
        echo "AVF_PULSE_SINK=avf_null"
        echo "AVF_PULSE_MONITOR=avf_null.monitor"
    } >>"$FILE"
    echo "$FILE"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) running ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
