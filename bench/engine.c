/*
 * Engine benchmarks (not a test): the same program on stock ENet or on our
 * libenet.so.7, chosen by LD_LIBRARY_PATH; bench/engine.sh runs each mode
 * on both, alternating, and prints medians side by side.
 *
 *   engine sink [--seconds S] [--unreliable] [--size BYTES]
 *       Binds 127.0.0.1:0, prints "PORT <n>", accepts one peer and counts
 *       messages (64 bytes unless --size says) for S seconds from the first
 *       one; prints "msgs_per_s", "mb_per_s", "cpu_ns_per_msg" (this
 *       process) and, for reliable traffic, checks their order. Then
 *       disconnects the peer.
 *   engine source --port P [--unreliable] [--size BYTES]
 *       Connects to 127.0.0.1:P and keeps sending messages (at most 4096 or
 *       4 MiB alive) until the sink disconnects; prints "cpu_ns_total".
 *   engine overload-sink [--count N] [--waiting BYTES]
 *       Binds 127.0.0.1:0, prints "PORT <n>", accepts one peer and counts
 *       its unreliable 64-byte messages until its reliable END message
 *       arrives, or 10 s after the first message without it. Prints
 *       "delivered_pct" (of N, default 200000), "end_ms" (END's arrival
 *       after the first message, -1 if it never came), "last_ms" (the last
 *       unreliable message's), "cpu_ms" (this process's CPU time from the
 *       first message to END), "rcvbuf_errors" (the kernel's drops on this
 *       socket, /proc/net/udp), "disconnected" (whether the peer went)
 *       and "datagrams_received" (the host's totalReceivedPackets).
 *       Then disconnects the peer. --waiting sets the host's
 *       maximumWaitingData (a small one makes held messages fill it).
 *   engine overload-source --port P [--count N]
 *       Connects to 127.0.0.1:P, sends N unreliable 64-byte messages as
 *       fast as the library takes them (at most 4096 alive), then one
 *       reliable END message, and services until the sink disconnects
 *       (at most 20 s); prints "end_freed_ms", when END's packet was freed
 *       after it was queued (acknowledged, or dropped with its peer; -1:
 *       neither), "service_failures" (service calls that returned -1),
 *       "datagrams_sent" and "bytes_sent" (the host's totalSentPackets and
 *       totalSentData: fewer bytes than the flood's means the sender's
 *       packet throttle dropped messages).
 *   engine rss-server --peers N
 *       Prints "PORT <n>", waits for N connected peers (the idle-clients
 *       mode of bench/bench.c connects them), settles 1 s, prints
 *       "rss_kb <VmRSS>" and disconnects them all.
 *   engine load-server --peers N [--seconds S] [--echo] [--leave-live]
 *       Prints "PORT <n>", waits for N connected peers (load-clients
 *       connects them all at once), prints "rss_burst_kb <VmRSS>", then
 *       receives (and with --echo sends each message back on the same
 *       channel, reliably) for S + 1 seconds, sampling VmRSS every 100 ms;
 *       prints "rss_kb <VmRSS at the end>", "rss_peak_kb <VmHWM>",
 *       "rss_sampled_peak_kb" (the most of those samples: the RSS under
 *       load, where VmHWM also counts the burst's handshakes),
 *       "load_cpu_ns_per_msg" (its CPU from the burst's end to its own,
 *       per message received meanwhile), "received <n>",
 *       "heap_in_use_kb" (mallinfo2, read last) and disconnects them all.
 *       With --leave-live it exits there instead, its host and peers still
 *       allocated, so that a heap profiler run around it (bench/heap_sites.sh)
 *       reports what the load left in use as never freed.
 *   engine load-clients --port P --peers N [--seconds S]
 *       4 client hosts (this one process) call enet_host_connect N times
 *       in all at once (again for a connect that times out); once all N
 *       are connected, each peer sends a
 *       reliable 64-byte message every 50 ms (20/s, the peers' phases
 *       spread over the 50 ms) for S seconds, then they idle until the
 *       server disconnects them (or 60 s pass).
 *   engine queued --count N
 *       One process, two hosts: N reliable 64-byte messages queued on the
 *       client before any service call, then both hosts serviced until the
 *       server has all N (in order); prints "seconds" and "cpu_s".
 *   engine burst --peers N
 *       One process: a server with N slots and 4 client hosts that call
 *       enet_host_connect N times in all at once, then all serviced until
 *       every connect is reported on both sides; prints "seconds" and
 *       "cpu_s", or "timeout <connected> of <N> connected" (exit 3) after
 *       30 s.
 *   engine handshakes --count N
 *       One process: a server, and N client hosts made one after another,
 *       each connecting to it; a connection is done when both sides have
 *       its CONNECT event. Prints "ms_per_connect" (wall) and
 *       "cpu_ms_per_connect" (both sides: this process).
 *
 *   --dtls DIR (sink, source, handshakes; enet-rs only) encrypts: the
 *       server side presents DIR/cert.pem (key DIR/key.pem), the client
 *       side verifies it for "localhost" (tests-c/dynamic_dtls.h).
 *
 * Diagnostics go to stderr; exit 0 on success.
 */
