#!/usr/bin/env bash
# Loss recovery, stock ENet 1.3.17 and ours side by side, through the
# impairing proxy (tools/impair) with 20 ms of delay each way:
#   latency  one reliable 64-byte message 60 times a second (a game's state
#            stream); one-way latency p50, p99 and max, at 0, 2 and 10 % loss;
#   bulk     reliable 1200-byte messages as fast as they go; MB/s at 0 and
#            2 % loss;
#   share    two such bulk flows from two client processes through one
#            proxy capped at --cap bytes/s (default 8000000): each flow's
#            MB/s while both send, and Jain's fairness index (1 = equal);
# and, for both, retransmitted bytes per delivered byte: what the sender
# put on the wire beyond its own loss-free run, per payload byte ("retx/
# byte": headers, and resends of commands whose acknowledgement was lost,
# included), and for our library also the payload bytes its loss recovery
# sent again per payload byte ("resent/byte", from enet_rs_peer_get_stats).
#
# Configurations, run alternately, medians of --runs:
#   stock      Debian's libenet.so.7
#   ours       our library as a relinked program gets it (the default mode)
#   ours-fast  our library with ENET_RS_LOSS_RECOVERY=fast
#   kcp        (latency only) KCP in no-delay mode (tools/kcp-latency, the
#              kcp crate), over the same proxy: the reference design
#
# usage: bench/loss.sh --ours DIR [--runs N] [--seconds S] [--bulk BYTES]
#                      [--cap BYTES_PER_S] [--only latency|bulk|share]
#                      [--losses "0 0.02 0.1"]
#   --ours DIR     directory holding our libenet.so.7 (or libenet.so)
#   --runs N       runs per configuration and scenario (default 3)
#   --seconds S    length of a latency run (default 20)
#   --bulk BYTES   bytes per bulk run (default 8000000)
# Not a test: it prints figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours="" runs=3 seconds=20 bulk=8000000 cap=8000000 only="" losses="0 0.02 0.1"
die() { echo "bench/loss.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) ours=$2; shift ;;
        --runs) runs=$2; shift ;;
        --seconds) seconds=$2; shift ;;
        --bulk) bulk=$2; shift ;;
        --cap) cap=$2; shift ;;
        --only) only=$2; shift ;;
        --losses) losses=$2; shift ;;
        -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    [ $# -gt 0 ] && shift
done
[ -n "$ours" ] || die "--ours DIR is required"
. "$repo/scripts/lib/procs.sh"
procs_init enet-loss
ours_library "$ours"
(cd "$repo" && cargo build -q --release --locked -p enet-impair) || die "building enet-impair failed"
impair="$repo/target/release/enet-impair"
kcp="$repo/target/release/kcp-latency"
configs="stock ours ours-fast kcp"
if ! (cd "$repo" && cargo build -q --release --locked -p kcp-latency); then
    echo "bench/loss.sh: building kcp-latency failed; KCP left out" >&2
    configs="stock ours ours-fast"
fi
peer="$work/loss_peer"
gcc -std=c99 -Wall -Wextra -Werror -O2 "$here/loss_peer.c" -lenet -ldl -o "$peer" \
    || die "building loss_peer.c failed"

# with CONFIG CMD...: runs CMD as configuration CONFIG.
with() {
    local config=$1; shift
    case "$config" in
        stock) env -u LD_LIBRARY_PATH -u ENET_RS_LOSS_RECOVERY "$@" ;;
        ours) env -u ENET_RS_LOSS_RECOVERY LD_LIBRARY_PATH="$ours_dir" "$@" ;;
        ours-fast) env LD_LIBRARY_PATH="$ours_dir" ENET_RS_LOSS_RECOVERY=fast "$@" ;;
        kcp) "$@" ;;
    esac
}

