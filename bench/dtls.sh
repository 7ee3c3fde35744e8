#!/usr/bin/env bash
# What encryption costs: our library plain and encrypted (DTLS 1.2,
# AES-128-GCM) side by side from the same run, alternating (plain,
# encrypted, plain, ...), medians. bench/engine.c's two-process sink and
# source, and its handshakes mode.
#
# usage: bench/dtls.sh [--ours DIR] [--runs N] [--seconds S] [--handshakes N]
#                      [--profile]
#   --ours DIR       directory holding our libenet.so (default:
#                    target/release, built first)
#   --runs N         runs per column and metric (default 5)
#   --seconds S      measuring time of each two-process run (default 3)
#   --handshakes N   connections per handshake run (default 50)
#   --profile        also run the 1 MiB receiver and sender under `perf
#                    record` (N more runs per column) and split each one's
#                    CPU per MiB by where the samples fell: the AEAD's bulk
#                    kernel, the rest of ring (each record's additional
#                    data, last partial block and tag), our record layer,
#                    and all else (needs perf)
# Metrics: reliable 64-byte messages and reliable 1 MiB messages, each as
# fast as the source can queue them (at most 4096 or 4 MiB alive):
# messages/s, and CPU per message of the receiver (its CPU over the
# measuring time / messages) and of the sender (its whole run / messages
# received). Handshakes: one process makes a server and N client hosts one
# after another, each connecting until both sides have the CONNECT event;
# wall and CPU (both sides) per connection. The certificate is a throwaway
# ECDSA P-256 one made by openssl; clients verify it.
# Then the floor: ring's AEAD alone per record (examples/aead_cost.rs) and
# the share of plaintext's 1 MiB rate it leaves each side at best.
# Not a test: figures vary with the machine's load; compare columns of one run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours=""
runs=5
seconds=3
handshakes=50
profile=0

die() { echo "bench/dtls.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --runs) [ $# -ge 2 ] || die "--runs needs a count"; runs=$2; shift ;;
        --seconds) [ $# -ge 2 ] || die "--seconds needs a value"; seconds=$2; shift ;;
        --handshakes) [ $# -ge 2 ] || die "--handshakes needs a count"; handshakes=$2; shift ;;
        --profile) profile=1 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
if [ -z "$ours" ]; then
    (cd "$repo" && cargo build --release --locked -p libenet -q) || die "cargo build failed"
    ours="$repo/target/release"
fi
source "$repo/scripts/lib/procs.sh"
procs_init enet-dtls-bench
ours_library "$ours"
command -v openssl >/dev/null || die "needs openssl (scripts/setup-debian.sh installs it)"
if [ "$profile" = 1 ]; then command -v perf >/dev/null || die "--profile needs perf"; fi
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>"$work/openssl.err" \
    || die "openssl req failed: $(cat "$work/openssl.err")"
engine="$work/engine"
gcc -std=c99 -Wall -Wextra -Werror -O2 "$here/engine.c" -lenet -ldl -o "$engine" || die "building engine.c failed"

value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# column_args COLUMN: the engine arguments that make the column's hosts.
column_args() { if [ "$1" = encrypted ]; then echo "--dtls $work"; fi; }

# Sampling rate of --profile's runs (Hz).
profile_hz=4000