#define _GNU_SOURCE

#define BENCH_PROGRAM "engine"
#include "bench_common.h"

#include <malloc.h>
#include <stdint.h>

#include "../tests-c/dynamic_dtls.h"

#define MAX_QUEUED 4096u
/* Bytes alive (queued or in flight) on the source at most. */
#define MAX_QUEUED_BYTES (4u << 20)

/* Message size: 64 bytes, or set with --size (e.g. 1 MiB for bulk). */
static size_t msg_len = 64;
#define CLIENT_HOSTS 4
/* --dtls DIR, or NULL for plain hosts. */
static const char *dtls_dir = NULL;

/* A "Vm...:" line of /proc/self/status, in KiB (KEY with its colon). */
static long status_kb(const char *key)
{
    char line[256];
    long kb = -1;
    size_t len = strlen(key);
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL)
        return -1;
    while (fgets(line, sizeof line, status) != NULL)
        if (strncmp(line, key, len) == 0)
            kb = strtol(line + len, NULL, 10);
    fclose(status);
    return kb;
}

static long rss_kb(void)
{
    return status_kb("VmRSS:");
}

static ENetHost *bind_loopback(size_t peers)
{
    ENetAddress address = loopback(0);
    ENetHost *host = enet_host_create(&address, peers, 1, 0, 0);
    if (host == NULL)
        die("enet_host_create (server) failed");
    printf("PORT %u\n", (unsigned) host->address.port);
    fflush(stdout);
    return host;
}

static ENetPacket *message(enet_uint32 tag, enet_uint32 flags)
{
    ENetPacket *p = enet_packet_create(NULL, msg_len, flags);
    if (p == NULL)
        die("enet_packet_create failed");
    memset(p->data, 0x5A, msg_len < 64 ? msg_len : 64);
    put32(p->data, tag);
    return p;
}

/* ------------------------------------------------------------------ */

static int sink(double seconds, int reliable)
{
    ENetHost *host = bind_loopback(1);
    if (dtls_dir != NULL)
        dynamic_dtls_server(host, dtls_dir);
    ENetEvent ev;
    ENetPeer *peer = NULL;
    enet_uint32 received = 0;
    double deadline = now_s() + 10.0, start = 0, end = 0, c0 = 0, c1;

    while (start == 0 || now_s() < end) {
        if (start == 0 && now_s() > deadline)
            die("no traffic within 10 s");
        if (enet_host_service(host, &ev, 1) <= 0)
            continue;
        do {
            if (ev.type == ENET_EVENT_TYPE_CONNECT) {
                peer = ev.peer;
            } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
                if (start == 0) {
                    start = now_s();
                    end = start + seconds;
                    c0 = cpu_s();
                }
                if (ev.packet->dataLength != msg_len ||
                    (reliable && get32(ev.packet->data) != received))
                    die("message out of order or damaged");
                enet_packet_destroy(ev.packet);
                ++received;
            } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
                die("source disconnected");
            }
        } while (enet_host_check_events(host, &ev) > 0);
    }
    c1 = cpu_s();
    printf("msgs_per_s %.0f\n", (double) received / (now_s() - start));
    printf("mb_per_s %.2f\n", (double) received * (double) msg_len / 1e6 / (now_s() - start));
    printf("cpu_ns_per_msg %.1f\n", (c1 - c0) * 1e9 / (double) received);
    printf("received %lu\n", (unsigned long) received);
    fflush(stdout);
    if (peer != NULL)
        enet_peer_disconnect_now(peer, 0);
    enet_host_flush(host);
    enet_host_destroy(host);
    return 0;
}

