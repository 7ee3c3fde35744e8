/*
 * ENet benchmark (not a test): run on stock or on our libenet.so.7 by
 * LD_LIBRARY_PATH; bench/run.sh runs every mode on both and prints a table.
 *
 *   bench throughput [--seconds S]
 *       One process, two hosts on 127.0.0.1 (a server and a client), both
 *       serviced in turn with timeout 0. The client keeps up to 4096 reliable
 *       64-byte messages queued; prints the messages delivered (in order,
 *       checked) per second over S seconds after a 0.5 s warm-up:
 *       "msgs_per_s <n>".
 *   bench idle-server [--peers N] [--seconds S]
 *       Binds 127.0.0.1:0, prints "PORT <n>", waits until N peers are
 *       connected, lets them settle for 1 s, then calls
 *       enet_host_service(host, &event, 0) for S seconds and prints the CPU
 *       time (getrusage: user + system) per call: "cpu_us_per_service <x>".
 *       Finally disconnects every peer at once and exits.
 *   bench idle-clients --port P [--peers N] [--hosts H]
 *       H client hosts (in this one process) holding N peers in all, connected
 *       to 127.0.0.1:P and serviced until the server disconnects them (or
 *       120 s pass). They send nothing but ENet's own pings and acks.
 *
 * Diagnostics (and the mapped libenet path) go to stderr. Exit 0 on success.
 */
#define _XOPEN_SOURCE 700

#define BENCH_PROGRAM "bench"
#include "bench_common.h"

#define MSG_LEN 64u
#define MAX_QUEUED 4096u
#define MAX_HOSTS 64

/* Incoming and outgoing bandwidth of every host (0 = unlimited); with a
 * limit, ENet's bandwidth throttle and window sizing are in play. */
static enet_uint32 bandwidth;

static ENetHost *bind_loopback(size_t peers, size_t channels)
{
    ENetAddress address;
    ENetHost *host;
    memset(&address, 0, sizeof address);
    if (enet_address_set_host_ip(&address, "127.0.0.1") != 0)
        die("enet_address_set_host_ip failed");
    address.port = 0;
    host = enet_host_create(&address, peers, channels, bandwidth, bandwidth);
    if (host == NULL)
        die("enet_host_create (server) failed");
    return host;
}

/* ------------------------------------------------------------------ */

static int throughput(double seconds)
{
    ENetHost *server = bind_loopback(1, 1);
    ENetHost *client = enet_host_create(NULL, 1, 1, bandwidth, bandwidth);
    ENetPeer *peer;
    ENetEvent ev;
    enet_uint32 sent = 0, received = 0, counted_from = 0;
    double start, warm_end, end;

    if (client == NULL)
        die("enet_host_create (client) failed");
    peer = connect_on_loopback(client, server);
    start = now_s();
    warm_end = start + 0.5;
    end = warm_end + seconds;
    for (;;) {
        double t = now_s();
        if (t >= end)
            break;
        if (counted_from == 0 && t >= warm_end)
            counted_from = received + 1; /* +1 so that 0 means "not yet" */
        while (sent - received < MAX_QUEUED) {
            ENetPacket *p = enet_packet_create(NULL, MSG_LEN, ENET_PACKET_FLAG_RELIABLE);
            if (p == NULL)
                die("enet_packet_create failed");
            memset(p->data, 0x5A, MSG_LEN);
            put32(p->data, sent);
            if (enet_peer_send(peer, 0, p) < 0)
                die("enet_peer_send failed");
            ++sent;
        }
        while (enet_host_service(client, &ev, 0) > 0)
            if (ev.type != ENET_EVENT_TYPE_NONE)
                die("unexpected client event");
        while (enet_host_service(server, &ev, 0) > 0) {
            if (ev.type != ENET_EVENT_TYPE_RECEIVE)
                die("unexpected server event");
            if (ev.packet->dataLength != MSG_LEN || get32(ev.packet->data) != received)
                die("message out of order or damaged");
            enet_packet_destroy(ev.packet);
            ++received;
        }
    }
    printf("msgs_per_s %.0f\n", (double) (received - (counted_from - 1)) / seconds);
    fprintf(stderr, "throughput: %u sent, %u received in %.1f s (+0.5 s warm-up)\n", sent,
            received, seconds);
    enet_host_destroy(client);
    enet_host_destroy(server);
    return 0;
}

/* ------------------------------------------------------------------ */

