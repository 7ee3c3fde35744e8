/*
 * sender_bench.c: sending from several threads into one host, for
 * bench/sender.sh. Two processes over 127.0.0.1:
 *
 *   sender_bench receive [--messages N]
 *       a host that prints "PORT p", takes one connection, counts
 *       packets until N arrived, then prints "received=N seconds=S" (first
 *       to last packet) and disconnects the sender.
 *   sender_bench send --port P --mode queue|mutex [--threads T]
 *                [--messages N] [--size B]
 *       connects, then T threads send N reliable packets of B bytes in
 *       all while one service thread runs the host:
 *         queue  enet_rs_sender_send from each thread (enet/enet_rs.h,
 *                looked up with dlsym, so the program also loads on stock)
 *         mutex  the usual workaround: one mutex around enet_peer_send and
 *                around enet_host_service (which then never waits inside
 *                the lock: it services with timeout 0 and waits for the
 *                socket outside it)
 *       prints "calls_per_s=..." (the send calls of all threads, from
 *       their start to the last one's end).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void die(const char *message)
{
    fprintf(stderr, "sender_bench: %s\n", message);
    exit(1);
}

static int receive(long messages)
{
    ENetAddress address;
    ENetHost *host;
    ENetEvent event;
    long received = 0;
    double first = 0, last = 0, deadline;

    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    host = enet_host_create(&address, 1, 2, 0, 0);
    if (host == NULL)
        die("cannot create the receiving host");
    printf("PORT %u\n", host->address.port);
    fflush(stdout);
    deadline = now_seconds() + 120;
    while (received < messages && now_seconds() < deadline) {
        if (enet_host_service(host, &event, 10) <= 0)
            continue;
        if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            if (received++ == 0)
                first = now_seconds();
            last = now_seconds();
            enet_packet_destroy(event.packet);
        }
    }
    printf("received=%ld seconds=%.4f delivered_per_s=%.0f\n", received, last - first,
           last > first ? (double) received / (last - first) : 0.0);
    if (host->peers[0].state == ENET_PEER_STATE_CONNECTED) {
        enet_peer_disconnect(&host->peers[0], 0);
        for (deadline = now_seconds() + 2; now_seconds() < deadline;)
            if (enet_host_service(host, &event, 10) > 0
                && event.type == ENET_EVENT_TYPE_DISCONNECT)
                break;
    }
    enet_host_destroy(host);
    return received == messages ? 0 : 1;
}

/* The sending side's shared state. */
static ENetHost *host;
static ENetPeer *peer;
static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static int use_queue;
static long per_thread;
static size_t size;
static ENetRsSender *sender;
static ENetRsPeerHandle handle;
static int (*queue_send)(ENetRsSender *, ENetRsPeerHandle, enet_uint8, ENetPacket *);
static int done; /* under host_lock */

static void *send_many(void *unused)
{
    long i;
    unsigned char *bytes = calloc(1, size);
    (void) unused;
    for (i = 0; i < per_thread; ++i) {
        ENetPacket *packet = enet_packet_create(bytes, size, ENET_PACKET_FLAG_RELIABLE);
        if (use_queue) {
            if (queue_send(sender, handle, 0, packet) != 0)
                die("a queued send was refused");
        } else {
            pthread_mutex_lock(&host_lock);
            if (enet_peer_send(peer, 0, packet) != 0)
                die("enet_peer_send failed");
            pthread_mutex_unlock(&host_lock);
        }
    }
    free(bytes);
    return NULL;
}

static int is_done(void)
{
    int value;
    pthread_mutex_lock(&host_lock);
    value = done;
    pthread_mutex_unlock(&host_lock);
    return value;
}