# one CONFIG LOSS KIND SEED: one run; appends "CONFIG LOSS KIND server-line
# client-line" to $work/results.
one() {
    local config=$1 loss=$2 kind=$3 seed=$4 d="$work/run.$RANDOM"
    local server_cmd client_args limit
    mkdir -p "$d"
    if [ "$config" = kcp ]; then
        server_cmd=("$kcp" server --seconds $((seconds + 60)))
        client_args=(client --rate 60 --seconds "$seconds" --size 64)
    elif [ "$kind" = latency ]; then
        server_cmd=("$peer" server --seconds $((seconds + 60)))
        client_args=(client --rate 60 --seconds "$seconds" --size 64)
    else
        server_cmd=("$peer" server --seconds 300)
        client_args=(client --bulk "$bulk" --size 1200)
    fi
    limit=$((seconds + 90)); [ "$kind" = bulk ] && limit=320
    with "$config" "${server_cmd[@]}" >"$d/server.out" 2>"$d/server.err" &
    local spid=$!; track "$spid"
    local sport; sport=$(wait_port "$d/server.out" "$spid" "$config server")
    "$impair" --server "127.0.0.1:$sport" --seed "$seed" --loss "$loss" --delay-ms 20 \
        --duration $((limit + 10)) >"$d/proxy.out" 2>"$d/proxy.err" &
    local ppid_=$!; track "$ppid_"
    local pport; pport=$(wait_port "$d/proxy.out" "$ppid_" enet-impair)
    if [ "$config" = kcp ]; then
        "$kcp" "${client_args[@]}" --port "$pport" >"$d/client.out" 2>"$d/client.err" &
    else
        with "$config" "$peer" "${client_args[0]}" --port "$pport" "${client_args[@]:1}" \
            >"$d/client.out" 2>"$d/client.err" &
    fi
    local cpid=$!; track "$cpid"
    bounded_wait "$cpid" "$limit"
    bounded_wait "$spid" 30
    kill -TERM "$ppid_" 2>/dev/null || true
    bounded_wait "$ppid_" 10
    local server_line client_line
    server_line=$(grep -E '^(result|latency) ' "$d/server.out" || echo "result dropped=1 missing=1")
    # KCP's summary says done=1 where ours says dropped=0.
    case "$server_line" in
        *done=1*) server_line="$server_line dropped=0" ;;
        *done=0*) server_line="$server_line dropped=1" ;;
    esac
    client_line=$(grep -E '^client ' "$d/client.out" || echo "client missing=1")
    echo "$config $loss $kind ${server_line#* } ${client_line#client }" >>"$work/results"
    echo "$config loss $loss $kind: ${server_line#* } | ${client_line#client }" >&2
}

# share CONFIG SEED: two bulk flows through one capped proxy; appends
# "CONFIG share a,b" to $work/shares.
share() {
    local config=$1 seed=$2 d="$work/share.$RANDOM"
    mkdir -p "$d"
    with "$config" "$peer" server --seconds 300 --clients 2 >"$d/server.out" 2>"$d/server.err" &
    local spid=$!; track "$spid"
    local sport; sport=$(wait_port "$d/server.out" "$spid" "$config server")
    "$impair" --server "127.0.0.1:$sport" --seed "$seed" --delay-ms 20 --bandwidth "$cap" \
        --duration 330 >"$d/proxy.out" 2>"$d/proxy.err" &
    local ppid_=$!; track "$ppid_"
    local pport; pport=$(wait_port "$d/proxy.out" "$ppid_" enet-impair)
    with "$config" "$peer" client --port "$pport" --bulk "$bulk" --size 1200 >"$d/c1.out" 2>&1 &
    local c1=$!; track "$c1"
    with "$config" "$peer" client --port "$pport" --bulk "$bulk" --size 1200 >"$d/c2.out" 2>&1 &
    local c2=$!; track "$c2"
    bounded_wait "$c1" 320; bounded_wait "$c2" 320; bounded_wait "$spid" 30
    kill -TERM "$ppid_" 2>/dev/null || true
    bounded_wait "$ppid_" 10
    local flows
    flows=$(sed -n 's/.*flows_mbytes_per_s=\([0-9.,]*\).*dropped=0.*/\1/p' "$d/server.out")
    echo "$config share ${flows:-dropped}" >>"$work/shares"
    echo "$config share: ${flows:-dropped} MB/s" >&2
}

