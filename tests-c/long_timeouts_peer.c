/*
 * long_timeouts_peer.c: one side of ext_long_timeouts' SIGSTOP run, on
 * stock ENet's API alone, so that it builds against stock 1.3.17 and
 * against ours.
 *
 *   long_timeouts_peer server [--defaults]
 *       binds 127.0.0.1 on a free port and prints "PORT n"; answers each
 *       numbered message of the client with the same number, reliably;
 *       succeeds once it has all of them in order and the client then
 *       disconnects;
 *   long_timeouts_peer client PORT [--defaults]
 *       connects, sends COUNT numbered reliable messages 10 ms apart, and
 *       succeeds once every answer has arrived in order and its own
 *       disconnect is acknowledged.
 *
 * Each side sets enet_peer_timeout(peer, UINT32_MAX, UINT32_MAX,
 * UINT32_MAX) on its peer (--defaults: leaves stock's), and fails on a
 * DISCONNECT before the end. Each prints one line saying how it ended,
 * and what its peer's state was then.
 *
 *   long_timeouts_peer clockrun LIMIT kept|dropped
 *       one process, two hosts: a client whose peer has timeoutMinimum
 *       and timeoutMaximum LIMIT ms sends a reliable message the server
 *       never acknowledges (it is no longer serviced), then moves the
 *       clock ahead ten minutes at a time (enet_time_set) for three days,
 *       servicing the client at each step; succeeds if the peer was kept
 *       or dropped as the last argument says, and prints when.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>

/* Messages each way. */
#define COUNT 300
/* How long a side runs at most, in ms: longer than the stop and the
 * recovery after it. */
#define LIFETIME 38000

static void long_timeouts(ENetPeer *peer, int defaults)
{
    if (!defaults)
        enet_peer_timeout(peer, UINT32_MAX, UINT32_MAX, UINT32_MAX);
}

static int number_of(const ENetPacket *packet)
{
    const enet_uint8 *data = packet->data;
    if (packet->dataLength != 4)
        return -1;
    return (int) ((enet_uint32) data[0] << 24 | (enet_uint32) data[1] << 16 |
                  (enet_uint32) data[2] << 8 | (enet_uint32) data[3]);
}

static void send_number(ENetPeer *peer, int number)
{
    enet_uint8 data[4];
    ENetPacket *packet;
    data[0] = (enet_uint8) (number >> 24);
    data[1] = (enet_uint8) (number >> 16);
    data[2] = (enet_uint8) (number >> 8);
    data[3] = (enet_uint8) number;
    packet = enet_packet_create(data, sizeof data, ENET_PACKET_FLAG_RELIABLE);
    if (packet == NULL || enet_peer_send(peer, 0, packet) != 0) {
        printf("send of %d failed\n", number);
        exit(3);
    }
}

static int serve(int defaults)
{
    ENetAddress address;
    ENetHost *host;
    ENetEvent event;
    int received = 0, result = 1;
    enet_uint32 start;

    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    host = enet_host_create(&address, 1, 1, 0, 0);
    if (host == NULL) {
        printf("server: no host\n");
        return 2;
    }
    printf("PORT %u\n", (unsigned) host->address.port);
    fflush(stdout);
    start = enet_time_get();
    while (enet_time_get() - start < LIFETIME) {
        if (enet_host_service(host, &event, 5) <= 0)
            continue;
        if (event.type == ENET_EVENT_TYPE_CONNECT) {
            long_timeouts(event.peer, defaults);
        } else if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            int number = number_of(event.packet);
            enet_packet_destroy(event.packet);
            if (number != received) {
                printf("server: message %d where %d was due\n", number, received);
                break;
            }
            ++received;
            send_number(event.peer, number);
        } else if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
            if (received == COUNT) {
                printf("server: all %d messages in order, then the client's disconnect\n",
                       COUNT);
                result = 0;
            } else {
                printf("server: DISCONNECT after %d of %d messages\n", received, COUNT);
            }
            break;
        }
    }
    if (result != 0 && enet_time_get() - start >= LIFETIME)
        printf("server: gave up waiting, %d of %d messages\n", received, COUNT);
    fflush(stdout);
    enet_host_destroy(host);
    return result;
}