static void *serve(void *unused)
{
    ENetEvent event;
    (void) unused;
    while (!is_done()) {
        int disconnected = 0;
        if (use_queue) {
            while (enet_host_service(host, &event, 100) > 0)
                disconnected |= event.type == ENET_EVENT_TYPE_DISCONNECT;
        } else {
            pthread_mutex_lock(&host_lock);
            while (enet_host_service(host, &event, 0) > 0)
                disconnected |= event.type == ENET_EVENT_TYPE_DISCONNECT;
            pthread_mutex_unlock(&host_lock);
            {
                enet_uint32 condition = ENET_SOCKET_WAIT_RECEIVE;
                enet_socket_wait(host->socket, &condition, 1);
            }
        }
        if (disconnected) {
            pthread_mutex_lock(&host_lock);
            done = 1;
            pthread_mutex_unlock(&host_lock);
        }
    }
    return NULL;
}

static int send_side(int port, const char *mode, int threads, long messages)
{
    pthread_t service_thread, *senders;
    ENetAddress address;
    ENetEvent event;
    double start, deadline;
    int i;

    use_queue = strcmp(mode, "queue") == 0;
    if (!use_queue && strcmp(mode, "mutex") != 0)
        die("--mode is queue or mutex");
    per_thread = messages / threads;
    host = enet_host_create(NULL, 1, 2, 0, 0);
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = (enet_uint16) port;
    peer = enet_host_connect(host, &address, 2, 0);
    if (host == NULL || peer == NULL)
        die("cannot connect");
    for (deadline = now_seconds() + 5; peer->state != ENET_PEER_STATE_CONNECTED;)
        if (enet_host_service(host, &event, 10) < 0 || now_seconds() > deadline)
            die("no connection");
    if (use_queue) {
        ENetRsSender *(*host_sender)(ENetHost *) =
            (ENetRsSender * (*) (ENetHost *)) dlsym(RTLD_DEFAULT, "enet_rs_host_sender");
        ENetRsPeerHandle (*peer_handle)(ENetPeer *) =
            (ENetRsPeerHandle(*)(ENetPeer *)) dlsym(RTLD_DEFAULT, "enet_rs_peer_handle");
        queue_send = (int (*)(ENetRsSender *, ENetRsPeerHandle, enet_uint8, ENetPacket *)) dlsym(
            RTLD_DEFAULT, "enet_rs_sender_send");
        if (host_sender == NULL || peer_handle == NULL || queue_send == NULL)
            die("this library has no thread-safe sending (enet_rs_host_sender)");
        sender = host_sender(host);
        handle = peer_handle(peer);
    }
    senders = calloc((size_t) threads, sizeof *senders);
    pthread_create(&service_thread, NULL, serve, NULL);
    start = now_seconds();
    for (i = 0; i < threads; ++i)
        pthread_create(&senders[i], NULL, send_many, NULL);
    for (i = 0; i < threads; ++i)
        pthread_join(senders[i], NULL);
    printf("calls_per_s=%.0f\n", (double) (per_thread * threads) / (now_seconds() - start));
    fflush(stdout);
    pthread_join(service_thread, NULL);
    free(senders);
    enet_host_destroy(host);
    return 0;
}

int main(int argc, char **argv)
{
    long messages = 200000, size_arg = 64;
    int port = 0, threads = 4, i;
    const char *mode = "queue";
    if (argc < 2)
        die("usage: sender_bench receive|send [options]");
    for (i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--messages") == 0)
            messages = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--port") == 0)
            port = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--mode") == 0)
            mode = argv[i + 1];
        else if (strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--size") == 0)
            size_arg = atol(argv[i + 1]);
        else
            die("unknown option");
    }
    if (messages < 1 || threads < 1 || size_arg < 1)
        die("bad numbers");
    size = (size_t) size_arg;
    if (enet_initialize() != 0)
        die("enet_initialize failed");
    if (strcmp(argv[1], "receive") == 0)
        return receive(messages);
    if (strcmp(argv[1], "send") == 0 && port > 0)
        return send_side(port, mode, threads, (messages / threads) * threads);
    die("usage: sender_bench receive|send --port P [options]");
    return 2;
}