static enet_uint32 freed_packets;

static void ENET_CALLBACK count_freed(ENetPacket *packet)
{
    (void) packet;
    ++freed_packets;
}

static int source(enet_uint16 port, int reliable)
{
    ENetHost *host = enet_host_create(NULL, 1, 1, 0, 0);
    ENetAddress address = loopback(port);
    ENetPeer *peer;
    ENetEvent ev;
    enet_uint32 sent = 0, flags = reliable ? ENET_PACKET_FLAG_RELIABLE : 0;
    int connected = 0;
    double deadline = now_s() + 60.0, c0 = cpu_s();

    if (host == NULL)
        die("enet_host_create (client) failed");
    if (dtls_dir != NULL)
        dynamic_dtls_client(host, dtls_dir);
    peer = enet_host_connect(host, &address, 1, 0);
    if (peer == NULL)
        die("enet_host_connect failed");
    for (;;) {
        if (now_s() > deadline)
            die("source ran over 60 s");
        /* Keep at most MAX_QUEUED messages alive (queued or in flight):
         * a packet's free callback runs once it was acknowledged
         * (reliable) or sent (unreliable), on either library. */
        while (connected && sent - freed_packets < MAX_QUEUED &&
               (sent - freed_packets) * msg_len < MAX_QUEUED_BYTES) {
            ENetPacket *p = message(sent++, flags);
            p->freeCallback = count_freed;
            if (enet_peer_send(peer, 0, p) < 0)
                die("enet_peer_send failed");
        }
        while (enet_host_service(host, &ev, connected ? 0 : 1) > 0) {
            if (ev.type == ENET_EVENT_TYPE_CONNECT)
                connected = 1;
            else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
                printf("cpu_ns_total %.0f\n", (cpu_s() - c0) * 1e9);
                enet_host_destroy(host);
                return 0;
            } else if (ev.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(ev.packet);
        }
    }
}

/* The END message's tag; the unreliable ones count up from 0. */
#define END_TAG 0xFFFFFFFFu

/* The kernel's drop count for the UDP socket bound to 127.0.0.1:port
 * (/proc/net/udp's last column), or -1. */
static long socket_drops(enet_uint16 port)
{
    char line[512], local[32];
    long drops = -1;
    FILE *udp = fopen("/proc/net/udp", "r");
    if (udp == NULL)
        return -1;
    snprintf(local, sizeof local, "0100007F:%04X", (unsigned) port);
    while (fgets(line, sizeof line, udp) != NULL) {
        char *field, *last = NULL;
        if (strstr(line, local) == NULL || strstr(line, local) > line + 16)
            continue;
        /* The drops are the last field (the line ends in spaces). */
        for (field = strtok(line, " \n"); field != NULL; field = strtok(NULL, " \n"))
            last = field;
        if (last != NULL)
            drops = strtol(last, NULL, 10);
    }
    fclose(udp);
    return drops;
}

/* --waiting BYTES: the overload sink's maximumWaitingData (0: default). */
static size_t waiting_limit = 0;

