/* What find_package(enet)'s enet::enet gives a program: the SDK's headers
 * (ENET_VERSION 1.3.17), ENET_DLL defined (so the calls are dllimport),
 * WinSock linked for the byte-order macros, and an enet.dll that says it
 * is 1.3.17 and works (a host on 127.0.0.1). Exit status 0 only if all
 * hold. */
#include <enet/enet.h>
#include <stdio.h>

#ifndef ENET_DLL
#error "enet::enet must define ENET_DLL"
#endif

int main(void)
{
    ENetAddress address;
    ENetHost *host;
    int failures = 0;

    if (ENET_VERSION != ENET_VERSION_CREATE(1, 3, 17)) {
        fprintf(stderr, "probe: headers are version %x\n", (unsigned) ENET_VERSION);
        return 1;
    }
    if (enet_initialize() != 0) {
        fprintf(stderr, "probe: enet_initialize failed\n");
        return 1;
    }
    if (enet_linked_version() != ENET_VERSION) {
        fprintf(stderr, "probe: enet.dll is version %x\n", (unsigned) enet_linked_version());
        ++failures;
    }
    /* htons, through ws2_32, which the target links. */
    if (ENET_HOST_TO_NET_16(0x1234) != 0x3412) {
        fprintf(stderr, "probe: ENET_HOST_TO_NET_16 is wrong\n");
        ++failures;
    }
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    host = enet_host_create(&address, 1, 1, 0, 0);
    if (host == NULL || host->address.port == 0) {
        fprintf(stderr, "probe: no host on 127.0.0.1\n");
        ++failures;
    }
    if (host != NULL)
        enet_host_destroy(host);
    enet_deinitialize();
    if (failures == 0)
        printf("probe: enet.dll %u.%u.%u, ENET_DLL, WinSock\n",
               ENET_VERSION_GET_MAJOR(enet_linked_version()),
               ENET_VERSION_GET_MINOR(enet_linked_version()),
               ENET_VERSION_GET_PATCH(enet_linked_version()));
    return failures == 0 ? 0 : 1;
}
