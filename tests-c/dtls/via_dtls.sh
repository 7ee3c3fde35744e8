#!/usr/bin/env bash
# A --via program for tests-c/interop/run_matrix.sh: carries a case's
# traffic over DTLS 1.2 between two relays, one DTLS session per client
# address:
#
#   client --UDP--> client relay ==DTLS==> server relay --UDP--> server
#
# A relay is Godot's (tests-c/dtls/godot_relay.gd on godot3-server: mbedtls,
# the classes Godot's ENet runs over) or socat's (OpenSSL; one peer per
# process, so one client address per case).
#
# usage: via_dtls.sh SERVER_PORT [--server-relay godot|socat]
#                    [--client-relay godot|socat] [--native-dtls SIDE]...
#                    [--no-verify] [--hostname NAME] [--ca FILE]
#   SERVER_PORT          the server's UDP port on 127.0.0.1.
#   --server-relay KIND  who terminates DTLS in front of the server (default godot).
#   --client-relay KIND  who opens DTLS for the client (default godot).
#   --native-dtls SIDE   a pairing side (ours, stock) that speaks DTLS
#                        itself: when the case's client is SIDE, there is no
#                        client relay (the client is given the server
#                        relay's port); when the server is SIDE, no server
#                        relay (the client relay's DTLS goes to the server).
#                        run_matrix.sh names the case's sides in
#                        INTEROP_CLIENT_SIDE and INTEROP_SERVER_SIDE.
#   --no-verify          the client relay does not verify the certificate.
#   --hostname NAME      the host name it verifies (default localhost).
#   --ca FILE            the certificate it trusts (default $DTLS_DIR/cert.pem).
# Environment: DTLS_DIR holds key.pem and cert.pem (run_dtls.sh makes them;
# the server relay presents them); GODOT (default godot3-server);
# GODOT_RELAY_POLL_US, how long a Godot relay sleeps when it found nothing
# to do (default 1000); SOCAT_CIPHER, the socat client's cipher list
# (default ECDHE-ECDSA-AES128-GCM-SHA256: Godot's mbedtls refuses the
# ClientHello OpenSSL 3 sends with its default list; "default" leaves the
# list to OpenSSL, whose ClientHello then comes in two fragments).
# stdout: "PORT n", the port for the client. stderr: the relays' logs. Runs
# until SIGTERM, then stops the relays (by PID) and exits 0, or 1 if a Godot
# relay had exited on its own before (it never should). A socat relay exits
# by design when its peer goes away (an ICMP port unreachable on its
# connected UDP socket, a DTLS alert), e.g. after a timeout case's victim
# was killed: that is logged, and not a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "via_dtls.sh: $*" >&2; exit 2; }
# shellcheck source=tests-c/dtls/lib.sh
. "$here/lib.sh"