: >"$work/results"
: >"$work/shares"
seed=1
for run in $(seq 1 "$runs"); do
    for loss in $losses; do
        # Every configuration of a round gets the same proxy seed, so the
        # same datagram numbers are lost for each.
        if [ -z "$only" ] || [ "$only" = latency ]; then
            for config in $configs; do one "$config" "$loss" latency "$seed"; done
            seed=$((seed + 1))
        fi
        if { [ -z "$only" ] || [ "$only" = bulk ]; } && [ "$loss" != 0.1 ]; then
            for config in stock ours ours-fast; do one "$config" "$loss" bulk "$seed"; done
            seed=$((seed + 1))
        fi
    done
    if [ -z "$only" ] || [ "$only" = share ]; then
        for config in stock ours ours-fast; do share "$config" "$seed"; done
        seed=$((seed + 1))
    fi
done

echo
echo "20 ms each way through enet-impair; medians of $runs runs; configurations alternate"
awk '
function field(name,   i, kv) {
    for (i = 4; i <= NF; ++i) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
    return ""
}
function median(key, n,   a, b, x, m) {
    m = count[key]
    for (a = 1; a <= m; ++a) v[a] = values[key, a]
    for (a = 1; a <= m; ++a) for (b = a + 1; b <= m; ++b) if (v[b] + 0 < v[a] + 0) { x = v[a]; v[a] = v[b]; v[b] = x }
    return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
function add(key, value) { values[key, ++count[key]] = value }
{
    config = $1; loss = $2; kind = $3; id = config SUBSEP loss SUBSEP kind
    seen[id] = 1; configs[config] = 1; losses_[loss] = 1
    drops[id] += field("dropped") + 0
    if (field("dropped") + 0) next
    add(id SUBSEP "p50", field("p50_ms")); add(id SUBSEP "p99", field("p99_ms"))
    add(id SUBSEP "max", field("max_ms")); add(id SUBSEP "mbps", field("mbytes_per_s"))
    sent = field("sent_bytes"); payload = field("payload_bytes")
    if (payload + 0 > 0) add(id SUBSEP "ratio", sent / payload)
    resent = field("retransmitted_payload")
    if (resent != "" && payload + 0 > 0) add(id SUBSEP "resent", resent / payload)
}
END {
    split("stock ours ours-fast kcp", order, " ")
    printf "%-10s %-6s %-8s %9s %9s %9s %9s %10s %12s %6s\n", "config", "loss", "traffic", "p50 ms", "p99 ms", "max ms", "MB/s", "retx/byte", "resent/byte", "drops"
    nl = split("0 0.02 0.1", lo, " ")
    for (k = 1; k <= 2; ++k) {
        kind = k == 1 ? "latency" : "bulk"
        for (l = 1; l <= nl; ++l) for (c = 1; c <= 4; ++c) {
            id = order[c] SUBSEP lo[l] SUBSEP kind
            if (!(id in seen)) continue
            base = order[c] SUBSEP "0" SUBSEP kind
            retx = "-"
            if (count[id SUBSEP "ratio"] && count[base SUBSEP "ratio"])
                retx = sprintf("%.3f", median(id SUBSEP "ratio") - median(base SUBSEP "ratio"))
            resent = count[id SUBSEP "resent"] ? sprintf("%.3f", median(id SUBSEP "resent")) : "-"
            if (kind == "latency")
                printf "%-10s %-6s %-8s %9.1f %9.1f %9.1f %9s %10s %12s %6d\n", order[c], lo[l], kind,
                    median(id SUBSEP "p50"), median(id SUBSEP "p99"), median(id SUBSEP "max"), "-", retx, resent, drops[id]
            else
                printf "%-10s %-6s %-8s %9s %9s %9s %9.2f %10s %12s %6d\n", order[c], lo[l], kind,
                    "-", "-", "-", median(id SUBSEP "mbps"), retx, resent, drops[id]
        }
    }
}' "$work/results"
if [ -s "$work/shares" ]; then
    echo
    echo "two bulk flows through one proxy capped at $cap B/s, 20 ms each way (per run: flow MB/s while both sent)"
    awk '{
        n = split($3, f, ","); if (n != 2) { printf "%-10s dropped\n", $1; next }
        a = f[1]; b = f[2]; jain = (a + b) * (a + b) / (2 * (a * a + b * b) + 1e-12)
        printf "%-10s flows %6.2f + %6.2f = %6.2f MB/s   Jain %.3f\n", $1, a, b, a + b, jain
    }' "$work/shares"
fi
