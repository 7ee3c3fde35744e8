/* A program written against ENet 1.3.18's API on our library: the
 * ENET_SOCKOPT_TTL socket option (set and read back), enet_host_random
 * (the host's generator: no repeats in a long run), and
 * enet_peer_has_outgoing_commands on an idle peer, after a reliable send,
 * and after its acknowledgement. Exits non-zero on any failed check. */
#include <string.h>

#include <enet/enet.h>

#include "hardening.h"

#define DRAWS 100000

static int compare_u32(const void *a, const void *b)
{
    enet_uint32 x = *(const enet_uint32 *) a, y = *(const enet_uint32 *) b;
    return (x > y) - (x < y);
}

/* Services both hosts, 1 ms a round, until `wanted` events of `type` came
 * or `rounds` rounds passed; how many came (received packets are
 * destroyed). */
static int pump(ENetHost *a, ENetHost *b, int rounds, ENetEventType type, int wanted)
{
    ENetEvent event;
    int seen = 0, round;
    for (round = 0; round < rounds && seen < wanted; ++round) {
        while (enet_host_service(a, &event, 1) > 0) {
            seen += event.type == type;
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        }
        while (enet_host_service(b, &event, 0) > 0) {
            seen += event.type == type;
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
        }
    }
    return seen;
}

int main(void)
{
    static enet_uint32 draws[DRAWS];
    ENetAddress address;
    ENetHost *server, *client;
    ENetPeer *peer;
    ENetSocket socket;
    int value = 0, repeats = 0, i, round;

    CHECK(enet_initialize() == 0);

    /* ENET_SOCKOPT_TTL: set and read back on a socket of its own and on a
       host's socket. */
    socket = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    CHECK(socket != ENET_SOCKET_NULL);
    CHECK(enet_socket_set_option(socket, ENET_SOCKOPT_TTL, 33) == 0);
    CHECK(enet_socket_get_option(socket, ENET_SOCKOPT_TTL, &value) == 0 && value == 33);
    CHECK(enet_socket_set_option(socket, ENET_SOCKOPT_TTL, 1) == 0);
    CHECK(enet_socket_get_option(socket, ENET_SOCKOPT_TTL, &value) == 0 && value == 1);
    enet_socket_destroy(socket);

    memset(&address, 0, sizeof address);
    CHECK(enet_address_set_host_ip(&address, "127.0.0.1") == 0);
    server = enet_host_create(&address, 4, 2, 0, 0);
    client = enet_host_create(NULL, 1, 2, 0, 0);
    CHECK(server != NULL && client != NULL);
    if (server == NULL || client == NULL)
        return 1;
    CHECK(enet_socket_set_option(server->socket, ENET_SOCKOPT_TTL, 64) == 0);
    CHECK(enet_socket_get_option(server->socket, ENET_SOCKOPT_TTL, &value) == 0 && value == 64);

    /* enet_host_random: a long run without a repeat, and not a constant. */
    for (i = 0; i < DRAWS; ++i)
        draws[i] = enet_host_random(client);
    qsort(draws, DRAWS, sizeof draws[0], compare_u32);
    for (i = 1; i < DRAWS; ++i)
        repeats += draws[i] == draws[i - 1];
    CHECK(repeats == 0);
    CHECK(draws[0] != draws[DRAWS - 1]);
    CHECK(enet_host_random(NULL) == 0);

    /* enet_peer_has_outgoing_commands over a connection's life. */
    CHECK(enet_peer_has_outgoing_commands(NULL) == 0);
    address.port = server->address.port;
    peer = enet_host_connect(client, &address, 2, 0);
    CHECK(peer != NULL);
    if (peer == NULL)
        return 1;
    CHECK(enet_peer_has_outgoing_commands(peer) == 1); /* the CONNECT */
    CHECK(pump(server, client, 2000, ENET_EVENT_TYPE_CONNECT, 2) == 2);
    /* Idle: everything sent has been acknowledged. */
    for (round = 0; round < 2000 && enet_peer_has_outgoing_commands(peer); ++round)
        pump(server, client, 1, ENET_EVENT_TYPE_NONE, 1);
    CHECK(peer->state == ENET_PEER_STATE_CONNECTED);
    CHECK(enet_peer_has_outgoing_commands(peer) == 0);

    CHECK(enet_peer_send(peer, 0, enet_packet_create("hello", 6, ENET_PACKET_FLAG_RELIABLE)) == 0);
    CHECK(enet_peer_has_outgoing_commands(peer) == 1); /* queued */
    enet_host_flush(client);
    CHECK(enet_peer_has_outgoing_commands(peer) == 1); /* sent, not acknowledged */
    CHECK(pump(server, client, 2000, ENET_EVENT_TYPE_RECEIVE, 1) == 1);
    for (round = 0; round < 2000 && enet_peer_has_outgoing_commands(peer); ++round)
        pump(server, client, 1, ENET_EVENT_TYPE_NONE, 1);
    CHECK(enet_peer_has_outgoing_commands(peer) == 0); /* acknowledged */

    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    if (failures)
        printf("%d checks failed\n", failures);
    return failures != 0;
}