static int run_client(enet_uint16 port, int defaults)
{
    ENetAddress address;
    ENetHost *host;
    ENetPeer *peer;
    ENetEvent event;
    int sent = 0, answered = 0, connected = 0, result = 1, disconnecting = 0;
    enet_uint32 start, last_send = 0;

    host = enet_host_create(NULL, 1, 1, 0, 0);
    enet_address_set_host(&address, "127.0.0.1");
    address.port = port;
    peer = host ? enet_host_connect(host, &address, 1, 0) : NULL;
    if (peer == NULL) {
        printf("client: no host or peer\n");
        return 2;
    }
    long_timeouts(peer, defaults);
    start = enet_time_get();
    while (enet_time_get() - start < LIFETIME) {
        enet_uint32 now = enet_time_get();
        if (connected && sent < COUNT && now - last_send >= 10) {
            send_number(peer, sent++);
            last_send = now;
        }
        if (enet_host_service(host, &event, 5) <= 0)
            continue;
        if (event.type == ENET_EVENT_TYPE_CONNECT) {
            connected = 1;
            printf("client: connected\n");
            fflush(stdout);
        } else if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            int number = number_of(event.packet);
            enet_packet_destroy(event.packet);
            if (number != answered) {
                printf("client: answer %d where %d was due\n", number, answered);
                break;
            }
            if (++answered == COUNT) {
                enet_peer_disconnect(peer, 0);
                disconnecting = 1;
            }
        } else if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
            if (disconnecting) {
                printf("client: all %d answers in order, then disconnected\n", COUNT);
                result = 0;
            } else {
                printf("client: DISCONNECT after %d of %d answers (peer state %d)\n",
                       answered, COUNT, (int) peer->state);
            }
            break;
        }
    }
    if (result != 0 && enet_time_get() - start >= LIFETIME)
        printf("client: gave up waiting, %d of %d answers, peer state %d\n", answered, COUNT,
               (int) peer->state);
    fflush(stdout);
    enet_host_destroy(host);
    return result;
}

/* The clock's step (ten minutes) and how many (three days). */
#define STEP 600000u
#define STEPS 432

static int clock_run(enet_uint32 limit, const char *expected)
{
    ENetAddress address;
    ENetHost *server, *client;
    ENetPeer *peer;
    ENetEvent event;
    ENetPacket *packet;
    enet_uint32 start;
    int connected = 0, dropped = 0, round;

    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 1, 1, 0, 0);
    client = enet_host_create(NULL, 1, 1, 0, 0);
    if (server == NULL || client == NULL)
        return 2;
    address.port = server->address.port;
    peer = enet_host_connect(client, &address, 1, 0);
    start = enet_time_get();
    while (connected < 2 && enet_time_get() - start < 5000) {
        if (enet_host_service(server, &event, 1) > 0 && event.type == ENET_EVENT_TYPE_CONNECT)
            ++connected;
        if (enet_host_service(client, &event, 1) > 0 && event.type == ENET_EVENT_TYPE_CONNECT)
            ++connected;
    }
    if (peer == NULL || connected < 2)
        return 2;
    enet_peer_timeout(peer, 32, limit, limit);
    packet = enet_packet_create("x", 1, ENET_PACKET_FLAG_RELIABLE);
    enet_peer_send(peer, 0, packet);
    enet_host_flush(client);
    for (round = 1; round <= STEPS && !dropped; ++round) {
        enet_time_set(enet_time_get() + STEP);
        while (enet_host_service(client, &event, 0) > 0)
            if (event.type == ENET_EVENT_TYPE_DISCONNECT)
                dropped = round;
    }
    if (dropped)
        printf("timeout limits %u ms: peer dropped after %u minutes of silence\n",
               (unsigned) limit, (unsigned) dropped * (STEP / 60000));
    else
        printf("timeout limits %u ms: peer kept through %u minutes of silence\n",
               (unsigned) limit, (unsigned) STEPS * (STEP / 60000));
    enet_host_destroy(client);
    enet_host_destroy(server);
    return strcmp(expected, dropped ? "dropped" : "kept") == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    int defaults = argc > 0 && strcmp(argv[argc - 1], "--defaults") == 0;
    int result;
    if (enet_initialize() != 0)
        return 2;
    if (argc >= 2 && strcmp(argv[1], "server") == 0)
        result = serve(defaults);
    else if (argc >= 3 && strcmp(argv[1], "client") == 0)
        result = run_client((enet_uint16) atoi(argv[2]), defaults);
    else if (argc >= 4 && strcmp(argv[1], "clockrun") == 0)
        result = clock_run((enet_uint32) strtoul(argv[2], NULL, 10), argv[3]);
    else {
        fprintf(stderr, "usage: %s server | client PORT [--defaults] | clockrun LIMIT kept|dropped\n",
                argv[0]);
        result = 2;
    }
    enet_deinitialize();
    return result;
}
