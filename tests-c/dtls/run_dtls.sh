#!/usr/bin/env bash
# The interop matrix over DTLS 1.2: tests-c/interop/run_matrix.sh with
# via_dtls.sh between client and server, so every ENet datagram crosses a
# DTLS session (one per client address) between two relays, Godot's
# (mbedtls) or socat's (OpenSSL). See tests-c/dtls/README.md.
#
# usage: run_dtls.sh SET [--ours DIR | --ours-lib PATH] [--native-dtls SIDE]...
#                    [--no-checks] [run_matrix.sh options]
#   SET   godot  Godot relays at both ends: every case (15 with stock at
#                both ends), and the relay checks.
#         socat  socat at both ends: every case but broadcast (socat relays
#                one peer per process; broadcast's 5 client hosts are 5
#                addresses), and the relay checks.
#         mixed  Godot's DTLS client against socat's server, then socat's
#                client against Godot's server: the disconnect cases.
#         all    godot, socat and mixed in turn.
#   --ours DIR, --ours-lib PATH   as for run_matrix.sh (default: --stock-only).
#   --native-dtls SIDE   a side that speaks DTLS itself (via_dtls.sh): its
#                relay is left out. --native-dtls ours runs our side through
#                ours_dtls.sh (peer.c with INTEROP_DTLS=1: our encrypted
#                host, certificate in DTLS_DIR). The relay checks still run.
#   --no-checks  skip the relay checks (certificate verification on and off).
#   --stock-throttle  do not pass run_matrix.sh --steady-throttle (see below).
# Other options (--only, --skip, --keep, --time-scale, ...) go to
# run_matrix.sh. DTLS_DIR, if set, is where the certificate is kept (made
# if missing); otherwise a scratch directory has it for this run.
#
# The relay checks start via_dtls.sh without an ENet server, send it one
# datagram, and read its log: the client relay must refuse a certificate
# for another host name and one from another CA, and accept the wrong host
# name with verification off.
#
# The basic cases run with --steady-throttle: each relay is a user-space hop
# that adds round-trip jitter, on which ENet's packet throttle drops
# unreliable packets (stock at both ends: down to 84/199 in one run, a
# failure of peer.c's 50 % floor). With the throttle steady, a loss is the
# relays' own, and the driver holds the unthrottled basic cases to full
# delivery (see delivery_table below; counted as one "delivery" result per
# matrix run). After each matrix run a table of what the basic cases
# delivered (from the peers' stderr) is printed. The last line is "N passed,
# M failed" over all runs and checks; the exit status is non-zero if
# anything failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "run_dtls.sh: $*" >&2; exit 2; }
# shellcheck source=tests-c/dtls/lib.sh
. "$here/lib.sh"

[ $# -ge 1 ] || die "usage: run_dtls.sh godot|socat|mixed|all [options] (see the header)"
set_name=$1
shift
case "$set_name" in
    godot|socat|mixed) sets=("$set_name") ;;
    all) sets=(godot socat mixed) ;;
    *) die "unknown set $set_name (godot, socat, mixed, all)" ;;
esac
library=(--stock-only)
native=()
checks=1
steady=1
user_keep=0
matrix_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --ours|--ours-lib) [ $# -ge 2 ] || die "$1 needs a value"; library=("$1" "$2"); shift ;;
        --native-dtls)
            [ $# -ge 2 ] || die "$1 needs a side"
            native+=(--via-arg --native-dtls --via-arg "$2")
            # Our side speaks DTLS through peer.c's INTEROP_DTLS=1, set by
            # a launcher in front of our side alone.
            [ "$2" = ours ] && native+=(--ours-launcher "$here/ours_dtls.sh")
            shift ;;
        --no-checks) checks=0 ;;
        --stock-throttle) steady=0 ;;
        --keep) user_keep=1 ;;
        *) matrix_args+=("$1") ;;
    esac
    shift
done
for tool in openssl socat godot3-server; do
    command -v "$tool" >/dev/null || die "$tool not found (scripts/setup-dtls.sh installs it)"
done

