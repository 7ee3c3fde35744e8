#!/usr/bin/env bash
# Cross-builds our libenet.so.7 for another Linux target, the way the
# shipped library is built (release, ENET_RS_SHIPPED_LIBRARY=1, --locked),
# and stages it as DIR/libenet.so.7 (default DIR: the target's Cargo target
# directory's lib/, e.g. target/cross-s390x-unknown-linux-gnu/lib; for
# aarch64 target/cross/lib).
#
# usage: scripts/build-linux-target.sh TARGET [DIR]
#   TARGET: aarch64-unknown-linux-gnu, i686-unknown-linux-gnu,
#           armv7-unknown-linux-gnueabihf or s390x-unknown-linux-gnu
#           (the table: scripts/lib/linux-targets.sh)
# Prints the staged path last. scripts/test-linux-target.sh runs it.
#
# Why this toolchain: rustup's cargo/rustc (first on PATH) has no std for
# these targets, and nothing outside Debian's packages may be installed.
# Debian's Rust (rustc-web, cargo-web) has aarch64's std as a package of its
# own (libstd-rust-web-dev:arm64, installed beside the amd64 one), so
# nothing of std is compiled for aarch64. The i386, armhf and s390x std
# packages are of another Rust release (1.85) than Debian's rustc, so for
# those std is compiled from Debian's sources (-Zbuild-std; about two
# minutes of CPU each).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
. scripts/lib/linux-targets.sh

[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
target=$1
linux_target "$target" || exit 2
linux_target_cargo_env "$target"
dir=${2:-$LT_DIR/lib}
# A target directory of its own per target: the host build in target/
# (rustup's cargo, another compiler) is never invalidated by this one, nor
# this by it, nor one target's by another's.
target_dir=$LT_DIR
me=build-linux-target.sh

for tool in /usr/bin/cargo /usr/bin/rustc "$LT_GNU-gcc" "$LT_GNU-readelf" "$LT_GNU-ar"; do
    command -v "$tool" >/dev/null || { echo "$me: $tool missing (run $LT_SETUP)" >&2; exit 2; }
done

std_args=()
if [ "$LT_STD" = prebuilt ]; then
    [ -d "/usr/lib/rustlib/$target/lib" ] ||
        { echo "$me: Debian's $target std missing (run $LT_SETUP)" >&2; exit 2; }
    std_note="its prebuilt $target std"
else
    [ -d /usr/lib/rustlib/src/rust/library ] ||
        { echo "$me: Debian's Rust sources missing for -Zbuild-std (apt-get install rust-web-src)" >&2; exit 2; }
    std_args=(-Zbuild-std=std,panic_abort)
    std_note="std built from its sources"
fi
# Debian's rustc names functions in Rust's v0 mangling; rustup's stable
# compiler, which link/hot-text.txt was made with, names our crate's in the
# legacy one and its prebuilt std's in v0. The same legacy names for our
# crates here let build.rs place the engine's hot functions first in the
# library's text too (and, with Debian's prebuilt std, std's: a std built
# here takes the legacy names as well, which the list does not name).
echo "== cargo build --release --target $target (Debian's $(/usr/bin/rustc --version), $std_note)"
env "${LT_CARGO_ENV[@]}" RUSTC_BOOTSTRAP=1 ENET_RS_SHIPPED_LIBRARY=1 \
    RUSTFLAGS="-Z unstable-options -C symbol-mangling-version=legacy" \
    /usr/bin/cargo build --release --locked -p enet-rs \
    --target "$target" --target-dir "$target_dir" ${std_args[@]+"${std_args[@]}"}

built="$target_dir/$target/release/libenet.so"
mkdir -p "$dir"
# A copy, not a symlink: the matrix checks which file is mapped by its real
# path, and a copy keeps DIR valid while target/ is rebuilt.
cp -f "$built" "$dir/libenet.so.7.tmp"
mv -f "$dir/libenet.so.7.tmp" "$dir/libenet.so.7"

# Programs built against stock ENet record libenet.so.7; the loader finds
# ours only if that is our SONAME. And it must really be the target's object.
headers=$("$LT_GNU-readelf" -h -d "$dir/libenet.so.7")
grep -q "Machine: *$LT_MACHINE\$" <<<"$headers" \
    || { echo "$me: $dir/libenet.so.7 is not an $LT_MACHINE object" >&2; exit 1; }
grep -q 'Library soname: \[libenet.so.7\]' <<<"$headers" \
    || { echo "$me: $dir/libenet.so.7 lacks SONAME libenet.so.7" >&2; exit 1; }
echo "== staged ($LT_MACHINE, SONAME libenet.so.7): $(cd "$dir" && pwd)/libenet.so.7"
