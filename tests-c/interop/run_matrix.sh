#!/usr/bin/env bash
# Two-process interop matrix: peer.c as server and client over 127.0.0.1,
# each side on the library a pairing names (stock = Debian's libenet.so.7,
# ours = DIR/libenet.so.7 through LD_LIBRARY_PATH).
#
# usage: run_matrix.sh (--ours DIR | --ours-lib PATH | --stock-only)
#                      [--self-check] [--ours-ours]
#                      [--build-dir DIR] [--only SUBSTRING] [--skip SUBSTRING]...
#                      [--keep]
#                      [--write-expected]
#                      [--ours-peer PATH] [--ours-launcher CMD]
#                      [--stock-peer PATH] [--stock-launcher CMD]
#                      [--stock-lib PATH|none] [--stock-name NAME]
#                      [--time-scale N] [--steady-throttle]
#                      [--via PROG [--via-arg ARG]...]
#   --ours DIR        directory holding our libenet.so.7; pairings are
#                     stock-server+ours-client and ours-server+stock-client.
#                     --ours "" is the same as --stock-only.
#   --stock-only      run stock-server+stock-client only (validates the
#                     harness while our library is not ready).
#   --self-check      with --ours, also run stock-server+stock-client.
#   --ours-ours       with --ours, also run ours-server+ours-client.
#   --build-dir DIR   where peer is built (default: <repo>/target/interop).
#   --only SUBSTRING  run only cases whose name contains SUBSTRING.
#   --skip SUBSTRING  do not run cases whose name contains SUBSTRING
#                     (repeatable).
#   --keep            keep the per-case output directory (each case's
#                     directory has its name in the file "name").
#   --write-expected  (re)write expected/*.out from this run; refused unless
#                     every side runs stock (reference output comes from
#                     stock ENet only).
# A side ("ours" or "stock") may be another executable than the host-built
# peer, e.g. peer.c cross-built for another machine and run under an
# emulator (scripts/test-arm64.sh: qemu-aarch64):
#   --ours-lib PATH   our library as the ours side must have it mapped
#                     (passed to peer --expect-lib); its directory goes into
#                     that side's LD_LIBRARY_PATH. --ours DIR means
#                     --ours-lib DIR/libenet.so.7.
#   --stock-lib PATH  the stock library the stock side must have mapped
#                     (default: Debian's x86_64 libenet.so.7); the stock
#                     side runs with LD_LIBRARY_PATH unset, so its loader's
#                     default search must find PATH. "none": the stock side
#                     loads no libenet at all (a peer built on another
#                     implementation of the protocol, e.g. peer-1318 on
#                     rusty_enet, ENet 1.3.18); it gets --expect-lib none
#                     and must check that nothing called libenet is mapped.
#   --stock-name NAME what the stock side is called in case names and the
#                     header (default: stock), e.g. enet1318 for peer-1318.
#   --ours-peer PATH, --stock-peer PATH
#                     that side's peer executable (default: peer.c built
#                     here with gcc; it is only built if a side uses it).
#   --ours-launcher CMD, --stock-launcher CMD
#                     one executable put in front of that side's peer
#                     (default: none), e.g. qemu-aarch64 or a wrapper
#                     script. It must run the peer in its own process or
#                     exec it (a wrapper: exec "$@"): the driver stops a
#                     side, and judges its exit status, by that PID.
#   --time-scale N    multiply every time bound (the driver's waits and the
#                     peers' --deadline-ms) by the integer N, for slow
#                     (emulated) sides; default 1.
#   --steady-throttle the basic cases run peer --steady-throttle: no host
#                     lowers its packet throttle on round-trip jitter, which
#                     under emulation makes stock and ours alike drop most
#                     unreliable packets (see peer.c).
#   --via PROG        the client does not reach the server directly but
#                     through PROG (e.g. DTLS relays, tests-c/dtls/). Per
#                     case, once the server printed its port, the driver
#                     runs PROG SERVER_PORT [ARG...] (each --via-arg ARG, in
#                     order) with stdout/stderr in the case directory and
#                     INTEROP_SERVER_SIDE / INTEROP_CLIENT_SIDE set to the
#                     pairing's sides (ours, stock) and INTEROP_CASE_DIR to
#                     the case directory. PROG prints "PORT n", the port the
#                     client is then given, and runs until the driver sends
#                     it SIGTERM (by PID) after the case; it must then stop
#                     its own children and exit 0, or non-zero (the case
#                     fails) if something in it failed on the way.
#
# Each case prints "PASS name (seconds)" or "FAIL name" followed by the
# failing side's output; the last line is "N passed, M failed"; the exit
# status is non-zero if any case failed. A case passes when both sides exit 0
# and each side's stdout (minus the PORT line) equals expected/<case>.<role>.out.
# Processes are stopped by PID only; every wait is bounded.
# Environment: PEER_CFLAGS = extra compiler flags for peer.c (sanitizers);
# INTEROP_BIND_ANY=1 makes the server bind 0.0.0.0 instead of 127.0.0.1
# (with ENET_RS_DUAL_STACK=1 our server is then a dual-stack host).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
expected_dir="$here/expected"
build_dir="$repo/target/interop"
stock_lib=/usr/lib/x86_64-linux-gnu/libenet.so.7
ours=""
ours_lib=""
mode=""
self_check=0
ours_ours=0
only=""
skip=()
keep=0
write_expected=0
# Per side: the peer executable (empty: the host-built peer) and the
# launcher in front of it (empty: none).
ours_peer=""
stock_peer=""
ours_launcher=""
stock_launcher=""
time_scale=1
steady_throttle=0
stock_name=stock
# --via: the program between client and server, and its extra arguments.
via=""
via_args=()

