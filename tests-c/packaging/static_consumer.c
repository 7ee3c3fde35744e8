/*
 * Built by tests-c/packaging/test-deb.sh against the installed -dev
 * package: statically (libenet.a, pkg-config --static) and dynamically
 * (whose dpkg-shlibdeps dependencies must then name our package, since it
 * calls an extension). Creates a host on 127.0.0.1, so the engine, the
 * socket layer and the allocator all link; exits 0 when it works.
 */
#include <enet/enet.h>
#include <enet/enet_rs.h>
#include <stdio.h>

int main(void)
{
    if (enet_initialize() != 0)
        return 1;
    ENetAddress address;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    ENetHost *host = enet_host_create(&address, 2, 1, 0, 0);
    if (host == NULL) {
        fprintf(stderr, "enet_host_create failed\n");
        return 1;
    }
    ENetEvent event;
    int serviced = enet_host_service(host, &event, 0);
    ENetVersion version = enet_linked_version();
    printf("ENet %u.%u.%u, extensions 0x%x, a host on 127.0.0.1:%u serviced (%d)\n",
           ENET_VERSION_GET_MAJOR(version), ENET_VERSION_GET_MINOR(version),
           ENET_VERSION_GET_PATCH(version), (unsigned) enet_rs_version(), host->address.port,
           serviced);
    enet_host_destroy(host);
    enet_deinitialize();
    return serviced == 0 && version == ENET_VERSION ? 0 : 1;
}
