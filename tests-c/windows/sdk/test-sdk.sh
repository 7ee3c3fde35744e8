#!/usr/bin/env bash
# The Windows SDK zip (scripts/package-windows.sh) used as its users would,
# here on Linux, the programs run under wine:
#  1. the zip holds exactly the SDK's files under one top directory, with
#     a stripped enet.dll that names its debug file;
#  2. a CMake project (consumer/) configured with
#     cmake/toolchain-mingw-w64-x86_64.cmake finds the unpacked zip with
#     find_package(enet CONFIG REQUIRED) through CMAKE_PREFIX_PATH, links
#     enet::enet and unofficial::enet::enet, and its programs run: the
#     probe (version, ENET_DLL, WinSock, a host), and ENet's tutorial
#     client and server against stock ENet 1.3.17 on Linux over
#     127.0.0.1, both ways, each side's output equal to stock/stock's;
#     the same package is refused by a Linux configure;
#  3. pkg-config's libenet (lib/pkgconfig) builds the probe with mingw-w64,
#     and it runs;
#  4. a program linked MSVC-style: clang for x86_64-pc-windows-msvc with
#     no C runtime and no Windows SDK, lld-link /nodefaultlib with the
#     zip's lib/enet.lib (and a kernel32.lib for ExitProcess): under wine
#     it loads enet.dll, connects a client host to a server host in one
#     process, sends a packet each way, and exits 0 only if all worked;
#  5. (without --no-project) the project's own CMake build for Windows
#     (CMakeLists.txt through the toolchain file, in --build-dir) reuses an
#     up-to-date target/windows enet.dll without rebuilding it, and
#     `cmake --install` gives the zip's files, byte for byte (so the zip
#     must come from that same enet.dll: package-windows.sh's default).
# Exits non-zero at the first failure. Needs: mingw-w64, wine, cmake,
# clang, lld, llvm, pkg-config, unzip, libenet-dev (scripts/setup-debian.sh).
# usage: tests-c/windows/sdk/test-sdk.sh --zip ZIP [--target TARGET] [--build-dir DIR] [--no-project]
#   --target TARGET  the zip's: x86_64-pc-windows-gnu (the default) or
#                    i686-pc-windows-gnu (the -windows-x86 zip: i686
#                    mingw-w64 and cmake/toolchain-mingw-w64-i686.cmake,
#                    i686-pc-windows-msvc for step 4, 32-bit wine)
#   --build-dir DIR  the project's Windows build (default build-windows,
#                    build-windows-i686 for i686)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
die() { echo "FAIL test-sdk.sh: $*" >&2; exit 1; }
step() { echo "== sdk: $*"; }
zip="" build_dir="" project=1 target=x86_64-pc-windows-gnu
while [ $# -gt 0 ]; do
    case "$1" in
        --zip) [ $# -ge 2 ] || die "--zip needs a file"; zip=$2; shift 2 ;;
        --target) [ $# -ge 2 ] || die "--target needs a target"; target=$2; shift 2 ;;
        --build-dir) [ $# -ge 2 ] || die "--build-dir needs a directory"; build_dir=$2; shift 2 ;;
        --no-project) project=0; shift ;;
        *) die "unknown argument $1 (usage: test-sdk.sh --zip ZIP [--target TARGET] [--build-dir DIR] [--no-project])" ;;
    esac
done
# What differs between the two: the mingw-w64 prefix and toolchain file,
# the zip's name, clang's MSVC target and llvm-dlltool's machine, and
# 32-bit Windows' leading underscore on C symbols.
. "$root/scripts/lib/windows-targets.sh"
windows_target "$target" || exit 1
mingw=$WT_MINGW flavour=$WT_FLAVOUR bits=$WT_BITS msvc_target=$WT_MSVC_TARGET
machine=$WT_MACHINE c_prefix=$WT_C_PREFIX
build_dir=${build_dir:-$root/build-windows$WT_SUFFIX}
# ExitProcess is __stdcall: on x86 its symbol carries the argument bytes
# (_ExitProcess@4), its import name does not.
exit_process=ExitProcess
[ "$bits" = 64 ] || exit_process=ExitProcess@4
[ -f "$zip" ] || die "no zip given or found (--zip ZIP; scripts/package-windows.sh makes it)"
zip=$(cd "$(dirname "$zip")" && pwd)/$(basename "$zip")
for tool in "$mingw-gcc" "$mingw-objdump" cmake clang lld-link \
            llvm-dlltool pkg-config unzip gcc; do
    command -v "$tool" >/dev/null || die "missing $tool (scripts/setup-debian.sh)"
done
[ -f /usr/include/enet/enet.h ] || die "missing stock ENet's headers (apt-get install libenet-dev)"
toolchain=$root/$WT_TOOLCHAIN
version=$(sed -n '/^\[package\]/,/^\[/ s/^version *= *"\([^"]*\)".*/\1/p' "$root/Cargo.toml")
name=enet-rs-$version-windows-$flavour
started_at=$SECONDS