# two_process COLUMN TAG ARGS...: one sink/source run; appends "msgs/s
# receiver-ns/msg sender-ns/msg MB/s" to $work/COLUMN.TAG. With $sampled
# set to a file name, the sink runs under `perf record` writing there, and
# the source writing to that name with ".source" after it.
two_process() {
    local column=$1 tag=$2 out="$work/sink.out" spid cpid port received
    local -a sampler=() source_sampler=()
    shift 2
    if [ -n "${sampled:-}" ]; then
        sampler=(perf record -q -F "$profile_hz" -o "$sampled" --)
        source_sampler=(perf record -q -F "$profile_hz" -o "$sampled.source" --)
    fi
    # The last run's output goes first: its PORT line must not be read
    # before this sink's own replaces it.
    rm -f "$out"
    # shellcheck disable=SC2046 # the column's arguments: none, or two words
    LD_LIBRARY_PATH="$ours_dir" "${sampler[@]}" "$engine" sink --seconds "$seconds" "$@" $(column_args "$column") \
        >"$out" 2>"$work/sink.err" &
    spid=$!; track "$spid"
    port=$(wait_port "$out" "$spid" "$column sink")
    # shellcheck disable=SC2046
    LD_LIBRARY_PATH="$ours_dir" "${source_sampler[@]}" "$engine" source --port "$port" "$@" \
        $(column_args "$column") >"$work/source.out" 2>"$work/source.err" &
    cpid=$!; track "$cpid"
    bounded_wait "$spid" $((seconds + 30))
    [ "$RC" -eq 0 ] || { cat "$work/sink.err" >&2; die "$column sink failed ($RC)"; }
    bounded_wait "$cpid" 10
    received=$(value received "$out")
    echo "$(value msgs_per_s "$out") $(value cpu_ns_per_msg "$out")" \
        "$(awk -v c="$(value cpu_ns_total "$work/source.out")" -v n="$received" 'BEGIN { printf "%.1f", c / n }')" \
        "$(value mb_per_s "$out")" >>"$work/$column.$tag"
}

# handshakes COLUMN: appends "ms-per-connect cpu-ms-per-connect".
handshakes() {
    local column=$1 out="$work/handshakes.out" pid
    # shellcheck disable=SC2046
    LD_LIBRARY_PATH="$ours_dir" "$engine" handshakes --count "$handshakes" $(column_args "$column") \
        >"$out" 2>"$work/handshakes.err" &
    pid=$!; track "$pid"
    bounded_wait "$pid" 120
    [ "$RC" -eq 0 ] || { cat "$work/handshakes.err" >&2; die "$column handshakes failed ($RC)"; }
    echo "$(value ms_per_connect "$out") $(value cpu_ms_per_connect "$out")" >>"$work/$column.handshakes"
}

for _ in $(seq "$runs"); do
    for column in plain encrypted; do
        two_process "$column" small
        two_process "$column" bulk --size 1048576
        handshakes "$column"
    done
done

field() { awk -v n="$3" '$n ~ /^[0-9.]+$/ { print $n }' "$work/$1.$2" | median; }
ratio() { awk -v p="$1" -v e="$2" 'BEGIN { if (p + 0 > 0 && e + 0 > 0) printf "%.2fx", e / p; else print "-" }'; }
row() { printf '%-46s %12s %12s %9s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

printf '%-46s %12s %12s %9s\n' "metric (median of $runs runs)" plain encrypted "enc/plain"
row "reliable 64 B: messages/s" "$(field plain small 1)" "$(field encrypted small 1)"
row "  receiver CPU ns per message" "$(field plain small 2)" "$(field encrypted small 2)"
row "  sender CPU ns per message" "$(field plain small 3)" "$(field encrypted small 3)"
row "reliable 1 MiB: MB/s" "$(field plain bulk 4)" "$(field encrypted bulk 4)"
row "  receiver CPU us per message" "$(field plain bulk 2 | awk '{ printf "%.0f", $1 / 1000 }')" \
    "$(field encrypted bulk 2 | awk '{ printf "%.0f", $1 / 1000 }')"
row "  sender CPU us per message" "$(field plain bulk 3 | awk '{ printf "%.0f", $1 / 1000 }')" \
    "$(field encrypted bulk 3 | awk '{ printf "%.0f", $1 / 1000 }')"
row "connection set-up: ms per connection (wall)" "$(field plain handshakes 1)" "$(field encrypted handshakes 1)"
row "  CPU ms per connection (both sides)" "$(field plain handshakes 2)" "$(field encrypted handshakes 2)"
echo "(ours from $ours; two processes on 127.0.0.1; $seconds s per run)"

# The floor: ring's AES-128-GCM alone on one full datagram's record
# (examples/aead_cost.rs), and what it leaves of the 1 MiB rate even if
# everything else cost what it costs plain (the example counts a 1 MiB
# message's records).
aead=$(cd "$repo" && cargo run --release --locked -q --example aead_cost 2>"$work/aead.err") ||
    die "examples/aead_cost.rs failed: $(cat "$work/aead.err")"
read -r _ seal_ns _ open_ns _ record_bytes _ records <<<"$aead"
# floor_row SIDE FIELD NS: one side's plain CPU per MiB, with the AEAD's
# cost per MiB added, and the share of plaintext's rate that leaves.
floor_row() {
    awk -v side="$1" -v plain="$(field plain bulk "$2")" -v ns="$3" -v n="$records" 'BEGIN {
        aead = ns * n / 1000; plain /= 1000
        printf "  1 MiB %s: %.0f us plain + %.0f the AEAD = at best %.2fx the plain rate\n",
            side, plain, aead, plain / (plain + aead) }'
}
echo
echo "the AEAD alone (examples/aead_cost.rs): $seal_ns ns to seal, $open_ns to open a" \
    "$record_bytes-byte record; $records records a MiB"
