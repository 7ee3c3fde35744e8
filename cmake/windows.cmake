# The Windows build, included by CMakeLists.txt when the target system is
# Windows (cross-compiling from Linux with
# -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw-w64-x86_64.cmake, or
# toolchain-mingw-w64-i686.cmake for 32-bit Windows, or on Windows with
# MinGW): Cargo builds enet.dll (x86_64-pc-windows-gnu, or
# i686-pc-windows-gnu for a 32-bit toolchain), and
# scripts/lib/windows-sdk.sh stages the Windows SDK tree from it, the very
# tree scripts/package-windows.sh zips, which `cmake --install` then
# installs as is:
#   bin/enet.dll, lib/enet.lib, lib/libenet.dll.a, include/enet/*.h,
#   lib/cmake/enet/ (enet::enet, unofficial::enet::enet),
#   lib/cmake/unofficial-enet/, lib/pkgconfig/libenet.pc,
#   LICENSE.txt, README.txt, THIRD-PARTY-NOTICES.txt
# (docs/packaging.md, "The Windows SDK zip"). The staging needs bash and
# LLVM's llvm-dlltool and llvm-nm besides the mingw-w64 binutils; on a
# Linux host, scripts/setup-debian.sh installs them.

if(CMAKE_SIZEOF_VOID_P EQUAL 8)
  set(ENET_WINDOWS_RUST_TARGET x86_64-pc-windows-gnu)
  set(ENET_WINDOWS_XTASK_TARGET)
elseif(CMAKE_SIZEOF_VOID_P EQUAL 4)
  set(ENET_WINDOWS_RUST_TARGET i686-pc-windows-gnu)
  set(ENET_WINDOWS_XTASK_TARGET --target i686-pc-windows-gnu)
else()
  message(FATAL_ERROR "enet-rs: Windows builds are 64-bit (x86_64) or 32-bit (x86); "
                      "use cmake/toolchain-mingw-w64-x86_64.cmake or cmake/toolchain-mingw-w64-i686.cmake")
endif()
# The SDK is the default (1.3.17) identity's: Cargo's default features and
# include/enet.
if(DEFINED ENET_RS_IDENTITY AND NOT ENET_RS_IDENTITY STREQUAL "1.3.17")
  message(FATAL_ERROR "enet-rs: the Windows build makes the 1.3.17 identity only "
                      "(ENET_RS_IDENTITY is ${ENET_RS_IDENTITY})")
endif()
# The C test suite runs against the Linux library and stock ENet on Linux;
# the Windows tests are scripts/test-windows.sh and tests-c/windows/sdk.
if(ENET_RS_BUILD_TESTS)
  message(STATUS "enet-rs: the C test suite (tests-c) builds for Linux only; "
                 "ENET_RS_BUILD_TESTS is set OFF for Windows (Windows tests: scripts/test-windows.sh)")
  set(ENET_RS_BUILD_TESTS OFF CACHE BOOL "Build the C test suite and register it with CTest" FORCE)
endif()

# The directory `cargo xtask build-windows` builds in, so that step, this
# build and the Windows tests share one build of enet.dll.
set(ENET_WINDOWS_TARGET_DIR "${CMAKE_SOURCE_DIR}/target/windows")
set(ENET_WINDOWS_DLL_DIR "${ENET_WINDOWS_TARGET_DIR}/${ENET_WINDOWS_RUST_TARGET}/release")
set(ENET_WINDOWS_DLL "${ENET_WINDOWS_DLL_DIR}/enet.dll")
set(ENET_WINDOWS_MINGW_IMPLIB "${ENET_WINDOWS_DLL_DIR}/libenet.dll.a")
set(ENET_WINDOWS_SDK_DIR "${CMAKE_BINARY_DIR}/sdk")
set(ENET_WINDOWS_DEBUG_FILE "${CMAKE_BINARY_DIR}/debug/enet.dll.debug")

find_program(ENET_BASH bash)
find_program(ENET_DLLTOOL NAMES llvm-dlltool llvm-dlltool-19 llvm-dlltool-16 llvm-dlltool-15 llvm-dlltool-14)
find_program(ENET_LLVM_NM NAMES llvm-nm llvm-nm-19 llvm-nm-16 llvm-nm-15 llvm-nm-14)
foreach(tool ENET_BASH ENET_DLLTOOL ENET_LLVM_NM CMAKE_OBJCOPY CMAKE_OBJDUMP CMAKE_STRIP)
  if(NOT ${tool})
    message(FATAL_ERROR "enet-rs: the Windows build needs ${tool} (bash, llvm-dlltool and llvm-nm from LLVM, "
                        "objcopy, objdump and strip from mingw-w64's binutils); see docs/platforms.md, \"Windows\"")
  endif()
endforeach()

if(CMAKE_HOST_WIN32)
  # On Windows, rustup's toolchain has the target's std. The DLL alone
  # (`cargo rustc --crate-type cdylib`), so that the release profile's LTO
  # runs (docs/packaging.md, "Windows: enet.dll").
  set(ENET_WINDOWS_CARGO_COMMAND ${CMAKE_COMMAND} -E env ENET_RS_SHIPPED_LIBRARY=1
      "${CARGO}" rustc --release --locked -p enet-rs --lib --crate-type cdylib
      --target ${ENET_WINDOWS_RUST_TARGET}
      --manifest-path "${CMAKE_SOURCE_DIR}/Cargo.toml" --target-dir "${ENET_WINDOWS_TARGET_DIR}")
