#!/usr/bin/env bash
# The Windows SDK zip: enet-rs-VERSION-windows-x86_64.zip (or, with
# --target i686-pc-windows-gnu, the 32-bit -windows-x86.zip), with enet.dll
# (stripped), its import libraries for MSVC (lib/enet.lib) and MinGW
# (lib/libenet.dll.a), the headers, find_package(enet) files, libenet.pc,
# the licence and a README.txt (scripts/lib/windows-sdk.sh lays the tree
# out; docs/packaging.md, "The Windows SDK zip"), and beside it
# enet-rs-VERSION-windows-x86_64-debug.zip with bin/enet.dll.debug, the
# DLL's debug info (unzipped over the SDK, a debugger finds it through
# the DLL's .gnu_debuglink).
#
# Before zipping, enet.dll's exports are checked against stock's
# (tests-c/windows/check_exports.sh: stock enet.dll's 53, stock
# libenet.so.7's 73, ENet 1.3.18's two additions, our extensions), so
# enet.lib, made from the export table, imports exactly those. The zip is
# reproducible: files in name order, every time stamp the last commit's.
#
# Builds nothing: run `cargo xtask build-windows` first.
# usage: scripts/package-windows.sh [--target TARGET] [--dll DIR] [--out DIR]
#   --target   x86_64-pc-windows-gnu (the default; ...-windows-x86_64.zip)
#              or i686-pc-windows-gnu (32-bit: ...-windows-x86.zip, from
#              cargo xtask build-windows --target i686-pc-windows-gnu)
#   --dll DIR  enet.dll and libenet.dll.a (default
#              target/windows/TARGET/release)
#   --out DIR  where the two zips go (default target/package)
# Prints the zip's path last.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
die() { echo "package-windows.sh: $*" >&2; exit 1; }
target=x86_64-pc-windows-gnu
dll_dir=""
out=target/package
while [ $# -gt 0 ]; do
    case "$1" in
        --target) [ $# -ge 2 ] || die "--target needs a target"; target=$2; shift 2 ;;
        --dll) [ $# -ge 2 ] || die "--dll needs a directory"; dll_dir=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
        *) die "unknown argument $1 (usage: package-windows.sh [--target TARGET] [--dll DIR] [--out DIR])" ;;
    esac
done
. scripts/lib/windows-targets.sh
windows_target "$target" || exit 1
flavour=$WT_FLAVOUR objdump=$WT_MINGW-objdump
dll_dir=${dll_dir:-target/windows/$target/release}
command -v zip >/dev/null || die "missing zip (apt-get install zip)"
[ -f "$dll_dir/enet.dll" ] || die "no enet.dll in $dll_dir (run cargo xtask build-windows)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(sed -n '/^\[package\]/,/^\[/ s/^version *= *"\([^"]*\)".*/\1/p' Cargo.toml)
[ -n "$version" ] || die "no package version in Cargo.toml"
name=enet-rs-$version-windows-$flavour
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scripts/lib/windows-sdk.sh "$dll_dir" "$work/$name" "$work/debug/$name/bin/enet.dll.debug" "$target"
OBJDUMP=$objdump tests-c/windows/check_exports.sh "$work/$name/bin/enet.dll" /usr/lib/x86_64-linux-gnu/libenet.so.7

# zip_tree DIR ZIP: DIR's files under DIR's own name, in name order, with
# the last commit's time (or 2000-01-01 outside a git checkout) on every
# entry, and no Unix owner fields (-X), so the same inputs give the same
# bytes.
stamp=$(git log -1 --format=%ct 2>/dev/null || echo 946684800)
zip_tree() {
    local dir=$1 zip=$2
    rm -f "$zip"
    find "$dir" -exec touch -h -d "@$stamp" {} +
    (cd "$(dirname "$dir")" &&
        find "$(basename "$dir")" -type f | LC_ALL=C sort | zip -q -X -D "$zip" -@)
}
zip_tree "$work/$name" "$out/$name.zip"
zip_tree "$work/debug/$name" "$out/$name-debug.zip"
unzip -l "$out/$name.zip" | sed -n '4,$p' | awk 'NF >= 4 { printf "  %9s  %s\n", $1, $4 }'
ls -l "$out/$name.zip" "$out/$name-debug.zip" | awk '{ print $5, $NF }'
echo "$out/$name.zip"
