#!/usr/bin/env bash
# Cross-builds our libenet.so.7 for Linux on aarch64 (arm64), the way the
# shipped library is built (release, ENET_RS_SHIPPED_LIBRARY=1, --locked),
# and stages it as DIR/libenet.so.7 (default DIR: target/cross/lib).
#
# usage: scripts/build-arm64.sh [DIR]     (after scripts/setup-arm64.sh)
# Prints the staged path last. Run the arm64 library under qemu-aarch64 with
# LD_LIBRARY_PATH=DIR; scripts/test-arm64.sh does that for the interop matrix.
#
# Why this toolchain: rustup's cargo/rustc (first on PATH) has no aarch64
# std, and nothing outside Debian's packages may be installed. Debian's Rust
# (rustc-web, cargo-web) has its arm64 std as a package of its own
# (libstd-rust-web-dev:arm64, installed beside the amd64 one), so nothing of
# std is compiled here; building it from its sources (-Zbuild-std) made
# the same library and cost CI about four minutes of CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

target=aarch64-unknown-linux-gnu
dir=${1:-target/cross/lib}
# A target directory of its own: the host build in target/ (rustup's cargo,
# another compiler) is never invalidated by this one, nor this by it.
target_dir=target/cross

for tool in /usr/bin/cargo /usr/bin/rustc aarch64-linux-gnu-gcc aarch64-linux-gnu-readelf; do
    command -v "$tool" >/dev/null || { echo "build-arm64.sh: $tool missing (run scripts/setup-arm64.sh)" >&2; exit 2; }
done

# Debian's rustc names functions in Rust's v0 mangling; rustup's stable
# compiler, which link/hot-text.txt was made with, names our crate's in the
# legacy one and its prebuilt std's in v0. The same legacy names for our
# crates here, and Debian's prebuilt std (v0, as the list names std's),
# let build.rs place the engine's and the standard library's hot functions
# first in the arm64 library's text too.
[ -d "/usr/lib/rustlib/$target/lib" ] ||
    { echo "build-arm64.sh: Debian's arm64 std missing (run scripts/setup-arm64.sh)" >&2; exit 2; }
echo "== cargo build --release --target $target (Debian's $(/usr/bin/rustc --version) and its arm64 std)"
env RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 ENET_RS_SHIPPED_LIBRARY=1 \
    RUSTFLAGS="-Z unstable-options -C symbol-mangling-version=legacy" \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
    CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
    /usr/bin/cargo build --release --locked -p enet-rs \
    --target "$target" --target-dir "$target_dir"

built="$target_dir/$target/release/libenet.so"
mkdir -p "$dir"
# A copy, not a symlink: the matrix checks which file is mapped by its real
# path, and a copy keeps DIR valid while target/ is rebuilt.
cp -f "$built" "$dir/libenet.so.7.tmp"
mv -f "$dir/libenet.so.7.tmp" "$dir/libenet.so.7"

# Programs built against stock ENet record libenet.so.7; the loader finds
# ours only if that is our SONAME. And it must really be an arm64 object.
headers=$(aarch64-linux-gnu-readelf -h -d "$dir/libenet.so.7")
grep -q 'Machine:.*AArch64' <<<"$headers" \
    || { echo "build-arm64.sh: $dir/libenet.so.7 is not an AArch64 object" >&2; exit 1; }
grep -q 'Library soname: \[libenet.so.7\]' <<<"$headers" \
    || { echo "build-arm64.sh: $dir/libenet.so.7 lacks SONAME libenet.so.7" >&2; exit 1; }
echo "== staged (AArch64, SONAME libenet.so.7): $(cd "$dir" && pwd)/libenet.so.7"
