#!/usr/bin/env bash
# Builds enet-rs's Debian binary packages for this machine's architecture
# (docs/packaging.md, "Debian packages"):
#   libenet7-rs         libenet.so.7, in place of Debian's libenet7 (it
#                       Provides libenet7 and Conflicts with and Replaces this
#                       architecture's libenet7 only, so a multiarch machine
#                       keeps its other architectures' stock libenet7)
#   libenet-rs-dev      headers (enet_rs.h too), libenet.so, libenet.a,
#                       libenet.pc, the CMake package; in place of libenet-dev
#   libenet7-rs-dbgsym  the library's debug information, by build id
# with dpkg-deb alone (no debhelper, no source package).
#
# usage: scripts/package-deb.sh [--release bookworm|trixie] [--build DIR] [--out DIR] [--arch arm64]
#   --release  the Debian release to build for: bookworm ships ENet 1.3.17,
#              trixie 1.3.18, and the packages take that identity (default:
#              this machine's, from /etc/os-release)
#   --build    the CMake build directory to package, configured with
#              CMAKE_INSTALL_PREFIX=/usr (Debian's GNUInstallDirs then puts
#              the library in lib/<multiarch>); made and configured here if
#              absent (default: build-deb, build-deb-1.3.18 for trixie), and
#              brought up to date (cargo shares target/ with other builds)
#   --out      where the .deb files go (default: target/debian/RELEASE)
#   --arch     arm64 on an amd64 machine: cross-built packages (bookworm
#              only), the library from `cargo xtask build-arm64` (after
#              scripts/setup-arm64.sh), the rest of -dev (headers, the
#              pkg-config and CMake files, which name no architecture but
#              their directory) from the native CMake build
# Prints the path of each package built. Needs dpkg-dev and binutils.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "package-deb.sh: $*" >&2; exit 1; }

release="" build="" out="" arch=""
while [ $# -gt 0 ]; do
    case "$1" in
        --release) release=${2:?--release needs a value}; shift ;;
        --build) build=${2:?--build needs a value}; shift ;;
        --out) out=${2:?--out needs a value}; shift ;;
        --arch) arch=${2:?--arch needs a value}; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
[ -n "$release" ] || release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
# The identity each release's own libenet7 has: its version, and the file
# name libtool gives its library (libenet.so.7.0.5 for 1.3.17, .0.6 for 1.3.18).
case "$release" in
    bookworm) identity=1.3.17 lib_version=7.0.5 linked=0x10311 ;;
    trixie) identity=1.3.18 lib_version=7.0.6 linked=0x10312 ;;
    *) die "release '$release': only bookworm (ENet 1.3.17) and trixie (1.3.18)" ;;
esac
if [ -z "$build" ]; then
    build="$repo/build-deb"
    [ "$identity" = 1.3.17 ] || build="$repo/build-deb-$identity"
fi
out=${out:-$repo/target/debian/$release}
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture objcopy strip readelf nm cmake cc; do
    command -v "$tool" >/dev/null || die "$tool missing (scripts/setup-debian.sh installs dpkg-dev)"
done

# Debian's versioning: "+rs1" sorts after Debian's "+ds" (1.3.17+rs1-1 >
# 1.3.17+ds-2), and the upstream part names the identity.
upstream_version="$identity+rs1"
version="$upstream_version-1"
native_arch=$(dpkg --print-architecture)
arch=${arch:-$native_arch}
multiarch=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
# Rust's name for the target, whose dependencies the notices list.
notices_target=$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_CPU 2>/dev/null)-unknown-linux-gnu
native_multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
# The binutils that read and write the target's objects.
tools_prefix=""
if [ "$arch" != "$native_arch" ]; then
    [ "$arch" = arm64 ] && [ "$native_arch" = amd64 ] || die "cross-building: only arm64 on amd64"
    [ "$identity" = 1.3.17 ] || die "cross-building: only the 1.3.17 identity (cargo xtask build-arm64)"
    tools_prefix=aarch64-linux-gnu-
    command -v aarch64-linux-gnu-gcc >/dev/null || die "aarch64-linux-gnu-gcc missing (scripts/setup-arm64.sh)"
