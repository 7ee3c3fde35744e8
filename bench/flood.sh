#!/usr/bin/env bash
# Connect-flood benchmark: legit connects through a spoofed CONNECT flood,
# our server and stock's side by side in one run, and a table.
#
# usage: bench/flood.sh --ours DIR [--flood BIN] [--rates "300 1000 5000"]
#                       [--tries N] [--peers N] [--sources N] [--warmup S]
#   --ours DIR     directory holding our libenet.so.7 (or libenet.so, e.g.
#                  target/release), required.
#   --flood BIN    the enet-flood binary (default: <repo>/target/release/
#                  enet-flood, built if missing).
#   --rates LIST   spoofed CONNECTs per second, one run per rate and column
#                  (default "300 1000 5000").
#   --tries N      legit connects per run (default 18), one every 500 ms,
#                  each given 3 s.
#   --peers N      server peer slots (default 1024).
#   --sources N    flood source addresses, 127.64.x.y (default 200).
#   --warmup S     seconds of flood before the first legit connect
#                  (default 1).
#   --min-ok K     exit 1 unless our server let at least K legit connects
#                  through at every rate (default 0: no check; the CI
#                  smoke uses it).
#   --only-ours    skip the stock column (the CI smoke).
#   --dtls         add a column "dtls": our server encrypted (a throwaway
#                  ECDSA P-256 certificate made by openssl), flooded with
#                  spoofed DTLS ClientHellos (half with forged cookies) at
#                  the same rates, and legit clients on our library that
#                  verify the certificate, each try a full handshake from a
#                  host of its own. "peak sessions" is the most DTLS
#                  sessions the server held at once: the legit ones only,
#                  if spoofed sources leave no state.
#   --only-dtls    the dtls column alone (its CI smoke).
#
# Per rate and column: the server (bench/flood.c, built against the stock
# header) runs on that column's library; enet-flood floods it; the legit
# client of the ours and stock columns runs on STOCK ENet (so every "ours"
# figure is also a stock client connecting to our server). Server CPU is
# utime+stime from /proc/PID/stat over the client's run, as a percentage
# of one core.
# Not a test: figures vary with machine load; compare columns of one run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ours=""
flood="$repo/target/release/enet-flood"
rates="300 1000 5000"
tries=18
peers=1024
sources=200
warmup=1
min_ok=0
columns="ours stock"
dtls=0

die() { echo "bench/flood.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a directory"; ours=$2; shift ;;
        --flood) [ $# -ge 2 ] || die "--flood needs a path"; flood=$2; shift ;;
        --rates) [ $# -ge 2 ] || die "--rates needs a list"; rates=$2; shift ;;
        --tries) [ $# -ge 2 ] || die "--tries needs a value"; tries=$2; shift ;;
        --peers) [ $# -ge 2 ] || die "--peers needs a value"; peers=$2; shift ;;
        --sources) [ $# -ge 2 ] || die "--sources needs a value"; sources=$2; shift ;;
        --warmup) [ $# -ge 2 ] || die "--warmup needs a value"; warmup=$2; shift ;;
        --min-ok) [ $# -ge 2 ] || die "--min-ok needs a value"; min_ok=$2; shift ;;
        --only-ours) columns="ours" ;;
        --dtls) dtls=1 ;;
        --only-dtls) columns="" dtls=1 ;;
        -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
[ -n "$ours" ] || die "--ours DIR is required"
. "$here/../scripts/lib/procs.sh"
procs_init enet-flood-bench
ours_library "$ours"
if [ ! -x "$flood" ]; then
    [ "$flood" = "$repo/target/release/enet-flood" ] || die "--flood: $flood is not an executable"
    (cd "$repo" && cargo build -q --release --locked -p enet-flood) || die "building enet-flood failed"
fi
program="$work/flood"
gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 "$here/flood.c" -lenet -ldl -o "$program" \
    || die "building bench/flood.c failed"
if [ "$dtls" = 1 ]; then
    columns="${columns:+$columns }dtls"
    command -v openssl >/dev/null || die "--dtls needs openssl (scripts/setup-debian.sh installs it)"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj /CN=localhost -addext subjectAltName=DNS:localhost \
        -keyout "$work/key.pem" -out "$work/cert.pem" 2>"$work/openssl.err" \
        || die "openssl req failed: $(cat "$work/openssl.err")"
fi

clock_ticks=$(getconf CLK_TCK)
# cpu_ticks PID: utime + stime of PID so far, in clock ticks.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
now_ns() { date +%s%N; }


value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }

# Legit client run: one connect per 500 ms, the last one given 3 s.
client_secs=$(( (tries * 500 + 3000) / 1000 + 1 ))
flood_secs=$(( warmup + client_secs + 2 ))
server_secs=$(( flood_secs + 3 ))

# library_env COLUMN: the env arguments that run a program on the
# column's library (ours for ours and dtls, stock for stock). The program
# is started as `env ... &`, so $! is its own PID (env execs it).
library_env() {
    if [ "$1" = stock ]; then
        echo "-u LD_LIBRARY_PATH"
    else
        echo "LD_LIBRARY_PATH=$ours_dir"
    fi
}

