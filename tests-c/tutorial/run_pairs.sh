#!/usr/bin/env bash
# The tutorial server and client as two processes over 127.0.0.1, in every
# pairing of libraries: stock/stock (the reference), stock server + our
# client, our server + stock client, ours/ours relinked, and ours/ours
# recompiled against our headers. Every side's output must equal the
# stock/stock reference.
# usage: run_pairs.sh STOCK_BUILT_EXE OURS_BUILT_EXE OUR_LIB_DIR
set -u
stock_exe=$1 ours_exe=$2 our_lib=$3
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# run_pair NAME SERVER_EXE SERVER_LIBDIR CLIENT_EXE CLIENT_LIBDIR
run_pair() {
    local name=$1 server_exe=$2 server_lib=$3 client_exe=$4 client_lib=$5 port="" i
    LD_LIBRARY_PATH=$server_lib timeout 40 "$server_exe" server >"$work/$name.server" 2>&1 &
    server_pid=$!
    for i in $(seq 100); do
        port=$(sed -n 's/^PORT //p' "$work/$name.server")
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || { echo "FAIL $name: server gave no port"; return 1; }
    LD_LIBRARY_PATH=$client_lib timeout 30 "$client_exe" client "$port" >"$work/$name.client" 2>&1
    local client_status=$?
    wait "$server_pid"
    local server_status=$?
    server_pid=""
    sed -i '/^PORT /d' "$work/$name.server"
    if [ $client_status -ne 0 ] || [ $server_status -ne 0 ]; then
        echo "FAIL $name: client $client_status, server $server_status"
        cat "$work/$name.server" "$work/$name.client"
        return 1
    fi
}

status=0
run_pair reference "$stock_exe" "" "$stock_exe" "" || exit 1
for pair in "stock-server+ours-client:$stock_exe::$stock_exe:$our_lib" \
            "ours-server+stock-client:$stock_exe:$our_lib:$stock_exe:" \
            "ours-relinked:$stock_exe:$our_lib:$stock_exe:$our_lib" \
            "ours-recompiled:$ours_exe:$our_lib:$ours_exe:$our_lib"; do
    IFS=: read -r name server_exe server_lib client_exe client_lib <<<"$pair"
    if run_pair "$name" "$server_exe" "$server_lib" "$client_exe" "$client_lib" &&
       diff -u "$work/reference.server" "$work/$name.server" &&
       diff -u "$work/reference.client" "$work/$name.client"; then
        echo "PASS $name"
    else
        echo "FAIL $name"
        status=1
    fi
done
cat "$work/reference.server" "$work/reference.client"
exit $status