static int overload_sink(enet_uint32 count)
{
    ENetHost *host = bind_loopback(1);
    ENetEvent ev;
    ENetPeer *peer = NULL;
    enet_uint32 received = 0;
    int disconnected = 0;
    long drops_before = socket_drops(host->address.port);
    if (waiting_limit != 0)
        host->maximumWaitingData = waiting_limit;
    double connect_deadline = now_s() + 10.0, start = 0, last = 0, end = -1;
    double cpu_start = 0, cpu_end = 0;

    while (end < 0 && !disconnected) {
        double t = now_s();
        if (start == 0 && t > connect_deadline)
            die("no traffic within 10 s");
        if (start != 0 && t > start + 10.0)
            break;
        if (enet_host_service(host, &ev, 1) <= 0)
            continue;
        do {
            if (ev.type == ENET_EVENT_TYPE_CONNECT) {
                peer = ev.peer;
            } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
                t = now_s();
                if (start == 0) {
                    start = t;
                    cpu_start = cpu_s();
                }
                if (ev.packet->dataLength >= 4 && get32(ev.packet->data) == END_TAG) {
                    end = t - start;
                    cpu_end = cpu_s();
                } else {
                    last = t - start;
                    ++received;
                }
                enet_packet_destroy(ev.packet);
            } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
                disconnected = 1;
            }
        } while (enet_host_check_events(host, &ev) > 0);
    }
    printf("received %lu\n", (unsigned long) received);
    printf("delivered_pct %.2f\n", 100.0 * (double) received / (double) count);
    printf("end_ms %.1f\n", end < 0 ? -1.0 : end * 1e3);
    printf("last_ms %.1f\n", last * 1e3);
    printf("cpu_ms %.1f\n", end < 0 ? -1.0 : (cpu_end - cpu_start) * 1e3);
    printf("rcvbuf_errors %ld\n", socket_drops(host->address.port) - drops_before);
    printf("disconnected %d\n", disconnected);
    printf("datagrams_received %lu\n", (unsigned long) host->totalReceivedPackets);
    if (peer != NULL && !disconnected)
        printf("peer_state %d rtt %u throttle %u waiting_bytes %zu incoming_reliable %u "
               "incoming_unreliable %u\n",
               (int) peer->state, (unsigned) peer->roundTripTime,
               (unsigned) peer->packetThrottle, peer->totalWaitingData,
               (unsigned) peer->channels[0].incomingReliableSequenceNumber,
               (unsigned) peer->channels[0].incomingUnreliableSequenceNumber);
    fflush(stdout);
    if (peer != NULL && !disconnected)
        enet_peer_disconnect_now(peer, 0);
    enet_host_flush(host);
    enet_host_destroy(host);
    return 0;
}

static double end_freed_at = -1;

static void ENET_CALLBACK end_freed(ENetPacket *packet)
{
    (void) packet;
    end_freed_at = now_s();
}

static int overload_source(enet_uint16 port, enet_uint32 count)
{
    ENetHost *host = enet_host_create(NULL, 1, 1, 0, 0);
    ENetAddress address = loopback(port);
    ENetPeer *peer;
    ENetEvent ev;
    enet_uint32 sent = 0;
    int connected = 0, failures = 0;
    double deadline = now_s() + 60.0, end_queued = 0;

    if (host == NULL)
        die("enet_host_create (client) failed");
    peer = enet_host_connect(host, &address, 1, 0);
    if (peer == NULL)
        die("enet_host_connect failed");
    for (;;) {
        int rc;
        if (now_s() > deadline)
            die("source ran over 60 s");
        while (connected && sent < count && sent - freed_packets < MAX_QUEUED) {
            ENetPacket *p = message(sent++, 0);
            p->freeCallback = count_freed;
            if (enet_peer_send(peer, 0, p) < 0)
                die("enet_peer_send failed");
        }
        if (connected && sent == count && end_queued == 0) {
            ENetPacket *p = message(END_TAG, ENET_PACKET_FLAG_RELIABLE);
            p->freeCallback = end_freed;
            if (enet_peer_send(peer, 0, p) < 0)
                die("enet_peer_send (END) failed");
            end_queued = now_s();
            deadline = end_queued + 20.0;
        }
        while ((rc = enet_host_service(host, &ev, end_queued != 0 || !connected ? 1 : 0)) > 0) {
            if (ev.type == ENET_EVENT_TYPE_CONNECT) {
                connected = 1;
            } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
                printf("end_freed_ms %.1f\n",
                       end_freed_at < 0 ? -1.0 : (end_freed_at - end_queued) * 1e3);
                printf("service_failures %d\n", failures);
                printf("datagrams_sent %lu\n", (unsigned long) host->totalSentPackets);
                printf("bytes_sent %lu\n", (unsigned long) host->totalSentData);
                enet_host_destroy(host);
                return 0;
            } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
                enet_packet_destroy(ev.packet);
            }
        }
        failures += rc < 0;
    }
}