floor_row sender 3 "$seal_ns"
floor_row receiver 2 "$open_ns"

[ "$profile" = 1 ] || exit 0

# split_samples DATA MIB: "all aead ring record" microseconds per MiB of
# the process sampled into DATA, in a run that delivered MIB messages of
# 1 MiB. ring's functions are its Rust ones (`ring::`) and its assembly
# and C (`ring_core_*`), not every name with "ring" in it (the engine's
# `receive_datagram_deferring`).
split_samples() {
    perf report -i "$1" -n --sort sym --stdio 2>/dev/null | awk -v hz="$profile_hz" -v mib="$2" '
        /^ +[0-9.]+%/ {
            n = $2; all += n
            if ($0 ~ /aes_gcm_(enc|dec)_update/) aead += n
            else if ($0 ~ /ring::|ring_core_|CRYPTO_/) ring += n
            else if ($0 ~ /enet::dtls|SecureLayer/) record += n
        }
        END { us = 1e6 / hz / mib; printf "%.1f %.1f %.1f %.1f\n", all * us, aead * us, ring * us, record * us }'
}
for run in $(seq "$runs"); do
    for column in plain encrypted; do
        sampled="$work/perf.$column.$run"
        two_process "$column" profiled --size 1048576
        delivered=$(value received "$work/sink.out")
        split_samples "$sampled" "$delivered" >>"$work/$column.split"
        split_samples "$sampled.source" "$delivered" >>"$work/$column.source_split"
    done
done
unset sampled
others() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { printf "%.1f", a - b - c - d }'; }
# split_table SIDE TAG: the table of one side's split ($work/COLUMN.TAG).
split_table() {
    local side=$1 tag=$2 plain=() encrypted=() i
    for i in 1 2 3 4; do
        plain[i]=$(field plain "$tag" "$i")
        encrypted[i]=$(field encrypted "$tag" "$i")
    done
    echo
    printf '%-46s %12s %12s\n' "1 MiB $side under perf (median of $runs)" plain encrypted
    printf '%-46s %12s %12s\n' "  CPU us per MiB, sampled" "${plain[1]}" "${encrypted[1]}"
    printf '%-46s %12s %12s\n' "    in the AEAD's bulk kernel" "${plain[2]}" "${encrypted[2]}"
    printf '%-46s %12s %12s\n' "    in the rest of ring (per record)" "${plain[3]}" "${encrypted[3]}"
    printf '%-46s %12s %12s\n' "    in our record layer (src/dtls)" "${plain[4]}" "${encrypted[4]}"
    printf '%-46s %12s %12s\n' "    everything else" \
        "$(others "${plain[@]}")" "$(others "${encrypted[@]}")"
}
split_table receiver split
split_table sender source_split
echo "(perf record -F $profile_hz of the sink and the source; medians of each part on its own)"
