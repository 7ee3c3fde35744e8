# The Windows targets enet.dll is built and tested for (source this file;
# the Windows package and test scripts; `cargo xtask build-windows` reads it
# through bash, tools/xtask/src/targets.rs).
#
#   windows_target TARGET   sets, for Rust's TARGET name:
#     WT_MINGW        Debian's mingw-w64 prefix: $WT_MINGW-gcc, -objdump, ...
#     WT_BITS         64 or 32 (what the SDK's files and messages say)
#     WT_POINTER      the pointer size, 8 or 4 (CMake's CMAKE_SIZEOF_VOID_P)
#     WT_FLAVOUR      the SDK zip's architecture word: x86_64 or x86
#     WT_MACHINE      llvm-dlltool's -m machine
#     WT_MSVC_TARGET  clang's target for an MSVC-style program
#     WT_C_PREFIX     what the target puts before a C function's name in its
#                     symbols: nothing on 64-bit, `_` on 32-bit Windows
#     WT_SUFFIX       added to the names of the target's build and test
#                     directories and step labels (x86_64's keep the names
#                     they had before 32-bit Windows): "" or -i686
#     WT_TOOLCHAIN    the CMake toolchain file, relative to the repository
#   Returns 1 (with a message) for a target the table lacks.

windows_target() {
    case "$1" in
        x86_64-pc-windows-gnu)
            WT_MINGW=x86_64-w64-mingw32 WT_BITS=64 WT_POINTER=8 WT_FLAVOUR=x86_64
            WT_MACHINE=i386:x86-64 WT_MSVC_TARGET=x86_64-pc-windows-msvc
            WT_C_PREFIX="" WT_SUFFIX=""
            WT_TOOLCHAIN=cmake/toolchain-mingw-w64-x86_64.cmake ;;
        i686-pc-windows-gnu)
            WT_MINGW=i686-w64-mingw32 WT_BITS=32 WT_POINTER=4 WT_FLAVOUR=x86
            WT_MACHINE=i386 WT_MSVC_TARGET=i686-pc-windows-msvc
            WT_C_PREFIX=_ WT_SUFFIX=-i686
            WT_TOOLCHAIN=cmake/toolchain-mingw-w64-i686.cmake ;;
        *)
            echo "no such Windows target here: $1 (x86_64-pc-windows-gnu, i686-pc-windows-gnu)" >&2
            return 1 ;;
    esac
}