declare -A ok mean cpu seen peak
for rate in $rates; do
    for column in $columns; do
        d="$work/$column-$rate"
        mkdir -p "$d"
        encrypted=()
        kind=connect
        client_column=stock
        if [ "$column" = dtls ]; then
            encrypted=(--dtls "$work")
            kind=client-hello
            client_column=dtls
        fi
        # shellcheck disable=SC2046 # one or two words, no spaces inside
        env $(library_env "$column") "$program" server --peers "$peers" --seconds "$server_secs" \
            "${encrypted[@]}" >"$d/server.out" 2>"$d/server.err" &
        spid=$!; started+=("$spid")
        port=$(wait_port "$d/server.out" "$spid" "$column server")
        "$flood" --target "127.0.0.1:$port" --rate "$rate" --duration "$flood_secs" \
            --sources "$sources" --seed "$rate" --kind "$kind" >"$d/flood.out" 2>"$d/flood.err" &
        fpid=$!; started+=("$fpid")
        sleep "$warmup"
        kill -0 "$fpid" 2>/dev/null || { cat "$d/flood.err" >&2; die "enet-flood died"; }
        cpu_start=$(cpu_ticks "$spid"); t_start=$(now_ns)
        # shellcheck disable=SC2046
        env $(library_env "$client_column") "$program" client --port "$port" --tries "$tries" \
            "${encrypted[@]}" >"$d/client.out" 2>"$d/client.err" &
        cpid=$!; started+=("$cpid")
        bounded_wait "$cpid" $((client_secs + 20))
        crc=$RC
        cpu_end=$(cpu_ticks "$spid"); t_end=$(now_ns)
        bounded_wait "$fpid" $((flood_secs + 10))
        bounded_wait "$spid" $((server_secs + 10))
        [ "$crc" -eq 0 ] || { cat "$d/client.err" >&2; die "$column client failed ($crc)"; }
        if [ "$client_column" = stock ]; then
            grep -q "^libenet mapped from /usr/lib" "$d/client.err" || die "the client did not run on stock ENet"
        fi
        if [ "$column" != stock ]; then
            grep -q "^libenet mapped from $ours" "$d/server.err" \
                || grep -q "^libenet mapped from $ours_dir" "$d/server.err" \
                || die "our server did not run on $ours: $(cat "$d/server.err")"
        fi
        ok[$column,$rate]=$(value ok "$d/client.out")
        mean[$column,$rate]=$(value mean_ms "$d/client.out")
        seen[$column,$rate]=$(value server_connects "$d/server.out")
        peak[$column,$rate]=$(value server_peak_sessions "$d/server.out")
        cpu[$column,$rate]=$(awk -v c=$((cpu_end - cpu_start)) -v hz="$clock_ticks" \
            -v ns=$((t_end - t_start)) 'BEGIN { printf "%.0f", 100 * c / hz / (ns / 1e9) }')
        echo "$column @ $rate/s: client ${ok[$column,$rate]} (mean ${mean[$column,$rate]} ms)," \
            "server saw ${seen[$column,$rate]} connects, server CPU ${cpu[$column,$rate]} %;" \
            "$(cat "$d/flood.out")" >&2
        if [ "$column" = dtls ] && ! grep -q "HelloVerifyRequests came back" "$d/flood.out"; then
            die "enet-flood did not report the DTLS server's answers"
        fi
    done
done

echo "server: $peers slots; flood: $sources sources (127.64.x.y), never answering; legit client"
echo "(stock ENet 1.3.17 for ours and stock; ours, encrypted, for dtls): $tries connects, one every"
echo "500 ms, 3 s each; server CPU = utime+stime over the client's run, % of one core"
header=$(printf '%-8s' "rate/s")
for column in $columns; do
    header+=$(printf ' | %-9s %-9s %-6s' "$column ok" "mean ms" "CPU %")
    [ "$column" = dtls ] && header+=$(printf ' %-13s' "peak sessions")
done
echo "$header"
for rate in $rates; do
    row=$(printf '%-8s' "$rate")
    for column in $columns; do
        row+=$(printf ' | %-9s %-9s %-6s' "${ok[$column,$rate]}" "${mean[$column,$rate]}" "${cpu[$column,$rate]}")
        [ "$column" = dtls ] && row+=$(printf ' %-13s' "${peak[$column,$rate]}")
    done
    echo "$row"
done
status=0
for rate in $rates; do
    for column in $columns; do
        [ "$column" = stock ] && continue
        got=${ok[$column,$rate]%%/*}
        if [ "${got:-0}" -lt "$min_ok" ]; then
            echo "FAIL: our server ($column) let only ${ok[$column,$rate]} legit connects through at $rate/s (need $min_ok)" >&2
            status=1
        fi
        # Encrypted: spoofed sources must leave no session, so at most one
        # per legit try.
        if [ "$column" = dtls ] && [ "${peak[$column,$rate]:-0}" -gt "$tries" ]; then
            echo "FAIL: the encrypted server held ${peak[$column,$rate]} sessions at $rate/s (legit tries: $tries)" >&2
            status=1
        fi
    done
done
exit $status
