/* Host and peer calls with inputs stock ENet 1.3.17 crashes on or fails:
 * NULL arguments, a foreign peer pointer, a channel the peer lacks in the
 * internal queue export, and an oversized datagram (stock's
 * enet_host_service returns -1 for it). Runs on ours only. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

#include "hardening.h"

int main(void)
{
    ENetAddress address;
    ENetHost *host;
    ENetEvent event;
    ENetPacket *packet;
    ENetPeer fake;
    ENetProtocol command;
    ENetSocket raw;
    ENetBuffer buffer;
    static char big[5000];
    int round, result = 0;

    CHECK(enet_initialize() == 0);
    CHECK(enet_host_create(NULL, 4096, 1, 0, 0) == NULL);
    CHECK(enet_host_service(NULL, &event, 0) == -1);
    CHECK(enet_host_check_events(NULL, &event) == -1);
    CHECK(enet_host_connect(NULL, &address, 1, 0) == NULL);
    enet_host_destroy(NULL);
    enet_host_flush(NULL);
    enet_host_broadcast(NULL, 0, NULL);
    enet_host_compress(NULL, NULL);
    CHECK(enet_host_compress_with_range_coder(NULL) == -1);
    enet_host_channel_limit(NULL, 1);
    enet_host_bandwidth_limit(NULL, 1, 1);
    enet_host_bandwidth_throttle(NULL);

    packet = enet_packet_create("x", 1, 0);
    CHECK(enet_peer_send(NULL, 0, packet) == -1);
    CHECK(enet_peer_receive(NULL, NULL) == NULL);
    enet_peer_ping(NULL);
    enet_peer_reset(NULL);
    enet_peer_disconnect(NULL, 0);
    enet_peer_disconnect_now(NULL, 0);
    enet_peer_disconnect_later(NULL, 0);
    enet_peer_timeout(NULL, 0, 0, 0);
    enet_peer_ping_interval(NULL, 0);
    enet_peer_throttle_configure(NULL, 0, 0, 0);
    CHECK(enet_peer_throttle(NULL, 10) == 0);
    enet_peer_reset_queues(NULL);

    /* A peer that belongs to no host is refused, not followed. */
    memset(&fake, 0, sizeof fake);
    CHECK(enet_peer_send(&fake, 0, packet) == -1);
    CHECK(enet_peer_receive(&fake, NULL) == NULL);
    enet_peer_reset(&fake);

    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    host = enet_host_create(&address, 2, 1, 0, 0);
    CHECK(host != NULL);
    CHECK(enet_host_check_events(host, NULL) == -1);
    CHECK(enet_host_connect(host, NULL, 1, 0) == NULL);
    enet_host_broadcast(host, 0, NULL);

    /* Peer 0 of a host, before any connection: sends are refused. */
    CHECK(enet_peer_send(&host->peers[0], 0, NULL) == -1);
    CHECK(enet_peer_send(&host->peers[0], 0, packet) == -1);
    enet_packet_destroy(packet);

    /* The internal incoming-queue export checks the channel (stock reads
     * past the channel array). */
    memset(&command, 0, sizeof command);
    command.header.command = ENET_PROTOCOL_COMMAND_SEND_RELIABLE;
    command.header.channelID = 9;
    CHECK(enet_peer_queue_incoming_command(&host->peers[0], &command, "x", 1, 0, 0) == NULL);

    /* A datagram larger than any ENet datagram is skipped. */
    raw = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    buffer.data = big;
    buffer.dataLength = sizeof big;
    CHECK(enet_socket_send(raw, &host->address, &buffer, 1) == (int) sizeof big);
    for (round = 0; round < 20 && result == 0; ++round)
        result = enet_host_service(host, &event, 5);
    CHECK(result == 0);
    enet_socket_destroy(raw);

    enet_host_destroy(host);
    enet_deinitialize();
    if (failures == 0)
        printf("hardening_host: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