static int rss_server(int peers)
{
    long rss_before_host = rss_kb();
    ENetHost *host = bind_loopback((size_t) peers);
    long rss_empty_host = rss_kb();
    ENetEvent ev;
    int connected = 0, i;
    double deadline = now_s() + 90.0, settle_end;

    while (connected < peers) {
        if (now_s() > deadline)
            die("not all peers connected within 90 s");
        if (enet_host_service(host, &ev, 10) > 0 && ev.type == ENET_EVENT_TYPE_CONNECT)
            ++connected;
    }
    settle_end = now_s() + 1.0;
    while (now_s() < settle_end)
        enet_host_service(host, &ev, 1);
    printf("rss_kb %ld\n", rss_kb());
    printf("heap_in_use_kb %zu\n", mallinfo2().uordblks / 1024);
    printf("rss_kb_before_host %ld\n", rss_before_host);
    printf("rss_kb_empty_host %ld\n", rss_empty_host);
    printf("connected_peers %u\n", (unsigned) host->connectedPeers);
    fflush(stdout);
    for (i = 0; i < (int) host->peerCount; ++i)
        if (host->peers[i].state == ENET_PEER_STATE_CONNECTED)
            enet_peer_disconnect_now(&host->peers[i], 0);
    enet_host_destroy(host);
    return 0;
}

static int load_server(int peers, double seconds, int echo, int leave_live)
{
    ENetHost *host = bind_loopback((size_t) peers);
    ENetEvent ev;
    int connected = 0, i;
    unsigned long received = 0, burst_received;
    long peak = 0, now_kb;
    double load_cpu;
    double deadline = now_s() + 120.0, end, next_sample;

    while (connected < peers) {
        if (now_s() > deadline)
            die("not all peers connected within 120 s");
        if (enet_host_service(host, &ev, 10) <= 0)
            continue;
        do {
            if (ev.type == ENET_EVENT_TYPE_CONNECT)
                ++connected;
            else if (ev.type == ENET_EVENT_TYPE_DISCONNECT)
                --connected; /* its client connects again */
            else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
                ++received;
                enet_packet_destroy(ev.packet);
            }
        } while (enet_host_check_events(host, &ev) > 0);
    }
    printf("rss_burst_kb %ld\n", rss_kb());
    fflush(stdout);
    load_cpu = cpu_s();
    burst_received = received;
    end = now_s() + seconds + 1.0;
    next_sample = 0;
    while (now_s() < end) {
        if (now_s() >= next_sample) {
            now_kb = rss_kb();
            if (now_kb > peak)
                peak = now_kb;
            next_sample = now_s() + 0.1;
        }
        if (enet_host_service(host, &ev, 1) <= 0)
            continue;
        do {
            if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
                ++received;
                if (!echo || enet_peer_send(ev.peer, ev.channelID, ev.packet) < 0)
                    enet_packet_destroy(ev.packet);
            } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
                --connected;
            }
        } while (enet_host_check_events(host, &ev) > 0);
    }
    printf("rss_kb %ld\n", rss_kb());
    printf("rss_peak_kb %ld\n", status_kb("VmHWM:"));
    printf("rss_sampled_peak_kb %ld\n", peak);
    printf("load_cpu_ns_per_msg %.1f\n",
           (cpu_s() - load_cpu) * 1e9 / (double) (received > burst_received ? received - burst_received : 1));
    printf("received %lu\n", received);
    printf("connected_peers %d\n", connected);
    printf("heap_in_use_kb %zu\n", mallinfo2().uordblks / 1024);
    fflush(stdout);
    if (leave_live)
        exit(0);
    for (i = 0; i < (int) host->peerCount; ++i)
        if (host->peers[i].state == ENET_PEER_STATE_CONNECTED)
            enet_peer_disconnect_now(&host->peers[i], 0);
    enet_host_destroy(host);
    return 0;
}

