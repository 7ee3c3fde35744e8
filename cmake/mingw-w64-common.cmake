# The part of the mingw-w64 toolchain files (toolchain-mingw-w64-*.cmake)
# that is the same for every Windows architecture: they set
# CMAKE_SYSTEM_PROCESSOR and ENET_MINGW_PREFIX (Debian's name for the
# compilers, x86_64-w64-mingw32 or i686-w64-mingw32), then include this.
set(CMAKE_SYSTEM_NAME Windows)

set(CMAKE_C_COMPILER ${ENET_MINGW_PREFIX}-gcc)
set(CMAKE_CXX_COMPILER ${ENET_MINGW_PREFIX}-g++)
set(CMAKE_RC_COMPILER ${ENET_MINGW_PREFIX}-windres)

# Libraries and headers come from the mingw-w64 sysroot, never from the
# Linux host's /usr; programs (cargo, bash, llvm-dlltool) from the host.
# Packages are also looked for outside the sysroot, so that
# find_package(enet) finds an SDK named by CMAKE_PREFIX_PATH (ONLY would
# look for it under the sysroot); the enet package's version file refuses
# a build for any other system or pointer width.
set(CMAKE_FIND_ROOT_PATH /usr/${ENET_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# Test programs built in a CMake project run under wine.
set(CMAKE_CROSSCOMPILING_EMULATOR wine)