[ $# -ge 1 ] && [[ "$1" =~ ^[0-9]+$ ]] || die "usage: via_dtls.sh SERVER_PORT [options] (see the header)"
server_port=$1
shift
server_relay=godot
client_relay=godot
native=()
ca="${DTLS_DIR:-}/cert.pem"
hostname=localhost
no_verify=0
while [ $# -gt 0 ]; do
    case "$1" in
        --server-relay) [ $# -ge 2 ] || die "$1 needs godot or socat"; server_relay=$2; shift ;;
        --client-relay) [ $# -ge 2 ] || die "$1 needs godot or socat"; client_relay=$2; shift ;;
        --native-dtls) [ $# -ge 2 ] || die "$1 needs a side"; native+=("$2"); shift ;;
        --no-verify) no_verify=1 ;;
        --hostname) [ $# -ge 2 ] || die "$1 needs a name"; hostname=$2; shift ;;
        --ca) [ $# -ge 2 ] || die "$1 needs a file"; ca=$2; shift ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
for kind in "$server_relay" "$client_relay"; do
    [ "$kind" = godot ] || [ "$kind" = socat ] || die "a relay is godot or socat, not $kind"
done
[ -n "${DTLS_DIR:-}" ] && [ -r "$DTLS_DIR/key.pem" ] && [ -r "$DTLS_DIR/cert.pem" ] \
    || die "DTLS_DIR must hold key.pem and cert.pem"
# Absolute paths: the Godot relays run in another directory.
DTLS_DIR=$(cd "$DTLS_DIR" && pwd)
[ -r "$ca" ] || die "--ca: cannot read $ca"
ca=$(realpath "$ca")
godot=${GODOT:-godot3-server}
cipher=${SOCAT_CIPHER:-ECDHE-ECDSA-AES128-GCM-SHA256}
cipher_option="cipher=$cipher,"
[ "$cipher" = default ] && cipher_option=""

is_native() {
    local side
    for side in ${native[@]+"${native[@]}"}; do [ "$side" = "$1" ] && return 0; done
    return 1
}

scratch=$(mktemp -d /tmp/via-dtls.XXXXXX)
relays=()
names=()
finish() {
    local status=0 i
    for i in "${!relays[@]}"; do
        kill -0 "${relays[$i]}" 2>/dev/null && continue
        echo "via_dtls.sh: the ${names[$i]} (PID ${relays[$i]}) had exited on its own" >&2
        [[ "${names[$i]}" == socat* ]] || status=1
    done
    stop_pids ${relays[@]+"${relays[@]}"}
    rm -rf "$scratch"
    exit $status
}
trap finish TERM INT

# godot_relay NAME ARGS...: starts godot_relay.gd; sets PORT to its port.
godot_relay() {
    local name=$1
    shift
    command -v "$godot" >/dev/null || die "$godot not found (scripts/setup-dtls.sh installs it)"
    # In the scratch directory: without a project, Godot writes logs/ into
    # its working directory. (The subshell execs Godot: $! is Godot's PID.)
    (cd "$scratch" && exec env LANG=en_US.UTF-8 "$godot" --no-window --script "$here/godot_relay.gd" -- \
        --poll-us "${GODOT_RELAY_POLL_US:-1000}" "$@") \
        >"$scratch/${name// /-}.out" &
    relays+=($!)
    names+=("$name")
    PORT=$(wait_port_line "$scratch/${name// /-}.out" $! 10) \
        || { echo "via_dtls.sh: the $name printed no port" >&2; finish; }
}

# socat_relay NAME LISTEN_ADDRESS TARGET_ADDRESS: starts socat on a free
# port (LISTEN_ADDRESS has a %PORT% for it); sets PORT once it is bound.
# socat cannot report a port it was given by the system, so the port is
# chosen here; a bind that loses a race makes socat exit, and another port
# is tried.
socat_relay() {
    local name=$1 listen=$2 target=$3 try port pid
    command -v socat >/dev/null || die "socat not found (scripts/setup-dtls.sh installs it)"
    for try in 1 2 3 4 5; do
        port=$(free_udp_port)
        socat -d -d -lp "$name" "${listen//%PORT%/$port}" "$target" &
        pid=$!
        if wait_udp_bound "$port" "$pid" 5; then
            relays+=("$pid")
            names+=("$name")
            PORT=$port
            return
        fi
        stop_pids "$pid"
    done
    echo "via_dtls.sh: the $name could not bind a port" >&2
    finish
}

dtls_port=$server_port
if ! is_native "${INTEROP_SERVER_SIDE:-}"; then
    if [ "$server_relay" = godot ]; then
        godot_relay "godot dtls-server relay" --mode dtls-server --listen 0 \
            --target "127.0.0.1:$server_port" --key "$DTLS_DIR/key.pem" --cert "$DTLS_DIR/cert.pem"
    else
        # UDP-SENDTO, not UDP: an unconnected socket, so the ICMP port
        # unreachable that follows a server's exit does not end socat.
        socat_relay socat-dtls-server \
            "OPENSSL-DTLS-SERVER:%PORT%,bind=127.0.0.1,cert=$DTLS_DIR/cert.pem,key=$DTLS_DIR/key.pem,verify=0" \
            "UDP-SENDTO:127.0.0.1:$server_port"
    fi
    dtls_port=$PORT
fi
client_port=$dtls_port
if ! is_native "${INTEROP_CLIENT_SIDE:-}"; then
    if [ "$client_relay" = godot ]; then
        if [ $no_verify -eq 1 ]; then verify=(--no-verify)
        else verify=(--ca "$ca" --hostname "$hostname"); fi
        godot_relay "godot dtls-client relay" --mode dtls-client --listen 0 \
            --target "127.0.0.1:$dtls_port" "${verify[@]}"
    else
        if [ $no_verify -eq 1 ]; then verify="verify=0"
        else verify="cafile=$ca,commonname=$hostname"; fi
        socat_relay socat-dtls-client "UDP-LISTEN:%PORT%,bind=127.0.0.1" \
            "OPENSSL-DTLS-CLIENT:127.0.0.1:$dtls_port,${cipher_option}$verify"
    fi
    client_port=$PORT
fi
route="client"
[ "$client_port" = "$dtls_port" ] || route+=" -> UDP $client_port ($client_relay dtls-client relay)"
route+=" == DTLS ==> $dtls_port"
[ "$dtls_port" = "$server_port" ] || route+=" ($server_relay dtls-server relay) -> UDP $server_port"
echo "via_dtls.sh: $route server" >&2
echo "PORT $client_port"
# Wait for SIGTERM; "sleep & wait" lets the trap run at once.
while :; do
    sleep 0.2 &
    wait $! || true
done
