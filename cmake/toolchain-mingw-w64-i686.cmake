# Cross-compiling for 32-bit Windows with Debian's mingw-w64
# (gcc-mingw-w64-i686, g++-mingw-w64-i686):
#   cmake -S . -B build-windows-i686 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw-w64-i686.cmake
# Used for enet-rs itself (cmake/windows.cmake) and for programs built
# against the Windows SDK zip (tests-c/windows/sdk).
set(CMAKE_SYSTEM_PROCESSOR x86)
set(ENET_MINGW_PREFIX i686-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-w64-common.cmake)