else()
  # Cross-building: Debian's Rust with -Zbuild-std, as the step explains
  # (tools/xtask/src/build_windows.rs).
  set(ENET_WINDOWS_CARGO_COMMAND "${CARGO}" xtask build-windows ${ENET_WINDOWS_XTASK_TARGET})
endif()

file(GLOB_RECURSE ENET_RUST_SOURCES CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/src/*.rs"
     "${CMAKE_SOURCE_DIR}/crates/netsim/src/*.rs")
# Cargo decides what to rebuild; this command only runs when a source is
# newer than enet.dll, so an up-to-date DLL costs nothing.
add_custom_command(
  OUTPUT "${ENET_WINDOWS_DLL}" "${ENET_WINDOWS_MINGW_IMPLIB}"
  COMMAND ${ENET_WINDOWS_CARGO_COMMAND}
  DEPENDS ${ENET_RUST_SOURCES} "${CMAKE_SOURCE_DIR}/Cargo.toml"
          "${CMAKE_SOURCE_DIR}/Cargo.lock" "${CMAKE_SOURCE_DIR}/build.rs"
  WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}"
  COMMENT "cargo rustc --release --crate-type cdylib --target ${ENET_WINDOWS_RUST_TARGET} (enet.dll, libenet.dll.a)"
  USES_TERMINAL)

file(GLOB ENET_HEADERS CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/include/enet/*.h")
file(GLOB ENET_WINDOWS_SDK_TEMPLATES CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/cmake/windows/*")
add_custom_command(
  OUTPUT "${ENET_WINDOWS_SDK_DIR}/bin/enet.dll" "${ENET_WINDOWS_SDK_DIR}/lib/enet.lib"
         "${ENET_WINDOWS_SDK_DIR}/lib/libenet.dll.a" "${ENET_WINDOWS_DEBUG_FILE}"
  COMMAND ${CMAKE_COMMAND} -E env "OBJCOPY=${CMAKE_OBJCOPY}" "STRIP=${CMAKE_STRIP}"
          "OBJDUMP=${CMAKE_OBJDUMP}" "DLLTOOL=${ENET_DLLTOOL}" "NM=${ENET_LLVM_NM}"
          "${ENET_BASH}" "${CMAKE_SOURCE_DIR}/scripts/lib/windows-sdk.sh"
          "${ENET_WINDOWS_DLL_DIR}" "${ENET_WINDOWS_SDK_DIR}" "${ENET_WINDOWS_DEBUG_FILE}"
          ${ENET_WINDOWS_RUST_TARGET}
  DEPENDS "${ENET_WINDOWS_DLL}" "${ENET_WINDOWS_MINGW_IMPLIB}" ${ENET_HEADERS}
          ${ENET_WINDOWS_SDK_TEMPLATES} "${CMAKE_SOURCE_DIR}/scripts/lib/windows-sdk.sh"
          "${CMAKE_SOURCE_DIR}/Cargo.toml"
  COMMENT "Staging the Windows SDK tree (stripped enet.dll, enet.lib, libenet.dll.a, headers, CMake and pkg-config files)")
add_custom_target(enet_build ALL DEPENDS "${ENET_WINDOWS_SDK_DIR}/bin/enet.dll")

# The library as a target other CMake code in this build can link to, with
# the import library of its linker (as lib/cmake/enet/enetConfig.cmake).
if(MINGW)
  set(ENET_WINDOWS_IMPLIB "${ENET_WINDOWS_SDK_DIR}/lib/libenet.dll.a")
else()
  set(ENET_WINDOWS_IMPLIB "${ENET_WINDOWS_SDK_DIR}/lib/enet.lib")
endif()
add_library(enet SHARED IMPORTED GLOBAL)
set_target_properties(enet PROPERTIES
  IMPORTED_LOCATION "${ENET_WINDOWS_SDK_DIR}/bin/enet.dll"
  IMPORTED_IMPLIB "${ENET_WINDOWS_IMPLIB}"
  INTERFACE_INCLUDE_DIRECTORIES "${CMAKE_SOURCE_DIR}/include"
  INTERFACE_COMPILE_DEFINITIONS ENET_DLL
  INTERFACE_LINK_LIBRARIES ws2_32)
add_dependencies(enet enet_build)

# --- install (Windows) -------------------------------------------------------
# The staged tree, laid out as the zip. Its find_package and pkg-config
# files locate everything relative to themselves, so the tree is installed
# under the prefix as it is, not spread over GNUInstallDirs' directories.
# Components as on Linux: Runtime (what a game ships), Development.
install(FILES "${ENET_WINDOWS_SDK_DIR}/bin/enet.dll" DESTINATION bin COMPONENT Runtime)
install(FILES "${ENET_WINDOWS_SDK_DIR}/LICENSE.txt" "${ENET_WINDOWS_SDK_DIR}/README.txt"
              "${ENET_WINDOWS_SDK_DIR}/THIRD-PARTY-NOTICES.txt"
        DESTINATION . COMPONENT Runtime)
install(DIRECTORY "${ENET_WINDOWS_SDK_DIR}/include" "${ENET_WINDOWS_SDK_DIR}/lib"
        DESTINATION . COMPONENT Development)
