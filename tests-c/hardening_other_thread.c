/* Calls on a host while another thread is inside it.
 *
 * One thread at a time per host is ENet's rule. A program that breaks it
 * (a call from a second thread while the first waits inside
 * enet_host_service) gets what it gets on stock: the call goes ahead. What
 * ours adds must survive it: the first thread's mark on the host stays,
 * so calls from the host's own callbacks on the first thread are still
 * refused afterwards, and enet_host_destroy, which would free the host
 * under the first thread, does nothing. (Ours only.)
 *
 * The server's intercept holds the service thread inside the host while
 * the main thread makes its calls, then makes a call of its own. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <enet/enet.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "hardening.h"

static ENetHost *server, *client;

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

/* What the intercept's own call on its host returned, after the main
 * thread's calls. */
static int callback_check_events = 99;

static int ENET_CALLBACK intercept(ENetHost *host, ENetEvent *event)
{
    ENetEvent ignored;
    (void) event;
    if (!inside) {
        set(&inside);
        wait_for(&released);
        callback_check_events = enet_host_check_events(host, &ignored);
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
    ENetAddress address;
    ENetEvent event;
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
    address.port = server->address.port;

    CHECK(enet_host_connect(client, &address, 1, 0) != NULL);
    enet_host_flush(client);
    CHECK(pthread_create(&thread, NULL, service_thread, NULL) == 0);
    CHECK(wait_for(&inside));

    /* The service thread is inside the server (and waits): a call from
     * here goes ahead, as on stock; destroying the host does nothing. */
    CHECK(enet_host_check_events(server, &event) == 0);
    enet_host_destroy(server);
    CHECK(server->peerCount == 2);
    /* Another host is an ordinary call. */
    CHECK(enet_host_check_events(client, &event) == 0);

    set(&released);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(service_result == 0);
    /* The service thread's mark outlived the main thread's calls: its
     * intercept's call on its own host was refused. */
    CHECK(callback_check_events == -1);

    /* Out of the host again: the calls work. */
    CHECK(enet_host_check_events(server, &event) == 0);
    CHECK(enet_host_compress_with_range_coder(server) == 0);
    enet_host_destroy(server);
    enet_host_destroy(client);
    enet_deinitialize();
    if (failures == 0)
        printf("a call from another thread goes ahead; the mark and the host survive it\n");
    return failures != 0;
}