/* Connects peer I of the load clients (its index in its data). */
static void load_connect(ENetHost **clients, ENetPeer **peer, int i, const ENetAddress *address)
{
    peer[i] = enet_host_connect(clients[i % CLIENT_HOSTS], address, 1, 0);
    if (peer[i] == NULL)
        die("enet_host_connect failed");
    peer[i]->data = (void *) (intptr_t) i;
}

static int load_clients(enet_uint16 port, int peers, double seconds)
{
    ENetAddress address = loopback(port);
    ENetHost *clients[CLIENT_HOSTS];
    ENetPeer **peer = calloc((size_t) peers, sizeof *peer);
    double *next = calloc((size_t) peers, sizeof *next);
    int *up = calloc((size_t) peers, sizeof *up);
    ENetEvent ev;
    int h, i, connected = 0, gone = 0, any;
    int per_host = (peers + CLIENT_HOSTS - 1) / CLIENT_HOSTS;
    double deadline = now_s() + 120.0, start = 0, t;
    enet_uint32 tag = 0;

    if (peer == NULL || next == NULL || up == NULL)
        die("out of memory");
    for (h = 0; h < CLIENT_HOSTS; ++h) {
        clients[h] = enet_host_create(NULL, (size_t) per_host, 1, 0, 0);
        if (clients[h] == NULL)
            die("enet_host_create (client) failed");
    }
    for (i = 0; i < peers; ++i)
        load_connect(clients, peer, i, &address);
    while (gone < peers && now_s() < deadline) {
        t = now_s();
        if (start == 0 && connected == peers) {
            start = t;
            deadline = start + seconds + 60.0;
            for (i = 0; i < peers; ++i)
                next[i] = start + 0.05 * (double) i / (double) peers;
        }
        if (start != 0 && t < start + seconds)
            for (i = 0; i < peers; ++i)
                if (t >= next[i] && peer[i]->state == ENET_PEER_STATE_CONNECTED) {
                    if (enet_peer_send(peer[i], 0, message(tag++, ENET_PACKET_FLAG_RELIABLE)) < 0)
                        die("enet_peer_send failed");
                    next[i] += 0.05;
                }
        any = 0;
        for (h = 0; h < CLIENT_HOSTS; ++h)
            while (enet_host_service(clients[h], &ev, 0) > 0) {
                any = 1;
                if (ev.type == ENET_EVENT_TYPE_CONNECT) {
                    up[(int) (intptr_t) ev.peer->data] = 1;
                    ++connected;
                } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT && start == 0) {
                    /* A connect that timed out in the burst (stock's
                     * backoff can outlast its attempts) is made again. */
                    i = (int) (intptr_t) ev.peer->data;
                    connected -= up[i];
                    up[i] = 0;
                    load_connect(clients, peer, i, &address);
                } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
                    ++gone;
                } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
                    enet_packet_destroy(ev.packet);
                }
            }
        if (!any) {
            struct timespec ts = {0, 500000L};
            nanosleep(&ts, NULL);
        }
    }
    fprintf(stderr, "load-clients: %d connected, %d disconnected, %lu sent\n", connected, gone,
            (unsigned long) tag);
    for (h = 0; h < CLIENT_HOSTS; ++h)
        enet_host_destroy(clients[h]);
    free(peer);
    free(next);
    free(up);
    return 0;
}