fi
objcopy() { command "${tools_prefix}objcopy" "$@"; }
strip() { command "${tools_prefix}strip" "$@"; }
readelf() { command "${tools_prefix}readelf" "$@"; }
nm() { command "${tools_prefix}nm" "$@"; }
runtime=libenet7-rs dev=libenet-rs-dev dbgsym=libenet7-rs-dbgsym
maintainer="${DEBFULLNAME:-$(git -C "$repo" config user.name || echo enet-rs maintainers)} <${DEBEMAIL:-$(git -C "$repo" config user.email || echo enet-rs@localhost)}>"
# Reproducible: every timestamp is the last commit's, or SOURCE_DATE_EPOCH's.
# The architectures of a Multi-Arch: same package must ship identical
# shared files (the changelog, dated so): build them with one value.
# Exported only once the builds below are done: the `cc` crate's build
# scripts (ring's) rerun when it changes, so in a build's environment it
# would rebuild the whole library, here and again in the next build
# without it.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct)}

# --- the build ---------------------------------------------------------------
cache="$build/CMakeCache.txt"
if [ ! -f "$cache" ]; then
    options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr -DENET_RS_BUILD_TESTS=OFF)
    [ "$identity" = 1.3.17 ] || options+=("-DENET_RS_IDENTITY=$identity")
    echo "== configuring $build"
    nice -n 10 cmake -S "$repo" -B "$build" "${options[@]}" >/dev/null
fi
grep -qx 'CMAKE_INSTALL_PREFIX:PATH=/usr' "$cache" \
    || die "$build is not configured with CMAKE_INSTALL_PREFIX=/usr (its libenet.pc and library directory would be wrong); give another --build"
echo "== building $build (enet_build)"
nice -n 10 cmake --build "$build" --target enet_build >"$build/package-deb-build.log" 2>&1 \
    || { tail -n 30 "$build/package-deb-build.log" >&2; die "building $build failed"; }

work=$(mktemp -d /tmp/package-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
stage_component() {   # stage_component COMPONENT DIR
    DESTDIR="$2" cmake --install "$build" --prefix /usr --component "$1" >/dev/null
}
root_rt="$work/$runtime" root_dev="$work/$dev" root_dbg="$work/$dbgsym"
stage_component Runtime "$root_rt"
stage_component Development "$root_dev"
if [ "$arch" != "$native_arch" ]; then
    # The cross-built library and archive take the native ones' places, in
    # the target's library directory; the CMake package finds its prefix
    # relative to itself, at the same depth.
    echo "== cross-building the $arch library (cargo xtask build-arm64)"
    (cd "$repo" && nice -n 10 cargo xtask build-arm64 "$work/cross") >"$work/cross.log" 2>&1 \
        || { tail -n 30 "$work/cross.log" >&2; die "cargo xtask build-arm64 failed"; }
    cross_release="$repo/target/cross/aarch64-unknown-linux-gnu/release"
    for root in "$root_rt" "$root_dev"; do
        mv "$root/usr/lib/$native_multiarch" "$root/usr/lib/$multiarch"
    done
    cp "$work/cross/libenet.so.7" "$root_rt/usr/lib/$multiarch/libenet.so.$lib_version"
    cp "$cross_release/libenet.a" "$root_dev/usr/lib/$multiarch/libenet.a"
    sed -i "s|/$native_multiarch\b|/$multiarch|" "$root_dev/usr/lib/$multiarch/pkgconfig/libenet.pc"
fi

export SOURCE_DATE_EPOCH

# --- what was staged is the identity asked for --------------------------------
libdir="usr/lib/$multiarch"
lib="$root_rt/$libdir/libenet.so.$lib_version"
[ -f "$lib" ] || die "no $libdir/libenet.so.$lib_version staged from $build (found: $(ls "$root_rt/$libdir" 2>/dev/null | tr '\n' ' ')); for $release, configure with the $identity identity"
[ "$(readlink "$root_rt/$libdir/libenet.so.7")" = "libenet.so.$lib_version" ] || die "libenet.so.7 does not link to libenet.so.$lib_version"
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libenet.so.7 ] || die "SONAME is '$soname', not libenet.so.7"
pc="$root_dev/$libdir/pkgconfig/libenet.pc"
[ -f "$pc" ] || die "libenet.pc not staged in $libdir/pkgconfig"
grep -qx "Version: $identity" "$pc" || die "libenet.pc says $(grep '^Version:' "$pc"), not $identity"
grep -qx 'prefix=/usr' "$pc" || die "libenet.pc's prefix is not /usr"
cat >"$work/linked.c" <<'EOF'
#include <enet/enet.h>
#include <stdio.h>
int main(void) { printf("0x%x\n", (unsigned) enet_linked_version()); return 0; }
EOF
if [ "$arch" = "$native_arch" ]; then
    cc -I"$root_dev/usr/include" "$work/linked.c" -L"$root_rt/$libdir" -l:libenet.so.7 -o "$work/linked"
    got=$(LD_LIBRARY_PATH="$root_rt/$libdir" "$work/linked")
