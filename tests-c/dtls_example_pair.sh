#!/usr/bin/env bash
# The encryption examples (examples/dtls_server.c, dtls_client.c) as two
# processes over 127.0.0.1, with certificates openssl makes here: a client
# that trusts the server's certificate gets its three echoes over an
# established session; one that trusts another certificate, or expects
# another name, is refused with that reason and gets nothing. With the
# tutorial client built against stock ENet (run on the stock library), a
# stock client's plaintext connect gets nothing from the encrypted server,
# which goes on serving encrypted clients.
# usage: dtls_example_pair.sh SERVER_EXE CLIENT_EXE [STOCK_TUTORIAL_EXE]
set -u
server_exe=$1 client_exe=$2 stock_tutorial=${3:-}
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

certificate() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj "/CN=$2" -addext "subjectAltName=DNS:$2" \
        -keyout "$work/$1.key" -out "$work/$1.pem" 2>"$work/openssl.err" \
        || fail "openssl req: $(cat "$work/openssl.err")"
}
certificate server localhost
certificate other localhost

# start_server CASE [--once]: a server in the background; sets port.
start_server() {
    local case=$1 i
    port=""
    timeout 60 "$server_exe" "$work/server.pem" "$work/server.key" 0 ${2:-} \
        >"$work/$case.server" 2>&1 &
    server_pid=$!
    for i in $(seq 100); do
        port=$(sed -n 's/^PORT //p' "$work/$case.server")
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || fail "$case: the server gave no port: $(cat "$work/$case.server")"
}

# run CASE TRUSTED NAME: a server (one client, then it exits) and a client;
# sets client_status and leaves their output in $work/CASE.*.
run() {
    local case=$1 trusted=$2 name=$3
    start_server "$case" --once
    timeout 30 "$client_exe" "$port" "$trusted" "$name" >"$work/$case.client" 2>&1
    client_status=$?
}

run trusted "$work/server.pem" localhost
wait "$server_pid"; server_status=$?; server_pid=""
[ "$client_status" -eq 0 ] && [ "$server_status" -eq 0 ] \
    || fail "trusted: client $client_status, server $server_status: $(cat "$work"/trusted.*)"
diff - "$work/trusted.client" <<'OUT' || fail "trusted: the client's output differs"
connected, encryption established
echo: hello
echo: is anyone listening in?
echo: gg
OUT
grep -qx "client connected, encryption established" "$work/trusted.server" \
    || fail "trusted: the server did not report an established session"

for case in other-ca other-name; do
    if [ "$case" = other-ca ]; then
        run "$case" "$work/other.pem" localhost
        reason="not trusted"
    else
        run "$case" "$work/server.pem" example.com
        reason="not for example.com"
    fi
    kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; server_pid=""
    [ "$client_status" -eq 1 ] || fail "$case: client exit $client_status, expected 1"
    grep -q "^connection failed: .*$reason" "$work/$case.client" \
        || fail "$case: no '$reason' reason: $(cat "$work/$case.client")"
    grep -q "^echo" "$work/$case.client" && fail "$case: the client got an echo"
    grep -q "client connected" "$work/$case.server" && fail "$case: the server saw a connect"
done

if [ -n "$stock_tutorial" ]; then
    start_server stock
    env -u LD_LIBRARY_PATH timeout 30 "$stock_tutorial" client "$port" >"$work/stock.client" 2>&1
    stock_status=$?
    timeout 30 "$client_exe" "$port" "$work/server.pem" localhost >"$work/stock.after" 2>&1
    client_status=$?
    kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; server_pid=""
    [ "$stock_status" -ne 0 ] && grep -qx "client: connection to localhost failed" "$work/stock.client" \
        || fail "stock: the plaintext client was not left unanswered: $(cat "$work/stock.client")"
    [ "$client_status" -eq 0 ] || fail "stock: the encrypted client after it failed: $(cat "$work/stock.after")"
    [ "$(grep -c "client connected" "$work/stock.server")" -eq 1 ] \
        || fail "stock: the server saw other than one connect: $(cat "$work/stock.server")"
    echo "ok: a stock client's plaintext connect got nothing; the encrypted client after it was served"
fi
echo "ok: trusted client served; another CA's and another name's certificates refused with their reasons"
