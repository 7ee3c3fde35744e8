# Cross-compiling for 64-bit Windows with Debian's mingw-w64
# (gcc-mingw-w64-x86-64, g++-mingw-w64-x86-64):
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw-w64-x86_64.cmake
# Used for enet-rs itself (cmake/windows.cmake) and for programs built
# against the Windows SDK zip (tests-c/windows/sdk).
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(ENET_MINGW_PREFIX x86_64-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-w64-common.cmake)