work=$(mktemp -d /tmp/enet-dtls.XXXXXX)
started=()
cleanup() {
    local pid
    for pid in ${started[@]+"${started[@]}"}; do
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${DTLS_DIR:-}" ]; then
    DTLS_DIR="$work/cert"
fi
[ -r "$DTLS_DIR/key.pem" ] && [ -r "$DTLS_DIR/cert.pem" ] || make_cert "$DTLS_DIR"
export DTLS_DIR
# A second CA, for the check that an untrusted certificate is refused.
make_cert "$work/other-ca"

passed=0
failed=0
start_all=$(date +%s.%N)

# relay_check NAME REGEX VIA_ARGS...: via_dtls.sh with VIA_ARGS in front of
# a port no one listens on; after one datagram, its log must match REGEX
# (within 5 s).
relay_check() {
    local name=$1 regex=$2 t=0 port pid
    shift 2
    port=$(free_udp_port)
    # (removed first: the background job truncates them only once it runs)
    rm -f "$work/check.out" "$work/check.err"
    "$here/via_dtls.sh" "$port" "$@" >"$work/check.out" 2>"$work/check.err" &
    pid=$!
    started+=("$pid")
    if port=$(wait_port_line "$work/check.out" "$pid" 10); then
        printf x >"/dev/udp/127.0.0.1/$port"
        until grep -qE "$regex" "$work/check.err"; do
            [ $t -ge 100 ] && break
            sleep 0.05; t=$((t + 1))
        done
    fi
    stop_pids "$pid"
    if grep -qE "$regex" "$work/check.err"; then
        echo "PASS check/$name"
        passed=$((passed + 1))
    else
        echo "FAIL check/$name (no log line matching: $regex)"
        sed 's/^/    /' "$work/check.err"
        failed=$((failed + 1))
    fi
}

relay_checks() {
    local kind=$1 ends=(--server-relay "$1" --client-relay "$1")
    if [ "$kind" = godot ]; then
        relay_check godot/verify-refuses-wrong-host-name 'dtls-client\].*session ended: error' \
            "${ends[@]}" --hostname wrong.example
        relay_check godot/verify-refuses-untrusted-ca 'dtls-client\].*session ended: error' \
            "${ends[@]}" --ca "$work/other-ca/cert.pem"
        relay_check godot/no-verify-accepts-wrong-host-name 'dtls-client\].*handshake done' \
            "${ends[@]}" --no-verify --hostname wrong.example
    else
        relay_check socat/verify-refuses-wrong-host-name 'socat-dtls-client.* E .*commonName does not match' \
            "${ends[@]}" --hostname wrong.example
        relay_check socat/verify-refuses-untrusted-ca 'socat-dtls-client.* E .*certificate verify failed' \
            "${ends[@]}" --ca "$work/other-ca/cert.pem"
        relay_check socat/no-verify-accepts-wrong-host-name 'socat-dtls-client.*starting data transfer' \
            "${ends[@]}" --no-verify --hostname wrong.example
    fi
}

# delivery_table DIR: what each basic case delivered, from the peers' stderr
# ("delivered: ch1 unreliable n/199, ch2 unsequenced n/199, 64 KiB fragment
# yes|lost, 1 MiB fragment yes|lost"), as "server got | client got". With
# the throttle steady, it also holds the basic cases to more than peer.c's
# floor (>= 50 %): unthrottled (bandwidth=unlimited), every unreliable and
# unsequenced packet must arrive both ways, and with the range coder on the
# 64 KiB UNRELIABLE_FRAGMENT packet too. Sets DELIVERY_SHORT to the cases
# that fell short.
delivery_table() {
    local dir name line got role n1 n2 f64 f1m
    local header="  delivered (ch1 unreliable, ch2 unsequenced, 64 KiB and 1 MiB UNRELIABLE_FRAGMENT), server got | client got:"
    DELIVERY_SHORT=()
    for dir in "$1"/*/; do
        name=$(cat "$dir/name" 2>/dev/null) || continue
        [[ "$name" == basic/* ]] || continue
        line=""
        for role in server client; do
            got=$(sed -n 's/^[a-z]*: delivered: ch1 unreliable \([0-9/]*\), ch2 unsequenced \([0-9/]*\), 64 KiB fragment \([a-z]*\), 1 MiB fragment \([a-z]*\)$/\1 \2 \3 \4/p' \
                "$dir/$role.err" 2>/dev/null)
            line+=${got:-?}
            [ $role = server ] && line+=" | "
            [ $steady -eq 1 ] && [[ "$name" == *bandwidth=unlimited* ]] || continue
            read -r n1 n2 f64 f1m <<<"${got:-? ? ? ?}"
            if [ "$n1" != 199/199 ] || [ "$n2" != 199/199 ] \
                || { [[ "$name" == *compress=on* ]] && [ "$f64" != yes ]; }; then
                DELIVERY_SHORT+=("$name ($role got $got)")
            fi
        done
        [ -z "$header" ] || { echo "$header"; header=""; }
        printf '  %-46s %s\n' "${name#basic/}" "$line"
    done
}

# matrix TITLE VIA_ARGS...: run_matrix.sh through via_dtls.sh, with the
# case filter (--skip/--only) in front of the caller's options; adds its
# counts to the totals and prints the delivery table.
case_filter=()
# (a filter that overrides the caller's --only: run_matrix.sh takes the last)
last_filter=()
matrix() {
    local title=$1 log="$work/matrix.log" kept counts arg
    shift
    echo "== $title"
    local via=(--via "$here/via_dtls.sh")
    for arg in "$@"; do via+=(--via-arg "$arg"); done
    local throttle=()
    [ $steady -eq 1 ] && throttle=(--steady-throttle)
    "$repo/tests-c/interop/run_matrix.sh" "${library[@]}" "${via[@]}" ${native[@]+"${native[@]}"} \
        ${case_filter[@]+"${case_filter[@]}"} ${throttle[@]+"${throttle[@]}"} --keep ${matrix_args[@]+"${matrix_args[@]}"} \
        ${last_filter[@]+"${last_filter[@]}"} 2>&1 \
        | tee "$log" | grep -v '^outputs kept in ' || true
    # With --keep, the last line names the kept outputs; the counts come before.
    counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 | sed 's/ passed, / /; s/ failed//')
    if [ -z "$counts" ]; then
        echo "run_matrix.sh printed no counts"
        failed=$((failed + 1))
    else
        passed=$((passed + ${counts% *}))
        failed=$((failed + ${counts#* }))
    fi
    kept=$(sed -n 's/^outputs kept in //p' "$log")
    if [ -n "$kept" ] && [ -d "$kept" ]; then
        delivery_table "$kept"
        if [ ${#DELIVERY_SHORT[@]} -gt 0 ]; then
            echo "FAIL delivery: short of full unreliable delivery in ${#DELIVERY_SHORT[@]} case side(s):"
            printf '    %s\n' "${DELIVERY_SHORT[@]}"
            failed=$((failed + 1))
        elif grep -q '^PASS basic/.*bandwidth=unlimited' "$log" && [ $steady -eq 1 ]; then
            echo "PASS delivery: every unthrottled basic case delivered all unreliable and unsequenced packets (and the 64 KiB fragment with the range coder)"
            passed=$((passed + 1))
        fi
        if [ $user_keep -eq 1 ]; then echo "outputs kept in $kept"; else rm -rf "$kept"; fi
    fi
}

for set_kind in "${sets[@]}"; do
    case "$set_kind" in
        godot)
            [ $checks -eq 1 ] && relay_checks godot
            matrix "Godot relays (mbedtls) at both ends" --server-relay godot --client-relay godot
            ;;
        socat)
            [ $checks -eq 1 ] && relay_checks socat
            # socat relays one peer per process: broadcast's 5 client hosts
            # would need 5 relay pairs on 5 ports.
            case_filter=(--skip broadcast)
            # With our server native, the client-victim timeout cannot be
            # one: socat's client relay exits when its client is killed
            # and closes its DTLS session (close_notify), which our server
            # reports at once as the peer's DISCONNECT instead of waiting
            # out ENet's timeout.
            [ ${#native[@]} -gt 0 ] && [[ " ${native[*]} " == *" ours "* ]] \
                && case_filter+=(--skip timeout/victim=client/ours-server)
            matrix "socat relays (OpenSSL) at both ends, one peer per process" \
                --server-relay socat --client-relay socat
            case_filter=()
            # OpenSSL 3's default cipher list makes its ClientHello long
            # enough to go out in two handshake fragments (231 + 47 bytes);
            # our server must put it together. One basic case, a few seconds.
            if [ ${#native[@]} -gt 0 ] && [[ " ${native[*]} " == *" ours "* ]]; then
                last_filter=(--only "checksum=off,compress=off,bandwidth=unlimited/ours-server")
                SOCAT_CIPHER=default matrix \
                    "socat's client relay with OpenSSL's default cipher list (a fragmented ClientHello) -> our server" \
                    --server-relay socat --client-relay socat
                last_filter=()
            fi
            ;;
        mixed)
            case_filter=(--only disconnect)
            matrix "Godot's DTLS client relay -> socat's DTLS server relay" --client-relay godot --server-relay socat
            matrix "socat's DTLS client relay -> Godot's DTLS server relay" --client-relay socat --server-relay godot
            case_filter=()
            ;;
    esac
done

printf 'DTLS runs took %.0f s\n' "$(echo "$(date +%s.%N) - $start_all" | bc)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