else
    # Under qemu-user, with the arm64 C library multiarch puts in /.
    aarch64-linux-gnu-gcc -I"$root_dev/usr/include" "$work/linked.c" -L"$root_rt/$libdir" -l:libenet.so.7 -o "$work/linked"
    got=$(LD_LIBRARY_PATH="$root_rt/$libdir" qemu-aarch64 "$work/linked")
fi
[ "$got" = "$linked" ] || die "enet_linked_version() is $got, $release's ENet is $linked"

# --- symbols ---------------------------------------------------------------
# Stock's functions keep the minimum version Debian's file gives them (0:
# any libenet7). The functions only this library has need this package:
# they take the second dependency template, "libenet7-rs (>= ...)". 1.3.18's
# two additions are stock's own on trixie (minimum 1.3.18 there), ours only
# on bookworm.
exports=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sort)
listed() { grep -v '^#' "$repo/tests-c/$1" | awk 'NF == 2 { print $2 }' | sort; }
additions=$(listed upstream_exports.txt)
extensions=$(listed extension_exports.txt)
[ -n "$(comm -13 <(echo "$exports") <(echo "$additions"))" ] && die "1.3.18's additions missing from the library: $(comm -13 <(echo "$exports") <(echo "$additions") | tr '\n' ' ')"
extra=$(grep '^enet_rs_' <<<"$exports" || true)
[ "$extra" = "$extensions" ] || die "enet_rs_ exports differ from tests-c/extension_exports.txt: $(diff <(echo "$extensions") <(echo "$extra") | grep '^[<>]' | tr '\n' ' ')"
stock=$(comm -23 <(grep -v '^enet_rs_' <<<"$exports") <(echo "$additions"))
[ "$(wc -l <<<"$stock")" -eq 73 ] || die "expected stock's 73 functions, found $(wc -l <<<"$stock")"
[ -z "$(nm -D --defined-only "$lib" | awk '$2 != "T"')" ] || die "the library exports something other than functions"
debian_symbols="/var/lib/dpkg/info/libenet7:$arch.symbols"
if [ -f "$debian_symbols" ]; then
    # Cross-check with Debian's own list where this machine has it.
    diff <(echo "$stock") <(sed -n 's/^ \(enet_[a-z_0-9]*\)@Base .*/\1/p' "$debian_symbols" | sort) >/dev/null \
        || die "stock's functions differ from $debian_symbols"
fi
symbols="$work/symbols"
{
    echo "libenet.so.7 libenet7 #MINVER#"
    echo "| $runtime #MINVER#"
    echo "* Build-Depends-Package: $dev"
    while read -r name; do
        if grep -qx "$name" <<<"$additions"; then
            if [ "$identity" = 1.3.17 ]; then echo " $name@Base $upstream_version 1"; else echo " $name@Base $identity"; fi
        elif grep -qx "$name" <<<"$extensions"; then
            echo " $name@Base $upstream_version 1"
        else
            echo " $name@Base 0"
        fi
    done <<<"$exports"
} >"$symbols"

