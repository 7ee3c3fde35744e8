/*
 * ext_send_limit.c: back-pressure from C (enet_rs_peer_set_send_limit).
 * A server sends to a client that is not serviced, so nothing is
 * acknowledged: enet_peer_send is taken until the backlog reaches the
 * limit, then returns -1 and leaves the packet the caller's (reference
 * count 0, not freed: the caller destroys it, and valgrind checks that
 * nothing leaks or is freed twice). enet_host_broadcast passes over the
 * full peer only, and destroys a packet no peer took. Once the client is
 * serviced again its acknowledgements drain the backlog and sends are
 * taken again. A reset takes the limit away; a free slot takes none.
 * Three hosts talk over 127.0.0.1.
 */
#include <string.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

#define MESSAGE_SIZE 1000
#define LIMIT 4096

static ENetHost *server, *slow_client, *other_client;
static ENetPeer *to_slow, *to_other;
static int slow_received, other_received, freed;

static void count_free(ENetPacket *packet)
{
    (void) packet;
    ++freed;
}

static ENetPacket *message(size_t size)
{
    unsigned char bytes[MESSAGE_SIZE];
    ENetPacket *packet;
    memset(bytes, 0x5a, sizeof bytes);
    packet = enet_packet_create(bytes, size, ENET_PACKET_FLAG_RELIABLE);
    CHECK(packet != NULL);
    if (packet)
        packet->freeCallback = count_free;
    return packet;
}

/* Services one host, waiting up to `wait` ms for the first event; counts
   what it receives in `*received` and notes a server's peers as they
   connect. */
static void drain(ENetHost *host, int *received, enet_uint32 wait)
{
    ENetEvent event;
    while (enet_host_service(host, &event, wait) > 0) {
        wait = 0;
        if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            ++*received;
            enet_packet_destroy(event.packet);
        } else if (event.type == ENET_EVENT_TYPE_CONNECT && host == server) {
            if (!to_slow)
                to_slow = event.peer;
            else
                to_other = event.peer;
        }
    }
}

/* Services the hosts (the slow client only if `with_slow`) until `done`
   says so or about 5 s pass. */
static int service_until(int with_slow, int (*done)(void))
{
    int round;
    int ignored = 0;
    for (round = 0; round < 5000; ++round) {
        if (with_slow)
            drain(slow_client, &slow_received, 0);
        drain(other_client, &other_received, 0);
        drain(server, &ignored, 1);
        if (done())
            return 1;
    }
    return 0;
}

static int slow_connected(void)
{
    return to_slow != NULL && slow_client->peers[0].state == ENET_PEER_STATE_CONNECTED;
}

static int both_connected(void)
{
    return to_slow != NULL && to_other != NULL && server->connectedPeers == 2
           && slow_client->peers[0].state == ENET_PEER_STATE_CONNECTED
           && other_client->peers[0].state == ENET_PEER_STATE_CONNECTED;
}

static int slow_drained(void)
{
    return enet_rs_peer_get_send_backlog(to_slow) == 0 && slow_received == 5;
}

static int other_received_two(void)
{
    return other_received == 2;
}