static int idle_server(int peers, double seconds)
{
    ENetHost *host = bind_loopback((size_t) peers + 16u, 1);
    ENetEvent ev;
    int connected = 0, i;
    unsigned long calls = 0, events = 0;
    double deadline = now_s() + 90.0, settle_end, c0, c1, t0, t1;

    printf("PORT %u\n", (unsigned) host->address.port);
    fflush(stdout);
    while (connected < peers) {
        if (now_s() > deadline)
            die("not all peers connected within 90 s");
        if (enet_host_service(host, &ev, 10) > 0) {
            if (ev.type == ENET_EVENT_TYPE_CONNECT)
                ++connected;
            else
                die("unexpected event while peers connect");
        }
    }
    settle_end = now_s() + 1.0;
    while (now_s() < settle_end)
        if (enet_host_service(host, &ev, 1) > 0)
            die("unexpected event while settling");
    t0 = now_s();
    c0 = cpu_s();
    do {
        int r = enet_host_service(host, &ev, 0);
        if (r < 0)
            die("enet_host_service failed");
        if (r > 0) {
            ++events;
            if (ev.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(ev.packet);
        }
        ++calls;
    } while ((t1 = now_s()) - t0 < seconds);
    c1 = cpu_s();
    printf("cpu_us_per_service %.3f\n", (c1 - c0) * 1e6 / (double) calls);
    printf("connected_peers %u\n", (unsigned) host->connectedPeers);
    fprintf(stderr, "idle-server: %lu calls in %.2f s wall, %.2f s CPU, %lu events, %d peers\n",
            calls, t1 - t0, c1 - c0, events, connected);
    for (i = 0; i < (int) host->peerCount; ++i)
        if (host->peers[i].state == ENET_PEER_STATE_CONNECTED)
            enet_peer_disconnect_now(&host->peers[i], 0);
    enet_host_destroy(host);
    return 0;
}

static int idle_clients(enet_uint16 port, int peers, int hosts)
{
    ENetHost *host[MAX_HOSTS];
    ENetAddress address = loopback(port);
    ENetEvent ev;
    int per_host = (peers + hosts - 1) / hosts, h, started = 0, connected = 0, gone = 0;
    double deadline = now_s() + 120.0, next_batch = 0;

    for (h = 0; h < hosts; ++h) {
        host[h] = enet_host_create(NULL, (size_t) per_host, 1, bandwidth, bandwidth);
        if (host[h] == NULL)
            die("enet_host_create (client) failed");
    }
    while (gone < peers && now_s() < deadline) {
        int any = 0;
        /* Connect 50 at a time, so the handshakes do not overflow buffers. */
        if (started < peers && now_s() >= next_batch) {
            int k;
            for (k = 0; k < 50 && started < peers; ++k, ++started)
                if (enet_host_connect(host[started % hosts], &address, 1, 0) == NULL)
                    die("enet_host_connect failed");
            next_batch = now_s() + 0.01;
        }
        for (h = 0; h < hosts; ++h)
            while (enet_host_service(host[h], &ev, 0) > 0) {
                any = 1;
                if (ev.type == ENET_EVENT_TYPE_CONNECT)
                    ++connected;
                else if (ev.type == ENET_EVENT_TYPE_DISCONNECT)
                    ++gone;
                else if (ev.type == ENET_EVENT_TYPE_RECEIVE)
                    enet_packet_destroy(ev.packet);
            }
        if (!any) {
            struct timespec ts = {0, 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    fprintf(stderr, "idle-clients: %d connected, %d disconnected\n", connected, gone);
    for (h = 0; h < hosts; ++h)
        enet_host_destroy(host[h]);
    return 0;
}

/* ------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr, "usage: bench throughput [--seconds S]\n"
                    "       bench idle-server [--peers N] [--seconds S]\n"
                    "       bench idle-clients --port P [--peers N] [--hosts H]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double seconds = 3.0;
    int peers = 1000, hosts = 4, port = 0, i, rc;
    if (argc < 2)
        usage();
    for (i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--peers") == 0)
            peers = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--hosts") == 0)
            hosts = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--port") == 0)
            port = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--bandwidth") == 0)
            bandwidth = (enet_uint32) strtoul(argv[i + 1], NULL, 10);
        else
            usage();
    }
    if (i != argc || seconds <= 0 || peers < 1 || peers > 4000 || hosts < 1 ||
        hosts > MAX_HOSTS || port < 0 || port > 65535)
        usage();
    print_mapped_library();
    if (enet_initialize() != 0)
        die("enet_initialize failed");
    if (strcmp(argv[1], "throughput") == 0)
        rc = throughput(seconds);
    else if (strcmp(argv[1], "idle-server") == 0)
        rc = idle_server(peers, seconds);
    else if (strcmp(argv[1], "idle-clients") == 0 && port > 0)
        rc = idle_clients((enet_uint16) port, peers, hosts);
    else
        usage();
    enet_deinitialize();
    return rc;
}
