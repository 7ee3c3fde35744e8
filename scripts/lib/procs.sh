# Shared by the benchmark and soak scripts (source it): a scratch
# directory, child processes stopped by PID on exit, bounded waits, and
# our library as a libenet.so.7 of its own.
#
#   procs_init NAME       make $work (/tmp/NAME.XXXXXX) and the exit trap
#   track PID             stop PID (SIGKILL) on exit if still running
#   bounded_wait PID S    wait for PID at most S seconds; sets RC (124 if killed)
#   wait_port FILE PID W [S]  the port PID printed as "PORT n" to FILE (W
#                         names it), waiting at most S seconds (default 10)
#   ours_library DIR      sets ours_dir: DIR with libenet.so.7, or one made for
#                         DIR's libenet.so (DIR empty: a release build's
#                         target/release, built first; needs $repo)
#   library_dir DIR OPT   the same for another build's DIR (given as option
#                         OPT), setting library_dir
#   stock_library         sets stock_dir: one holding Debian's stock
#                         libenet.so.7 (package libenet7) for this machine
#   idle_server ENGINE CLIENTS LIBDIR PEERS OUT SERVER_S CLIENTS_S [VAR=VALUE...]
#                         bench/engine.c's rss-server (VAR=VALUE in its
#                         environment) with PEERS of bench/bench.c's idle
#                         clients connected, both on LIBDIR's library; the
#                         server's output in OUT (its errors in OUT's .err)
#   loaded_server ENGINE LIBDIR PEERS SECONDS OUT SERVER_S [WORD...] [-- ARG...]
#                         bench/engine.c's load-server with PEERS of its
#                         load-clients (a connect burst, then SECONDS of 20
#                         messages/s a peer), both on LIBDIR's library; the
#                         WORDs go before the server's command (VAR=VALUE
#                         for its environment, or a command to run it
#                         under), the ARGs after it; its output in OUT (its
#                         errors in OUT's .err)
# Each script defines die() before using these.

procs_init() {
    work=$(mktemp -d "/tmp/$1.XXXXXX")
    started=()
    trap procs_cleanup EXIT
    trap 'exit 130' INT TERM
}

procs_cleanup() {
    local pid
    for pid in "${started[@]}"; do
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    done
    rm -rf "$work"
}

track() { started+=("$1"); }

bounded_wait() {
    local pid=$1 limit=$2 t=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$t" -ge $((limit * 10)) ]; then
            { kill -KILL "$pid"; wait "$pid"; } 2>/dev/null
            RC=124
            return
        fi
        sleep 0.1
        t=$((t + 1))
    done
    wait "$pid" 2>/dev/null
    RC=$?
}

wait_port() {
    local t=0 limit=${4:-10}
    until grep -q '^PORT ' "$1" 2>/dev/null; do
        kill -0 "$2" 2>/dev/null || die "$3 died before listening: $(cat "${1%.out}.err" 2>/dev/null)"
        [ $t -ge $((limit * 10)) ] && die "$3 printed no PORT"
        sleep 0.1; t=$((t + 1))
    done
    awk '$1 == "PORT" { print $2; exit }' "$1"
}

ours_library() {
    if [ -z "$1" ]; then
        (cd "$repo" && cargo build --release --locked -p libenet -q) || die "cargo build failed"
        set -- "$repo/target/release"
    fi
    library_dir "$1" --ours
    ours=$library_dir_given
    ours_dir=$library_dir
}

# library_dir DIR OPTION: sets library_dir to a directory holding DIR's
# library as libenet.so.7 (DIR itself, or $work/NAME with a link to its
# libenet.so, NAME being OPTION without its dashes), and library_dir_given
# to DIR as an absolute path; OPTION names DIR in the errors.
library_dir() {
    local dir
    dir=$(cd "$1" 2>/dev/null && pwd) || die "$2: no such directory"
    library_dir_given=$dir
    if [ -e "$dir/libenet.so.7" ]; then
        library_dir=$dir
    elif [ -e "$dir/libenet.so" ]; then
        library_dir="$work/${2#--}"
        mkdir -p "$library_dir" && ln -s "$dir/libenet.so" "$library_dir/libenet.so.7"
    else
        die "$2: no libenet.so.7 or libenet.so in $dir"
    fi
}

stock_library() {
    local lib
    lib="/usr/lib/$(uname -m)-linux-gnu/libenet.so.7"
    [ -e "$lib" ] || die "stock $lib missing (apt-get install libenet7 libenet-dev)"
    stock_dir="$work/stock"
    mkdir -p "$stock_dir" && ln -s "$lib" "$stock_dir/libenet.so.7"
}

idle_server() {
    local engine=$1 clients=$2 lib=$3 peers=$4 out=$5 server_limit=$6 clients_limit=$7 spid cpid port
    shift 7
    # A run's old output goes first: wait_port could read its port.
    rm -f "$out"
    env "$@" LD_LIBRARY_PATH="$lib" "$engine" rss-server --peers "$peers" >"$out" 2>"${out%.out}.err" &
    spid=$!; track "$spid"
    port=$(wait_port "$out" "$spid" "rss-server") || die "rss-server on $lib gave no port"
    LD_LIBRARY_PATH="$lib" "$clients" idle-clients --port "$port" --peers "$peers" --hosts 4 \
        >/dev/null 2>"${out%.out}.clients.err" &
    cpid=$!; track "$cpid"
    bounded_wait "$spid" "$server_limit"
    [ "$RC" -eq 0 ] || { cat "${out%.out}.err" >&2; die "rss-server on $lib failed ($RC)"; }
    bounded_wait "$cpid" "$clients_limit"
}

loaded_server() {
    local engine=$1 lib=$2 peers=$3 seconds=$4 out=$5 server_limit=$6 spid cpid port
    local -a before=()
    shift 6
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        before+=("$1")
        shift
    done
    [ $# -eq 0 ] || shift
    # A run's old output goes first: wait_port could read its port.
    rm -f "$out"
    env LD_LIBRARY_PATH="$lib" "${before[@]}" "$engine" load-server --peers "$peers" \
        --seconds "$seconds" "$@" >"$out" 2>"${out%.out}.err" &
    spid=$!; track "$spid"
    port=$(wait_port "$out" "$spid" "load-server") || die "load-server on $lib gave no port"
    LD_LIBRARY_PATH="$lib" "$engine" load-clients --port "$port" --peers "$peers" \
        --seconds "$seconds" >/dev/null 2>"${out%.out}.clients.err" &
    cpid=$!; track "$cpid"
    bounded_wait "$spid" "$server_limit"
    [ "$RC" -eq 0 ] || { cat "${out%.out}.err" >&2; die "load-server on $lib failed ($RC)"; }
    bounded_wait "$cpid" 70
}
