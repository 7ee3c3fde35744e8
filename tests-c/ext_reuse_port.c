/*
 * ext_reuse_port.c: three server hosts share one port
 * (ENET_RS_HOST_REUSE_PORT), each serviced by its own thread, as
 * examples/sharded_server.c does. Thirty clients, each its own host and so
 * its own source port, connect to that one port and get their packet
 * echoed: every client is served, by exactly one shard, and the kernel
 * spreads them over more than one shard.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

#define SHARDS 3
#define CLIENTS 30

struct shard {
    ENetHost *host;
    pthread_t thread;
    int connects;     /* under `lock` */
    int send_failures; /* under `lock` */
};

static struct shard shards[SHARDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int stop; /* under `lock` */

static int stopping(void)
{
    int value;
    pthread_mutex_lock(&lock);
    value = stop;
    pthread_mutex_unlock(&lock);
    return value;
}

static void *serve(void *argument)
{
    struct shard *shard = argument;
    ENetEvent event;
    while (!stopping()) {
        while (enet_host_service(shard->host, &event, 5) > 0) {
            if (event.type == ENET_EVENT_TYPE_CONNECT) {
                pthread_mutex_lock(&lock);
                ++shard->connects;
                pthread_mutex_unlock(&lock);
            } else if (event.type == ENET_EVENT_TYPE_RECEIVE
                       && enet_peer_send(event.peer, event.channelID, event.packet) != 0) {
                pthread_mutex_lock(&lock);
                ++shard->send_failures;
                pthread_mutex_unlock(&lock);
            }
        }
    }
    return NULL;
}

int main(void)
{
    ENetHost *clients[CLIENTS];
    int echoed[CLIENTS], connected[CLIENTS];
    ENetRsAddress address, bound;
    ENetRsHostOptions options;
    ENetAddress server;
    int i, round, done = 0, total = 0, busy_shards = 0;

    CHECK(enet_initialize() == 0);
    memset(&address, 0, sizeof address);
    CHECK(enet_rs_address_set_host_ip(&address, "127.0.0.1") == 0);
    memset(&options, 0, sizeof options);
    options.address = &address;
    options.peerCount = CLIENTS;
    options.flags = ENET_RS_HOST_REUSE_PORT;
    for (i = 0; i < SHARDS; ++i) {
        shards[i].host = enet_rs_host_create(&options);
        CHECK(shards[i].host != NULL);
        if (i == 0) {
            CHECK(enet_rs_host_get_address(shards[0].host, &bound) == 0);
            address.port = bound.port;
        }
        CHECK(shards[i].host->address.port == address.port);
    }
    for (i = 0; i < SHARDS; ++i)
        CHECK(pthread_create(&shards[i].thread, NULL, serve, &shards[i]) == 0);

    enet_address_set_host_ip(&server, "127.0.0.1");
    server.port = address.port;
    for (i = 0; i < CLIENTS; ++i) {
        clients[i] = enet_host_create(NULL, 1, 1, 0, 0);
        CHECK(clients[i] != NULL);
        CHECK(enet_host_connect(clients[i], &server, 1, 0) != NULL);
        echoed[i] = connected[i] = 0;
    }
    for (round = 0; round < 3000 && done < CLIENTS; ++round) {
        for (i = 0; i < CLIENTS; ++i) {
            ENetEvent event;
            while (enet_host_service(clients[i], &event, 0) > 0) {
                if (event.type == ENET_EVENT_TYPE_CONNECT) {
                    char text[32];
                    int length = snprintf(text, sizeof text, "client %d", i);
                    connected[i] = 1;
                    CHECK(enet_peer_send(event.peer, 0,
                                         enet_packet_create(text, (size_t) length + 1,
                                                            ENET_PACKET_FLAG_RELIABLE))
                          == 0);
                } else if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                    char text[32];
                    snprintf(text, sizeof text, "client %d", i);
                    CHECK(strcmp((const char *) event.packet->data, text) == 0);
                    echoed[i] = 1;
                    ++done;
                    enet_packet_destroy(event.packet);
                }
            }
        }
        {
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
    }
    pthread_mutex_lock(&lock);
    stop = 1;
    pthread_mutex_unlock(&lock);
    for (i = 0; i < SHARDS; ++i)
        CHECK(pthread_join(shards[i].thread, NULL) == 0);

    for (i = 0; i < CLIENTS; ++i) {
        CHECK(connected[i] && echoed[i]);
        enet_host_destroy(clients[i]);
    }
    for (i = 0; i < SHARDS; ++i) {
        printf("shard %d: %d clients\n", i, shards[i].connects);
        CHECK(shards[i].send_failures == 0);
        total += shards[i].connects;
        busy_shards += shards[i].connects > 0;
        enet_host_destroy(shards[i].host);
    }
    /* Each client connected once, to one shard; with 30 source ports all
     * landing on one shard of three would happen once in 3^29. */
    CHECK(total == CLIENTS);
    CHECK(busy_shards >= 2);
    enet_deinitialize();
    if (failures)
        printf("%d checks failed\n", failures);
    return failures != 0;
}
