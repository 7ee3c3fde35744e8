#!/usr/bin/env bash
# Soak runner: reliable and unreliable traffic through the impairing proxy,
# stock ENet and ours in every pairing, aggregated over runs.
#
# usage: scripts/soak.sh --ours DIR [--runs N] [--messages N] [--rate R]
#                        [--seed X] [--pairings "ours-ours ours-stock stock-ours stock-stock"]
#                        [--loss P] [--duplicate P] [--reorder P] [--corrupt P]
#                        [--delay-ms MS] [--jitter-ms MS] [--bandwidth B]
#                        [--check] [--dtls]
#   --ours DIR     directory holding our libenet.so.7 (or libenet.so).
#   --runs N       soaks per pairing (default 5).
#   --messages N   reliable messages per soak (default 10000), each with an
#                  unreliable one; --rate R of each per second (default 2000).
#   --pairings     CLIENT-SERVER library pairs (default: all four).
#   impairment     default 10 % loss, 5 % duplication, 10 % reordering (held
#                  back 20 ms more), 1 % corruption, 2 ms delay, 1 ms jitter,
#                  no bandwidth cap; applied to both directions.
#   --check        exit 1 if any pairing delivered a reliable message
#                  duplicated, out of order or corrupted, or lost one in a
#                  soak whose connection held (connection drops only count).
#   --dtls         encrypted: both peers on our library over DTLS (a
#                  throwaway certificate made by openssl; the client
#                  verifies it), so the impairments hit DTLS records, the
#                  handshake included; the pairing is ours-ours only.
#
# Each soak: tests-c/soak/soak_peer.c (built against the stock header) as
# server and client, enet-impair between them, all on 127.0.0.1 with
# free ports, every process stopped by PID. The server's ENet checksum
# (CRC32) is on, so a corrupted datagram is dropped, not delivered.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours=""
runs=5
messages=10000
rate=2000
seed=1
pairings="ours-ours ours-stock stock-ours stock-stock"
loss=0.10 duplicate=0.05 reorder=0.10 corrupt=0.01 delay=2 jitter=1 bandwidth=0
check=0
dtls=0

