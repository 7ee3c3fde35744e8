#!/usr/bin/env bash
# Builds the Debian packages (scripts/package-deb.sh), installs them the
# way a user would, and checks what a user would see, all inside a
# throwaway root: a private mount namespace with an overlay over /, so the
# machine's own packages (stock libenet7, amd64 and arm64) are never
# touched, and other tests can run against them meanwhile.
#
# In the throwaway root:
#   1. apt-get install the runtime, -dev and dbgsym packages (local files)
#      in place of Debian's libenet7 and libenet-dev; the other
#      architecture's libenet7 stays installed. Where the arm64 library has
#      been cross-built (cargo xtask build-arm64), the arm64 runtime package
#      too, beside the amd64 one, and an arm64 program under qemu-user
#      loads it
#   2. every installed package depending on libenet7 gets ours from the
#      loader (ldd) with no LD_LIBRARY_PATH, and the running programs map
#      exactly our stripped file (/proc/PID/maps, sha256)
#   3. pyenet on ours exchanges packets with pyenet on stock ENet running
#      outside the root (on the host), both ways, over 127.0.0.1
#   4. Sauerbraten's dedicated server (cube2-server, offline: no master
#      server) on ours accepts a stock ENet client (tests-c/packaging/
#      stock_client.c, run outside the root), which gets its first packet
#   5. programs build against the -dev package: pkg-config, CMake's
#      find_package(enet), a static link (pkg-config --static), and
#      dpkg-shlibdeps reads the symbols file (extension users need ours)
#   6. apt-get install Debian's own libenet7 and libenet-dev back: the file
#      is Debian's (its md5sums) and a consumer loads it
# Outside: lintian on every package (no error allowed; warnings printed),
# and, where the 1.3.18 identity has been built (target/identity-1.3.18),
# the trixie packages' contents (not installed: this machine is bookworm).
#
# usage: tests-c/packaging/test-deb.sh [--debs DIR]
#   --debs DIR  test the bookworm packages in DIR instead of building them
#               (and its arm64 runtime package, if there is one)
# Needs root (mount namespace, chroot), dpkg-dev, lintian, python3-enet,
# cube2-server, godot3-server; Debian's libenet7 .debs come from apt's
# cache, else `apt-get download` (cached in target/debian/stock).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "test-deb.sh: FAIL: $*" >&2; exit 1; }
. "$repo/scripts/lib/procs.sh"
. "$repo/tests-c/dtls/lib.sh"

debs=""
while [ $# -gt 0 ]; do
    case "$1" in
        --debs) debs=$(cd "${2:?--debs needs a directory}" && pwd); shift ;;
        *) die "unknown argument $1" ;;
    esac
    shift
done
[ "$(id -u)" -eq 0 ] || die "needs root (a mount namespace and chroot)"
for tool in unshare nsenter chroot lintian dpkg-deb cc pkg-config cmake; do
    command -v "$tool" >/dev/null || die "$tool missing (scripts/setup-debian.sh)"
done
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
python=/usr/bin/python3   # Debian's: the one python3-enet is built for
stock_version=1.3.17+ds-2
stock_lib="/usr/lib/$multiarch/libenet.so.7.0.5"
started_at=$(date +%s)