int main(void)
{
    ENetAddress address;
    ENetPacket *packet, *refused;
    int taken;

    CHECK(enet_initialize() == 0);

    /* NULL is refused. */
    CHECK(enet_rs_peer_set_send_limit(NULL, 10) == -1);
    CHECK(enet_rs_peer_get_send_limit(NULL) == 0);
    CHECK(enet_rs_peer_get_send_backlog(NULL) == 0);

    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 3, 1, 0, 0);
    CHECK(server != NULL);
    address.port = server->address.port;
    slow_client = enet_host_create(NULL, 1, 1, 0, 0);
    other_client = enet_host_create(NULL, 1, 1, 0, 0);
    CHECK(slow_client != NULL && other_client != NULL);
    CHECK(enet_host_connect(slow_client, &address, 1, 0) != NULL);
    CHECK(service_until(1, slow_connected));
    CHECK(enet_host_connect(other_client, &address, 1, 0) != NULL);
    CHECK(service_until(1, both_connected));
    if (!both_connected()) {
        printf("FAILED: no connection\n");
        return 1;
    }

    /* A free slot takes no limit: its next connection is another peer. */
    CHECK(server->peers[2].state == ENET_PEER_STATE_DISCONNECTED);
    CHECK(enet_rs_peer_set_send_limit(&server->peers[2], 10) == -1);

    CHECK(enet_rs_peer_get_send_limit(to_slow) == 0);
    CHECK(enet_rs_peer_set_send_limit(to_slow, LIMIT) == 0);
    CHECK(enet_rs_peer_get_send_limit(to_slow) == LIMIT);
    CHECK(enet_rs_peer_get_send_limit(to_other) == 0);

    /* The slow client is not serviced from here on: nothing the server
       sends it is acknowledged. The limit is checked before queueing:
       0, 1000, ..., 4000 bytes are under it, so five packets are taken. */
    taken = 0;
    for (;;) {
        packet = message(MESSAGE_SIZE);
        if (enet_peer_send(to_slow, 0, packet) != 0)
            break;
        ++taken;
        if (taken > 5)
            break;
    }
    refused = packet;
    CHECK(taken == 5);
    CHECK(enet_rs_peer_get_send_backlog(to_slow) == 5 * MESSAGE_SIZE);
    /* The refused packet is the caller's, as after stock's own refusals. */
    CHECK(refused->referenceCount == 0);
    CHECK(freed == 0);

    /* Sent and not acknowledged: still counted, still refused. */
    enet_host_flush(server);
    CHECK(to_slow->reliableDataInTransit == 5 * MESSAGE_SIZE);
    CHECK(enet_rs_peer_get_send_backlog(to_slow) == 5 * MESSAGE_SIZE);
    CHECK(enet_peer_send(to_slow, 0, refused) == -1);
    CHECK(refused->referenceCount == 0 && freed == 0);
    enet_packet_destroy(refused);
    CHECK(freed == 1);

    /* A broadcast passes over the full peer and reaches the other. */
    packet = message(10);
    enet_host_broadcast(server, 0, packet);
    CHECK(freed == 1 && packet->referenceCount == 1);
    CHECK(enet_rs_peer_get_send_backlog(to_slow) == 5 * MESSAGE_SIZE);
    CHECK(enet_rs_peer_get_send_backlog(to_other) == 10);
    /* Every peer full: no peer takes it, and it is destroyed at once, as
       after stock's broadcast to no peer. */
    CHECK(enet_rs_peer_set_send_limit(to_other, 1) == 0);
    enet_host_broadcast(server, 0, message(10));
    CHECK(freed == 2);
    CHECK(enet_rs_peer_set_send_limit(to_other, 0) == 0);
    CHECK(enet_rs_peer_get_send_limit(to_other) == 0);
    packet = message(10);
    CHECK(enet_peer_send(to_other, 0, packet) == 0);
    CHECK(service_until(0, other_received_two));

    /* The slow client answers again: acknowledgements drain the backlog,
       and the server sends to it again. */
    CHECK(service_until(1, slow_drained));
    CHECK(to_slow->state == ENET_PEER_STATE_CONNECTED);
    packet = message(MESSAGE_SIZE);
    CHECK(enet_peer_send(to_slow, 0, packet) == 0);
    CHECK(enet_rs_peer_get_send_backlog(to_slow) == MESSAGE_SIZE);

    /* A reset ends the connection and its limit. */
    enet_peer_reset(to_slow);
    CHECK(enet_rs_peer_get_send_limit(to_slow) == 0);
    CHECK(enet_rs_peer_get_send_backlog(to_slow) == 0);
    CHECK(enet_rs_peer_set_send_limit(to_slow, LIMIT) == -1);

    enet_host_destroy(slow_client);
    enet_host_destroy(other_client);
    enet_host_destroy(server);
    enet_deinitialize();
    if (failures)
        printf("%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
