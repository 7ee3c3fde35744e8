/* Calls into a host from inside its own callbacks: an intercept, a
 * checksum callback and a packet's free callback, each run by
 * enet_host_service on that host.
 *
 * The calls stock allows there (enet_peer_send, enet_host_broadcast,
 * enet_peer_disconnect, enet_peer_reset, enet_packet_*) must take effect
 * as on stock: this program runs on stock too (`--stock`, built against
 * Debian's headers and library) and asserts the same outcomes there.
 *
 * The calls that cannot be sound while the library works on the host
 * (enet_host_service, enet_host_flush, enet_host_destroy, enet_host_connect
 * and the other host-wide ones) must get the failure value their
 * documentation gives, with no crash; stock has no such rule (some of
 * them recurse into the host), so they are made and asserted on ours
 * only. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

#include "hardening.h"

enum stage { IDLE, INTERCEPT, CHECKSUM, FREE, DISCONNECT };

static int on_stock;
static enum stage stage = IDLE;
static ENetHost *server, *client;
/* The host whose enet_host_service is running (only it runs callbacks). */
static ENetHost *servicing;
/* The server's peer for the client, and one connecting to no one. */
static ENetPeer *to_client, *dangling;
static int done[DISCONNECT + 1];
static int send_results[DISCONNECT + 1];

static ENetPacket *text_packet(const char *text)
{
    return enet_packet_create(text, strlen(text) + 1, ENET_PACKET_FLAG_RELIABLE);
}

/* The refused calls, made on the server from inside one of its callbacks:
 * each must fail in its documented way and leave the host as it was. */
static void refused_calls(const char *where)
{
    ENetEvent event;
    ENetAddress nowhere;
    ENetPacket *packet;
    int failed_before = failures;

    if (on_stock)
        return;
    nowhere.host = ENET_HOST_ANY;
    nowhere.port = 9;
    CHECK(enet_host_service(server, &event, 0) == -1);
    CHECK(enet_host_service(server, NULL, 0) == -1);
    CHECK(enet_host_check_events(server, &event) == -1);
    CHECK(enet_host_connect(server, &nowhere, 1, 0) == NULL);
    CHECK(enet_host_compress_with_range_coder(server) == -1);
    CHECK(enet_peer_receive(to_client, NULL) == NULL);
    CHECK(enet_peer_throttle(to_client, 10) == 0);
    enet_host_flush(server);
    enet_host_destroy(server); /* ignored: the host lives on */
    enet_host_compress(server, NULL);
    enet_host_channel_limit(server, 1);
    enet_host_bandwidth_limit(server, 1, 1);
    enet_host_bandwidth_throttle(server);
    enet_peer_ping(to_client);
    enet_peer_timeout(to_client, 1, 1, 1);
    enet_peer_ping_interval(to_client, 1);
    enet_peer_throttle_configure(to_client, 1, 1, 1);
    enet_peer_reset_queues(to_client);
    /* The packet calls touch no host: allowed everywhere. */
    packet = enet_packet_create("scratch", 8, 0);
    CHECK(packet != NULL);
    CHECK(enet_packet_resize(packet, 4) == 0);
    enet_packet_destroy(packet);
    printf("%s: refused calls %s\n", where, failures == failed_before ? "refused" : "NOT refused");
}

static int ENET_CALLBACK intercept(ENetHost *host, ENetEvent *event)
{
    (void) event;
    if (host != server)
        return 0;
    if (stage == INTERCEPT && !done[INTERCEPT]) {
        done[INTERCEPT] = 1;
        send_results[INTERCEPT] = enet_peer_send(to_client, 0, text_packet("from intercept"));
        enet_host_broadcast(server, 1, text_packet("broadcast from intercept"));
        refused_calls("intercept");
    } else if (stage == DISCONNECT && !done[DISCONNECT]) {
        done[DISCONNECT] = 1;
        enet_peer_disconnect(to_client, 42);
    }
    return 0; /* the datagram goes on to the protocol */
}

static enet_uint32 ENET_CALLBACK checksum(const ENetBuffer *buffers, size_t count)
{
    if (stage == CHECKSUM && servicing == server && !done[CHECKSUM]) {
        done[CHECKSUM] = 1;
        send_results[CHECKSUM] = enet_peer_send(to_client, 0, text_packet("from checksum"));
        refused_calls("checksum");
    }
    return enet_crc32(buffers, count);
}

static void ENET_CALLBACK freed(ENetPacket *packet)
{
    (void) packet;
    if (stage != FREE || done[FREE])
        return;
    done[FREE] = 1;
    CHECK(servicing == server);
    send_results[FREE] = enet_peer_send(to_client, 0, text_packet("from free callback"));
    enet_peer_reset(dangling);
    refused_calls("free callback");
}

/* Services both hosts until `until` holds or about two seconds pass;
 * returns what `until` last said. Receives are recorded by text. */
static char received[8][64];
static int received_count, client_disconnected, client_disconnect_data, server_disconnected;