# $work, and background children stopped by PID on exit.
. "$root/scripts/lib/procs.sh"
procs_init enet-sdk
# A wine prefix of this test's own, so `wine_stop` at the end stops
# only what this test started, even while scripts/test-windows.sh runs
# (32-bit wine's beside its own prefix).
export ENET_WIN_TARGET=$target
if [ $bits = 64 ]; then
    export WINEPREFIX=$root/target/wine/sdk-prefix
else
    export WINEPREFIX=$root/target/wine32/sdk-prefix
fi
. "$root/tests-c/windows/wine-env.sh"
command -v wine >/dev/null || die "missing wine (scripts/setup-debian.sh)"
# One wineserver for the whole test (as scripts/test-windows.sh).
wine_start_server
trap 'wine_stop; procs_cleanup' EXIT

# imports_from_enet_dll EXE: EXE imports enet.dll's functions (names
# printed), none of them through a MinGW auto-import pseudo-relocation.
imports_from_enet_dll() {
    "$mingw-objdump" -p "$1" >"$work/imports.txt"
    awk '/DLL Name:/ { dll = $3 } dll == "enet.dll" && $NF ~ /^enet_/ { print $NF }' \
        "$work/imports.txt" | sort -u >"$work/imported"
    [ -s "$work/imported" ] || die "$(basename "$1") imports nothing from enet.dll"
}
# run_windows NAME EXE [ARGS...]: EXE under wine, at most 60 s, output in
# $work/NAME.out; fails with that output shown.
run_windows() {
    local name=$1
    shift
    timeout 60 wine "$@" >"$work/$name.out" 2>&1 ||
        die "$name exited with status $?: $(tr -d '\r' <"$work/$name.out")"
    tr -d '\r' <"$work/$name.out"
}

