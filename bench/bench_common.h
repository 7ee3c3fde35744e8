/*
 * Helpers the benchmark programs share (not a library: each program
 * includes it once). Define BENCH_PROGRAM, the name `die` prefixes to its
 * message, before including it; feature-test macros go before it too.
 */
#ifndef ENET_RS_BENCH_COMMON_H
#define ENET_RS_BENCH_COMMON_H

#include <enet/enet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#ifndef BENCH_PROGRAM
#error "define BENCH_PROGRAM before including bench_common.h"
#endif

/* Seconds on the monotonic clock. */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* CPU seconds this process used (user + system). */
static inline double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6 +
           (double) ru.ru_stime.tv_sec + (double) ru.ru_stime.tv_usec / 1e6;
}

static inline void die(const char *what)
{
    fprintf(stderr, BENCH_PROGRAM ": %s\n", what);
    exit(1);
}

/* Prints to stderr which libenet the process mapped (stock or ours). */
static inline void print_mapped_library(void)
{
    char line[4096];
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL)
        return;
    while (fgets(line, sizeof line, maps) != NULL) {
        char *path = strchr(line, '/');
        if (path != NULL && strstr(path, "libenet") != NULL) {
            fprintf(stderr, "libenet mapped from %s", path);
            break;
        }
    }
    fclose(maps);
}

/* 127.0.0.1:port. */
static inline ENetAddress loopback(enet_uint16 port)
{
    ENetAddress address;
    memset(&address, 0, sizeof address);
    if (enet_address_set_host_ip(&address, "127.0.0.1") != 0)
        die("enet_address_set_host_ip failed");
    address.port = port;
    return address;
}

/* Connects `client` to `server` (bound on 127.0.0.1) over one channel and
 * services both until each has reported its CONNECT; dies after 5 s. The
 * client's peer. */
static inline ENetPeer *connect_on_loopback(ENetHost *client, ENetHost *server)
{
    ENetAddress address = loopback(server->address.port);
    ENetPeer *peer = enet_host_connect(client, &address, 1, 0);
    ENetEvent ev;
    int connected = 0;
    double deadline = now_s() + 5.0;

    if (peer == NULL)
        die("enet_host_connect failed");
    while (connected < 2) {
        if (now_s() > deadline)
            die("no connection within 5 s");
        if (enet_host_service(client, &ev, 1) > 0 && ev.type == ENET_EVENT_TYPE_CONNECT)
            ++connected;
        if (enet_host_service(server, &ev, 1) > 0 && ev.type == ENET_EVENT_TYPE_CONNECT)
            ++connected;
    }
    return peer;
}

/* A message's tag, big-endian in its first four bytes. */
static inline void put32(unsigned char *p, enet_uint32 v)
{
    p[0] = (unsigned char) (v >> 24);
    p[1] = (unsigned char) (v >> 16);
    p[2] = (unsigned char) (v >> 8);
    p[3] = (unsigned char) v;
}

static inline enet_uint32 get32(const unsigned char *p)
{
    return ((enet_uint32) p[0] << 24) | ((enet_uint32) p[1] << 16) |
           ((enet_uint32) p[2] << 8) | (enet_uint32) p[3];
}

#endif