die() { echo "scripts/soak.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) ours=$2; shift ;;
        --runs) runs=$2; shift ;;
        --messages) messages=$2; shift ;;
        --rate) rate=$2; shift ;;
        --seed) seed=$2; shift ;;
        --pairings) pairings=$2; shift ;;
        --loss) loss=$2; shift ;;
        --duplicate) duplicate=$2; shift ;;
        --reorder) reorder=$2; shift ;;
        --corrupt) corrupt=$2; shift ;;
        --delay-ms) delay=$2; shift ;;
        --jitter-ms) jitter=$2; shift ;;
        --bandwidth) bandwidth=$2; shift ;;
        --check) check=1 ;;
        --dtls) dtls=1 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    [ $# -gt 0 ] && shift
done
[ -n "$ours" ] || die "--ours DIR is required"
. "$here/lib/procs.sh"
procs_init enet-soak
ours_library "$ours"
(cd "$repo" && cargo build -q --release --locked -p enet-impair) || die "building enet-impair failed"
impair="$repo/target/release/enet-impair"
peer="$work/soak_peer"
gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 "$repo/tests-c/soak/soak_peer.c" -lenet -ldl -o "$peer" \
    || die "building soak_peer failed"
encrypted=()
if [ "$dtls" = 1 ]; then
    [ "$pairings" = "ours-ours" ] || [ "$pairings" = "ours-ours ours-stock stock-ours stock-stock" ] \
        || die "--dtls runs the ours-ours pairing only"
    pairings="ours-ours"
    command -v openssl >/dev/null || die "--dtls needs openssl (scripts/setup-debian.sh installs it)"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj /CN=localhost -addext subjectAltName=DNS:localhost \
        -keyout "$work/key.pem" -out "$work/cert.pem" 2>"$work/openssl.err" \
        || die "openssl req failed: $(cat "$work/openssl.err")"
    encrypted=(--dtls "$work")
fi

# on LIB CMD...: runs CMD on "ours" or "stock".
on() {
    local lib=$1; shift
    if [ "$lib" = ours ]; then env LD_LIBRARY_PATH="$ours_dir" "$@"; else env -u LD_LIBRARY_PATH "$@"; fi
}

limit=$((60 + messages * 4 / rate + 30))
: >"$work/results"
for pairing in $pairings; do
    client_lib=${pairing%-*}
    server_lib=${pairing#*-}
    for run in $(seq 1 "$runs"); do
        d="$work/$pairing-$run"
        mkdir -p "$d"
        run_seed=$((seed * 1000 + run))
        on "$server_lib" "$peer" server --seconds "$limit" "${encrypted[@]}" >"$d/server.out" 2>"$d/server.err" &
        spid=$!; started+=("$spid")
        sport=$(wait_port "$d/server.out" "$spid" "$server_lib server")
        "$impair" --server "127.0.0.1:$sport" --seed "$run_seed" --loss "$loss" \
            --duplicate "$duplicate" --reorder "$reorder" --corrupt "$corrupt" \
            --delay-ms "$delay" --jitter-ms "$jitter" --bandwidth "$bandwidth" \
            --duration $((limit + 10)) >"$d/proxy.out" 2>"$d/proxy.err" &
        ppid_=$!; started+=("$ppid_")
        pport=$(wait_port "$d/proxy.out" "$ppid_" "enet-impair")
        on "$client_lib" "$peer" client --port "$pport" --messages "$messages" --rate "$rate" \
            --seed "$run_seed" "${encrypted[@]}" >"$d/client.out" 2>"$d/client.err" &
        cpid=$!; started+=("$cpid")
        bounded_wait "$cpid" $((limit + 10))
        bounded_wait "$spid" $((limit + 10))
        kill -TERM "$ppid_" 2>/dev/null
        bounded_wait "$ppid_" 10
        line=$(grep '^soak ' "$d/server.out")
        [ -n "$line" ] || line="soak dropped=1 connected=0 done=0 no_summary=1"
        echo "$pairing $line" >>"$work/results"
        echo "$pairing run $run: ${line#soak }" >&2
    done
done

[ "$dtls" = 1 ] && echo "encrypted: DTLS 1.2 between our client and our server"
echo "profile: loss $loss, duplication $duplicate, reordering $reorder (+20 ms), corruption $corrupt,"
echo "delay ${delay} ms + jitter ${jitter} ms, bandwidth ${bandwidth:-0} B/s (0 = none), both directions;"
echo "$messages reliable messages (16-3000 B, channels 0-2) + as many unreliable (channel 3) per soak"
awk -v check="$check" '
function field(name,   i, kv) {
    for (i = 2; i <= NF; ++i) { split($i, kv, "="); if (kv[1] == name) return kv[2] + 0 }
    return 0
}
{
    p = $1; runs[p]++; order[p] = order[p] ? order[p] : ++n; names[order[p]] = p
    drops[p] += field("dropped")
    dup[p] += field("reliable_duplicated"); ooo[p] += field("reliable_out_of_order")
    bad[p] += field("reliable_corrupted")
    if (!field("dropped")) lost[p] += field("reliable_lost")
    us[p] += field("unreliable_sent"); ud[p] += field("unreliable_delivered")
    ubad[p] += field("unreliable_corrupted") + field("unreliable_duplicated") + field("unreliable_out_of_order")
    t[p, runs[p]] = field("elapsed_ms")
}
END {
    printf "%-12s %5s %6s %9s %9s %9s %9s %11s %12s %10s\n", "client-server", "runs", "drops",
        "rel.lost", "rel.dup", "rel.order", "rel.bad", "unrel.got%", "unrel.dup/ord/bad", "median s"
    status = 0
    for (i = 1; i <= n; ++i) {
        p = names[i]; m = runs[p]
        for (a = 1; a <= m; ++a) v[a] = t[p, a]
        for (a = 1; a <= m; ++a) for (b = a + 1; b <= m; ++b) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
        median = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
        printf "%-12s %5d %6d %9d %9d %9d %9d %10.1f%% %12d %10.1f\n", p, m, drops[p], lost[p], dup[p],
            ooo[p], bad[p], us[p] ? 100 * ud[p] / us[p] : 0, ubad[p], median / 1000
        if (lost[p] + dup[p] + ooo[p] + bad[p] + ubad[p] > 0) status = 1
    }
    exit check ? status : 0
}' "$work/results"