step "1. the zip's files ($(basename "$zip"))"
mkdir -p "$work/unzipped"
unzip -q "$zip" -d "$work/unzipped"
[ "$(ls "$work/unzipped")" = "$name" ] || die "the zip's top directory is not $name: $(ls "$work/unzipped")"
sdk=$work/unzipped/$name
{
    printf '%s\n' LICENSE.txt README.txt THIRD-PARTY-NOTICES.txt bin/enet.dll lib/enet.lib lib/libenet.dll.a \
        lib/cmake/enet/enetConfig.cmake lib/cmake/enet/enetConfigVersion.cmake \
        lib/cmake/unofficial-enet/unofficial-enetConfig.cmake \
        lib/cmake/unofficial-enet/unofficial-enetConfigVersion.cmake lib/pkgconfig/libenet.pc
    (cd "$root/include" && find enet -type f -name '*.h' | sed 's|^|include/|')
} | LC_ALL=C sort >"$work/expected-files"
(cd "$sdk" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$work/zip-files"
diff -u "$work/expected-files" "$work/zip-files" || die "the zip's file list differs from the SDK's"
"$mingw-objdump" -h "$sdk/bin/enet.dll" >"$work/sections"
! grep -q ' \.debug_' "$work/sections" || die "bin/enet.dll still has debug sections"
grep -q ' \.gnu_debuglink' "$work/sections" || die "bin/enet.dll has no .gnu_debuglink"
echo "ok: $(wc -l <"$work/zip-files") files, enet.dll stripped ($(stat -c %s "$sdk/bin/enet.dll") bytes)"

step "2. a CMake project: find_package(enet) from the unpacked zip, programs under wine, the tutorial against stock ENet on Linux"
cmake -S "$here/consumer" -B "$work/consumer" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DCMAKE_PREFIX_PATH="$sdk" -DCMAKE_BUILD_TYPE=Release >"$work/consumer-configure.log" 2>&1 ||
    die "configuring consumer/: $(cat "$work/consumer-configure.log")"
grep -q "enet_DIR:PATH=$sdk/lib/cmake/enet" "$work/consumer/CMakeCache.txt" ||
    die "find_package(enet) found another enet: $(grep '^enet_DIR' "$work/consumer/CMakeCache.txt")"
cmake --build "$work/consumer" >"$work/consumer-build.log" 2>&1 ||
    die "building consumer/: $(cat "$work/consumer-build.log")"
cmp -s "$sdk/bin/enet.dll" "$work/consumer/enet.dll" || die "the build did not copy the SDK's enet.dll beside the programs"
for program in probe tutorial; do
    imports_from_enet_dll "$work/consumer/$program.exe"
done
grep -qx enet_host_service "$work/imported" || die "tutorial.exe does not import enet_host_service from enet.dll"
# ENET_DLL from the target made the calls dllimport: the tutorial's object
# refers to __imp_enet_host_service, not to the import library's stub.
"$mingw-nm" "$(find "$work/consumer" -name 'tutorial.c.obj')" >"$work/tutorial.symbols"
grep -q " U __imp_${c_prefix}enet_host_service\$" "$work/tutorial.symbols" &&
    ! grep -q " U ${c_prefix}enet_host_service\$" "$work/tutorial.symbols" ||
    die "tutorial.c was not compiled with dllimport declarations (ENET_DLL missing from enet::enet?)"
run_windows probe "$work/consumer/probe.exe"

# The tutorial over 127.0.0.1: stock/stock on Linux is the reference, then
# the CMake-built Windows side as client and as server against it.
gcc -std=c99 -Wall -Wextra -Werror -O2 "$root/tests-c/tutorial/tutorial.c" \
    -o "$work/tutorial_stock" /usr/lib/x86_64-linux-gnu/libenet.so.7 ||
    die "building the stock tutorial"
# side SYSTEM PROGRAM ARGS...: one side; a Windows side runs under wine.
side() {
    local system=$1
    shift
    if [ "$system" = windows ]; then timeout 40 wine "$@"; else timeout 40 "$@"; fi
}
# pair NAME SERVER_SYSTEM SERVER CLIENT_SYSTEM CLIENT: both sides' output,
# carriage returns and the PORT line dropped, in $work/NAME.{server,client}.
pair() {
    local name=$1 server_system=$2 server=$3 client_system=$4 client=$5 port="" i pid
    # Made here, before the server's shell opens it, for the first read.
    : >"$work/$name.server.raw"
    side "$server_system" "$server" server >>"$work/$name.server.raw" 2>&1 &
    pid=$!
    track "$pid"
    for i in $(seq 400); do
        port=$(tr -d '\r' <"$work/$name.server.raw" | sed -n 's/^PORT //p')
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    [ -n "$port" ] || die "$name: the server gave no port: $(cat "$work/$name.server.raw")"
    side "$client_system" "$client" client "$port" >"$work/$name.client.raw" 2>&1 ||
        die "$name: the client failed: $(cat "$work/$name.client.raw" "$work/$name.server.raw")"
    bounded_wait "$pid" 40
    [ "$RC" -eq 0 ] || die "$name: the server failed ($RC): $(cat "$work/$name.server.raw")"
    tr -d '\r' <"$work/$name.server.raw" | sed '/^PORT /d' >"$work/$name.server"
    tr -d '\r' <"$work/$name.client.raw" >"$work/$name.client"
}
pair reference linux "$work/tutorial_stock" linux "$work/tutorial_stock"
for spec in "stock-linux-server+sdk-client:linux:$work/tutorial_stock:windows:$work/consumer/tutorial.exe" \
            "sdk-server+stock-linux-client:windows:$work/consumer/tutorial.exe:linux:$work/tutorial_stock"; do
    IFS=: read -r pair_name server_system server client_system client <<<"$spec"
    pair "$pair_name" "$server_system" "$server" "$client_system" "$client"
    diff -u "$work/reference.server" "$work/$pair_name.server" || die "$pair_name: the server's output differs from stock/stock's"
    diff -u "$work/reference.client" "$work/$pair_name.client" || die "$pair_name: the client's output differs from stock/stock's"
    echo "ok: tutorial $pair_name"
done
# The package describes a 64-bit (or 32-bit) Windows enet.dll: a Linux
# build must not take it.
if cmake -S "$here/consumer" -B "$work/consumer-linux" -DCMAKE_PREFIX_PATH="$sdk" \
       >"$work/consumer-linux.log" 2>&1; then
    die "a Linux configure accepted the Windows package"
fi
grep -qF "enetConfig.cmake, version: $version ($bits-bit Windows)" "$work/consumer-linux.log" ||
    die "a Linux configure failed, but not on the package's version check: $(cat "$work/consumer-linux.log")"
echo "ok: a Linux configure refuses the package ($bits-bit Windows)"

step "3. pkg-config: libenet from lib/pkgconfig builds the probe with mingw-w64"
pc_flags=$(PKG_CONFIG_PATH="$sdk/lib/pkgconfig" PKG_CONFIG_LIBDIR=/nonexistent \
    pkg-config --cflags --libs libenet) || die "pkg-config found no libenet in $sdk/lib/pkgconfig"
# The paths come from ${pcfiledir}, wherever the zip was unpacked.
# shellcheck disable=SC2086 # pc_flags is a list of flags
pc_include=$(printf '%s\n' $pc_flags | sed -n 's/^-I//p')
# shellcheck disable=SC2086
pc_libdir=$(printf '%s\n' $pc_flags | sed -n 's/^-L//p')
[ "$(readlink -f "$pc_include")" = "$(readlink -f "$sdk/include")" ] &&
    [ "$(readlink -f "$pc_libdir")" = "$(readlink -f "$sdk/lib")" ] ||
    die "libenet.pc's paths are not the unpacked zip's: $pc_flags"
mkdir -p "$work/pkgconfig"
# shellcheck disable=SC2086 # pc_flags is a list of flags
"$mingw-gcc" -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 "$here/consumer/probe.c" \
    -o "$work/pkgconfig/probe.exe" $pc_flags || die "building the probe with pkg-config's flags ($pc_flags)"
imports_from_enet_dll "$work/pkgconfig/probe.exe"
cp "$sdk/bin/enet.dll" "$work/pkgconfig/"
run_windows probe-pkgconfig "$work/pkgconfig/probe.exe"

step "4. MSVC-style: clang ($msvc_target, no CRT, no SDK) + lld-link with lib/enet.lib"
msvc=$work/msvc
mkdir -p "$msvc"
printf 'LIBRARY kernel32.dll\nEXPORTS\n    %s\n' "$exit_process" >"$msvc/kernel32.def"
# -k: imported by its undecorated name (a no-op for x86_64's).
llvm-dlltool -m "$machine" -k -d "$msvc/kernel32.def" -l "$msvc/kernel32.lib"
clang --target="$msvc_target" -std=c99 -Wall -Wextra -Werror -O2 \
    -ffreestanding -fno-builtin -fno-stack-protector -DENET_DLL \
    -I"$here/msvc/sysinclude" -I"$sdk/include" -c "$here/msvc/inproc.c" -o "$msvc/inproc.obj" ||
    die "compiling msvc/inproc.c for $msvc_target"
lld-link /nologo /subsystem:console /entry:inproc_start /nodefaultlib /out:"$msvc/inproc.exe" \
    "$msvc/inproc.obj" "$sdk/lib/enet.lib" "$msvc/kernel32.lib" || die "linking inproc.exe with lib/enet.lib"
imports_from_enet_dll "$msvc/inproc.exe"
cp "$sdk/bin/enet.dll" "$msvc/"
timeout 60 wine "$msvc/inproc.exe" >"$work/inproc.out" 2>&1 ||
    die "inproc.exe exited with status $? (see the failure codes in msvc/inproc.c): $(cat "$work/inproc.out")"
echo "ok: inproc.exe linked with enet.lib ($(wc -l <"$work/imported") enet.dll imports): connect, a packet each way, disconnect"

if [ $project -eq 1 ]; then
    step "5. the project's CMake build for Windows ($build_dir) and its install"
    dll=$root/target/windows/$target/release/enet.dll
    [ -f "$dll" ] || die "no $dll (run cargo xtask build-windows --target $target)"
    # Up to date: no input of cmake/windows.cmake's cargo step newer than it.
    stale=$(find "$root/src" "$root/crates/netsim/src" -name '*.rs' -newer "$dll" | head -n 3;
            find "$root/Cargo.toml" "$root/Cargo.lock" "$root/build.rs" -newer "$dll")
    dll_before=$(stat -c %Y.%s "$dll")
    t0=$SECONDS
    cmake -S "$root" -B "$build_dir" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DENET_RS_BUILD_TESTS=OFF \
        >"$work/project-configure.log" 2>&1 || die "configuring the project for Windows: $(cat "$work/project-configure.log")"
    t1=$SECONDS
    cmake --build "$build_dir" >"$work/project-build.log" 2>&1 ||
        die "building the project for Windows: $(cat "$work/project-build.log")"
    t2=$SECONDS
    if [ -z "$stale" ]; then
        [ "$(stat -c %Y.%s "$dll")" = "$dll_before" ] ||
            die "the CMake build rebuilt an up-to-date enet.dll: $(cat "$work/project-build.log")"
        reuse="reused the up-to-date enet.dll"
    else
        reuse="enet.dll was older than $(echo "$stale" | head -n 1), so Cargo rebuilt it"
    fi
    rm -rf "$work/installed"
    cmake --install "$build_dir" --prefix "$work/installed" >"$work/project-install.log" 2>&1 ||
        die "cmake --install: $(cat "$work/project-install.log")"
    (cd "$work/installed" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$work/installed-files"
    diff -u "$work/zip-files" "$work/installed-files" || die "cmake --install's files differ from the zip's"
    while read -r file; do
        cmp -s "$sdk/$file" "$work/installed/$file" ||
            die "cmake --install's $file differs from the zip's (was the zip made from target/windows's enet.dll?)"
    done <"$work/zip-files"
    echo "ok: configure $((t1 - t0)) s, build $((t2 - t1)) s ($reuse), install = the zip's $(wc -l <"$work/zip-files") files, byte for byte"
fi
echo "== sdk: all passed in $((SECONDS - started_at)) s"
