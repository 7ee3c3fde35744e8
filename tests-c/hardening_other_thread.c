/* Calls on a host while another thread is inside it.
 *
 * One thread at a time per host is ENet's rule; a program that breaks it
 * makes stock ENet work on a host from two threads at once. Ours refuses
 * the second thread's calls instead: each gets the failure value its
 * documentation gives, and the host is left as it was. (Ours only: on
 * stock this program would be a data race.)
 *
 * The server's intercept holds the service thread inside the host while
 * the main thread makes its calls, then lets it go; afterwards the same
 * calls work again. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <enet/enet.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "hardening.h"

static ENetHost *server, *client;
static ENetPeer *server_peer;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
/* Set by the intercept once it runs; cleared by the main thread when its
 * calls are made. */
static int inside, released;
static int service_result = 99;

/* Waits on `changed` until *flag is set, at most 5 s; whether it was. */
static int wait_for(int *flag)
{
    struct timespec until;
    int result = 0;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&lock);
    while (!*flag && result == 0)
        result = pthread_cond_timedwait(&changed, &lock, &until);
    result = *flag;
    pthread_mutex_unlock(&lock);
    return result;
}

static void set(int *flag)
{
    pthread_mutex_lock(&lock);
    *flag = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static int ENET_CALLBACK intercept(ENetHost *host, ENetEvent *event)
{
    (void) host;
    (void) event;
    if (!inside) {
        set(&inside);
        wait_for(&released);
    }
    return 0;
}

static void *service_thread(void *unused)
{
    ENetEvent event;
    (void) unused;
    /* Long enough for the client's CONNECT to arrive and run the
     * intercept; returns once it has. */
    service_result = enet_host_service(server, &event, 3000);
    return NULL;
}

int main(void)
{
    ENetAddress address, nowhere;
    ENetEvent event;
    ENetPacket *packet;
    pthread_t thread;

    CHECK(enet_initialize() == 0);
    memset(&address, 0, sizeof address);
    CHECK(enet_address_set_host_ip(&address, "127.0.0.1") == 0);
    address.port = 0;
    server = enet_host_create(&address, 2, 1, 0, 0);
    client = enet_host_create(NULL, 1, 1, 0, 0);
    CHECK(server != NULL && client != NULL);
    if (server == NULL || client == NULL)
        return 1;
    server->intercept = intercept;
    server_peer = &server->peers[0];
    address.port = server->address.port;
    nowhere.host = ENET_HOST_ANY;
    nowhere.port = 9;

    CHECK(enet_host_connect(client, &address, 1, 0) != NULL);
    enet_host_flush(client);
    CHECK(pthread_create(&thread, NULL, service_thread, NULL) == 0);
    CHECK(wait_for(&inside));

    /* The service thread is inside the server: every call on it or its
     * peers is refused. */
    packet = enet_packet_create("x", 2, ENET_PACKET_FLAG_RELIABLE);
    CHECK(enet_host_service(server, &event, 0) == -1);
    CHECK(enet_host_check_events(server, &event) == -1);
    CHECK(enet_host_connect(server, &nowhere, 1, 0) == NULL);
    CHECK(enet_host_compress_with_range_coder(server) == -1);
    CHECK(enet_peer_send(server_peer, 0, packet) == -1);
    CHECK(packet->referenceCount == 0);
    CHECK(enet_peer_receive(server_peer, NULL) == NULL);
    enet_host_flush(server);
    enet_host_broadcast(server, 0, packet); /* refused: the packet stays ours */
    CHECK(packet->referenceCount == 0);
    enet_peer_reset(server_peer);
    enet_host_destroy(server); /* ignored: the host lives on */
    /* Another host is an ordinary call. */
    CHECK(enet_host_check_events(client, &event) == 0);

    enet_packet_destroy(packet);

    set(&released);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(service_result == 0);

    /* Out of the host again: the calls work. */
    CHECK(enet_host_check_events(server, &event) == 0);
    CHECK(enet_host_compress_with_range_coder(server) == 0);
    enet_host_destroy(server);
    enet_host_destroy(client);
    enet_deinitialize();
    if (failures == 0)
        printf("calls from another thread: refused while inside, ordinary after\n");
    return failures != 0;
}
