# find_package(enet) for enet-rs's Windows SDK (the zip of
# scripts/package-windows.sh, or a Windows build's `cmake --install`):
# the imported target enet::enet for enet.dll, also under vcpkg's name
# unofficial::enet::enet, and ENET_INCLUDE_DIRS / ENET_LIBRARIES for older
# CMake code. Every path is relative to this file, so the tree can be
# unpacked anywhere.
#
# The import library follows the linker: lib/libenet.dll.a for MinGW
# (gcc, or clang targeting *-windows-gnu), lib/enet.lib for MSVC and
# clang-cl; either one serves both linkers if the other is absent.
# ENET_DLL is defined for the program so that the headers declare the
# functions dllimport (calls go straight through the import table, as
# with stock's enet.dll).
get_filename_component(_enet_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(MINGW OR CYGWIN)
  set(_enet_implibs "${_enet_prefix}/lib/libenet.dll.a" "${_enet_prefix}/lib/enet.lib")
else()
  set(_enet_implibs "${_enet_prefix}/lib/enet.lib" "${_enet_prefix}/lib/libenet.dll.a")
endif()
set(_enet_implib "")
foreach(_enet_candidate IN LISTS _enet_implibs)
  if(NOT _enet_implib AND EXISTS "${_enet_candidate}")
    set(_enet_implib "${_enet_candidate}")
  endif()
endforeach()

set(_enet_missing "")
foreach(_enet_file "${_enet_prefix}/bin/enet.dll" "${_enet_prefix}/include/enet/enet.h")
  if(NOT EXISTS "${_enet_file}")
    list(APPEND _enet_missing "${_enet_file}")
  endif()
endforeach()
if(NOT _enet_implib)
  list(APPEND _enet_missing "${_enet_prefix}/lib/enet.lib (or libenet.dll.a)")
endif()
if(_enet_missing)
  set(enet_FOUND FALSE)
  set(enet_NOT_FOUND_MESSAGE "enet-rs's Windows SDK at ${_enet_prefix} lacks: ${_enet_missing}")
  return()
endif()

if(NOT TARGET enet::enet)
  add_library(enet::enet SHARED IMPORTED)
  set_target_properties(enet::enet PROPERTIES
    IMPORTED_LOCATION "${_enet_prefix}/bin/enet.dll"
    IMPORTED_IMPLIB "${_enet_implib}"
    INTERFACE_INCLUDE_DIRECTORIES "${_enet_prefix}/include"
    INTERFACE_COMPILE_DEFINITIONS "ENET_DLL"
    # enet/win32.h's byte-order macros call WinSock's htons and htonl.
    INTERFACE_LINK_LIBRARIES "ws2_32")
endif()
if(NOT TARGET unofficial::enet::enet)
  add_library(unofficial::enet::enet INTERFACE IMPORTED)
  set_target_properties(unofficial::enet::enet PROPERTIES INTERFACE_LINK_LIBRARIES enet::enet)
endif()

set(ENET_INCLUDE_DIRS "${_enet_prefix}/include")
set(ENET_LIBRARIES enet::enet)
set(ENET_DLL_PATH "${_enet_prefix}/bin/enet.dll")
set(enet_FOUND TRUE)
unset(_enet_prefix)
unset(_enet_implibs)
unset(_enet_implib)
unset(_enet_candidate)
unset(_enet_missing)
unset(_enet_file)
