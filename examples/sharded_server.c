/*
 * sharded_server.c: one ENet server spread over several cores. Each shard
 * is a host of its own, on its own thread, and all of them share one UDP
 * port (ENET_RS_HOST_REUSE_PORT, SO_REUSEPORT): the kernel hands each
 * client's datagrams to one shard, chosen by the client's address, so a
 * connection stays with the shard that accepted it and the shards share
 * nothing.
 *
 * usage: sharded_server [--shards N] [--port P] [--peers N] [--seconds S]
 *                       [--no-echo]
 *   --shards N    hosts, one per thread (default 2, at most 64)
 *   --port P      the shared UDP port on [::] (default 7777; 0 picks one)
 *   --peers N     peer slots per shard (default 1024)
 *   --seconds S   stop after S seconds (default: run until SIGINT/SIGTERM)
 *   --no-echo     count received packets only (for benchmarks); by default
 *                 every packet is sent back to its sender on its channel
 * It prints "PORT <p>" once every shard is bound, and at the end one line
 * per shard and a total: connects, packets received, packets per second
 * (from the first packet to the last) and the process's CPU seconds.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#define MAX_SHARDS 64

struct shard {
    ENetHost *host;
    pthread_t thread;
    unsigned long connects;
    unsigned long packets;
    double first_packet, last_packet;
};

static volatile sig_atomic_t stopping;
static int echo = 1;
static double stop_at;

static void on_signal(int signal_number)
{
    (void) signal_number;
    stopping = 1;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void *serve(void *argument)
{
    struct shard *shard = argument;
    ENetEvent event;
    while (!stopping && (stop_at == 0 || now_seconds() < stop_at)) {
        if (enet_host_service(shard->host, &event, 10) <= 0)
            continue;
        do {
            switch (event.type) {
            case ENET_EVENT_TYPE_CONNECT:
                ++shard->connects;
                break;
            case ENET_EVENT_TYPE_RECEIVE:
                if (shard->packets++ == 0)
                    shard->first_packet = now_seconds();
                shard->last_packet = now_seconds();
                if (echo)
                    enet_peer_send(event.peer, event.channelID, event.packet);
                else
                    enet_packet_destroy(event.packet);
                break;
            default:
                break;
            }
        } while (enet_host_check_events(shard->host, &event) > 0);
    }
    return NULL;
}

static long number(const char *text, long low, long high)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*end != '\0' || value < low || value > high) {
        fprintf(stderr, "sharded_server: %s is not a number from %ld to %ld\n", text, low, high);
        exit(2);
    }
    return value;
}

int main(int argc, char **argv)
{
    static struct shard shards[MAX_SHARDS];
    long count = 2, port = 7777, peers = 1024, seconds = 0;
    unsigned long connects = 0, packets = 0;
    ENetRsAddress address, bound;
    ENetRsHostOptions options;
    double first = 0, last = 0;
    int i;

    for (i = 1; i < argc; ++i) {
        const char *value = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(argv[i], "--shards") == 0)
            count = number(value, 1, MAX_SHARDS), ++i;
        else if (strcmp(argv[i], "--port") == 0)
            port = number(value, 0, 65535), ++i;
        else if (strcmp(argv[i], "--peers") == 0)
            peers = number(value, 1, 4095), ++i;
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = number(value, 1, 86400), ++i;
        else if (strcmp(argv[i], "--no-echo") == 0)
            echo = 0;
        else {
            fprintf(stderr, "usage: sharded_server [--shards N] [--port P] [--peers N] "
                            "[--seconds S] [--no-echo]\n");
            return 2;
        }
    }
    if (enet_initialize() != 0)
        return 1;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);

    memset(&address, 0, sizeof address);
    enet_rs_address_set_host_ip(&address, "::");
    address.port = (enet_uint16) port;
    memset(&options, 0, sizeof options);
    options.address = &address;
    options.peerCount = (size_t) peers;
    options.flags = ENET_RS_HOST_REUSE_PORT;
    for (i = 0; i < count; ++i) {
        shards[i].host = enet_rs_host_create(&options);
        if (shards[i].host == NULL) {
            fprintf(stderr, "sharded_server: cannot bind shard %d to port %ld\n", i, port);
            return 1;
        }
        /* With --port 0 the first shard picks the port the rest share. */
        if (i == 0 && enet_rs_host_get_address(shards[0].host, &bound) == 0)
            address.port = bound.port;
    }
    printf("PORT %u\n", address.port);
    fflush(stdout);
    if (seconds > 0)
        stop_at = now_seconds() + (double) seconds;
    for (i = 0; i < count; ++i)
        pthread_create(&shards[i].thread, NULL, serve, &shards[i]);
    for (i = 0; i < count; ++i) {
        struct shard *shard = &shards[i];
        pthread_join(shard->thread, NULL);
        printf("shard %d: connects=%lu packets=%lu\n", i, shard->connects, shard->packets);
        connects += shard->connects;
        packets += shard->packets;
        if (shard->packets > 0) {
            if (first == 0 || shard->first_packet < first)
                first = shard->first_packet;
            if (shard->last_packet > last)
                last = shard->last_packet;
        }
        enet_host_destroy(shard->host);
    }
    {
        struct rusage usage;
        getrusage(RUSAGE_SELF, &usage);
        printf("total: shards=%ld connects=%lu packets=%lu packets_per_s=%.0f cpu_s=%.2f\n", count,
               connects, packets, last > first ? (double) packets / (last - first) : 0.0,
               (double) usage.ru_utime.tv_sec + (double) usage.ru_utime.tv_usec / 1e6
                   + (double) usage.ru_stime.tv_sec + (double) usage.ru_stime.tv_usec / 1e6);
    }
    enet_deinitialize();
    return 0;
}