static int queued(enet_uint32 count)
{
    ENetAddress address = loopback(0);
    ENetHost *server = enet_host_create(&address, 1, 1, 0, 0), *client;
    ENetPeer *peer;
    ENetEvent ev;
    enet_uint32 i, received = 0;
    double deadline, t0, c0;

    client = enet_host_create(NULL, 1, 1, 0, 0);
    if (server == NULL || client == NULL)
        die("enet_host_create failed");
    peer = connect_on_loopback(client, server);
    t0 = now_s();
    c0 = cpu_s();
    for (i = 0; i < count; ++i)
        if (enet_peer_send(peer, 0, message(i, ENET_PACKET_FLAG_RELIABLE)) < 0)
            die("enet_peer_send failed");
    deadline = t0 + 600.0;
    while (received < count) {
        if (now_s() > deadline)
            die("queued messages not delivered within 600 s");
        while (enet_host_service(client, &ev, 0) > 0)
            ;
        while (enet_host_service(server, &ev, 0) > 0) {
            if (ev.type != ENET_EVENT_TYPE_RECEIVE)
                continue;
            if (get32(ev.packet->data) != received)
                die("message out of order");
            enet_packet_destroy(ev.packet);
            ++received;
        }
    }
    printf("seconds %.3f\n", now_s() - t0);
    printf("cpu_s %.3f\n", cpu_s() - c0);
    enet_host_destroy(client);
    enet_host_destroy(server);
    return 0;
}

/* How long the burst may take before it counts as failed. */
static double burst_limit = 30.0;

static int burst(int peers)
{
    ENetAddress address = loopback(0);
    ENetHost *server = enet_host_create(&address, (size_t) peers, 1, 0, 0);
    ENetHost *clients[CLIENT_HOSTS];
    ENetEvent ev;
    int h, i, server_connects = 0, client_connects = 0;
    int per_host = (peers + CLIENT_HOSTS - 1) / CLIENT_HOSTS;
    double t0, c0, deadline;

    if (server == NULL)
        die("enet_host_create (server) failed");
    address = loopback(server->address.port);
    for (h = 0; h < CLIENT_HOSTS; ++h) {
        clients[h] = enet_host_create(NULL, (size_t) per_host, 1, 0, 0);
        if (clients[h] == NULL)
            die("enet_host_create (client) failed");
    }
    t0 = now_s();
    c0 = cpu_s();
    for (i = 0; i < peers; ++i)
        if (enet_host_connect(clients[i % CLIENT_HOSTS], &address, 1, 0) == NULL)
            die("enet_host_connect failed");
    deadline = t0 + burst_limit;
    while (server_connects < peers || client_connects < peers) {
        if (now_s() > deadline)
        {
            printf("timeout %d of %d connected\n", server_connects < client_connects ?
                   server_connects : client_connects, peers);
            return 3;
        }
        while (enet_host_service(server, &ev, 0) > 0)
            if (ev.type == ENET_EVENT_TYPE_CONNECT)
                ++server_connects;
        for (h = 0; h < CLIENT_HOSTS; ++h)
            while (enet_host_service(clients[h], &ev, 0) > 0)
                if (ev.type == ENET_EVENT_TYPE_CONNECT)
                    ++client_connects;
    }
    printf("seconds %.3f\n", now_s() - t0);
    printf("cpu_s %.3f\n", cpu_s() - c0);
    for (h = 0; h < CLIENT_HOSTS; ++h)
        enet_host_destroy(clients[h]);
    enet_host_destroy(server);
    return 0;
}

static int handshakes(long count)
{
    ENetAddress address = loopback(0);
    ENetHost *server = enet_host_create(&address, (size_t) count, 1, 0, 0);
    ENetEvent ev;
    long i;
    double t0, c0, deadline;

    if (server == NULL)
        die("enet_host_create (server) failed");
    if (dtls_dir != NULL)
        dynamic_dtls_server(server, dtls_dir);
    address = loopback(server->address.port);
    t0 = now_s();
    c0 = cpu_s();
    for (i = 0; i < count; ++i) {
        ENetHost *client = enet_host_create(NULL, 1, 1, 0, 0);
        int server_connected = 0, client_connected = 0;
        if (client == NULL)
            die("enet_host_create (client) failed");
        if (dtls_dir != NULL)
            dynamic_dtls_client(client, dtls_dir);
        if (enet_host_connect(client, &address, 1, 0) == NULL)
            die("enet_host_connect failed");
        deadline = now_s() + 10.0;
        while (!server_connected || !client_connected) {
            if (now_s() > deadline)
                die("a connection took over 10 s");
            while (enet_host_service(client, &ev, 0) > 0)
                client_connected |= ev.type == ENET_EVENT_TYPE_CONNECT;
            while (enet_host_service(server, &ev, 0) > 0)
                server_connected |= ev.type == ENET_EVENT_TYPE_CONNECT;
        }
        enet_host_destroy(client);
    }
    printf("ms_per_connect %.3f\n", (now_s() - t0) * 1e3 / (double) count);
    printf("cpu_ms_per_connect %.3f\n", (cpu_s() - c0) * 1e3 / (double) count);
    enet_host_destroy(server);
    return 0;
}

