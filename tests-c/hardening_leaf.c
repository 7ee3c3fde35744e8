/* Inputs stock ENet 1.3.17 crashes on or reads out of bounds for; enet-rs
 * returns the function's failure value instead. Runs on ours only. */
#include <enet/enet.h>
#include <stdio.h>

#include "hardening.h"

int main(void)
{
    ENetPacket *packet;
    int command;

    CHECK(enet_initialize_with_callbacks(ENET_VERSION, NULL) == -1);
    CHECK(enet_packet_resize(NULL, 10) == -1);
    enet_packet_destroy(NULL);
    CHECK(enet_crc32(NULL, 3) == 0);
    CHECK(enet_list_size(NULL) == 0);
    enet_list_clear(NULL);
    CHECK(enet_list_insert(NULL, NULL) == NULL);
    CHECK(enet_list_remove(NULL) == NULL);
    CHECK(enet_list_move(NULL, NULL, NULL) == NULL);
    /* Stock reads past its 13-entry size table for 13..15. */
    for (command = 13; command < 16; ++command)
        CHECK(enet_protocol_command_size((enet_uint8) command) == 0);
    CHECK(enet_protocol_command_size(0xFF) == 0);

    /* A zero-length packet grown from NULL data. */
    packet = enet_packet_create(NULL, 0, 0);
    CHECK(packet != NULL && packet->data == NULL);
    CHECK(enet_packet_resize(packet, 16) == 0 && packet->data != NULL && packet->dataLength == 16);
    enet_packet_destroy(packet);

    if (failures == 0)
        printf("hardening_leaf: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
