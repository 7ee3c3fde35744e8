/*
 * loss_peer.c: the two ends of bench/loss.sh, which runs them through the
 * impairing proxy. Built against the stock header; LD_LIBRARY_PATH picks
 * the library, ENET_RS_LOSS_RECOVERY our mode.
 *
 *   loss_peer server [--seconds S] [--clients N]
 *       A host on 127.0.0.1:0 (N peers, 2 channels); prints "PORT <n>",
 *       takes N clients (default 1) and measures what they send until every
 *       DONE arrives, a connection drops or S seconds pass (default 120).
 *       Every 64 reliable messages it answers with a reliable "GOT n", so
 *       a bulk sender can keep a bounded backlog. Prints one line:
 *       "result messages=.. bytes=.. p50_ms=.. p99_ms=.. max_ms=..
 *        mbytes_per_s=.. flows_mbytes_per_s=A,B,.. dropped=0|1"
 *       latency being receive time minus the send time the message
 *       carries (CLOCK_MONOTONIC is shared by the processes), throughput
 *       bytes over the time from the first to the last message, overall and
 *       per client (over the time all clients were sending, so flows that
 *       share a bottleneck can be compared).
 *   loss_peer client --port P (--rate HZ --seconds S | --bulk BYTES) [--size B]
 *       Connects to 127.0.0.1:P. With --rate, sends one reliable message of
 *       B bytes (default 64) HZ times a second for S seconds; with --bulk,
 *       sends BYTES in reliable messages of B bytes (default 1200) with at
 *       most 2 MB not yet confirmed by a GOT. Then a reliable DONE; waits
 *       for the server to disconnect it. Prints "client sent_bytes=..
 *       payload_bytes=.. dropped=0|1", sent_bytes being the host's
 *       totalSentData (every byte it put on the wire, retransmissions
 *       included), and on enet-rs also "retransmitted_payload=.." (payload
 *       bytes its loss recovery sent again, from enet_rs_peer_get_stats,
 *       looked up at run time: stock has no such function).
 */
#define _XOPEN_SOURCE 700

#include <enet/enet.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HEADER 16
#define MAX_MESSAGES 2000000
#define GOT_EVERY 64
#define BACKLOG (2u << 20)
#define MAX_CLIENTS 8

