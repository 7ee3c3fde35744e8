# Shared by the DTLS interop scripts (source it; the caller defines die()).
#
#   udp_port_in_use PORT   whether a UDP socket on this machine is bound to PORT
#   free_udp_port          a port (20000-31999, below Linux's ephemeral range)
#                          that no UDP socket on this machine holds
#   wait_udp_bound PORT PID S   until a UDP socket is bound to PORT (PID
#                          must stay alive), at most S seconds
#   wait_port_line FILE PID S   the port from FILE's "PORT n" line, at most
#                          S seconds (PID must stay alive)
#   make_cert DIR [CN]     an ECDSA P-256 self-signed certificate, DIR/cert.pem
#                          and DIR/key.pem, for host name CN (default localhost)
#   stop_pids PID...       SIGTERM each (by PID), then at most 3 s before SIGKILL
#
# /proc/net/udp and udp6 list every bound UDP socket; the second column is
# ADDR:PORT in hex.

udp_ports_in_use() {
    local f slot local_address rest
    for f in /proc/net/udp /proc/net/udp6; do
        [ -r "$f" ] || continue
        while read -r slot local_address rest; do
            [ "$slot" = sl ] || echo $((16#${local_address##*:}))
        done <"$f"
    done
}

# udp_port_in_use PORT (not a pipe into grep -q: under pipefail, grep's
# early exit can fail the pipeline with SIGPIPE).
udp_port_in_use() {
    local used
    used=$(udp_ports_in_use)
    grep -qx "$1" <<<"$used"
}

free_udp_port() {
    local port try
    for try in $(seq 200); do
        port=$((20000 + RANDOM % 12000))
        udp_port_in_use "$port" || { echo "$port"; return 0; }
    done
    die "found no free UDP port"
}

wait_udp_bound() {
    local port=$1 pid=$2 limit=$3 t=0
    until udp_port_in_use "$port"; do
        kill -0 "$pid" 2>/dev/null || return 1
        [ $t -ge $((limit * 20)) ] && return 1
        sleep 0.05; t=$((t + 1))
    done
}

wait_port_line() {
    local file=$1 pid=$2 limit=$3 t=0
    until grep -q '^PORT [0-9]' "$file" 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || return 1
        [ $t -ge $((limit * 20)) ] && return 1
        sleep 0.05; t=$((t + 1))
    done
    awk '$1 == "PORT" { print $2; exit }' "$file"
}

make_cert() {
    local dir=$1 cn=${2:-localhost}
    mkdir -p "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout "$dir/key.pem" -out "$dir/cert.pem" -days 30 \
        -subj "/CN=$cn" -addext "subjectAltName=DNS:$cn" 2>/dev/null \
        || die "openssl req failed"
}

stop_pids() {
    local pid t
    for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        t=0
        while kill -0 "$pid" 2>/dev/null && [ $t -lt 60 ]; do sleep 0.05; t=$((t + 1)); done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null || true
    done
    return 0
}