die() { echo "run_matrix.sh: $*" >&2; exit 2; }

# need_value OPTION COUNT: OPTION takes a value ($# of the caller >= 2).
need_value() { [ "$2" -ge 2 ] || die "$1 needs a value"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory (or \"\")"; ours=$2; mode=ours; shift ;;
        --ours-lib) need_value "$1" $#; ours_lib=$2; mode=ours; shift ;;
        --stock-lib) need_value "$1" $#; stock_lib=$2; shift ;;
        --ours-peer) need_value "$1" $#; ours_peer=$2; shift ;;
        --stock-peer) need_value "$1" $#; stock_peer=$2; shift ;;
        --ours-launcher) need_value "$1" $#; ours_launcher=$2; shift ;;
        --stock-launcher) need_value "$1" $#; stock_launcher=$2; shift ;;
        --time-scale) need_value "$1" $#; time_scale=$2; shift ;;
        --steady-throttle) steady_throttle=1 ;;
        --stock-only) mode=stock ;;
        --self-check) self_check=1 ;;
        --ours-ours) ours_ours=1 ;;
        --build-dir) [ $# -ge 2 ] || die "--build-dir needs a directory"; build_dir=$2; shift ;;
        --only) [ $# -ge 2 ] || die "--only needs a pattern"; only=$2; shift ;;
        --skip) need_value "$1" $#; skip+=("$2"); shift ;;
        --keep) keep=1 ;;
        --write-expected) write_expected=1 ;;
        --stock-name) need_value "$1" $#; stock_name=$2; shift ;;
        --via) need_value "$1" $#; via=$2; shift ;;
        --via-arg) need_value "$1" $#; via_args+=("$2"); shift ;;
        -h|--help) sed -n '2,86p' "$0"; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
[ -n "$mode" ] || die "give --ours DIR, --ours-lib PATH or --stock-only"
[ -n "$ours" ] && [ -n "$ours_lib" ] && die "give --ours DIR or --ours-lib PATH, not both"
[ "$mode" = ours ] && [ -z "$ours" ] && [ -z "$ours_lib" ] && mode=stock
# The peers' --deadline-ms tops out at 600 s, which the timeout case's
# 60 s deadline reaches at 10.
[[ "$time_scale" =~ ^([1-9]|10)$ ]] || die "--time-scale takes an integer from 1 to 10"
[[ "$stock_name" =~ ^[A-Za-z0-9_.-]+$ ]] || die "--stock-name takes letters, digits, _ . -"
if [ "$stock_lib" != none ]; then
    [ -e "$stock_lib" ] || die "stock $stock_lib missing (apt-get install libenet7 libenet-dev)"
