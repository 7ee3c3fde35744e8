/* Links against an installed libenet and checks it is 1.3.17. */
#include <enet/enet.h>
#include <stdio.h>

int main(void)
{
    ENetVersion version = enet_linked_version();
    if (enet_initialize() != 0)
        return 1;
    printf("linked %u.%u.%u\n", ENET_VERSION_GET_MAJOR(version), ENET_VERSION_GET_MINOR(version),
           ENET_VERSION_GET_PATCH(version));
    enet_deinitialize();
    return version == ENET_VERSION ? 0 : 1;
}