procs_init test-deb
base=""
holder=""
cleanup() {
    # The namespace (and every mount in it) ends with its last process. Any
    # process in it is this test's (a child of one it started, say): each
    # is stopped by its PID, found by its mount namespace.
    local ns proc
    if [ -n "$holder" ] && ns=$(readlink "/proc/$holder/ns/mnt" 2>/dev/null); then
        for proc in /proc/[0-9]*; do
            [ "$(readlink "$proc/ns/mnt" 2>/dev/null)" = "$ns" ] && kill -KILL "${proc#/proc/}" 2>/dev/null
        done
    fi
    procs_cleanup_all
    [ -z "$base" ] || rmdir "$base" 2>/dev/null || true
} 2>/dev/null   # (bash's "Killed" notices for the processes it stops)
procs_cleanup_all() {
    local pid
    for pid in "${started[@]}"; do
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    done
    for pid in "${started[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
# apt reads local packages as its own user (_apt): the files must be readable.
chmod 0755 "$work"

# The host's stock packages, recorded to prove afterwards they were not touched.
host_state() {
    dpkg-query -W -f='${binary:Package} ${Version} ${db:Status-Abbrev}\n' "libenet7:$arch" libenet7:arm64 libenet-dev 2>/dev/null || true
    md5sum "$stock_lib"
}
host_before=$(host_state)
grep -q "^libenet7:$arch $stock_version ii" <<<"$host_before" \
    || die "the host must have Debian's libenet7 $stock_version installed (scripts/setup-debian.sh)"

# --- the packages ------------------------------------------------------------------
if [ -z "$debs" ]; then
    # One date for every architecture's packages: their shared files
    # (changelog.Debian.gz) must be identical for dpkg to co-install them.
    SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct)
    export SOURCE_DATE_EPOCH
    echo "== building the bookworm packages (scripts/package-deb.sh)"
    debs="$work/debs"
    "$repo/scripts/package-deb.sh" --release bookworm --out "$debs" >"$work/package.out" 2>&1 \
        || { tail -n 30 "$work/package.out"; die "scripts/package-deb.sh failed"; }
fi
# arm64 beside amd64, where the cross-built library exists (building it
# from nothing takes minutes) and the machine has Debian's arm64 libenet7.
arm64_deb=""
if [ "$arch" = amd64 ] && grep -q '^libenet7:arm64 .* ii' <<<"$host_before" && command -v qemu-aarch64 >/dev/null \
    && command -v aarch64-linux-gnu-gcc >/dev/null; then
    if [ -z "$(ls "$debs"/libenet7-rs_*_arm64.deb 2>/dev/null)" ] && [ "$debs" = "$work/debs" ] \
        && [ -f "$repo/target/cross/aarch64-unknown-linux-gnu/release/libenet.so" ]; then
        echo "== building the arm64 packages (scripts/package-deb.sh --arch arm64)"
        "$repo/scripts/package-deb.sh" --release bookworm --arch arm64 --out "$debs" >"$work/package-arm64.out" 2>&1 \
            || { tail -n 30 "$work/package-arm64.out"; die "scripts/package-deb.sh --arch arm64 failed"; }
    fi
    arm64_deb=$(ls "$debs"/libenet7-rs_*_arm64.deb 2>/dev/null || true)
fi
runtime_deb=$(ls "$debs"/libenet7-rs_*_"$arch".deb)
dev_deb=$(ls "$debs"/libenet-rs-dev_*_"$arch".deb)
dbgsym_deb=$(ls "$debs"/libenet7-rs-dbgsym_*_"$arch".deb)
version=$(dpkg-deb -f "$runtime_deb" Version)
# The file our packages install, its digest: what every consumer must map.
ours_sha=$(dpkg-deb --fsys-tarfile "$runtime_deb" | tar -xO "./usr/lib/$multiarch/libenet.so.7.0.5" | sha256sum | cut -d' ' -f1)
stock_sha=$(sha256sum "$stock_lib" | cut -d' ' -f1)
[ "$ours_sha" != "$stock_sha" ] || die "our packaged library is stock's file"