/* What the server saw of one client. */
struct flow {
    ENetPeer *peer;
    uint64_t bytes, first, last;
    size_t messages;
    int done;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void put32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static double rank_ms(const uint64_t *sorted, size_t n, double q)
{
    size_t index;
    if (n == 0)
        return 0;
    index = (size_t) (q * (double) n + 0.999999);
    if (index < 1)
        index = 1;
    if (index > n)
        index = n;
    return (double) sorted[index - 1] / 1e6;
}

/* Bytes flow f received between `from` and `to` (ns), assuming a steady
 * rate between its first and last message. */
static double share(const struct flow *f, uint64_t from, uint64_t to)
{
    uint64_t start = f->first > from ? f->first : from, end = f->last < to ? f->last : to;
    if (f->last <= f->first || end <= start)
        return 0;
    return (double) f->bytes * (double) (end - start) / (double) (f->last - f->first);
}

static int server(double seconds, int clients)
{
    ENetAddress address;
    ENetHost *host;
    ENetEvent event;
    struct flow flows[MAX_CLIENTS];
    uint64_t *latencies = malloc(sizeof(uint64_t) * MAX_MESSAGES);
    size_t count = 0;
    uint64_t bytes = 0, first = 0, last = 0, deadline, overlap_from = 0, overlap_to = UINT64_MAX;
    int connected = 0, finished = 0, dropped = 0, i;

    memset(flows, 0, sizeof flows);
    if (!latencies || clients < 1 || clients > MAX_CLIENTS)
        return 1;
    enet_address_set_host(&address, "127.0.0.1");
    address.port = 0;
    host = enet_host_create(&address, (size_t) clients, 2, 0, 0);
    if (!host)
        return 1;
    printf("PORT %u\n", host->address.port);
    fflush(stdout);
    deadline = now_ns() + (uint64_t) (seconds * 1e9);
    while (finished < clients && !dropped && now_ns() < deadline) {
        if (enet_host_service(host, &event, 1) <= 0)
            continue;
        do {
            struct flow *f = event.peer ? &flows[event.peer - host->peers] : NULL;
            if (event.type == ENET_EVENT_TYPE_CONNECT) {
                f->peer = event.peer;
                ++connected;
            } else if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
                dropped = 1;
            } else if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                const unsigned char *data = event.packet->data;
                uint64_t arrived = now_ns(), sent;
                if (event.packet->dataLength >= HEADER && memcmp(data, "DONE", 4) == 0) {
                    if (!f->done)
                        ++finished;
                    f->done = 1;
                } else if (event.packet->dataLength >= HEADER && memcmp(data, "LAT0", 4) == 0) {
                    memcpy(&sent, data + 8, 8);
                    if (count < MAX_MESSAGES)
                        latencies[count++] = arrived - sent;
                    bytes += event.packet->dataLength;
                    f->bytes += event.packet->dataLength;
                    if (!first)
                        first = arrived;
                    if (!f->first)
                        f->first = arrived;
                    last = f->last = arrived;
                    if (++f->messages % GOT_EVERY == 0) {
                        unsigned char got[8];
                        memcpy(got, "GOT0", 4);
                        put32(got + 4, (uint32_t) f->messages);
                        enet_peer_send(event.peer, 1,
                                       enet_packet_create(got, sizeof got,
                                                          ENET_PACKET_FLAG_RELIABLE));
                    }
                }
                enet_packet_destroy(event.packet);
            }
        } while (finished < clients && !dropped && enet_host_check_events(host, &event) > 0);
    }
    if (finished < clients)
        dropped = 1;
    for (i = 0; i < clients; ++i)
        if (flows[i].peer && !dropped)
            enet_peer_disconnect(flows[i].peer, 0);
    for (i = 0; i < 200 && connected > 0 && enet_host_service(host, &event, 5) >= 0; ++i)
        if (event.type == ENET_EVENT_TYPE_DISCONNECT)
            --connected;
    qsort(latencies, count, sizeof *latencies, compare_u64);
    printf("result messages=%zu bytes=%llu p50_ms=%.1f p99_ms=%.1f max_ms=%.1f "
           "mbytes_per_s=%.3f flows_mbytes_per_s=",
           count, (unsigned long long) bytes, rank_ms(latencies, count, 0.5),
           rank_ms(latencies, count, 0.99), rank_ms(latencies, count, 1.0),
           last > first ? (double) bytes / ((double) (last - first) / 1e9) / 1e6 : 0.0);
    /* Compare flows over the time all of them were sending. */
    for (i = 0; i < clients; ++i) {
        if (flows[i].first > overlap_from)
            overlap_from = flows[i].first;
        if (flows[i].last < overlap_to)
            overlap_to = flows[i].last;
    }
    for (i = 0; i < clients; ++i)
        printf("%s%.3f", i ? "," : "",
               overlap_to > overlap_from
                   ? share(&flows[i], overlap_from, overlap_to)
                         / ((double) (overlap_to - overlap_from) / 1e9) / 1e6
                   : 0.0);
    printf(" dropped=%d\n", dropped);
    enet_host_destroy(host);
    free(latencies);
    return 0;
}

/* The payload bytes the library sent again to `peer`, or -1 when it cannot
 * say (stock ENet). The stats struct's first fields, as enet/enet_rs.h
 * declares them. */
static long long retransmitted_payload(ENetPeer *peer)
{
    struct {
        uint64_t commands, bytes, fast, timeouts;
        uint32_t window;
    } stats;
    static int (*get_stats)(ENetPeer *, void *);
    static int looked;
    if (!looked) {
        *(void **) &get_stats = dlsym(RTLD_DEFAULT, "enet_rs_peer_get_stats");
        looked = 1;
    }
    if (!get_stats || get_stats(peer, &stats) != 0)
        return -1;
    return (long long) stats.bytes;
}