fi
if [ "$mode" = ours ]; then
    if [ -n "$ours_lib" ]; then
        [ -e "$ours_lib" ] || die "--ours-lib: $ours_lib missing"
        ours=$(cd "$(dirname "$ours_lib")" && pwd)
        ours_lib="$ours/$(basename "$ours_lib")"
    else
        ours=$(cd "$ours" 2>/dev/null && pwd) || die "--ours: no such directory"
        [ -e "$ours/libenet.so.7" ] || die "--ours: $ours/libenet.so.7 missing"
        ours_lib="$ours/libenet.so.7"
    fi
    pairings=("stock:ours" "ours:stock")
    [ $self_check -eq 1 ] && pairings+=("stock:stock")
    [ $ours_ours -eq 1 ] && pairings+=("ours:ours")
    if [ "$stock_lib" != none ] && [ "$(realpath "$ours_lib")" = "$(realpath "$stock_lib")" ]; then
        echo "warning: $ours_lib is the stock library" >&2
    fi
else
    pairings=("stock:stock")
fi
if [ $write_expected -eq 1 ] && { [ "$mode" != stock ] || [ "$stock_lib" = none ]; }; then
    die "--write-expected needs --stock-only on a stock library: expected output must come from stock ENet"
fi
[ -z "$via" ] || [ -x "$via" ] || die "--via: $via is not an executable"
[ ${#via_args[@]} -eq 0 ] || [ -n "$via" ] || die "--via-arg needs --via"
for side in ours stock; do
    p_var=${side}_peer l_var=${side}_launcher
    [ -z "${!p_var}" ] || [ -x "${!p_var}" ] || die "--$side-peer: ${!p_var} is not an executable"
    [ -z "${!l_var}" ] || command -v "${!l_var}" >/dev/null \
        || die "--$side-launcher: ${!l_var} not found"
done

# The host-built peer, for every side that names no peer of its own.
peer="$build_dir/peer"
build_host_peer=0
for pairing in "${pairings[@]}"; do
    for side in "${pairing%%:*}" "${pairing##*:}"; do
        p_var=${side}_peer
        [ -n "${!p_var}" ] || build_host_peer=1
    done
done
if [ $build_host_peer -eq 1 ]; then
    mkdir -p "$build_dir" || die "cannot create $build_dir"
    # PEER_CFLAGS adds compiler flags, e.g. PEER_CFLAGS="-fsanitize=address,undefined".
    # shellcheck disable=SC2086
    gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 ${PEER_CFLAGS:-} "$here/peer.c" -lenet -ldl -o "$peer" \
        || die "building peer.c failed"
fi
ours_peer=${ours_peer:-$peer}
stock_peer=${stock_peer:-$peer}

work=$(mktemp -d /tmp/enet-interop.XXXXXX)
started=()
cleanup() {
    local pid
    for pid in "${started[@]}"; do
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    done
    if [ $keep -eq 1 ]; then echo "outputs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0

# --- process helpers (globals, so background jobs stay children of this shell)

# start_side LIB ROLE DIR ARGS...: starts peer in the background; sets PID.
start_side() {
    local lib=$1 role=$2 dir=$3
    shift 3
    # A launcher, if any, goes after env so that the PID is the launcher's
    # (env execs it), and the launcher runs or execs the peer.
    if [ "$lib" = ours ]; then
        env LD_LIBRARY_PATH="$ours" ${ours_launcher:+"$ours_launcher"} "$ours_peer" \
            --role "$role" --expect-lib "$ours_lib" "$@" \
            >"$dir/$role.out" 2>"$dir/$role.err" &
    else
        env -u LD_LIBRARY_PATH ${stock_launcher:+"$stock_launcher"} "$stock_peer" \
            --role "$role" --expect-lib "$stock_lib" "$@" \
            >"$dir/$role.out" 2>"$dir/$role.err" &
    fi
    PID=$!
    started+=("$PID")
}

# wait_line FILE REGEX PID SECONDS: until FILE has a line matching REGEX.
wait_line() {
    local file=$1 regex=$2 pid=$3 limit=$4 t=0
    while ! grep -qE "$regex" "$file" 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || { grep -qE "$regex" "$file" 2>/dev/null; return; }
        [ "$t" -ge $((limit * 20)) ] && return 1
        sleep 0.05
        t=$((t + 1))
    done
}

# wait_exit PID SECONDS: sets RC to the exit status, or 124 after killing it
# (SIGKILL, by PID) when it outlives the bound.
wait_exit() {
    local pid=$1 limit=$2 t=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$t" -ge $((limit * 20)) ]; then
            { kill -KILL "$pid"; wait "$pid"; } 2>/dev/null
            RC=124
            return
        fi
        sleep 0.05
        t=$((t + 1))
    done
    wait "$pid" 2>/dev/null
    RC=$?
}

now() { date +%s.%N; }

# start_via DIR PAIRING SERVER_PORT: runs --via PROG (if any) and waits for
# its PORT line. Sets CLIENT_PORT (the server's own port without --via) and
# VIA_PID (empty without --via); returns 1, with the report written, if
# PROG printed no port in time.
start_via() {
    local dir=$1 pairing=$2 sport=$3
    CLIENT_PORT=$sport
    VIA_PID=""
    [ -n "$via" ] || return 0
    env INTEROP_SERVER_SIDE="${pairing%%:*}" INTEROP_CLIENT_SIDE="${pairing##*:}" \
        INTEROP_CASE_DIR="$dir" "$via" "$sport" ${via_args[@]+"${via_args[@]}"} \
        >"$dir/via.out" 2>"$dir/via.err" &
    VIA_PID=$!
    started+=("$VIA_PID")
    if ! wait_line "$dir/via.out" '^PORT [0-9]+$' "$VIA_PID" $((10 * time_scale)); then
        stop_via "$dir"
        show_side "$dir" via "no PORT line" >>"$REPORT"
        return 1
    fi
    CLIENT_PORT=$(awk '/^PORT /{print $2; exit}' "$dir/via.out")
}

# stop_via DIR: SIGTERM to --via PROG (by PID), at most 5 s for it to stop
# its children and exit. Sets VIA_RC (0 without --via; 124 if it had to be
# SIGKILLed).
stop_via() {
    VIA_RC=0
    [ -n "$VIA_PID" ] || return 0
    kill -TERM "$VIA_PID" 2>/dev/null
    wait_exit "$VIA_PID" $((5 * time_scale))
    VIA_RC=$RC
    VIA_PID=""
}

# check_via DIR: after stop_via, a non-zero exit of PROG fails the case.
# Returns 1 (report written) in that case.
check_via() {
    [ -n "$via" ] || return 0
    [ "$VIA_RC" -eq 0 ] && return 0
    show_side "$1" via "exit status $VIA_RC after SIGTERM" >>"$REPORT"
    return 1
}

# --- reporting

show_side() {
    local dir=$1 role=$2 why=$3
    echo "  --- $role ($why) stdout:"
    sed 's/^/    /' "$dir/$role.out" 2>/dev/null
    echo "  --- $role stderr:"
    sed 's/^/    /' "$dir/$role.err" 2>/dev/null
}

# compare_side DIR ROLE KEY: stdout minus PORT against expected/KEY.ROLE.out.
# Sets MISMATCH to a short reason, or empty.
compare_side() {
    local dir=$1 role=$2 key=$3
    local want="$expected_dir/$key.$role.out"
    grep -v '^PORT ' "$dir/$role.out" >"$dir/$role.cmp" 2>/dev/null
    MISMATCH=""
    if [ $write_expected -eq 1 ]; then
        mkdir -p "$expected_dir"
        cp "$dir/$role.cmp" "$want"
    elif [ ! -f "$want" ]; then
        MISMATCH="no expected output $want"
    elif ! diff -u "$want" "$dir/$role.cmp" >"$dir/$role.diff"; then
        MISMATCH="stdout differs from $(basename "$want")"
    fi
}

finish_case() {
    local name=$1 start=$2 status=$3
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        printf 'PASS %s (%.1f s)%s%s\n' "$name" "$(echo "$(now) - $start" | bc)" "${EXTRA:-}" \
            "${RERUN_NOTE:-}"
    else
        failed=$((failed + 1))
        echo "FAIL $name${RERUN_NOTE:-}"
        # With --via, its log belongs to every failure report.
        if [ -n "$via" ] && [ -e "$DIR/via.out" ] && ! grep -q '^  --- via ' "$REPORT"; then
            show_side "$DIR" via "for reference" >>"$REPORT"
        fi
        cat "$REPORT"
    fi
    EXTRA=""
    RERUN_NOTE=""
}

# case_dir NAME: a fresh directory for the case, DIR, with NAME in DIR/name.
case_dir() {
    CASE_NO=$(( ${CASE_NO:-0} + 1 ))
    DIR="$work/$CASE_NO"
    mkdir -p "$DIR"
    echo "$1" >"$DIR/name"
    REPORT="$DIR/report"
    : >"$REPORT"
}

wanted() {
    local s
    for s in ${skip[@]+"${skip[@]}"}; do [[ "$1" == *"$s"* ]] && return 1; done
    [ -z "$only" ] || [[ "$1" == *"$only"* ]]
}

# side_name SIDE: "ours", or the stock side's --stock-name.
side_name() { if [ "$1" = stock ]; then echo "$stock_name"; else echo "$1"; fi; }

pair_name() {
    echo "$(side_name "${1%%:*}")-server+$(side_name "${1##*:}")-client"
}

# never_started DIR PAIRING ROLE RC: whether ROLE's side, run through a
# launcher (wine, qemu), failed before the peer's main did anything: a
# non-zero exit (not the driver's kill) with nothing at all on stdout or
# stderr, where the peer's first act is to print the library it mapped.
# That is the launcher failing to start the program, not a library's
# behaviour, so the case is run once more (and says so).
never_started() {
    local dir=$1 pairing=$2 role=$3 rc=$4 side l_var
    if [ "$role" = server ]; then side=${pairing%%:*}; else side=${pairing##*:}; fi
    l_var=${side}_launcher
    [ -n "${!l_var}" ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] \
        && [ ! -s "$dir/$role.out" ] && [ ! -s "$dir/$role.err" ]
}

# rerun_if_never_started DIR PAIRING ROLE RC [ROLE RC]: 0 (and a note in
# RERUN_NOTE, which the case's PASS or FAIL line shows) when this is a
# case's first run and a side never started; the caller then runs the case
# again, through `again`.
rerun_if_never_started() {
    local dir=$1 pairing=$2
    shift 2
    [ "${RERUNNING:-0}" -eq 0 ] || return 1
    while [ $# -ge 2 ]; do
        if never_started "$dir" "$pairing" "$1" "$2"; then
            RERUN_NOTE=" [run twice: the first time the $1's launcher exited $2 before the peer printed anything]"
            return 0
        fi
        shift 2
    done
    return 1
}

# again COMMAND...: runs a case's function a second time.
again() {
    RERUNNING=1
    "$@"
    RERUNNING=0
}

# run_pair NAME KEY PAIRING LIMIT -- SERVER_ARGS -- CLIENT_ARGS
run_pair() {
    local all_args=("$@")
    local name=$1 key=$2 pairing=$3 limit=$4
    shift 4
    local sargs=() cargs=() side=s
    for a in "$@"; do
        if [ "$a" = "--" ]; then [ ${#sargs[@]} -eq 0 ] && [ "$side" = s ] && continue; side=c; continue; fi
        if [ "$side" = s ]; then sargs+=("$a"); else cargs+=("$a"); fi
    done
    wanted "$name" || return 0
    # Slow sides (--time-scale) get a longer deadline than peer's 30 s.
    if [ "$time_scale" -gt 1 ]; then
        sargs+=(--deadline-ms $((30000 * time_scale)))
        cargs+=(--deadline-ms $((30000 * time_scale)))
    fi
    case_dir "$name"
    local start status=0 spid cpid port src crc
    start=$(now)
    start_side "${pairing%%:*}" server "$DIR" "${sargs[@]}"
    spid=$PID
    if ! wait_line "$DIR/server.out" '^PORT [0-9]+$' "$spid" $((5 * time_scale)); then
        wait_exit "$spid" 1
        if rerun_if_never_started "$DIR" "$pairing" server "$RC"; then
            again run_pair "${all_args[@]}"
            return
        fi
        show_side "$DIR" server "no PORT line" >>"$REPORT"
        finish_case "$name" "$start" 1
        return
    fi
    port=$(awk '/^PORT /{print $2; exit}' "$DIR/server.out")
    if ! start_via "$DIR" "$pairing" "$port"; then
        { kill -KILL "$spid"; wait_exit "$spid" 1; } 2>/dev/null
        finish_case "$name" "$start" 1
        return
    fi
    start_side "${pairing##*:}" client "$DIR" --port "$CLIENT_PORT" "${cargs[@]}"
    cpid=$PID
    wait_exit "$cpid" $((limit * time_scale))
    crc=$RC
    wait_exit "$spid" $((10 * time_scale))
    src=$RC
    stop_via "$DIR"
    check_via "$DIR" || status=1
    for role in server client; do
        local rc why=""
        [ $role = server ] && rc=$src || rc=$crc
        if [ "$rc" -ne 0 ]; then
            why="exit status $rc"
            [ "$rc" -eq 124 ] && why="killed by the driver after its time bound"
        else
            compare_side "$DIR" $role "$key"
            if [ -n "$MISMATCH" ]; then
                why=$MISMATCH
                cat "$DIR/$role.diff" >>"$REPORT" 2>/dev/null
            fi
        fi
        if [ -n "$why" ]; then
            status=1
            show_side "$DIR" $role "$why" >>"$REPORT"
        fi
    done
    if [ $status -ne 0 ] && rerun_if_never_started "$DIR" "$pairing" server "$src" client "$crc"; then
        again run_pair "${all_args[@]}"
        return
    fi
    finish_case "$name" "$start" $status
}

# run_timeout NAME KEY PAIRING VICTIM: the driver SIGKILLs the victim (by
# PID) once it prints READY; the survivor must report the timeout.
run_timeout() {
    local all_args=("$@")
    local name=$1 key=$2 pairing=$3 victim=$4
    wanted "$name" || return 0
    case_dir "$name"
    local start status=0 spid cpid port vpid surv_pid survivor vrc
    start=$(now)
    start_side "${pairing%%:*}" server "$DIR" --scenario timeout --victim "$victim" \
        --deadline-ms $((60000 * time_scale))
    spid=$PID
    if ! wait_line "$DIR/server.out" '^PORT [0-9]+$' "$spid" $((5 * time_scale)); then
        wait_exit "$spid" 1
        if rerun_if_never_started "$DIR" "$pairing" server "$RC"; then
            again run_timeout "${all_args[@]}"
            return
        fi
        show_side "$DIR" server "no PORT line" >>"$REPORT"
        finish_case "$name" "$start" 1
        return
    fi
    port=$(awk '/^PORT /{print $2; exit}' "$DIR/server.out")
    if ! start_via "$DIR" "$pairing" "$port"; then
        { kill -KILL "$spid"; wait_exit "$spid" 1; } 2>/dev/null
        finish_case "$name" "$start" 1
        return
    fi
    start_side "${pairing##*:}" client "$DIR" --port "$CLIENT_PORT" --scenario timeout \
        --victim "$victim" --deadline-ms $((60000 * time_scale))
    cpid=$PID
    if [ "$victim" = server ]; then vpid=$spid surv_pid=$cpid survivor=client
    else vpid=$cpid surv_pid=$spid survivor=server; fi
    if ! wait_line "$DIR/$victim.out" ': READY$' "$vpid" $((10 * time_scale)); then
        status=1
        show_side "$DIR" "$victim" "never printed READY" >>"$REPORT"
    fi
    # (stderr hidden: bash would report the SIGKILLed job as "Killed")
    { kill -KILL "$vpid"; wait_exit "$vpid" $((5 * time_scale)); } 2>/dev/null
    vrc=$RC
    wait_exit "$surv_pid" $((65 * time_scale))
    local surv_rc=$RC
    stop_via "$DIR"
    check_via "$DIR" || status=1
    RC=$surv_rc
    if [ "$RC" -ne 0 ]; then
        status=1
        show_side "$DIR" "$survivor" "exit status $RC" >>"$REPORT"
    else
        compare_side "$DIR" "$survivor" "$key"
        if [ -n "$MISMATCH" ]; then
            status=1
            cat "$DIR/$survivor.diff" >>"$REPORT" 2>/dev/null
            show_side "$DIR" "$survivor" "$MISMATCH" >>"$REPORT"
        fi
        EXTRA=" [DISCONNECT $(awk '/^timeout-ms /{printf "%.1f", $2 / 1000}' "$DIR/$survivor.err") s after the $victim went silent]"
    fi
    if [ $status -eq 0 ] && [ "$vrc" -ne 137 ]; then
        status=1
        show_side "$DIR" "$victim" "exit status $vrc, expected death by SIGKILL" >>"$REPORT"
    fi
    if [ $status -ne 0 ] && rerun_if_never_started "$DIR" "$pairing" "$victim" "$vrc" "$survivor" "$surv_rc"; then
        again run_timeout "${all_args[@]}"
        return
    fi
    finish_case "$name" "$start" $status
}

# side_note SIDE: how that side runs, when not as the host-built peer.
side_note() {
    local p_var=${1}_peer l_var=${1}_launcher
    [ "${!p_var}" = "$peer" ] && [ -z "${!l_var}" ] && return
    echo " (peer: ${!l_var:+${!l_var} }${!p_var})"
}

[ $build_host_peer -eq 1 ] && echo "peer built: $peer"
if [ "$stock_lib" = none ]; then
    echo "$stock_name: no libenet$(side_note stock)"
else
    echo "$stock_name: $stock_lib$(side_note stock)"
fi
[ "$mode" = ours ] && echo "ours:  $ours_lib$(side_note ours)"
[ "$time_scale" -gt 1 ] && echo "time bounds: x$time_scale"
[ $steady_throttle -eq 1 ] && echo "basic: packet throttle kept steady (no deceleration on round-trip jitter)"
[ -n "$via" ] && echo "via:   $via SERVER_PORT${via_args[*]+ ${via_args[*]}}"
suite_start=$(now)

# basic over the option matrix. A limited bandwidth also paces the small
# packets over ~2 s so ENet's 1 s bandwidth throttle runs (and drops some
# unreliable packets, as stock does at 64000 B/s); unlimited runs burst.
for pairing in "${pairings[@]}"; do
    for checksum in off on; do
        for compress in off on; do
            for bandwidth in unlimited 64000; do
                args=(--scenario basic)
                [ $steady_throttle -eq 1 ] && args+=(--steady-throttle)
                [ $checksum = on ] && args+=(--checksum)
                [ $compress = on ] && args+=(--compress)
                if [ $bandwidth = unlimited ]; then args+=(--batch-ms 5)
                else args+=(--bandwidth "$bandwidth" --batch-ms 100); fi
                run_pair "basic/checksum=$checksum,compress=$compress,bandwidth=$bandwidth/$(pair_name "$pairing")" \
                    basic "$pairing" 35 -- "${args[@]}" -- "${args[@]}"
            done
        done
    done
done

for pairing in "${pairings[@]}"; do
    pn=$(pair_name "$pairing")
    run_pair "broadcast/5-clients/$pn" broadcast "$pairing" 35 \
        -- --scenario broadcast --clients 5 -- --scenario broadcast --clients 5
    for scenario in disconnect_now disconnect_later; do
        for initiator in client server; do
            run_pair "$scenario/initiator=$initiator/$pn" "$scenario-initiator-$initiator" "$pairing" 35 \
                -- --scenario $scenario --initiator $initiator \
                -- --scenario $scenario --initiator $initiator
        done
    done
    for victim in client server; do
        run_timeout "timeout/victim=$victim/$pn" "timeout-victim-$victim" "$pairing" "$victim"
    done
done

printf 'matrix took %.0f s\n' "$(echo "$(now) - $suite_start" | bc)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
