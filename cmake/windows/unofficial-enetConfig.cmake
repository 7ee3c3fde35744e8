# find_package(unofficial-enet), vcpkg's package name for ENet: the same
# targets as find_package(enet) (unofficial::enet::enet and enet::enet).
include("${CMAKE_CURRENT_LIST_DIR}/../enet/enetConfig.cmake")
set(unofficial-enet_FOUND "${enet_FOUND}")
if(DEFINED enet_NOT_FOUND_MESSAGE)
  set(unofficial-enet_NOT_FOUND_MESSAGE "${enet_NOT_FOUND_MESSAGE}")
endif()
