/*
 * wait_handle.c: a host's wait handle on Windows, a WinSock event
 * (enet_rs_host_get_wait_handle). Quiet while nothing waits; signalled by
 * a datagram and by a thread-safe sender's request; quiet again once
 * enet_rs_host_next_deadline_ms rearmed it; and a host that left datagrams
 * on its socket (more than one service call reads) is told so by a
 * deadline of 0, as WinSock signals input once until the next receive.
 * Built and run under wine by run_programs.sh.
 */
#include <enet/enet.h>
#include <enet/enet_rs.h>
#include <stdio.h>

#include "../hardening.h"

static ENetRsSender *sender;

static DWORD WINAPI broadcast_later(LPVOID unused)
{
    ENetPacket *packet = enet_packet_create("x", 1, ENET_PACKET_FLAG_RELIABLE);
    (void) unused;
    Sleep(50);
    if (enet_rs_sender_broadcast(sender, 0, packet) != 0)
        enet_packet_destroy(packet);
    return 0;
}

/* One junk datagram to `to` through ENet's own socket calls (so the
   program needs no WinSock import library of its own). */
static void send_junk(ENetSocket sock, const ENetAddress *to)
{
    ENetBuffer buffer;
    buffer.data = (void *) "not enet";
    buffer.dataLength = 8;
    enet_socket_send(sock, to, &buffer, 1);
}

static void drain(ENetHost *host)
{
    ENetEvent event;
    while (enet_host_service(host, &event, 0) > 0)
        if (event.type == ENET_EVENT_TYPE_RECEIVE)
            enet_packet_destroy(event.packet);
}

/* Whether the handle is signalled within `ms`. */
static int signalled(ENetRsWaitHandle handle, DWORD ms)
{
    return WaitForSingleObject((HANDLE) handle, ms) == WAIT_OBJECT_0;
}

int main(void)
{
    ENetAddress address;
    ENetHost *host;
    ENetRsWaitHandle handle;
    ENetAddress to;
    ENetSocket sock;
    HANDLE thread;
    int i;

    if (enet_initialize() != 0)
        return 1;
    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    host = enet_host_create(&address, 4, 1, 0, 0);
    CHECK(host != NULL);
    handle = enet_rs_host_get_wait_handle(host);
    CHECK(handle != ENET_RS_NO_WAIT_HANDLE);
    CHECK(enet_rs_host_get_wait_handle(host) == handle);
    CHECK(enet_rs_host_next_deadline_ms(host) == ENET_RS_NO_DEADLINE);
    CHECK(!signalled(handle, 50));

    sock = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    to = host->address;

    /* A datagram signals it; serviced and rearmed, it is quiet. */
    send_junk(sock, &to);
    CHECK(signalled(handle, 2000));
    drain(host);
    CHECK(host->totalReceivedPackets == 1);
    CHECK(enet_rs_host_next_deadline_ms(host) == ENET_RS_NO_DEADLINE);
    CHECK(!signalled(handle, 50));

    /* A sender's request from another thread signals it. */
    sender = enet_rs_host_sender(host);
    CHECK(sender != NULL);
    thread = CreateThread(NULL, 0, broadcast_later, NULL, 0, NULL);
    CHECK(signalled(handle, 2000));
    WaitForSingleObject(thread, INFINITE);
    CloseHandle(thread);
    drain(host);
    CHECK(enet_rs_host_next_deadline_ms(host) == ENET_RS_NO_DEADLINE);
    CHECK(!signalled(handle, 50));

    /* More datagrams than one service call reads (256): the deadline
       says the rest wait, though the event was cleared. */
    for (i = 0; i < 300; ++i)
        send_junk(sock, &to);
    Sleep(100);
    CHECK(signalled(handle, 2000));
    {
        ENetEvent event;
        CHECK(enet_host_service(host, &event, 0) == 0);
    }
    CHECK(enet_rs_host_next_deadline_ms(host) == 0);
    drain(host);
    CHECK(host->totalReceivedPackets == 301);
    CHECK(enet_rs_host_next_deadline_ms(host) == ENET_RS_NO_DEADLINE);
    CHECK(!signalled(handle, 50));

    enet_socket_destroy(sock);
    enet_rs_sender_destroy(sender);
    enet_host_destroy(host);
    enet_deinitialize();
    if (failures != 0) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("wait_handle: all checks passed\n");
    return 0;
}