static void note(ENetHost *host, ENetEvent *event)
{
    switch (event->type) {
    case ENET_EVENT_TYPE_RECEIVE:
        if (host == client && received_count < 8) {
            snprintf(received[received_count], sizeof received[0], "%s",
                     (const char *) event->packet->data);
            printf("client received on channel %u: %s\n", event->channelID,
                   received[received_count]);
            ++received_count;
        }
        enet_packet_destroy(event->packet);
        break;
    case ENET_EVENT_TYPE_DISCONNECT:
        if (host == client) {
            client_disconnected = 1;
            client_disconnect_data = (int) event->data;
        } else {
            server_disconnected = 1;
        }
        break;
    default:
        break;
    }
}

static int pump(int (*until)(void))
{
    ENetEvent event;
    int round;

    for (round = 0; round < 400 && !until(); ++round) {
        ENetHost *hosts[2];
        int which;
        hosts[0] = server;
        hosts[1] = client;
        for (which = 0; which < 2; ++which) {
            servicing = hosts[which];
            while (enet_host_service(hosts[which], &event, 2) > 0)
                note(hosts[which], &event);
            servicing = NULL;
        }
    }
    return until();
}

static int has_received(const char *text)
{
    int i;
    for (i = 0; i < received_count; ++i)
        if (strcmp(received[i], text) == 0)
            return 1;
    return 0;
}

static int intercept_answered(void)
{
    return has_received("from intercept") && has_received("broadcast from intercept");
}

static int checksum_answered(void)
{
    return has_received("from checksum");
}

static int free_answered(void)
{
    return has_received("tracked") && has_received("from free callback");
}

static int disconnected(void)
{
    return client_disconnected && server_disconnected;
}

static int connected(void)
{
    return to_client != NULL && to_client->state == ENET_PEER_STATE_CONNECTED
        && client->peers[0].state == ENET_PEER_STATE_CONNECTED;
}

int main(int argc, char **argv)
{
    ENetAddress address, unused;
    ENetEvent event;
    ENetPacket *tracked;
    ENetPeer *to_server;
    int round;

    on_stock = argc > 1 && strcmp(argv[1], "--stock") == 0;
    CHECK(enet_initialize() == 0);
    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 4, 2, 0, 0);
    client = enet_host_create(NULL, 1, 2, 0, 0);
    if (server == NULL || client == NULL) {
        printf("FAILED: no hosts\n");
        return 1;
    }
    CHECK(enet_socket_get_address(server->socket, &address) == 0);
    server->checksum = checksum;
    client->checksum = checksum;

    to_server = enet_host_connect(client, &address, 2, 0);
    CHECK(to_server != NULL);
    for (round = 0; round < 400 && to_client == NULL; ++round) {
        if (enet_host_service(server, &event, 2) > 0 && event.type == ENET_EVENT_TYPE_CONNECT)
            to_client = event.peer;
        enet_host_service(client, &event, 2);
    }
    CHECK(pump(connected));
    /* A peer that will never connect: the free callback resets it. */
    enet_address_set_host(&unused, "127.0.0.1");
    unused.port = 9;
    dangling = enet_host_connect(server, &unused, 1, 0);
    CHECK(dangling != NULL);

    /* Intercept: a send and a broadcast, answered to the client. */
    server->intercept = intercept;
    stage = INTERCEPT;
    enet_peer_send(to_server, 0, text_packet("ping 1"));
    CHECK(pump(intercept_answered));
    CHECK(send_results[INTERCEPT] == 0);
    server->intercept = NULL;

    /* Checksum callback: a send. */
    stage = CHECKSUM;
    enet_peer_send(to_server, 0, text_packet("ping 2"));
    CHECK(pump(checksum_answered));
    CHECK(send_results[CHECKSUM] == 0);

    /* Free callback of a packet the server sent (run when the client's
     * acknowledgement comes): a send and a reset. */
    stage = FREE;
    tracked = text_packet("tracked");
    tracked->freeCallback = freed;
    CHECK(enet_peer_send(to_client, 0, tracked) == 0);
    CHECK(pump(free_answered));
    CHECK(done[FREE]);
    CHECK(send_results[FREE] == 0);
    CHECK(dangling->state == ENET_PEER_STATE_DISCONNECTED);
    printf("dangling peer reset: %s\n",
           dangling->state == ENET_PEER_STATE_DISCONNECTED ? "yes" : "no");

    /* Intercept again: a graceful disconnect, which both sides see. */
    server->intercept = intercept;
    stage = DISCONNECT;
    enet_peer_send(to_server, 0, text_packet("ping 3"));
    CHECK(pump(disconnected));
    CHECK(client_disconnect_data == 42);
    printf("disconnected with data %d\n", client_disconnect_data);
    server->intercept = NULL;

    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    printf("%s: %d failures\n", on_stock ? "stock" : "ours", failures);
    return failures == 0 ? 0 : 1;
}
