/* ENet hosts in a program's own epoll loop (Linux; enet/enet_rs.h).
 *
 * A server and a client run in one process and one thread, with no
 * thread and no polling of their own: each host's wait handle
 * (enet_rs_host_get_wait_handle) sits in the program's epoll set beside
 * its other descriptors (here a timerfd that ticks every 100 ms, as a game
 * loop's frame timer would), and the loop sleeps until one is ready or
 * the sooner host deadline (enet_rs_host_next_deadline_ms) comes. Then it
 * services each host without waiting: enet_host_service(host, &event, 0).
 *
 * The client sends a numbered line on each tick; the server echoes it
 * back; after ten echoes the client disconnects and the program ends.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <enet/enet.h>
#include <enet/enet_rs.h>

#define LINES 10

/* What an epoll event's data names. */
enum source { SERVER, CLIENT, TICK };

static ENetPeer *client_peer;
static int echoes, done;

/* The sooner of two deadlines, as epoll_wait's timeout (-1: none). */
static int epoll_timeout(uint32_t a, uint32_t b)
{
    uint32_t sooner = a < b ? a : b;
    if (sooner == ENET_RS_NO_DEADLINE)
        return -1;
    return sooner > INT32_MAX ? INT32_MAX : (int) sooner;
}

static void serve(ENetHost *host, int is_server)
{
    ENetEvent event;
    while (enet_host_service(host, &event, 0) > 0) {
        switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT:
            printf("[%s] connected\n", is_server ? "server" : "client");
            break;
        case ENET_EVENT_TYPE_RECEIVE:
            if (is_server) {
                /* Echo it; the send is queued, and the host's next
                   deadline is 0 until a service call sends it. */
                enet_peer_send(event.peer, 0,
                               enet_packet_create(event.packet->data, event.packet->dataLength,
                                                  ENET_PACKET_FLAG_RELIABLE));
            } else {
                printf("[client] echo: %.*s\n", (int) event.packet->dataLength,
                       (const char *) event.packet->data);
                if (++echoes == LINES)
                    enet_peer_disconnect(event.peer, 0);
            }
            enet_packet_destroy(event.packet);
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            printf("[%s] disconnected\n", is_server ? "server" : "client");
            if (is_server)
                done = 1;
            break;
        default:
            break;
        }
    }
}

static int watch(int epoll, int fd, enum source source)
{
    struct epoll_event interest;
    memset(&interest, 0, sizeof interest);
    interest.events = EPOLLIN;
    interest.data.u32 = source;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &interest);
}

int main(void)
{
    ENetAddress address;
    ENetHost *server, *client;
    struct itimerspec every_100ms = {{0, 100000000L}, {0, 100000000L}};
    int epoll, tick, sent = 0;

    if (enet_initialize() != 0)
        return 1;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 4, 1, 0, 0);
    client = enet_host_create(NULL, 1, 1, 0, 0);
    if (server == NULL || client == NULL)
        return 1;
    address.port = server->address.port;
    client_peer = enet_host_connect(client, &address, 1, 0);

    epoll = epoll_create1(EPOLL_CLOEXEC);
    tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    timerfd_settime(tick, 0, &every_100ms, NULL);
    if (watch(epoll, enet_rs_host_get_wait_handle(server), SERVER) != 0
        || watch(epoll, enet_rs_host_get_wait_handle(client), CLIENT) != 0
        || watch(epoll, tick, TICK) != 0) {
        perror("epoll_ctl");
        return 1;
    }

    while (!done) {
        struct epoll_event ready[3];
        /* Asked before every wait: it also clears what the last wake left
           signalled on the handle. */
        int timeout = epoll_timeout(enet_rs_host_next_deadline_ms(server),
                                    enet_rs_host_next_deadline_ms(client));
        int count = epoll_wait(epoll, ready, 3, timeout), i;
        for (i = 0; i < count; ++i)
            if (ready[i].data.u32 == TICK) {
                uint64_t ticks;
                if (read(tick, &ticks, sizeof ticks) > 0 && sent < LINES
                    && client_peer->state == ENET_PEER_STATE_CONNECTED) {
                    char line[32];
                    int length = snprintf(line, sizeof line, "line %d", ++sent);
                    enet_peer_send(client_peer, 0,
                                   enet_packet_create(line, (size_t) length,
                                                      ENET_PACKET_FLAG_RELIABLE));
                }
            }
        /* Whatever woke the loop (a handle, the tick, a deadline), both
           hosts are serviced: a service call with nothing to do returns
           at once. */
        serve(server, 1);
        serve(client, 0);
    }
    printf("%d echoes\n", echoes);
    close(tick);
    close(epoll);
    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    return echoes == LINES ? 0 : 1;
}