# --- strip, the debug information apart --------------------------------------
# Debian's layout (dh_strip): the debug file under its build id, compressed;
# the library keeps a debuglink to it; .comment and .note go.
build_id=$(readelf -n "$lib" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')
[ ${#build_id} -ge 3 ] || die "the library has no GNU build id"
debug_file="usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
mkdir -p "$root_dbg/$(dirname "$debug_file")"
objcopy --only-keep-debug --compress-debug-sections "$lib" "$root_dbg/$debug_file"
chmod 0644 "$root_dbg/$debug_file"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$lib"
objcopy --add-gnu-debuglink="$root_dbg/$debug_file" "$lib"
chmod 0644 "$lib"
[ "$(readelf -n "$lib" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')" = "$build_id" ] || die "stripping lost the build id"
# The static library keeps its symbols (a link needs them), not its debug
# information (as dh_strip does; 80 MB of it).
strip --strip-debug --remove-section=.comment --enable-deterministic-archives \
    "$root_dev/$libdir/libenet.a"
chmod 0644 "$root_dev/$libdir/libenet.a"

# --- documentation: copyright and changelog, one per package ------------------
# The crates linked into the library for this architecture (not those only
# build scripts and procedural macros use; not ours, which "Files: *"
# covers), as "name version: licence": the list THIRD-PARTY-NOTICES.gz's
# texts belong to.
crates=$(python3 "$repo/scripts/lib/third_party_notices.py" --list --target "$notices_target") \
    || die "third_party_notices.py --list failed"
copyright="$work/copyright"
year=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)
{
    cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: enet-rs
Upstream-Contact: $maintainer
Comment: enet-rs is ENet 1.3.17's interface and protocol rebuilt in Rust; no
 ENet source code is part of it. The library links in these Rust crates
 (name, version, licence as the crate declares it; for a choice of licences
 the MIT one applies here where offered):
EOF
    sed 's/^/  /' <<<"$crates"
    cat <<EOF
 and the Rust standard library (MIT OR Apache-2.0). Each crate's licence
 and notice files, as the crate ships them, are in THIRD-PARTY-NOTICES.gz
 beside this file.

Files: *
Copyright: $year the enet-rs authors
License: Expat

License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 SOFTWARE.

License: Apache-2.0
 On Debian systems, the complete text of the Apache License, Version 2.0 is
 in /usr/share/common-licenses/Apache-2.0.
EOF
} >"$copyright"
changelog="$work/changelog.Debian"
cat >"$changelog" <<EOF
enet-rs ($version) $release; urgency=medium

  * enet-rs with ENet $identity's identity (libenet.so.$lib_version), for
    $release, in place of Debian's libenet7.

 -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
EOF
gzip -9n <"$changelog" >"$work/changelog.Debian.gz"
touch -d "@$SOURCE_DATE_EPOCH" "$work/changelog.Debian.gz"
# The licence and notice files of the crates linked in, which their
# licences ask to travel with the binary (scripts/lib/third_party_notices.py).
python3 "$repo/scripts/lib/third_party_notices.py" --target "$notices_target" >"$work/notices.txt" \
    || die "third_party_notices.py failed"
gzip -9n <"$work/notices.txt" >"$work/THIRD-PARTY-NOTICES.gz"
touch -d "@$SOURCE_DATE_EPOCH" "$work/THIRD-PARTY-NOTICES.gz"
for package in "$runtime" "$dev"; do
    doc="$work/$package/usr/share/doc/$package"
    mkdir -p "$doc"
    install -m 0644 "$copyright" "$doc/copyright"
    install -m 0644 "$work/changelog.Debian.gz" "$doc/changelog.Debian.gz"
    install -m 0644 "$work/THIRD-PARTY-NOTICES.gz" "$doc/THIRD-PARTY-NOTICES.gz"
done
# dh_strip's convention: the debug package's doc directory is its library's.
mkdir -p "$root_dbg/usr/share/doc"
ln -s "$runtime" "$root_dbg/usr/share/doc/$dbgsym"

# --- control files -------------------------------------------------------------
mkdir -p "$work/shlibdeps/debian"
printf 'Source: enet-rs\n\nPackage: %s\nArchitecture: any\n' "$runtime" >"$work/shlibdeps/debian/control"
libc_depends=$(cd "$work/shlibdeps" && dpkg-architecture -a"$arch" -c dpkg-shlibdeps -O -e"$lib" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$libc_depends" ] || die "dpkg-shlibdeps found no dependencies for $lib"
# Packed relative relocations (build.rs) need a C library that names the
# version GLIBC_ABI_DT_RELR, 2.36 on; dpkg-shlibdeps weighs only the
# symbols the library imports, and says 2.35.
if grep -q 'Name: GLIBC_ABI_DT_RELR' <<<"$(readelf -V "$lib")"; then
    libc_min=$(sed -n 's/^libc6 (>= \([0-9.]*\)).*/\1/p' <<<"$libc_depends")
    if [ -z "$libc_min" ] || dpkg --compare-versions "$libc_min" lt 2.36; then
        libc_depends=$(sed 's/^libc6 ([^)]*)/libc6 (>= 2.36)/' <<<"$libc_depends")
    fi
fi

# Installed-Size as dpkg-gencontrol counts it: KiB per file, rounded up,
# and one per directory and link.
installed_size() {
    find "$1" -path "$1/DEBIAN" -prune -o -mindepth 1 \( -type f -printf '%s\n' -o -printf '1024\n' \) \
        | awk '{ total += int(($1 + 1023) / 1024) } END { print total }'
}
description() {
    cat <<'EOF'
 enet-rs is ENet, the reliable-UDP library many games are built on, rebuilt
 in Rust: the same functions, structures and wire protocol as the ENet that
 Debian ships, so programs built against Debian's libenet7 run unchanged
 and talk to stock ENet peers. It adds opt-in extensions (enet/enet_rs.h):
 IPv6, servers sharing a port, thread-safe sending, DTLS encryption, faster
 loss recovery and a network conditioner.
EOF
}
control() {   # control PACKAGE [FIELD: VALUE...] (Description last)
    local package=$1
    shift
    {
        echo "Package: $package"
        echo "Source: enet-rs"
        echo "Version: $version"
        echo "Architecture: $arch"
        echo "Maintainer: $maintainer"
        echo "Installed-Size: $(installed_size "$work/$package")"
        printf '%s\n' "$@"
    } >"$work/$package/DEBIAN/control"
}
md5sums() {
    (cd "$work/$1" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z \
        | xargs -0r md5sum) >"$work/$1/DEBIAN/md5sums"
}

mkdir -p "$root_rt/DEBIAN" "$root_dev/DEBIAN" "$root_dbg/DEBIAN"
install -m 0644 "$symbols" "$root_rt/DEBIAN/symbols"
echo "libenet 7 $runtime (>= $upstream_version)" >"$root_rt/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$root_rt/DEBIAN/triggers"
chmod 0644 "$root_rt/DEBIAN/shlibs" "$root_rt/DEBIAN/triggers"
# Conflicts and Replaces name this architecture's libenet7 only: unqualified,
# they would apply to every architecture's and remove a multiarch machine's
# other libenet7 (libenet7:arm64 beside libenet7:amd64) along with it.
control "$runtime" \
    "Section: libs" "Priority: optional" "Multi-Arch: same" \
    "Depends: $libc_depends" \
    "Provides: libenet7 (= $version)" \
    "Conflicts: libenet7:$arch" "Replaces: libenet7:$arch" \
    "Description: ENet $identity reliable UDP, rebuilt in Rust (in place of libenet7)" \
    "$(description)" \
    " ." \
    " This package holds libenet.so.7, for programs that use libenet7."
control "$dev" \
    "Section: libdevel" "Priority: optional" "Multi-Arch: same" \
    "Depends: $runtime (= $version)" \
    "Provides: libenet-dev (= $version)" \
    "Conflicts: libenet-dev" "Replaces: libenet-dev" \
    "Description: ENet $identity reliable UDP, rebuilt in Rust - development files" \
    "$(description)" \
    " ." \
    " This package holds the headers (enet/enet.h and enet/enet_rs.h), the" \
    " shared and static libraries to link against, libenet.pc for pkg-config" \
    " and the CMake package (find_package(enet), target enet::enet)."
control "$dbgsym" \
    "Section: debug" "Priority: optional" "Multi-Arch: same" \
    "Depends: $runtime (= $version)" \
    "Auto-Built-Package: debug-symbols" \
    "Build-Ids: $build_id" \
    "Description: debug symbols for $runtime"
for package in "$runtime" "$dev" "$dbgsym"; do md5sums "$package"; done

# --- the packages --------------------------------------------------------------
# Every file's time is the commit's, so the packages depend only on the tree.
find "$root_rt" "$root_dev" "$root_dbg" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$out"
for package in "$runtime" "$dev" "$dbgsym"; do
    file="$out/${package}_${version}_${arch}.deb"
    dpkg-deb --root-owner-group -Zxz --build "$work/$package" "$file" >/dev/null
    echo "$file"
done
