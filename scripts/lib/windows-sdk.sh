#!/usr/bin/env bash
# Lays out the Windows SDK tree from a built enet.dll: the tree that
# scripts/package-windows.sh zips and that a Windows CMake build
# (cmake/windows.cmake) installs, so the two cannot drift apart.
#
#   TREE/bin/enet.dll                 stripped; its debug info goes to DEBUG_FILE
#                                     (found through the DLL's .gnu_debuglink
#                                     when the two sit side by side)
#   TREE/lib/enet.lib                 MSVC import library, made with llvm-dlltool
#                                     from a .def of the DLL's own export table
#   TREE/lib/libenet.dll.a            MinGW import library, as the link made it
#   TREE/include/enet/*.h             the default (1.3.17) header set
#   TREE/lib/cmake/enet/              enetConfig.cmake, enetConfigVersion.cmake
#   TREE/lib/cmake/unofficial-enet/   vcpkg's package name for the same targets
#   TREE/lib/pkgconfig/libenet.pc
#   TREE/LICENSE.txt, TREE/README.txt
#   TREE/THIRD-PARTY-NOTICES.txt     the linked crates' licences and notices
#
# Checks that each import library names enet.dll and imports exactly the
# functions the DLL exports. Which functions those must be is
# tests-c/windows/check_exports.sh's business (package-windows.sh runs it).
#
# usage: scripts/lib/windows-sdk.sh DLL_DIR TREE DEBUG_FILE [TARGET]
#   DLL_DIR holds enet.dll and libenet.dll.a (`cargo xtask build-windows`'s
#   target/windows/x86_64-pc-windows-gnu/release). TREE is emptied first.
#   TARGET is the DLL's: x86_64-pc-windows-gnu (the default) or
#   i686-pc-windows-gnu (32-bit: enet.lib for i386, the CMake, pkg-config
#   and README files saying 32-bit Windows).
# Tools, overridable for a native MSYS2 build: OBJCOPY, STRIP, OBJDUMP
# (mingw-w64 binutils), DLLTOOL (llvm-dlltool), NM (llvm-nm reads both
# import library formats).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "windows-sdk.sh: $*" >&2; exit 1; }
[ $# -eq 3 ] || [ $# -eq 4 ] || die "usage: windows-sdk.sh DLL_DIR TREE DEBUG_FILE [TARGET]"
dll_dir=$1 tree=$2 debug_file=$3 target=${4:-x86_64-pc-windows-gnu}
# What differs between the two: the binutils' prefix, llvm-dlltool's
# machine, and the words and pointer size the SDK's files state.
. "$root/scripts/lib/windows-targets.sh"
windows_target "$target" || exit 1
mingw=$WT_MINGW machine=$WT_MACHINE bits=$WT_BITS arch=$WT_FLAVOUR pointer=$WT_POINTER c_prefix=$WT_C_PREFIX
objcopy=${OBJCOPY:-$mingw-objcopy}
strip=${STRIP:-$mingw-strip}
objdump=${OBJDUMP:-$mingw-objdump}
dlltool=${DLLTOOL:-llvm-dlltool}
nm=${NM:-llvm-nm}
for tool in "$objcopy" "$strip" "$objdump" "$dlltool" "$nm"; do
    command -v "$tool" >/dev/null || die "missing $tool (scripts/setup-debian.sh installs mingw-w64 and llvm)"
done
for file in enet.dll libenet.dll.a; do
    [ -f "$dll_dir/$file" ] || die "no $file in $dll_dir (build it with cargo xtask build-windows)"
done

version=$(sed -n '/^\[package\]/,/^\[/ s/^version *= *"\([^"]*\)".*/\1/p' "$root/Cargo.toml")
[ -n "$version" ] || die "no package version in $root/Cargo.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rm -rf "$tree"
mkdir -p "$tree/bin" "$tree/lib/cmake/enet" "$tree/lib/cmake/unofficial-enet" \
         "$tree/lib/pkgconfig" "$tree/include" "$(dirname "$debug_file")"

# The DLL, stripped, pointing at its debug file by name (the link records
# the file's base name and CRC, so objcopy runs beside it). binutils stamps
# the PE files it writes with the time of day unless SOURCE_DATE_EPOCH is
# set: given the link's own stamp (the COFF header's TimeDateStamp, at
# e_lfanew + 8), the same enet.dll always gives the same files.
pe_header=$(od -An -tu4 -j60 -N4 "$dll_dir/enet.dll" | tr -d ' ')
link_time=$(od -An -tu4 -j$((pe_header + 8)) -N4 "$dll_dir/enet.dll" | tr -d ' ')
[ -n "$link_time" ] || die "$dll_dir/enet.dll has no PE header"
export SOURCE_DATE_EPOCH=$link_time
"$objcopy" --only-keep-debug "$dll_dir/enet.dll" "$debug_file"
"$strip" --strip-all -o "$tree/bin/enet.dll" "$dll_dir/enet.dll"
(cd "$(dirname "$debug_file")" &&
    "$objcopy" --add-gnu-debuglink="$(basename "$debug_file")" "$tree/bin/enet.dll")

# exported_names DLL: the DLL's export name table, one name a line, sorted.
exported_names() {
    "$objdump" -p "$1" |
        awk '/\[Ordinal\/Name Pointer\] Table/ { table = 1; next }
             table && NF == 0 { table = 0 }
             table { print $NF }' | sort
}
# imported_names LIB: the functions an import library imports (its __imp_
# symbols, less 32-bit Windows' leading underscore of C names), sorted.
imported_names() {
    "$nm" "$1" 2>/dev/null | awk -v prefix="__imp_$c_prefix" \
        'index($NF, prefix) == 1 { print substr($NF, length(prefix) + 1) }' | sort -u
}
exported_names "$tree/bin/enet.dll" >"$work/exports"
[ -s "$work/exports" ] || die "enet.dll exports nothing (objdump -p found no name table)"
cmp -s "$work/exports" <(exported_names "$dll_dir/enet.dll") || die "stripping changed enet.dll's exports"

# enet.lib from a .def of exactly those names (all functions: the library
# exports no data).
{
    echo "LIBRARY enet.dll"
    echo "EXPORTS"
    sed 's/^/    /' "$work/exports"
} >"$work/enet.def"
"$dlltool" -m "$machine" -D enet.dll -d "$work/enet.def" -l "$tree/lib/enet.lib"
cp "$dll_dir/libenet.dll.a" "$tree/lib/libenet.dll.a"
for lib in enet.lib libenet.dll.a; do
    imported_names "$tree/lib/$lib" >"$work/$lib.imports"
    diff -u "$work/exports" "$work/$lib.imports" >"$work/$lib.diff" ||
        die "$lib does not import exactly enet.dll's exports: $(cat "$work/$lib.diff")"
    # The DLL name sits in the import library as a NUL-terminated string.
    [ "$(tr '\0' '\n' <"$tree/lib/$lib" | grep -acx 'enet.dll')" -gt 0 ] || die "$lib does not name enet.dll"
done

# The default header set only (include/1.3.18 is another identity's).
cp -r "$root/include/enet" "$tree/include/"

substitute() {
    sed -e "s/@ENET_VERSION@/$version/g" -e "s/@ENET_WINDOWS_BITS@/$bits/g" \
        -e "s/@ENET_WINDOWS_ARCH@/$arch/g" -e "s/@ENET_SIZEOF_VOID_P@/$pointer/g" "$1" >"$2"
}
windows=$root/cmake/windows
cp "$windows/enetConfig.cmake" "$tree/lib/cmake/enet/"
substitute "$windows/enetConfigVersion.cmake.in" "$tree/lib/cmake/enet/enetConfigVersion.cmake"
cp "$windows/unofficial-enetConfig.cmake" "$windows/unofficial-enetConfigVersion.cmake" \
   "$tree/lib/cmake/unofficial-enet/"
substitute "$windows/libenet.pc.in" "$tree/lib/pkgconfig/libenet.pc"
substitute "$windows/README.txt.in" "$work/README.txt"
# Windows line endings for the two files people open in Notepad.
sed 's/$/\r/' "$work/README.txt" >"$tree/README.txt"

[ -f "$root/LICENSE" ] || die "no LICENSE file in $root"
sed 's/$/\r/' "$root/LICENSE" >"$tree/LICENSE.txt"
# The notices of the crates and the standard library linked into the DLL.
python3 "$root/scripts/lib/third_party_notices.py" --target "$target" >"$work/notices.txt" \
    || die "third_party_notices.py failed"
sed 's/$/\r/' "$work/notices.txt" >"$tree/THIRD-PARTY-NOTICES.txt"
echo "$tree: enet-rs $version, $(wc -l <"$work/exports") exports"
