# Cross-compiling for 32-bit Windows with Debian's mingw-w64
# (gcc-mingw-w64-i686, g++-mingw-w64-i686):
#   cmake -S . -B build-windows-i686 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw-w64-i686.cmake
# Used for enet-rs itself (cmake/windows.cmake) and for programs built
# against the Windows SDK zip (tests-c/windows/sdk).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86)

set(ENET_MINGW_PREFIX i686-w64-mingw32)
set(CMAKE_C_COMPILER ${ENET_MINGW_PREFIX}-gcc)
set(CMAKE_CXX_COMPILER ${ENET_MINGW_PREFIX}-g++)
set(CMAKE_RC_COMPILER ${ENET_MINGW_PREFIX}-windres)

# Libraries and headers come from the mingw-w64 sysroot, never from the
# Linux host's /usr; programs (cargo, bash, llvm-dlltool) from the host.
# Packages are also looked for outside the sysroot, so that
# find_package(enet) finds an SDK named by CMAKE_PREFIX_PATH (ONLY would
# look for it under the sysroot); the enet package's version file refuses
# a build for any other system.
set(CMAKE_FIND_ROOT_PATH /usr/${ENET_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# Test programs built in a CMake project run under wine.
set(CMAKE_CROSSCOMPILING_EMULATOR wine)