static int client(unsigned port, double rate, double seconds, uint64_t bulk, size_t size)
{
    ENetAddress address;
    ENetHost *host;
    ENetPeer *peer;
    ENetEvent event;
    unsigned char *message = calloc(1, size < HEADER ? HEADER : size);
    uint64_t start, next, deadline, payload = 0;
    uint32_t sequence = 0, confirmed = 0;
    int connected = 0, dropped = 0, finished = 0;
    long long resent = -1;

    if (!message)
        return 1;
    if (size < HEADER)
        size = HEADER;
    host = enet_host_create(NULL, 1, 2, 0, 0);
    enet_address_set_host(&address, "127.0.0.1");
    address.port = (enet_uint16) port;
    if (!host || !(peer = enet_host_connect(host, &address, 2, 0)))
        return 1;
    deadline = now_ns() + 10000000000ull;
    while (!connected && now_ns() < deadline)
        if (enet_host_service(host, &event, 5) > 0 && event.type == ENET_EVENT_TYPE_CONNECT)
            connected = 1;
    if (!connected) {
        printf("client sent_bytes=0 payload_bytes=0 dropped=1\n");
        return 0;
    }
    memcpy(message, "LAT0", 4);
    start = next = now_ns();
    deadline = start + (uint64_t) ((bulk ? 600 : seconds + 60) * 1e9);
    while (!dropped && now_ns() < deadline) {
        uint64_t now = now_ns();
        int sending = bulk ? payload < bulk : now < start + (uint64_t) (seconds * 1e9);
        if (!sending && !finished) {
            memcpy(message, "DONE", 4);
            enet_peer_send(peer, 0, enet_packet_create(message, size, ENET_PACKET_FLAG_RELIABLE));
            finished = 1;
        }
        if (sending && bulk) {
            while (payload < bulk && (uint64_t) (sequence - confirmed) * size < BACKLOG) {
                uint64_t t = now_ns();
                put32(message + 4, sequence++);
                memcpy(message + 8, &t, 8);
                enet_peer_send(peer, 0,
                               enet_packet_create(message, size, ENET_PACKET_FLAG_RELIABLE));
                payload += size;
            }
        } else if (sending && now >= next) {
            uint64_t t = now_ns();
            put32(message + 4, sequence++);
            memcpy(message + 8, &t, 8);
            enet_peer_send(peer, 0, enet_packet_create(message, size, ENET_PACKET_FLAG_RELIABLE));
            payload += size;
            next += (uint64_t) (1e9 / rate);
            enet_host_flush(host);
        }
        if (peer->state == ENET_PEER_STATE_CONNECTED)
            resent = retransmitted_payload(peer);
        if (enet_host_service(host, &event, 1) > 0) {
            do {
                if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
                    dropped = !finished;
                    deadline = 0;
                } else if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                    if (event.packet->dataLength >= 8 && memcmp(event.packet->data, "GOT0", 4) == 0)
                        confirmed = get32(event.packet->data + 4);
                    enet_packet_destroy(event.packet);
                }
            } while (deadline && enet_host_check_events(host, &event) > 0);
        }
    }
    printf("client sent_bytes=%u payload_bytes=%llu dropped=%d", host->totalSentData,
           (unsigned long long) payload, dropped);
    if (resent >= 0)
        printf(" retransmitted_payload=%lld", resent);
    printf("\n");
    enet_host_destroy(host);
    free(message);
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = 120, rate = 0;
    unsigned port = 0;
    int clients = 1;
    uint64_t bulk = 0;
    size_t size = 0;
    int i, result;

    if (argc < 2 || enet_initialize() != 0) {
        fprintf(stderr, "usage: loss_peer server|client ...\n");
        return 2;
    }
    for (i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--port") == 0)
            port = (unsigned) atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--rate") == 0)
            rate = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--bulk") == 0)
            bulk = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--clients") == 0)
            clients = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--size") == 0)
            size = (size_t) atoi(argv[i + 1]);
        else {
            fprintf(stderr, "loss_peer: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (strcmp(argv[1], "server") == 0)
        result = server(seconds, clients);
    else if (strcmp(argv[1], "client") == 0 && port && (rate > 0 || bulk))
        result = client(port, rate, seconds, bulk, size ? size : (bulk ? 1200 : 64));
    else {
        fprintf(stderr, "usage: loss_peer server [--seconds S] [--clients N] | client --port P "
                        "(--rate HZ --seconds S | --bulk BYTES) [--size B]\n");
        return 2;
    }
    enet_deinitialize();
    return result;
}
