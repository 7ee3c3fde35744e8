# The Linux targets other than x86_64 that are cross-built and tested here
# (source this file; scripts/test-linux-target.sh; `cargo xtask build-linux-target`
# reads it through bash, tools/xtask/src/targets.rs).
#
#   linux_target TARGET   sets, for Rust's TARGET name:
#     LT_GNU        the GNU triple: its C compiler is $LT_GNU-gcc, its
#                   binutils $LT_GNU-readelf, $LT_GNU-ar, ...
#     LT_MACHINE    what readelf -h prints as the ELF machine
#     LT_LAUNCHER   the command that runs the target's programs here: empty
#                   (native: i686 runs as 32-bit processes on x86_64) or
#                   qemu-user with the target's C library as its root (-L)
#     LT_STD        "prebuilt" (Debian's std for the target, a package of
#                   its own: libstd-rust-web-dev:arm64) or "build-std"
#                   (compiled from Debian's sources: Debian's per-arch std
#                   packages for i386, armhf and s390x are 1.85, which
#                   rustc 1.96 cannot link)
#     LT_STOCK      Debian's stock libenet.so.7 for the target (the layout
#                   and wire oracle): the installed arm64 one, or the one
#                   scripts/setup-targets.sh unpacked in a private root
#     LT_DIR        the Cargo target directory (one per target, so no
#                   build invalidates another)
#     LT_OURS_ENV   environment our library runs with on this target under
#                   the tests (space-separated NAME=VALUE), or empty
#     LT_SETUP      the script that installs what the target needs
#   Returns 1 (with a message) for a target the table lacks.
#
# s390x: LT_OURS_ENV=ENET_RS_UDP_OFFLOAD=off. Under qemu-user (7.2 here),
# UDP offload breaks, by qemu's fault and not ours: qemu passes the
# UDP_SEGMENT control message's u16 segment size (and UDP_GRO's int) to the
# host kernel without converting the big-endian guest's byte order, so a
# segment size of 1400 (0x0578) arrives as 30725 (0x7805) and the kernel
# sends one oversized datagram or refuses it. The big-endian engine itself
# is tested (its unit tests, the range coder and CRC against x86_64's,
# the layout); the offload path is tested on x86_64 and under qemu-aarch64
# and qemu-arm (little-endian, where no swap is needed).

# shellcheck source=scripts/lib/foreign-debs.sh
. "$(dirname "${BASH_SOURCE[0]}")/foreign-debs.sh"

linux_target() {
    LT_OURS_ENV=""
    LT_SETUP=scripts/setup-targets.sh
    case "$1" in
        aarch64-unknown-linux-gnu)
            LT_GNU=aarch64-linux-gnu LT_MACHINE=AArch64 LT_STD=prebuilt
            # libc6:arm64 is installed beside amd64's (Debian's arm64 std
            # needs it), so qemu finds the arm64 loader without -L.
            LT_LAUNCHER=qemu-aarch64
            LT_STOCK=/usr/lib/aarch64-linux-gnu/libenet.so.7
            LT_DIR=target/cross LT_SETUP=scripts/setup-arm64.sh ;;
        i686-unknown-linux-gnu)
            LT_GNU=i686-linux-gnu LT_MACHINE="Intel 80386" LT_STD=build-std
            # libc6-i386 gives /lib/ld-linux.so.2 and /lib32.
            LT_LAUNCHER=""
            LT_STOCK="$(foreign_root i386)/usr/lib/i386-linux-gnu/libenet.so.7"
            LT_DIR=target/cross-i686-unknown-linux-gnu ;;
        armv7-unknown-linux-gnueabihf)
            LT_GNU=arm-linux-gnueabihf LT_MACHINE=ARM LT_STD=build-std
            LT_LAUNCHER="qemu-arm -L /usr/arm-linux-gnueabihf"
            LT_STOCK="$(foreign_root armhf)/usr/lib/arm-linux-gnueabihf/libenet.so.7"
            LT_DIR=target/cross-armv7-unknown-linux-gnueabihf ;;
        s390x-unknown-linux-gnu)
            LT_GNU=s390x-linux-gnu LT_MACHINE="IBM S/390" LT_STD=build-std
            LT_LAUNCHER="qemu-s390x -L /usr/s390x-linux-gnu"
            LT_STOCK="$(foreign_root s390x)/usr/lib/s390x-linux-gnu/libenet.so.7"
            LT_DIR=target/cross-s390x-unknown-linux-gnu
            LT_OURS_ENV="ENET_RS_UDP_OFFLOAD=off" ;;
        *)
            echo "no such Linux target here: $1 (aarch64-unknown-linux-gnu, i686-unknown-linux-gnu," \
                "armv7-unknown-linux-gnueabihf, s390x-unknown-linux-gnu)" >&2
            return 1 ;;
    esac
}

# linux_target_cargo_env TARGET: sets the array LT_CARGO_ENV to the
# NAME=VALUE words cargo needs to build for TARGET with Debian's Rust
# (after linux_target TARGET): the compiler, the linker, the C compiler and
# archiver (build.rs asks the C compiler for libgcc_eh.a and libc.so.6; ring
# compiles C), and the runner for `cargo test` (cargo splits it at spaces).
linux_target_cargo_env() {
    local upper under
    upper=$(echo "$1" | tr 'a-z-' 'A-Z_')
    under=${1//-/_}
    LT_CARGO_ENV=(RUSTC=/usr/bin/rustc
        "CARGO_TARGET_${upper}_LINKER=$LT_GNU-gcc"
        "CC_${under}=$LT_GNU-gcc" "AR_${under}=$LT_GNU-ar")
    [ -z "$LT_LAUNCHER" ] || LT_CARGO_ENV+=("CARGO_TARGET_${upper}_RUNNER=$LT_LAUNCHER")
    return 0
}