# lintian meanwhile (it takes a while and needs nothing installed).
lint=("$runtime_deb" "$dev_deb" "$dbgsym_deb")
[ -z "$arm64_deb" ] || lint+=("$debs"/*_arm64.deb)
lintian --fail-on error --no-tag-display-limit "${lint[@]}" >"$work/lintian.out" 2>&1 &
lintian_pid=$!
track "$lintian_pid"

# Debian's own packages, to go back to (apt's cache, else the archive).
stock_cache="$repo/target/debian/stock"
mkdir -p "$stock_cache"
stock_debs=("libenet7:$arch" "libenet-dev:$arch")
[ -z "$arm64_deb" ] || stock_debs+=(libenet7:arm64)
for package in "${stock_debs[@]}"; do
    file="${package%:*}_${stock_version}_${package#*:}.deb"
    [ -f "$stock_cache/$file" ] || cp "/var/cache/apt/archives/$file" "$stock_cache/" 2>/dev/null \
        || (cd "$stock_cache" && apt-get download -q "$package=$stock_version" >/dev/null 2>&1) \
        || die "could not get Debian's $file"
done
cp "$stock_cache"/*.deb "$work/"
chmod 0644 "$work"/*.deb

# The stock client for the game server, on Debian's library.
cc -std=c99 -Wall -Werror -I/usr/include "$here/stock_client.c" "/usr/lib/$multiarch/libenet.so.7" \
    -o "$work/stock_client" || die "building stock_client.c"
cp "$here/pyenet_peer.py" "$work/"

# --- the throwaway root --------------------------------------------------------------
base=$(mktemp -d /run/test-deb.XXXXXX)
unshare --mount --propagation private -- bash -c '
    set -e
    base=$1
    mount -t tmpfs -o size=2g,mode=0755 test-deb "$base"
    mkdir "$base/upper" "$base/work" "$base/root"
    mount -t overlay overlay -o "lowerdir=/,upperdir=$base/upper,workdir=$base/work" "$base/root"
    mount --rbind /proc "$base/root/proc"
    mount --rbind /sys "$base/root/sys"
    mount --rbind /dev "$base/root/dev"
    mount --bind /tmp "$base/root/tmp"
    echo ready >"$2"
    exec sleep 600' _ "$base" "$work/ready" 2>"$work/ns.err" &
holder=$!
track "$holder"
for _ in $(seq 100); do [ -s "$work/ready" ] || sleep 0.05; done
[ -s "$work/ready" ] || die "the throwaway root was not set up: $(cat "$work/ns.err")"
# inroot COMMAND...: runs COMMAND chrooted in the root. In the background,
# "${in_root[@]}" COMMAND... (every step execs the next, so $! is the
# command's own PID; a backgrounded function would be a subshell's).
in_root=(nsenter --target "$holder" --mount -- chroot "$base/root" env -u LD_LIBRARY_PATH -u LD_PRELOAD)
inroot() { "${in_root[@]}" "$@"; }
inroot test -e /proc/self/maps || die "no /proc in the throwaway root"

# mapped_sha PID: the sha256 of the libenet file PID has mapped (read in the root).
mapped_sha() {
    local path
    path=$(inroot awk '$6 ~ /\/libenet/ { print $6; exit }' "/proc/$1/maps" 2>/dev/null) || return 1
    [ -n "$path" ] || return 1
    inroot sha256sum "$path" | cut -d' ' -f1
}
# wait_mapped PID NAME: waits (at most 10 s) for PID to map a libenet and
# checks it is ours.
wait_mapped() {
    local sha="" t=0
    while [ -z "$sha" ]; do
        kill -0 "$1" 2>/dev/null || die "$2 exited before it mapped libenet"
        [ $t -lt 200 ] || die "$2 mapped no libenet within 10 s"
        sha=$(mapped_sha "$1") || sha=""
        [ -n "$sha" ] || { sleep 0.05; t=$((t + 1)); }
    done
    [ "$sha" = "$ours_sha" ] || die "$2 (PID $1) mapped a libenet that is not our packaged file"
}

# --- 1. install ------------------------------------------------------------------------
echo "== 1. apt-get install $(basename "$runtime_deb") $(basename "$dev_deb") $(basename "$dbgsym_deb")"
inroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "$runtime_deb" "$dev_deb" "$dbgsym_deb" >"$work/install.out" 2>&1 \
    || { tail -n 20 "$work/install.out"; die "apt-get install of our packages failed"; }
state=$(inroot dpkg-query -W -f='${binary:Package} ${Version} ${db:Status-Abbrev}\n' \
    libenet7-rs libenet-rs-dev libenet7-rs-dbgsym "libenet7:$arch" libenet7:arm64 libenet-dev 2>/dev/null || true)
for package in libenet7-rs libenet-rs-dev libenet7-rs-dbgsym; do
    grep -q "^$package:$arch $version ii" <<<"$state" || die "$package $version is not installed: $state"
done
! grep -q "^libenet7:$arch .* ii" <<<"$state" || die "Debian's libenet7:$arch is still installed"
! grep -q "^libenet-dev:$arch .* ii" <<<"$state" || die "Debian's libenet-dev is still installed"
if grep -q '^libenet7:arm64 ' <<<"$host_before"; then
    # Conflicts names libenet7:$arch only: the other architecture keeps stock.
    grep -q "^libenet7:arm64 $stock_version ii" <<<"$state" || die "libenet7:arm64 did not stay installed: $state"
    echo "   libenet7:arm64 $stock_version stays installed beside libenet7-rs:$arch"
fi
inroot apt-get check -q >/dev/null 2>&1 || die "apt-get check: broken dependencies after the install"
[ "$(inroot sha256sum "$stock_lib" | cut -d' ' -f1)" = "$ours_sha" ] || die "$stock_lib is not our file"
# The debug package: the library's build id names its debug file, which
# carries the DWARF the stripped library lacks.
build_id=$(inroot readelf -n "$stock_lib" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')
debug_file="/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
grep -q '\.debug_info' <<<"$(inroot readelf -S "$debug_file")" || die "$debug_file has no .debug_info"
! grep -q '\.debug_info' <<<"$(inroot readelf -S "$stock_lib")" || die "the installed library is not stripped"
[ "$(inroot readelf -n "$debug_file" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')" = "$build_id" ] \
    || die "the debug file's build id differs from the library's"
echo "   installed $version; $stock_lib is ours (stripped); debug info at $debug_file"

if [ -n "$arm64_deb" ]; then
    echo "== 1b. apt-get install $(basename "$arm64_deb") beside it"
    inroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "$arm64_deb" >"$work/install-arm64.out" 2>&1 \
        || { tail -n 20 "$work/install-arm64.out"; die "apt-get install of our arm64 package failed"; }
    state=$(inroot dpkg-query -W -f='${binary:Package} ${Version} ${db:Status-Abbrev}\n' \
        libenet7-rs:amd64 libenet7-rs:arm64 libenet7:arm64 2>/dev/null || true)
    grep -q "^libenet7-rs:amd64 $version ii" <<<"$state" && grep -q "^libenet7-rs:arm64 $version ii" <<<"$state" \
        || die "libenet7-rs is not installed for both architectures: $state"
    ! grep -q '^libenet7:arm64 .* ii' <<<"$state" || die "Debian's libenet7:arm64 is still installed"
    arm64_sha=$(dpkg-deb --fsys-tarfile "$arm64_deb" | tar -xO ./usr/lib/aarch64-linux-gnu/libenet.so.7.0.5 | sha256sum | cut -d' ' -f1)
    mkdir -p "$work/stock-include" && cp -r /usr/include/enet "$work/stock-include/"
    aarch64-linux-gnu-gcc -std=c99 -Wall -Werror -I"$work/stock-include" "$here/which_libenet.c" \
        /usr/lib/aarch64-linux-gnu/libenet.so.7 -o "$work/which-arm64" || die "building which_libenet.c for arm64"
    inroot qemu-aarch64 "$work/which-arm64" >"$work/which-arm64.out" 2>&1 || die "arm64 program: $(cat "$work/which-arm64.out")"
    lib_arm64=$(awk '$1 == "LIB" { print $2 }' "$work/which-arm64.out")
    [ "$(inroot sha256sum "$lib_arm64" | cut -d' ' -f1)" = "$arm64_sha" ] || die "the arm64 program mapped $lib_arm64, not our arm64 file"
    grep -qx 'VERSION 0x10311' "$work/which-arm64.out" || die "arm64: $(cat "$work/which-arm64.out")"
    echo "   libenet7-rs:amd64 and :arm64 $version installed together; an arm64 program (qemu-aarch64) maps our arm64 file $lib_arm64"
fi

# --- 2. every consumer loads ours --------------------------------------------------------
echo "== 2. the installed consumers of libenet7"
consumers=$(inroot dpkg-query -W -f='${Package}:${Architecture}\t${Depends}\n' \
    | awk -F'\t' '$2 ~ /(^|[ ,|])libenet7([ (,]|$)/ { print $1 }' | sort)
[ -n "$consumers" ] || die "no installed package depends on libenet7"
for package in python3-enet godot3-server cube2-server; do
    grep -q "^$package:" <<<"$consumers" || die "$package is not installed (scripts/setup-debian.sh)"
done
checked=0
for package in $consumers; do
    elves=0
    for file in $(inroot dpkg -L "$package"); do
        inroot test -f "$file" -a ! -L "$file" || continue
        grep -q 'NEEDED.*\[libenet\.so\.7\]' <<<"$(inroot readelf -d "$file" 2>/dev/null)" || continue
        resolved=$(inroot ldd "$file" | awk '$1 == "libenet.so.7" { print $3 }')
        [ -n "$resolved" ] || die "ldd $file: libenet.so.7 not found"
        [ "$(inroot sha256sum "$resolved" | cut -d' ' -f1)" = "$ours_sha" ] \
            || die "ldd $file: libenet.so.7 => $resolved, not our file"
        echo "   $package: $file => $resolved (ours)"
        elves=$((elves + 1))
    done
    [ $elves -gt 0 ] || die "$package depends on libenet7 but has no file linked to libenet.so.7"
    checked=$((checked + 1))
done
# Running: godot3-server (the others are run below), until it has mapped
# libenet, then stopped by its PID; its script quits after 20 s anyway
# (SceneTree's quit(): _idle's return value does not end a SceneTree).
printf 'extends SceneTree\nvar elapsed = 0.0\nfunc _idle(delta):\n\telapsed += delta\n\tif elapsed > 20.0:\n\t\tquit()\n' \
    >"$work/idle.gd"
"${in_root[@]}" godot3-server --no-window -s "$work/idle.gd" >"$work/godot.out" 2>&1 &
godot=$!
track "$godot"
wait_mapped "$godot" godot3-server
kill -KILL "$godot" 2>/dev/null; wait "$godot" 2>/dev/null || true
echo "   godot3-server running maps our file (/proc/$godot/maps)"

# --- 3. pyenet on ours <-> pyenet on stock (host) ------------------------------------------
echo "== 3. pyenet: ours in the root, stock on the host"
# pyenet_pair host|root: the server on that side, the client on the other;
# each names the library it mapped, which must be ours in the root and
# stock's on the host.
pyenet_pair() {
    local server_out="$work/py-$1-server.out" client_out="$work/py-$1-client.out" spid port
    if [ "$1" = host ]; then
        env -u LD_LIBRARY_PATH "$python" "$work/pyenet_peer.py" server 15 >"$server_out" 2>"${server_out%.out}.err" &
    else
        "${in_root[@]}" "$python" "$work/pyenet_peer.py" server 15 >"$server_out" 2>"${server_out%.out}.err" &
    fi
    spid=$!
    track "$spid"
    port=$(wait_port "$server_out" "$spid" "pyenet server ($1)")
    if [ "$1" = host ]; then
        inroot "$python" "$work/pyenet_peer.py" client "$port" 10 >"$client_out" 2>"${client_out%.out}.err" \
            || die "pyenet client in the root: $(cat "${client_out%.out}.err")"
    else
        env -u LD_LIBRARY_PATH "$python" "$work/pyenet_peer.py" client "$port" 10 >"$client_out" 2>"${client_out%.out}.err" \
            || die "pyenet client on the host: $(cat "${client_out%.out}.err")"
    fi
    # (|| true: bounded_wait reads the status of a failed wait itself.)
    bounded_wait "$spid" 10 || true
    [ "$RC" -eq 0 ] || die "pyenet server ($1) failed ($RC): $(cat "${server_out%.out}.err")"
    grep -q '^DONE echoed 21$' "$server_out" || die "pyenet server ($1) echoed: $(cat "$server_out")"
    grep -q '^DONE exchanged 21$' "$client_out" || die "pyenet client: $(cat "$client_out")"
    local root_out host_out
    if [ "$1" = host ]; then root_out=$client_out host_out=$server_out; else root_out=$server_out host_out=$client_out; fi
    local root_lib host_lib
    root_lib=$(awk '$1 == "LIB" { print $2 }' "$root_out")
    host_lib=$(awk '$1 == "LIB" { print $2 }' "$host_out")
    [ "$(inroot sha256sum "$root_lib" | cut -d' ' -f1)" = "$ours_sha" ] || die "pyenet in the root mapped $root_lib, not ours"
    [ "$(sha256sum "$host_lib" | cut -d' ' -f1)" = "$stock_sha" ] || die "pyenet on the host mapped $host_lib, not stock"
}
pyenet_pair host
echo "   client on ours -> server on stock: 21 reliable packets (one fragmented) echoed"
pyenet_pair root
echo "   client on stock -> server on ours: 21 reliable packets (one fragmented) echoed"

# --- 4. a game server on ours, a stock client ------------------------------------------------
echo "== 4. cube2-server on ours, a stock ENet client on the host"
# Its game port and the next (server info) must be free; its LAN-info port
# (28784) may be taken by another run, which it only warns about. No master
# server: updatemaster 0.
for _ in $(seq 50); do
    port=$(free_udp_port)
    udp_port_in_use $((port + 1)) || break
done
mkdir -p "$work/cube2" && chmod 0777 "$work/cube2"
printf 'updatemaster 0\nserverip 127.0.0.1\nserverport %d\nmaxclients 4\nserverdesc "test-deb"\n' "$port" \
    >"$work/cube2/server-init.cfg"
"${in_root[@]}" sh -c "cd '$work/cube2' && exec /usr/lib/cube2/cube2_server" >"$work/cube2.out" 2>&1 &
cube=$!
track "$cube"
wait_udp_bound "$port" "$cube" 10 || die "cube2-server did not bind $port: $(cat "$work/cube2.out")"
wait_mapped "$cube" cube2-server
env -u LD_LIBRARY_PATH "$work/stock_client" "$port" 3 10 >"$work/stock_client.out" 2>&1 || die "stock client ($?): $(cat "$work/stock_client.out"); server: $(cat "$work/cube2.out")"
grep -q '^CONNECT$' "$work/stock_client.out" && grep -q '^RECEIVE ' "$work/stock_client.out" \
    || die "stock client: $(cat "$work/stock_client.out")"
stop_pids "$cube"
grep -q 'client connected' "$work/cube2.out" || die "cube2-server saw no client: $(cat "$work/cube2.out")"
echo "   cube2-server (maps our file) accepted the stock client, which got its first packet ($(awk '$1 == "RECEIVE" { print $3 " bytes on channel " $2 }' "$work/stock_client.out"))"

# --- 5. building against the -dev package ---------------------------------------------------
echo "== 5. building against $(basename "$dev_deb")"
dev="$work/dev"
mkdir -p "$dev" && cp -r "$repo/tests-c/consumer" "$dev/" && cp "$here/static_consumer.c" "$dev/" && chmod -R a+rwX "$dev"
inroot sh -c "cc -std=c99 -Wall -Werror '$dev/consumer/consumer.c' \$(pkg-config --cflags --libs libenet) -o '$dev/pc-consumer'" \
    || die "pkg-config build failed"
grep -qx 'linked 1.3.17' <<<"$(inroot "$dev/pc-consumer")" || die "pkg-config consumer did not run on 1.3.17"
[ "$(inroot ldd "$dev/pc-consumer" | awk '$1 == "libenet.so.7" { print $3 }' | xargs -r readlink -f)" = "$stock_lib" ] \
    || die "pkg-config consumer does not load $stock_lib"
echo "   pkg-config --cflags --libs libenet: built, runs on the installed library"
inroot cmake -S "$dev/consumer" -B "$dev/cmake-build" >"$work/cmake.out" 2>&1 \
    && inroot cmake --build "$dev/cmake-build" >>"$work/cmake.out" 2>&1 \
    || { tail -n 20 "$work/cmake.out"; die "find_package(enet) build failed"; }
grep -qx 'linked 1.3.17' <<<"$(inroot "$dev/cmake-build/consumer")" || die "CMake consumer did not run"
grep -q "/usr/lib/$multiarch/cmake/enet" "$dev/cmake-build/CMakeCache.txt" || die "find_package did not find /usr/lib/$multiarch/cmake/enet"
echo "   find_package(enet) + enet::enet: built, runs"
# Static: libenet.a itself, the system libraries from Libs.private.
inroot sh -c "cc -std=c99 -Wall -Werror '$dev/static_consumer.c' \$(pkg-config --cflags libenet) \
    \$(pkg-config --static --libs libenet | sed 's/-lenet\\b/-l:libenet.a/') -o '$dev/static-consumer'" \
    >"$work/static.out" 2>&1 || { cat "$work/static.out"; die "static link failed"; }
! grep -q 'libenet' <<<"$(inroot readelf -d "$dev/static-consumer")" || die "the static consumer still needs libenet.so"
inroot "$dev/static-consumer" >"$work/static-run.out" 2>&1 || die "static consumer: $(cat "$work/static-run.out")"
echo "   pkg-config --static: $(cat "$work/static-run.out")"
# The symbols file, through dpkg-shlibdeps: stock's functions need any
# libenet7; an extension needs ours.
mkdir -p "$dev/shlibdeps/debian" && printf 'Source: t\n\nPackage: t\nArchitecture: any\n' >"$dev/shlibdeps/debian/control"
chmod -R a+rwX "$dev"
stock_deps=$(inroot sh -c "cd '$dev/shlibdeps' && dpkg-shlibdeps -O -e'$dev/pc-consumer'" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
inroot sh -c "cc -std=c99 '$dev/static_consumer.c' \$(pkg-config --cflags --libs libenet) -o '$dev/ext-consumer'"
ext_deps=$(inroot sh -c "cd '$dev/shlibdeps' && dpkg-shlibdeps -O -e'$dev/ext-consumer'" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
grep -q 'libenet7' <<<"$stock_deps" && ! grep -q 'libenet7-rs' <<<"$stock_deps" \
    || die "a stock-only program's dependencies: '$stock_deps'"
grep -q "libenet7-rs (>= ${version%-*})" <<<"$ext_deps" || die "an extension user's dependencies: '$ext_deps'"
echo "   dpkg-shlibdeps: stock functions -> '$(grep -o 'libenet7[^,]*' <<<"$stock_deps")'; extensions -> '$(grep -o 'libenet7[^,]*' <<<"$ext_deps" | paste -sd, -)'"

# --- 6. back to Debian's own -----------------------------------------------------------------
echo "== 6. back to Debian's libenet7 $stock_version"
back=("$work/libenet7_${stock_version}_$arch.deb" "$work/libenet-dev_${stock_version}_$arch.deb")
[ -z "$arm64_deb" ] || back+=("$work/libenet7_${stock_version}_arm64.deb")
inroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${back[@]}" >"$work/back.out" 2>&1 \
    || { tail -n 20 "$work/back.out"; die "apt-get install of Debian's libenet7 failed"; }
state=$(inroot dpkg-query -W -f='${binary:Package} ${Version} ${db:Status-Abbrev}\n' \
    "libenet7:$arch" libenet-dev libenet7-rs libenet-rs-dev libenet7-rs-dbgsym 2>/dev/null || true)
grep -q "^libenet7:$arch $stock_version ii" <<<"$state" || die "libenet7 is not back: $state"
! grep -q "^libenet7-rs.* ii" <<<"$state" || die "ours is still installed: $state"
inroot apt-get check -q >/dev/null 2>&1 || die "apt-get check: broken dependencies after going back"
debian_md5=$(awk -v f="${stock_lib#/}" '$2 == f { print $1 }' "/var/lib/dpkg/info/libenet7:$arch.md5sums")
[ -n "$debian_md5" ] && [ "$(inroot md5sum "$stock_lib" | cut -d' ' -f1)" = "$debian_md5" ] \
    || die "$stock_lib is not Debian's file (md5sums)"
inroot dpkg --verify "libenet7:$arch" || die "dpkg --verify libenet7 reports changes"
back_lib=$(inroot "$python" -c 'import enet; print(next(l.split()[5] for l in open("/proc/self/maps") if "/libenet" in l))')
[ "$(inroot md5sum "$back_lib" | cut -d' ' -f1)" = "$debian_md5" ] || die "pyenet does not load Debian's file"
echo "   $stock_lib matches Debian's md5sums; pyenet loads it"
if [ -n "$arm64_deb" ]; then
    inroot dpkg --verify libenet7:arm64 || die "dpkg --verify libenet7:arm64 reports changes"
    arm64_md5=$(awk '$2 ~ /libenet\.so\.7\.0\.5$/ { print $1 }' /var/lib/dpkg/info/libenet7:arm64.md5sums)
    [ "$(inroot md5sum /usr/lib/aarch64-linux-gnu/libenet.so.7.0.5 | cut -d' ' -f1)" = "$arm64_md5" ] \
        || die "libenet7:arm64's file is not Debian's"
    ! grep -q '^libenet7-rs:arm64 .* ii' <<<"$(inroot dpkg-query -W -f='${binary:Package} ${Version} ${db:Status-Abbrev}\n' libenet7-rs:arm64 2>/dev/null || true)" \
        || die "libenet7-rs:arm64 is still installed"
    echo "   libenet7:arm64 is Debian's again (md5sums)"
fi

# --- lintian ---------------------------------------------------------------------------------
echo "== lintian"
bounded_wait "$lintian_pid" 120 || true
grep -E '^[EWIX]:' "$work/lintian.out" | sed 's/^/   /' || true
[ "$RC" -eq 0 ] || die "lintian failed ($RC): $(grep '^E:' "$work/lintian.out")"
warnings=$(grep -c '^W:' "$work/lintian.out" || true)

# --- the trixie packages (1.3.18), built and read, not installed -----------------------------
# Only where the 1.3.18 identity's Cargo build exists already (the test
# stays a few minutes; a first build of it takes longer).
trixie="not built (no 1.3.18 identity build in target/identity-1.3.18)"
if grep -q 'ENET_RS_IDENTITY' "$repo/CMakeLists.txt" && [ -d "$repo/include/1.3.18/enet" ] \
    && [ -f "$repo/target/identity-1.3.18/release/libenet.so" ]; then
    echo "== the trixie packages (ENet 1.3.18 identity)"
    "$repo/scripts/package-deb.sh" --release trixie --out "$work/trixie" >"$work/trixie.out" 2>&1 \
        || { tail -n 20 "$work/trixie.out"; die "package-deb.sh --release trixie failed"; }
    t_runtime=$(ls "$work/trixie"/libenet7-rs_*.deb) t_dev=$(ls "$work/trixie"/libenet-rs-dev_*.deb)
    [ "$(dpkg-deb -f "$t_runtime" Version)" = "1.3.18+rs1-1" ] || die "trixie version is $(dpkg-deb -f "$t_runtime" Version)"
    # (Read whole, then searched: grep -q in the pipe would cut it short.)
    t_files=$(dpkg-deb -c "$t_runtime")
    grep -q "usr/lib/$multiarch/libenet.so.7.0.6\$" <<<"$t_files" || die "trixie runtime lacks libenet.so.7.0.6"
    grep -q "libenet.so.7 -> libenet.so.7.0.6\$" <<<"$t_files" || die "trixie libenet.so.7 does not link to .0.6"
    t_pc=$(dpkg-deb --fsys-tarfile "$t_dev" | tar -xO "./usr/lib/$multiarch/pkgconfig/libenet.pc")
    grep -qx 'Version: 1.3.18' <<<"$t_pc" || die "trixie libenet.pc is not version 1.3.18"
    t_symbols=$(dpkg-deb --ctrl-tarfile "$t_runtime" | tar -xO ./symbols)
    grep -qx ' enet_host_random@Base 1.3.18' <<<"$t_symbols" || die "trixie symbols: enet_host_random is not stock 1.3.18's"
    grep -qx ' enet_rs_version@Base 1.3.18+rs1 1' <<<"$t_symbols" || die "trixie symbols: enet_rs_version does not need ours"
    trixie="built: $(basename "$t_runtime") (libenet.so.7.0.6, libenet.pc 1.3.18)"
    echo "   $trixie"
fi

# --- the host is as it was -------------------------------------------------------------------
[ "$(host_state)" = "$host_before" ] || die "the host's libenet packages changed: $(host_state)"

arm64="arm64: not tested (no arm64 package: none in --debs, or no cross-built library in target/cross)"
[ -z "$arm64_deb" ] || arm64="arm64: $(basename "$arm64_deb") installed beside it and loaded under qemu"
echo "test-deb.sh: PASS: $(basename "$runtime_deb") replaced libenet7:$arch in a throwaway root ($checked consumers load it; pyenet both ways and cube2-server against stock ENet; pkg-config, CMake and static builds) and Debian's came back; lintian: no errors, $warnings warnings; $arm64; trixie: $trixie; $(($(date +%s) - started_at)) s"
