# find_package(unofficial-enet)'s version check: find_package(enet)'s.
include("${CMAKE_CURRENT_LIST_DIR}/../enet/enetConfigVersion.cmake")