/* ------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr, "usage: engine sink [--seconds S] [--unreliable]\n"
                    "       engine source --port P [--unreliable]\n"
                    "       engine overload-sink [--count N] [--waiting BYTES]\n"
                    "       engine overload-source --port P [--count N]\n"
                    "       engine rss-server --peers N\n"
                    "       engine load-server --peers N [--seconds S] [--echo] [--leave-live]\n"
                    "       engine load-clients --port P --peers N [--seconds S]\n"
                    "       engine queued --count N\n"
                    "       engine burst --peers N\n"
                    "       engine handshakes --count N\n"
                    "       (sink, source, handshakes: [--dtls DIR])\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double seconds = 3.0;
    long count = 200000, peers = 4000, port = 0;
    int reliable = 1, echo = 0, leave_live = 0, i, rc;
    if (argc < 2)
        usage();
    for (i = 2; i < argc; ++i) {
        if (strcmp(argv[i], "--unreliable") == 0)
            reliable = 0;
        else if (strcmp(argv[i], "--echo") == 0)
            echo = 1;
        else if (strcmp(argv[i], "--leave-live") == 0)
            leave_live = 1;
        else if (i + 1 >= argc)
            usage();
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--count") == 0)
            count = atol(argv[++i]);
        else if (strcmp(argv[i], "--peers") == 0)
            peers = atol(argv[++i]);
        else if (strcmp(argv[i], "--port") == 0)
            port = atol(argv[++i]);
        else if (strcmp(argv[i], "--size") == 0)
            msg_len = (size_t) atol(argv[++i]);
        else if (strcmp(argv[i], "--waiting") == 0)
            waiting_limit = (size_t) atol(argv[++i]);
        else if (strcmp(argv[i], "--dtls") == 0)
            dtls_dir = argv[++i];
        else
            usage();
    }
    if (seconds <= 0 || count < 1 || peers < 1 || peers > 4095 || port < 0 || port > 65535 ||
        msg_len < 4 || msg_len > (32u << 20))
        usage();
    if (enet_initialize() != 0)
        die("enet_initialize failed");
    if (strcmp(argv[1], "sink") == 0)
        rc = sink(seconds, reliable);
    else if (strcmp(argv[1], "source") == 0 && port > 0)
        rc = source((enet_uint16) port, reliable);
    else if (strcmp(argv[1], "overload-sink") == 0)
        rc = overload_sink((enet_uint32) count);
    else if (strcmp(argv[1], "overload-source") == 0 && port > 0)
        rc = overload_source((enet_uint16) port, (enet_uint32) count);
    else if (strcmp(argv[1], "rss-server") == 0)
        rc = rss_server((int) peers);
    else if (strcmp(argv[1], "load-server") == 0)
        rc = load_server((int) peers, seconds, echo, leave_live);
    else if (strcmp(argv[1], "load-clients") == 0 && port > 0)
        rc = load_clients((enet_uint16) port, (int) peers, seconds);
    else if (strcmp(argv[1], "queued") == 0)
        rc = queued((enet_uint32) count);
    else if (strcmp(argv[1], "burst") == 0)
        rc = burst((int) peers);
    else if (strcmp(argv[1], "handshakes") == 0 && count <= 4095)
        rc = handshakes(count);
    else
        usage();
    enet_deinitialize();
    return rc;
}
