/*
 * ext_sender.c: thread-safe sending from C. A server thread runs
 * enet_host_service while four threads queue reliable packets for one
 * client through an ENetRsSender (enet_rs_sender_send), and a fifth
 * queues broadcasts; the client, on the main thread, receives every
 * packet once, each thread's in order. CTest also runs this program built
 * with ThreadSanitizer (ext_sender_tsan), which watches the packets cross
 * from the sender threads to the service thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#include "hardening.h"

#define SENDERS 4
#define PER_SENDER 300
#define BROADCASTS 50

static ENetHost *server;
static ENetRsSender *sender;
static ENetRsPeerHandle client_handle;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int stop;          /* under `lock` */
static int refused;       /* under `lock` */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int stopping(void)
{
    int value;
    pthread_mutex_lock(&lock);
    value = stop;
    pthread_mutex_unlock(&lock);
    return value;
}

static void count_refusal(void)
{
    pthread_mutex_lock(&lock);
    ++refused;
    pthread_mutex_unlock(&lock);
}

static void *serve(void *unused)
{
    ENetEvent event;
    (void) unused;
    while (!stopping())
        while (enet_host_service(server, &event, 50) > 0)
            if (event.type == ENET_EVENT_TYPE_RECEIVE)
                enet_packet_destroy(event.packet);
    return NULL;
}

static void *send_many(void *argument)
{
    int thread_number = (int) (size_t) argument, sequence;
    for (sequence = 0; sequence < PER_SENDER; ++sequence) {
        unsigned char bytes[8] = {'s', (unsigned char) thread_number};
        ENetPacket *packet;
        memcpy(bytes + 4, &sequence, sizeof sequence);
        packet = enet_packet_create(bytes, sizeof bytes, ENET_PACKET_FLAG_RELIABLE);
        if (enet_rs_sender_send(sender, client_handle, 0, packet) != 0) {
            enet_packet_destroy(packet);
            count_refusal();
        }
    }
    return NULL;
}

static void *broadcast_some(void *unused)
{
    int i;
    (void) unused;
    for (i = 0; i < BROADCASTS; ++i) {
        unsigned char bytes[8] = {'b'};
        ENetPacket *packet;
        memcpy(bytes + 4, &i, sizeof i);
        packet = enet_packet_create(bytes, sizeof bytes, ENET_PACKET_FLAG_RELIABLE);
        if (enet_rs_sender_broadcast(sender, 1, packet) != 0) {
            enet_packet_destroy(packet);
            count_refusal();
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t service_thread, threads[SENDERS + 1];
    int next[SENDERS] = {0}, next_broadcast = 0, received = 0, round, i;
    ENetAddress address;
    ENetHost *client;
    ENetPeer *server_peer = NULL;
    ENetEvent event;
    double deadline;

    CHECK(enet_initialize() == 0);
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 2, 2, 0, 0);
    client = enet_host_create(NULL, 1, 2, 0, 0);
    CHECK(server != NULL && client != NULL);
    address.port = server->address.port;
    CHECK(enet_host_connect(client, &address, 2, 0) != NULL);
    for (round = 0; round < 5000 && (server_peer == NULL || client->peers[0].state
                                                               != ENET_PEER_STATE_CONNECTED);
         ++round) {
        if (enet_host_service(server, &event, 1) > 0 && event.type == ENET_EVENT_TYPE_CONNECT)
            server_peer = event.peer;
        enet_host_service(client, &event, 0);
    }
    CHECK(server_peer != NULL);

    /* Refusals: NULL arguments, a free slot's handle. */
    CHECK(enet_rs_host_sender(NULL) == NULL);
    CHECK(enet_rs_sender_send(NULL, client_handle, 0, NULL) == -1);
    CHECK(enet_rs_peer_handle(&server->peers[1]).generation == 0);

    sender = enet_rs_host_sender(server);
    CHECK(sender != NULL);
    client_handle = enet_rs_peer_handle(server_peer);
    CHECK(client_handle.generation != 0);
    CHECK(enet_rs_sender_send(sender, enet_rs_peer_handle(&server->peers[1]), 0, NULL) == -1);

    CHECK(pthread_create(&service_thread, NULL, serve, NULL) == 0);
    for (i = 0; i < SENDERS; ++i)
        CHECK(pthread_create(&threads[i], NULL, send_many, (void *) (size_t) i) == 0);
    CHECK(pthread_create(&threads[SENDERS], NULL, broadcast_some, NULL) == 0);

    /* At most a minute: valgrind runs the threads one at a time. */
    deadline = now_seconds() + 60;
    while (now_seconds() < deadline && received < SENDERS * PER_SENDER + BROADCASTS) {
        while (enet_host_service(client, &event, 1) > 0) {
            int number;
            if (event.type != ENET_EVENT_TYPE_RECEIVE)
                continue;
            memcpy(&number, event.packet->data + 4, sizeof number);
            if (event.packet->data[0] == 's') {
                int thread_number = event.packet->data[1];
                CHECK(event.channelID == 0 && thread_number < SENDERS);
                CHECK(number == next[thread_number]);
                next[thread_number] = number + 1;
            } else {
                CHECK(event.channelID == 1 && number == next_broadcast);
                next_broadcast = number + 1;
            }
            ++received;
            enet_packet_destroy(event.packet);
        }
    }
    for (i = 0; i <= SENDERS; ++i)
        CHECK(pthread_join(threads[i], NULL) == 0);
    pthread_mutex_lock(&lock);
    stop = 1;
    pthread_mutex_unlock(&lock);
    CHECK(pthread_join(service_thread, NULL) == 0);

    CHECK(refused == 0);
    CHECK(received == SENDERS * PER_SENDER + BROADCASTS);
    for (i = 0; i < SENDERS; ++i)
        CHECK(next[i] == PER_SENDER);
    CHECK(next_broadcast == BROADCASTS);

    enet_rs_sender_destroy(sender);
    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    if (failures)
        printf("%d checks failed\n", failures);
    return failures != 0;
}
