#!/usr/bin/env bash
# Rust's start-up objects rsbegin.o and rsend.o for 32-bit MinGW
# (i686-pc-windows-gnu), which rustc links around every executable and DLL
# of that target: they register and deregister the image's DWARF unwind
# tables (.eh_frame) with libgcc. rustup ships them in the target's
# sysroot; Debian's Rust has no i686-pc-windows-gnu sysroot, and
# -Zbuild-std builds std but not these two. So they are compiled here from
# Debian's std sources (library/rtstartup), as Rust's own bootstrap does
# (rustc --target T --emit=obj, RUSTC_BOOTSTRAP for their #![no_core]),
# once per compiler, and cached under target/rtstartup/TARGET. rustc finds
# them through a `-L native=DIR` search path (the builds put the printed
# directory in CARGO_TARGET_<TRIPLE>_RUSTFLAGS).
# 64-bit MinGW links none: its unwinding is SEH, with tables the loader knows.
# usage: scripts/lib/rtstartup.sh TARGET   (prints the directory)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${1:?usage: rtstartup.sh TARGET}
rustc=${RUSTC:-/usr/bin/rustc}
src=/usr/lib/rustlib/src/rust/library/rtstartup
[ -f "$src/rsbegin.rs" ] || { echo "rtstartup.sh: missing $src (apt-get install rust-web-src)" >&2; exit 1; }
dir=$root/target/rtstartup/$target
mkdir -p "$dir"
# The compiler that made them: another rustc (an upgrade) makes them anew.
stamp=$("$rustc" -vV | tr '\n' ' ')
if [ "$(cat "$dir/stamp" 2>/dev/null)" != "$stamp" ] ||
   [ "$src/rsbegin.rs" -nt "$dir/rsbegin.o" ] || [ "$src/rsend.rs" -nt "$dir/rsend.o" ]; then
    rm -f "$dir/stamp"
    for object in rsbegin rsend; do
        RUSTC_BOOTSTRAP=1 "$rustc" --target "$target" --emit=obj \
            -o "$dir/$object.o" "$src/$object.rs"
    done
    echo "$stamp" >"$dir/stamp"
fi
echo "$dir"
