/* A program built the MSVC way, with enet.lib: compiled by clang for
 * x86_64-pc-windows-msvc against the SDK's headers with ENET_DLL (so MSVC's
 * dllimport rules apply), linked by lld-link with no C runtime and no
 * default libraries, just the SDK's lib/enet.lib and a kernel32.lib for
 * ExitProcess. Run under wine, it loads enet.dll and does real work in one
 * process: a server host and a client host on 127.0.0.1, a connection
 * (its data checked), one reliable packet each way (bytes checked), and a
 * graceful disconnect (its data checked). The exit status says which step
 * failed; 0 means all passed.
 *
 * Without a C runtime there is no printf, memcmp or memset: bytes are
 * compared by hand, and locals are assigned field by field. */
#include <enet/enet.h>

__declspec(dllimport) void __stdcall ExitProcess(unsigned int code);

enum failure {
    PASSED = 0,
    NO_INITIALIZE = 10,
    WRONG_VERSION,
    NO_SERVER,
    NO_CLIENT,
    NO_PEER,
    BAD_CONNECT_DATA,
    NO_PACKET,
    BAD_REQUEST,
    BAD_REPLY,
    SEND_FAILED,
    BAD_DISCONNECT_DATA,
    TIMED_OUT
};

#define CONNECT_DATA 0x4D53u    /* "MS" */
#define DISCONNECT_DATA 0x6C6Cu /* "ll" */

static const char request[] = "request from an MSVC-linked program";
static const char reply[] = "reply from the server host";

static int same_bytes(const ENetPacket *packet, const char *text, size_t length)
{
    size_t i;
    if (packet->dataLength != length)
        return 0;
    for (i = 0; i < length; ++i)
        if (packet->data[i] != (enet_uint8) text[i])
            return 0;
    return 1;
}

static enum failure run(void)
{
    ENetAddress address;
    ENetHost *server, *client;
    ENetPeer *peer;
    ENetEvent event;
    ENetPacket *packet;
    int round, connected = 0, replied = 0, disconnected = 0;
    enum failure result = TIMED_OUT;

    if (enet_initialize() != 0)
        return NO_INITIALIZE;
    if (enet_linked_version() != ENET_VERSION_CREATE(1, 3, 17))
        return WRONG_VERSION;

    enet_address_set_host_ip(&address, "127.0.0.1");
    address.port = 0;
    server = enet_host_create(&address, 1, 1, 0, 0);
    if (server == NULL)
        return NO_SERVER;
    client = enet_host_create(NULL, 1, 1, 0, 0);
    if (client == NULL)
        return NO_CLIENT;
    address.port = server->address.port;
    peer = enet_host_connect(client, &address, 1, CONNECT_DATA);
    if (peer == NULL)
        return NO_PEER;

    /* At most 2000 rounds of two 5 ms waits: about 20 s. */
    for (round = 0; round < 2000 && !disconnected; ++round) {
        while (enet_host_service(server, &event, 5) > 0) {
            if (event.type == ENET_EVENT_TYPE_CONNECT && event.data != CONNECT_DATA)
                return BAD_CONNECT_DATA;
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                int good = same_bytes(event.packet, request, sizeof request);
                enet_packet_destroy(event.packet);
                if (!good)
                    return BAD_REQUEST;
                packet = enet_packet_create(reply, sizeof reply, ENET_PACKET_FLAG_RELIABLE);
                if (packet == NULL || enet_peer_send(event.peer, 0, packet) != 0)
                    return SEND_FAILED;
            }
            if (event.type == ENET_EVENT_TYPE_DISCONNECT) {
                if (event.data != DISCONNECT_DATA)
                    return BAD_DISCONNECT_DATA;
                disconnected = 1;
            }
        }
        while (enet_host_service(client, &event, 5) > 0) {
            if (event.type == ENET_EVENT_TYPE_CONNECT && !connected) {
                connected = 1;
                packet = enet_packet_create(request, sizeof request, ENET_PACKET_FLAG_RELIABLE);
                if (packet == NULL || enet_peer_send(peer, 0, packet) != 0)
                    return SEND_FAILED;
            }
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                int good = same_bytes(event.packet, reply, sizeof reply);
                enet_packet_destroy(event.packet);
                if (!good)
                    return BAD_REPLY;
                replied = 1;
                enet_peer_disconnect(peer, DISCONNECT_DATA);
            }
        }
    }
    if (disconnected)
        result = replied ? PASSED : NO_PACKET;
    enet_host_destroy(client);
    enet_host_destroy(server);
    enet_deinitialize();
    return result;
}

void __cdecl inproc_start(void)
{
    ExitProcess((unsigned int) run());
}
