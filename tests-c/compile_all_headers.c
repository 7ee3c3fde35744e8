/*
 * compile_all_headers.c: every public ENet header, compiled the way real
 * programs use it.
 *
 * Builds (and must stay warning-free) three ways:
 *   gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -Iinclude -c tests-c/compile_all_headers.c
 *   gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -c tests-c/compile_all_headers.c      (stock headers)
 *   g++ -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -Iinclude -c tests-c/compile_all_headers.c
 * Linked (-lenet), it also runs: it evaluates every function-like macro and
 * exits 0 when all of them give the values stock ENet's macros give.
 *
 * On Windows (_WIN32) the platform header is win32.h and the few values
 * that depend on it (ENetSocket is SOCKET, ENetBuffer is WSABUF-ordered,
 * ENetSocketSet is WinSock's fd_set, and so the head of ENetHost) are
 * stock's as x86_64-w64-mingw32-gcc lays out Debian's stock win32.h; the
 * Linux values stay in the #else branches. tests-c/windows/compile_headers.sh
 * compiles it with mingw-w64, with and without -DENET_DLL.
 *
 * Compiled with -DEXPECT_IDENTITY_1_3_18 against include/1.3.18 (the
 * header set of the 1.3.18 identity), it expects that release's two
 * values instead, ENET_VERSION_PATCH 18 and ENET_HOST_DEFAULT_MTU 1392,
 * and its names for the three fields it renamed in place (see RENAMED_*);
 * every offset and size is the same in both releases.
 *
 * Sizes, offsets and constant values come from
 * shared/reference/layout-1.3.17.txt and consts-1.3.17.txt (measured
 * against stock ENet 1.3.17), and the function pointer types below spell
 * the prototypes of the stock headers, so a header that drifts from stock
 * in a way a program can notice fails to compile here.
 */

/* Programs forward-declare ENet's types by tag before including enet.h. */
struct _ENetHost;
struct _ENetEvent;
typedef struct _ENetPeer ENetPeer;
typedef struct _ENetPacket ENetPacket;
typedef union _ENetProtocol ENetProtocol;

int uses_forward_declarations (ENetPeer * peer, struct _ENetHost * host, ENetPacket * packet);

#include <enet/enet.h>
#ifdef _WIN32
#include <enet/win32.h>
#else
#include <enet/unix.h>
#endif
#include <enet/types.h>
#include <enet/protocol.h>
#include <enet/list.h>
#include <enet/callbacks.h>
#include <enet/time.h>
#include <enet/utility.h>

/* Including everything twice must be harmless (include guards). */
#include <enet/enet.h>
#include <enet/time.h>
#include <enet/utility.h>

#include <stddef.h>

/* ... and may declare them again after including it. */
typedef struct _ENetPeer ENetPeer;
typedef struct _ENetHost ENetHost;
typedef struct _ENetAddress ENetAddress;
typedef struct _ENetPacket ENetPacket;
typedef struct _ENetEvent ENetEvent;
typedef struct _ENetListNode ENetListNode;
typedef struct _ENetList ENetList;
typedef struct _ENetCallbacks ENetCallbacks;
typedef struct _ENetCompressor ENetCompressor;
typedef struct _ENetChannel ENetChannel;
typedef struct _ENetAcknowledgement ENetAcknowledgement;
typedef struct _ENetOutgoingCommand ENetOutgoingCommand;
typedef struct _ENetIncomingCommand ENetIncomingCommand;
typedef struct _ENetProtocolHeader ENetProtocolHeader;
typedef struct _ENetProtocolCommandHeader ENetProtocolCommandHeader;
typedef struct _ENetProtocolAcknowledge ENetProtocolAcknowledge;
typedef struct _ENetProtocolConnect ENetProtocolConnect;
typedef struct _ENetProtocolVerifyConnect ENetProtocolVerifyConnect;
typedef struct _ENetProtocolBandwidthLimit ENetProtocolBandwidthLimit;
typedef struct _ENetProtocolThrottleConfigure ENetProtocolThrottleConfigure;
typedef struct _ENetProtocolDisconnect ENetProtocolDisconnect;
typedef struct _ENetProtocolPing ENetProtocolPing;
typedef struct _ENetProtocolSendReliable ENetProtocolSendReliable;
typedef struct _ENetProtocolSendUnreliable ENetProtocolSendUnreliable;
typedef struct _ENetProtocolSendUnsequenced ENetProtocolSendUnsequenced;
typedef struct _ENetProtocolSendFragment ENetProtocolSendFragment;
typedef union _ENetProtocol ENetProtocol;
typedef enum _ENetSocketType ENetSocketType;
typedef enum _ENetSocketWait ENetSocketWait;
typedef enum _ENetSocketOption ENetSocketOption;
typedef enum _ENetSocketShutdown ENetSocketShutdown;
typedef enum _ENetPacketFlag ENetPacketFlag;
typedef enum _ENetPeerState ENetPeerState;
typedef enum _ENetPeerFlag ENetPeerFlag;
typedef enum _ENetEventType ENetEventType;
typedef enum _ENetProtocolCommand ENetProtocolCommand;
typedef enum _ENetProtocolFlag ENetProtocolFlag;
typedef enet_uint32 ENetVersion;
#ifdef _WIN32
typedef SOCKET ENetSocket;
#else
typedef int ENetSocket;
#endif
typedef fd_set ENetSocketSet;
typedef ENetListNode * ENetListIterator;
typedef unsigned char enet_uint8;
typedef unsigned short enet_uint16;
typedef unsigned int enet_uint32;

int
uses_forward_declarations (ENetPeer * peer, struct _ENetHost * host, ENetPacket * packet)
{
    return peer -> host == host && packet -> referenceCount == 0;
}

#ifdef __cplusplus
#define CHECK(condition) static_assert (condition, #condition)
#define ALIGNOF(type) alignof (type)
/* Whether two types are the same (C++ has no _Generic). */
template <typename A, typename B> struct same_type { enum { value = 0 }; };
template <typename A> struct same_type <A, A> { enum { value = 1 }; };
#define HAS_TYPE(expression, type) (same_type <decltype (expression), type>::value)
#else
#define CHECK(condition) _Static_assert (condition, #condition)
#define ALIGNOF(type) _Alignof (type)
#define HAS_TYPE(expression, type) _Generic ((expression), type: 1, default: 0)
#endif

/* ---- macros and constants ------------------------------------------ */

/* The two values that tell the releases apart (see the top). */
#ifdef EXPECT_IDENTITY_1_3_18
#define EXPECTED_PATCH 18
#define EXPECTED_VERSION 66322 /* 0x10312 */
#define EXPECTED_DEFAULT_MTU 1392
#else
#define EXPECTED_PATCH 17
#define EXPECTED_VERSION 66321 /* 0x10311 */
#define EXPECTED_DEFAULT_MTU 1400
#endif

/* 1.3.18's names for three internal fields, at 1.3.17's offsets and sizes;
   continueSending (int) became totalQueued (enet_uint32). */
#ifdef EXPECT_IDENTITY_1_3_18
#define RENAMED_ROUND_TRIP_TIMEOUT_LIMIT queueTime
#define RENAMED_SENT_UNRELIABLE_COMMANDS outgoingSendReliableCommands
#define RENAMED_CONTINUE_SENDING totalQueued
#define RENAMED_CONTINUE_SENDING_TYPE enet_uint32
#else
#define RENAMED_ROUND_TRIP_TIMEOUT_LIMIT roundTripTimeoutLimit
#define RENAMED_SENT_UNRELIABLE_COMMANDS sentUnreliableCommands
#define RENAMED_CONTINUE_SENDING continueSending
#define RENAMED_CONTINUE_SENDING_TYPE int
#endif

CHECK (ENET_VERSION == ENET_VERSION_CREATE (1, 3, EXPECTED_PATCH));
CHECK (ENET_VERSION_GET_MAJOR (ENET_VERSION) == ENET_VERSION_MAJOR);
CHECK (ENET_VERSION_GET_MINOR (ENET_VERSION) == ENET_VERSION_MINOR);
CHECK (ENET_VERSION_GET_PATCH (ENET_VERSION) == ENET_VERSION_PATCH);
CHECK (ENET_VERSION_CREATE (2, 255, 7) == 0x2FF07);
CHECK (ENET_VERSION_GET_MAJOR (0x2FF07) == 2 && ENET_VERSION_GET_MINOR (0x2FF07) == 255);
CHECK (ENET_VERSION_GET_PATCH (0x2FF07) == 7 && ENET_VERSION_GET_PATCH (0x103FF) == 255);
/* Wrapping time comparisons, at the edges of ENET_TIME_OVERFLOW. */
CHECK (ENET_TIME_LESS (0xFFFFFFF0U, 5U) && ! ENET_TIME_LESS (5U, 0xFFFFFFF0U));
CHECK (ENET_TIME_LESS (86400000U, 0U) && ! ENET_TIME_LESS (86399999U, 0U));
CHECK (ENET_TIME_GREATER (0U, 86400000U) && ! ENET_TIME_GREATER (0U, 86399999U));
CHECK (ENET_TIME_LESS_EQUAL (7U, 7U) && ! ENET_TIME_LESS_EQUAL (8U, 7U));
CHECK (ENET_TIME_GREATER_EQUAL (7U, 7U) && ! ENET_TIME_GREATER_EQUAL (6U, 7U));
CHECK (ENET_TIME_DIFFERENCE (5U, 0xFFFFFFFBU) == 10 && ENET_TIME_DIFFERENCE (0xFFFFFFFBU, 5U) == 10);
CHECK (ENET_BUFFER_MAXIMUM == 1 + 2 * ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS);
CHECK (ENET_MAX (3, 4) == 4 && ENET_MIN (3, 4) == 3);
CHECK (ENET_DIFFERENCE (3, 10) == 7 && ENET_DIFFERENCE (10, 3) == 7);

/* The C types of the macros agree with stock's. */
CHECK (HAS_TYPE (ENET_HOST_BROADCAST, unsigned int));
CHECK (HAS_TYPE (ENET_HOST_ANY, int));
#ifdef _WIN32
CHECK (HAS_TYPE (ENET_SOCKET_NULL, SOCKET));
#else
CHECK (HAS_TYPE (ENET_SOCKET_NULL, int));
#endif
CHECK (HAS_TYPE (ENET_VERSION, int));
CHECK (HAS_TYPE (ENET_TIME_OVERFLOW, int));
CHECK (HAS_TYPE (ENET_BUFFER_MAXIMUM, int));
#ifndef __cplusplus
/* In C, stock's anonymous-enum constants are ints; ours must be too. */
CHECK (HAS_TYPE (ENET_HOST_DEFAULT_MTU, int));
CHECK (HAS_TYPE (ENET_PEER_PACKET_LOSS_SCALE, int));
CHECK (HAS_TYPE (ENET_HOST_DEFAULT_MAXIMUM_PACKET_SIZE, int));
CHECK (HAS_TYPE (ENET_PROTOCOL_MAXIMUM_MTU, int));
CHECK (HAS_TYPE (ENET_PROTOCOL_MAXIMUM_FRAGMENT_COUNT, int));
CHECK (HAS_TYPE (ENET_PEER_UNSEQUENCED_WINDOW_SIZE, int));
#endif

/* Every constant's value (shared/reference/consts-1.3.17.txt). */
CHECK (ENET_VERSION_MAJOR == 1);
CHECK (ENET_VERSION_MINOR == 3);
CHECK (ENET_VERSION_PATCH == EXPECTED_PATCH);
CHECK (ENET_VERSION == EXPECTED_VERSION);
CHECK (ENET_HOST_ANY == 0);
CHECK (ENET_HOST_BROADCAST == 0xFFFFFFFFU);
CHECK (ENET_PORT_ANY == 0);
#ifdef _WIN32
CHECK (ENET_SOCKET_NULL == ~ (SOCKET) 0);
#else
CHECK (ENET_SOCKET_NULL == -1);
#endif
CHECK (ENET_BUFFER_MAXIMUM == 65);
CHECK (ENET_SOCKET_TYPE_STREAM == 1);
CHECK (ENET_SOCKET_TYPE_DATAGRAM == 2);
CHECK (ENET_SOCKET_WAIT_NONE == 0);
CHECK (ENET_SOCKET_WAIT_SEND == 1);
CHECK (ENET_SOCKET_WAIT_RECEIVE == 2);
CHECK (ENET_SOCKET_WAIT_INTERRUPT == 4);
CHECK (ENET_SOCKOPT_NONBLOCK == 1);
CHECK (ENET_SOCKOPT_BROADCAST == 2);
CHECK (ENET_SOCKOPT_RCVBUF == 3);
CHECK (ENET_SOCKOPT_SNDBUF == 4);
CHECK (ENET_SOCKOPT_REUSEADDR == 5);
CHECK (ENET_SOCKOPT_RCVTIMEO == 6);
CHECK (ENET_SOCKOPT_SNDTIMEO == 7);
CHECK (ENET_SOCKOPT_ERROR == 8);
CHECK (ENET_SOCKOPT_NODELAY == 9);
CHECK (ENET_SOCKET_SHUTDOWN_READ == 0);
CHECK (ENET_SOCKET_SHUTDOWN_WRITE == 1);
CHECK (ENET_SOCKET_SHUTDOWN_READ_WRITE == 2);
CHECK (ENET_PACKET_FLAG_RELIABLE == 1);
CHECK (ENET_PACKET_FLAG_UNSEQUENCED == 2);
CHECK (ENET_PACKET_FLAG_NO_ALLOCATE == 4);
CHECK (ENET_PACKET_FLAG_UNRELIABLE_FRAGMENT == 8);
CHECK (ENET_PACKET_FLAG_SENT == 256);
CHECK (ENET_PEER_STATE_DISCONNECTED == 0);
CHECK (ENET_PEER_STATE_CONNECTING == 1);
CHECK (ENET_PEER_STATE_ACKNOWLEDGING_CONNECT == 2);
CHECK (ENET_PEER_STATE_CONNECTION_PENDING == 3);
CHECK (ENET_PEER_STATE_CONNECTION_SUCCEEDED == 4);
CHECK (ENET_PEER_STATE_CONNECTED == 5);
CHECK (ENET_PEER_STATE_DISCONNECT_LATER == 6);
CHECK (ENET_PEER_STATE_DISCONNECTING == 7);
CHECK (ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT == 8);
CHECK (ENET_PEER_STATE_ZOMBIE == 9);
CHECK (ENET_PEER_FLAG_NEEDS_DISPATCH == 1);
CHECK (ENET_EVENT_TYPE_NONE == 0);
CHECK (ENET_EVENT_TYPE_CONNECT == 1);
CHECK (ENET_EVENT_TYPE_DISCONNECT == 2);
CHECK (ENET_EVENT_TYPE_RECEIVE == 3);
CHECK (ENET_HOST_RECEIVE_BUFFER_SIZE == 262144);
CHECK (ENET_HOST_SEND_BUFFER_SIZE == 262144);
CHECK (ENET_HOST_BANDWIDTH_THROTTLE_INTERVAL == 1000);
CHECK (ENET_HOST_DEFAULT_MTU == EXPECTED_DEFAULT_MTU);
CHECK (ENET_HOST_DEFAULT_MAXIMUM_PACKET_SIZE == 33554432);
CHECK (ENET_HOST_DEFAULT_MAXIMUM_WAITING_DATA == 33554432);
CHECK (ENET_PEER_DEFAULT_ROUND_TRIP_TIME == 500);
CHECK (ENET_PEER_DEFAULT_PACKET_THROTTLE == 32);
CHECK (ENET_PEER_PACKET_THROTTLE_SCALE == 32);
CHECK (ENET_PEER_PACKET_THROTTLE_COUNTER == 7);
CHECK (ENET_PEER_PACKET_THROTTLE_ACCELERATION == 2);
CHECK (ENET_PEER_PACKET_THROTTLE_DECELERATION == 2);
CHECK (ENET_PEER_PACKET_THROTTLE_INTERVAL == 5000);
CHECK (ENET_PEER_PACKET_LOSS_SCALE == 65536);
CHECK (ENET_PEER_PACKET_LOSS_INTERVAL == 10000);
CHECK (ENET_PEER_WINDOW_SIZE_SCALE == 65536);
CHECK (ENET_PEER_TIMEOUT_LIMIT == 32);
CHECK (ENET_PEER_TIMEOUT_MINIMUM == 5000);
CHECK (ENET_PEER_TIMEOUT_MAXIMUM == 30000);
CHECK (ENET_PEER_PING_INTERVAL == 500);
CHECK (ENET_PEER_UNSEQUENCED_WINDOWS == 64);
CHECK (ENET_PEER_UNSEQUENCED_WINDOW_SIZE == 1024);
CHECK (ENET_PEER_FREE_UNSEQUENCED_WINDOWS == 32);
CHECK (ENET_PEER_RELIABLE_WINDOWS == 16);
CHECK (ENET_PEER_RELIABLE_WINDOW_SIZE == 4096);
CHECK (ENET_PEER_FREE_RELIABLE_WINDOWS == 8);
CHECK (ENET_PROTOCOL_MINIMUM_MTU == 576);
CHECK (ENET_PROTOCOL_MAXIMUM_MTU == 4096);
CHECK (ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS == 32);
CHECK (ENET_PROTOCOL_MINIMUM_WINDOW_SIZE == 4096);
CHECK (ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE == 65536);
CHECK (ENET_PROTOCOL_MINIMUM_CHANNEL_COUNT == 1);
CHECK (ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT == 255);
CHECK (ENET_PROTOCOL_MAXIMUM_PEER_ID == 4095);
CHECK (ENET_PROTOCOL_MAXIMUM_FRAGMENT_COUNT == 1048576);
CHECK (ENET_PROTOCOL_COMMAND_NONE == 0);
CHECK (ENET_PROTOCOL_COMMAND_ACKNOWLEDGE == 1);
CHECK (ENET_PROTOCOL_COMMAND_CONNECT == 2);
CHECK (ENET_PROTOCOL_COMMAND_VERIFY_CONNECT == 3);
CHECK (ENET_PROTOCOL_COMMAND_DISCONNECT == 4);
CHECK (ENET_PROTOCOL_COMMAND_PING == 5);
CHECK (ENET_PROTOCOL_COMMAND_SEND_RELIABLE == 6);
CHECK (ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE == 7);
CHECK (ENET_PROTOCOL_COMMAND_SEND_FRAGMENT == 8);
CHECK (ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED == 9);
CHECK (ENET_PROTOCOL_COMMAND_BANDWIDTH_LIMIT == 10);
CHECK (ENET_PROTOCOL_COMMAND_THROTTLE_CONFIGURE == 11);
CHECK (ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT == 12);
CHECK (ENET_PROTOCOL_COMMAND_COUNT == 13);
CHECK (ENET_PROTOCOL_COMMAND_MASK == 15);
CHECK (ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE == 128);
CHECK (ENET_PROTOCOL_COMMAND_FLAG_UNSEQUENCED == 64);
CHECK (ENET_PROTOCOL_HEADER_FLAG_COMPRESSED == 16384);
CHECK (ENET_PROTOCOL_HEADER_FLAG_SENT_TIME == 32768);
CHECK (ENET_PROTOCOL_HEADER_FLAG_MASK == 49152);
CHECK (ENET_PROTOCOL_HEADER_SESSION_MASK == 12288);
CHECK (ENET_PROTOCOL_HEADER_SESSION_SHIFT == 12);
CHECK (ENET_TIME_OVERFLOW == 86400000);

/* ---- layouts (shared/reference/layout-1.3.17.txt) ------------------- */

CHECK (sizeof (ENetAddress) == 8 && ALIGNOF (ENetAddress) == 4);
CHECK (offsetof (ENetAddress, host) == 0 && sizeof (((const ENetAddress *) 0)->host) == 4);
CHECK (offsetof (ENetAddress, port) == 4 && sizeof (((const ENetAddress *) 0)->port) == 2);
CHECK (sizeof (ENetBuffer) == 16 && ALIGNOF (ENetBuffer) == 8);
#ifdef _WIN32
/* WSABUF order: the length first. */
CHECK (offsetof (ENetBuffer, dataLength) == 0 && sizeof (((const ENetBuffer *) 0)->dataLength) == 8);
CHECK (offsetof (ENetBuffer, data) == 8 && sizeof (((const ENetBuffer *) 0)->data) == 8);
#else
CHECK (offsetof (ENetBuffer, data) == 0 && sizeof (((const ENetBuffer *) 0)->data) == 8);
CHECK (offsetof (ENetBuffer, dataLength) == 8 && sizeof (((const ENetBuffer *) 0)->dataLength) == 8);
#endif
CHECK (sizeof (ENetListNode) == 16 && ALIGNOF (ENetListNode) == 8);
CHECK (offsetof (ENetListNode, next) == 0 && sizeof (((const ENetListNode *) 0)->next) == 8);
CHECK (offsetof (ENetListNode, previous) == 8 && sizeof (((const ENetListNode *) 0)->previous) == 8);
CHECK (sizeof (ENetList) == 16 && ALIGNOF (ENetList) == 8);
CHECK (offsetof (ENetList, sentinel) == 0 && sizeof (((const ENetList *) 0)->sentinel) == 16);
CHECK (sizeof (ENetCallbacks) == 24 && ALIGNOF (ENetCallbacks) == 8);
CHECK (offsetof (ENetCallbacks, malloc) == 0 && sizeof (((const ENetCallbacks *) 0)->malloc) == 8);
CHECK (offsetof (ENetCallbacks, free) == 8 && sizeof (((const ENetCallbacks *) 0)->free) == 8);
CHECK (offsetof (ENetCallbacks, no_memory) == 16 && sizeof (((const ENetCallbacks *) 0)->no_memory) == 8);
CHECK (sizeof (ENetCompressor) == 32 && ALIGNOF (ENetCompressor) == 8);
CHECK (offsetof (ENetCompressor, context) == 0 && sizeof (((const ENetCompressor *) 0)->context) == 8);
CHECK (offsetof (ENetCompressor, compress) == 8 && sizeof (((const ENetCompressor *) 0)->compress) == 8);
CHECK (offsetof (ENetCompressor, decompress) == 16 && sizeof (((const ENetCompressor *) 0)->decompress) == 8);
CHECK (offsetof (ENetCompressor, destroy) == 24 && sizeof (((const ENetCompressor *) 0)->destroy) == 8);
CHECK (sizeof (ENetPacket) == 48 && ALIGNOF (ENetPacket) == 8);
CHECK (offsetof (ENetPacket, referenceCount) == 0 && sizeof (((const ENetPacket *) 0)->referenceCount) == 8);
CHECK (offsetof (ENetPacket, flags) == 8 && sizeof (((const ENetPacket *) 0)->flags) == 4);
CHECK (offsetof (ENetPacket, data) == 16 && sizeof (((const ENetPacket *) 0)->data) == 8);
CHECK (offsetof (ENetPacket, dataLength) == 24 && sizeof (((const ENetPacket *) 0)->dataLength) == 8);
CHECK (offsetof (ENetPacket, freeCallback) == 32 && sizeof (((const ENetPacket *) 0)->freeCallback) == 8);
CHECK (offsetof (ENetPacket, userData) == 40 && sizeof (((const ENetPacket *) 0)->userData) == 8);
CHECK (sizeof (ENetAcknowledgement) == 72 && ALIGNOF (ENetAcknowledgement) == 8);
CHECK (offsetof (ENetAcknowledgement, acknowledgementList) == 0 && sizeof (((const ENetAcknowledgement *) 0)->acknowledgementList) == 16);
CHECK (offsetof (ENetAcknowledgement, sentTime) == 16 && sizeof (((const ENetAcknowledgement *) 0)->sentTime) == 4);
CHECK (offsetof (ENetAcknowledgement, command) == 20 && sizeof (((const ENetAcknowledgement *) 0)->command) == 48);
CHECK (sizeof (ENetOutgoingCommand) == 96 && ALIGNOF (ENetOutgoingCommand) == 8);
CHECK (offsetof (ENetOutgoingCommand, outgoingCommandList) == 0 && sizeof (((const ENetOutgoingCommand *) 0)->outgoingCommandList) == 16);
CHECK (offsetof (ENetOutgoingCommand, reliableSequenceNumber) == 16 && sizeof (((const ENetOutgoingCommand *) 0)->reliableSequenceNumber) == 2);
CHECK (offsetof (ENetOutgoingCommand, unreliableSequenceNumber) == 18 && sizeof (((const ENetOutgoingCommand *) 0)->unreliableSequenceNumber) == 2);
CHECK (offsetof (ENetOutgoingCommand, sentTime) == 20 && sizeof (((const ENetOutgoingCommand *) 0)->sentTime) == 4);
CHECK (offsetof (ENetOutgoingCommand, roundTripTimeout) == 24 && sizeof (((const ENetOutgoingCommand *) 0)->roundTripTimeout) == 4);
CHECK (offsetof (ENetOutgoingCommand, RENAMED_ROUND_TRIP_TIMEOUT_LIMIT) == 28 && sizeof (((const ENetOutgoingCommand *) 0)->RENAMED_ROUND_TRIP_TIMEOUT_LIMIT) == 4);
CHECK (offsetof (ENetOutgoingCommand, fragmentOffset) == 32 && sizeof (((const ENetOutgoingCommand *) 0)->fragmentOffset) == 4);
CHECK (offsetof (ENetOutgoingCommand, fragmentLength) == 36 && sizeof (((const ENetOutgoingCommand *) 0)->fragmentLength) == 2);
CHECK (offsetof (ENetOutgoingCommand, sendAttempts) == 38 && sizeof (((const ENetOutgoingCommand *) 0)->sendAttempts) == 2);
CHECK (offsetof (ENetOutgoingCommand, command) == 40 && sizeof (((const ENetOutgoingCommand *) 0)->command) == 48);
CHECK (offsetof (ENetOutgoingCommand, packet) == 88 && sizeof (((const ENetOutgoingCommand *) 0)->packet) == 8);
CHECK (sizeof (ENetIncomingCommand) == 96 && ALIGNOF (ENetIncomingCommand) == 8);
CHECK (offsetof (ENetIncomingCommand, incomingCommandList) == 0 && sizeof (((const ENetIncomingCommand *) 0)->incomingCommandList) == 16);
CHECK (offsetof (ENetIncomingCommand, reliableSequenceNumber) == 16 && sizeof (((const ENetIncomingCommand *) 0)->reliableSequenceNumber) == 2);
CHECK (offsetof (ENetIncomingCommand, unreliableSequenceNumber) == 18 && sizeof (((const ENetIncomingCommand *) 0)->unreliableSequenceNumber) == 2);
CHECK (offsetof (ENetIncomingCommand, command) == 20 && sizeof (((const ENetIncomingCommand *) 0)->command) == 48);
CHECK (offsetof (ENetIncomingCommand, fragmentCount) == 68 && sizeof (((const ENetIncomingCommand *) 0)->fragmentCount) == 4);
CHECK (offsetof (ENetIncomingCommand, fragmentsRemaining) == 72 && sizeof (((const ENetIncomingCommand *) 0)->fragmentsRemaining) == 4);
CHECK (offsetof (ENetIncomingCommand, fragments) == 80 && sizeof (((const ENetIncomingCommand *) 0)->fragments) == 8);
CHECK (offsetof (ENetIncomingCommand, packet) == 88 && sizeof (((const ENetIncomingCommand *) 0)->packet) == 8);
CHECK (sizeof (ENetChannel) == 80 && ALIGNOF (ENetChannel) == 8);
CHECK (offsetof (ENetChannel, outgoingReliableSequenceNumber) == 0 && sizeof (((const ENetChannel *) 0)->outgoingReliableSequenceNumber) == 2);
CHECK (offsetof (ENetChannel, outgoingUnreliableSequenceNumber) == 2 && sizeof (((const ENetChannel *) 0)->outgoingUnreliableSequenceNumber) == 2);
CHECK (offsetof (ENetChannel, usedReliableWindows) == 4 && sizeof (((const ENetChannel *) 0)->usedReliableWindows) == 2);
CHECK (offsetof (ENetChannel, reliableWindows) == 6 && sizeof (((const ENetChannel *) 0)->reliableWindows) == 32);
CHECK (offsetof (ENetChannel, incomingReliableSequenceNumber) == 38 && sizeof (((const ENetChannel *) 0)->incomingReliableSequenceNumber) == 2);
CHECK (offsetof (ENetChannel, incomingUnreliableSequenceNumber) == 40 && sizeof (((const ENetChannel *) 0)->incomingUnreliableSequenceNumber) == 2);
CHECK (offsetof (ENetChannel, incomingReliableCommands) == 48 && sizeof (((const ENetChannel *) 0)->incomingReliableCommands) == 16);
CHECK (offsetof (ENetChannel, incomingUnreliableCommands) == 64 && sizeof (((const ENetChannel *) 0)->incomingUnreliableCommands) == 16);
CHECK (sizeof (ENetPeer) == 456 && ALIGNOF (ENetPeer) == 8);
CHECK (offsetof (ENetPeer, dispatchList) == 0 && sizeof (((const ENetPeer *) 0)->dispatchList) == 16);
CHECK (offsetof (ENetPeer, host) == 16 && sizeof (((const ENetPeer *) 0)->host) == 8);
CHECK (offsetof (ENetPeer, outgoingPeerID) == 24 && sizeof (((const ENetPeer *) 0)->outgoingPeerID) == 2);
CHECK (offsetof (ENetPeer, incomingPeerID) == 26 && sizeof (((const ENetPeer *) 0)->incomingPeerID) == 2);
CHECK (offsetof (ENetPeer, connectID) == 28 && sizeof (((const ENetPeer *) 0)->connectID) == 4);
CHECK (offsetof (ENetPeer, outgoingSessionID) == 32 && sizeof (((const ENetPeer *) 0)->outgoingSessionID) == 1);
CHECK (offsetof (ENetPeer, incomingSessionID) == 33 && sizeof (((const ENetPeer *) 0)->incomingSessionID) == 1);
CHECK (offsetof (ENetPeer, address) == 36 && sizeof (((const ENetPeer *) 0)->address) == 8);
CHECK (offsetof (ENetPeer, data) == 48 && sizeof (((const ENetPeer *) 0)->data) == 8);
CHECK (offsetof (ENetPeer, state) == 56 && sizeof (((const ENetPeer *) 0)->state) == 4);
CHECK (offsetof (ENetPeer, channels) == 64 && sizeof (((const ENetPeer *) 0)->channels) == 8);
CHECK (offsetof (ENetPeer, channelCount) == 72 && sizeof (((const ENetPeer *) 0)->channelCount) == 8);
CHECK (offsetof (ENetPeer, incomingBandwidth) == 80 && sizeof (((const ENetPeer *) 0)->incomingBandwidth) == 4);
CHECK (offsetof (ENetPeer, outgoingBandwidth) == 84 && sizeof (((const ENetPeer *) 0)->outgoingBandwidth) == 4);
CHECK (offsetof (ENetPeer, incomingBandwidthThrottleEpoch) == 88 && sizeof (((const ENetPeer *) 0)->incomingBandwidthThrottleEpoch) == 4);
CHECK (offsetof (ENetPeer, outgoingBandwidthThrottleEpoch) == 92 && sizeof (((const ENetPeer *) 0)->outgoingBandwidthThrottleEpoch) == 4);
CHECK (offsetof (ENetPeer, incomingDataTotal) == 96 && sizeof (((const ENetPeer *) 0)->incomingDataTotal) == 4);
CHECK (offsetof (ENetPeer, outgoingDataTotal) == 100 && sizeof (((const ENetPeer *) 0)->outgoingDataTotal) == 4);
CHECK (offsetof (ENetPeer, lastSendTime) == 104 && sizeof (((const ENetPeer *) 0)->lastSendTime) == 4);
CHECK (offsetof (ENetPeer, lastReceiveTime) == 108 && sizeof (((const ENetPeer *) 0)->lastReceiveTime) == 4);
CHECK (offsetof (ENetPeer, nextTimeout) == 112 && sizeof (((const ENetPeer *) 0)->nextTimeout) == 4);
CHECK (offsetof (ENetPeer, earliestTimeout) == 116 && sizeof (((const ENetPeer *) 0)->earliestTimeout) == 4);
CHECK (offsetof (ENetPeer, packetLossEpoch) == 120 && sizeof (((const ENetPeer *) 0)->packetLossEpoch) == 4);
CHECK (offsetof (ENetPeer, packetsSent) == 124 && sizeof (((const ENetPeer *) 0)->packetsSent) == 4);
CHECK (offsetof (ENetPeer, packetsLost) == 128 && sizeof (((const ENetPeer *) 0)->packetsLost) == 4);
CHECK (offsetof (ENetPeer, packetLoss) == 132 && sizeof (((const ENetPeer *) 0)->packetLoss) == 4);
CHECK (offsetof (ENetPeer, packetLossVariance) == 136 && sizeof (((const ENetPeer *) 0)->packetLossVariance) == 4);
CHECK (offsetof (ENetPeer, packetThrottle) == 140 && sizeof (((const ENetPeer *) 0)->packetThrottle) == 4);
CHECK (offsetof (ENetPeer, packetThrottleLimit) == 144 && sizeof (((const ENetPeer *) 0)->packetThrottleLimit) == 4);
CHECK (offsetof (ENetPeer, packetThrottleCounter) == 148 && sizeof (((const ENetPeer *) 0)->packetThrottleCounter) == 4);
CHECK (offsetof (ENetPeer, packetThrottleEpoch) == 152 && sizeof (((const ENetPeer *) 0)->packetThrottleEpoch) == 4);
CHECK (offsetof (ENetPeer, packetThrottleAcceleration) == 156 && sizeof (((const ENetPeer *) 0)->packetThrottleAcceleration) == 4);
CHECK (offsetof (ENetPeer, packetThrottleDeceleration) == 160 && sizeof (((const ENetPeer *) 0)->packetThrottleDeceleration) == 4);
CHECK (offsetof (ENetPeer, packetThrottleInterval) == 164 && sizeof (((const ENetPeer *) 0)->packetThrottleInterval) == 4);
CHECK (offsetof (ENetPeer, pingInterval) == 168 && sizeof (((const ENetPeer *) 0)->pingInterval) == 4);
CHECK (offsetof (ENetPeer, timeoutLimit) == 172 && sizeof (((const ENetPeer *) 0)->timeoutLimit) == 4);
CHECK (offsetof (ENetPeer, timeoutMinimum) == 176 && sizeof (((const ENetPeer *) 0)->timeoutMinimum) == 4);
CHECK (offsetof (ENetPeer, timeoutMaximum) == 180 && sizeof (((const ENetPeer *) 0)->timeoutMaximum) == 4);
CHECK (offsetof (ENetPeer, lastRoundTripTime) == 184 && sizeof (((const ENetPeer *) 0)->lastRoundTripTime) == 4);
CHECK (offsetof (ENetPeer, lowestRoundTripTime) == 188 && sizeof (((const ENetPeer *) 0)->lowestRoundTripTime) == 4);
CHECK (offsetof (ENetPeer, lastRoundTripTimeVariance) == 192 && sizeof (((const ENetPeer *) 0)->lastRoundTripTimeVariance) == 4);
CHECK (offsetof (ENetPeer, highestRoundTripTimeVariance) == 196 && sizeof (((const ENetPeer *) 0)->highestRoundTripTimeVariance) == 4);
CHECK (offsetof (ENetPeer, roundTripTime) == 200 && sizeof (((const ENetPeer *) 0)->roundTripTime) == 4);
CHECK (offsetof (ENetPeer, roundTripTimeVariance) == 204 && sizeof (((const ENetPeer *) 0)->roundTripTimeVariance) == 4);
CHECK (offsetof (ENetPeer, mtu) == 208 && sizeof (((const ENetPeer *) 0)->mtu) == 4);
CHECK (offsetof (ENetPeer, windowSize) == 212 && sizeof (((const ENetPeer *) 0)->windowSize) == 4);
CHECK (offsetof (ENetPeer, reliableDataInTransit) == 216 && sizeof (((const ENetPeer *) 0)->reliableDataInTransit) == 4);
CHECK (offsetof (ENetPeer, outgoingReliableSequenceNumber) == 220 && sizeof (((const ENetPeer *) 0)->outgoingReliableSequenceNumber) == 2);
CHECK (offsetof (ENetPeer, acknowledgements) == 224 && sizeof (((const ENetPeer *) 0)->acknowledgements) == 16);
CHECK (offsetof (ENetPeer, sentReliableCommands) == 240 && sizeof (((const ENetPeer *) 0)->sentReliableCommands) == 16);
CHECK (offsetof (ENetPeer, RENAMED_SENT_UNRELIABLE_COMMANDS) == 256 && sizeof (((const ENetPeer *) 0)->RENAMED_SENT_UNRELIABLE_COMMANDS) == 16);
CHECK (offsetof (ENetPeer, outgoingCommands) == 272 && sizeof (((const ENetPeer *) 0)->outgoingCommands) == 16);
CHECK (offsetof (ENetPeer, dispatchedCommands) == 288 && sizeof (((const ENetPeer *) 0)->dispatchedCommands) == 16);
CHECK (offsetof (ENetPeer, flags) == 304 && sizeof (((const ENetPeer *) 0)->flags) == 2);
CHECK (offsetof (ENetPeer, reserved) == 306 && sizeof (((const ENetPeer *) 0)->reserved) == 2);
CHECK (offsetof (ENetPeer, incomingUnsequencedGroup) == 308 && sizeof (((const ENetPeer *) 0)->incomingUnsequencedGroup) == 2);
CHECK (offsetof (ENetPeer, outgoingUnsequencedGroup) == 310 && sizeof (((const ENetPeer *) 0)->outgoingUnsequencedGroup) == 2);
CHECK (offsetof (ENetPeer, unsequencedWindow) == 312 && sizeof (((const ENetPeer *) 0)->unsequencedWindow) == 128);
CHECK (offsetof (ENetPeer, eventData) == 440 && sizeof (((const ENetPeer *) 0)->eventData) == 4);
CHECK (offsetof (ENetPeer, totalWaitingData) == 448 && sizeof (((const ENetPeer *) 0)->totalWaitingData) == 8);
CHECK (sizeof (ENetHost) == 11024 && ALIGNOF (ENetHost) == 8);
#ifdef _WIN32
/* An 8-byte SOCKET pushes the fields before `peers` along into what is
   padding on Linux; from `peers` on, and the size, are as on Linux. */
CHECK (offsetof (ENetHost, socket) == 0 && sizeof (((const ENetHost *) 0)->socket) == 8);
CHECK (offsetof (ENetHost, address) == 8 && sizeof (((const ENetHost *) 0)->address) == 8);
CHECK (offsetof (ENetHost, incomingBandwidth) == 16 && sizeof (((const ENetHost *) 0)->incomingBandwidth) == 4);
CHECK (offsetof (ENetHost, outgoingBandwidth) == 20 && sizeof (((const ENetHost *) 0)->outgoingBandwidth) == 4);
CHECK (offsetof (ENetHost, bandwidthThrottleEpoch) == 24 && sizeof (((const ENetHost *) 0)->bandwidthThrottleEpoch) == 4);
CHECK (offsetof (ENetHost, mtu) == 28 && sizeof (((const ENetHost *) 0)->mtu) == 4);
CHECK (offsetof (ENetHost, randomSeed) == 32 && sizeof (((const ENetHost *) 0)->randomSeed) == 4);
CHECK (offsetof (ENetHost, recalculateBandwidthLimits) == 36 && sizeof (((const ENetHost *) 0)->recalculateBandwidthLimits) == 4);
#else
CHECK (offsetof (ENetHost, socket) == 0 && sizeof (((const ENetHost *) 0)->socket) == 4);
CHECK (offsetof (ENetHost, address) == 4 && sizeof (((const ENetHost *) 0)->address) == 8);
CHECK (offsetof (ENetHost, incomingBandwidth) == 12 && sizeof (((const ENetHost *) 0)->incomingBandwidth) == 4);
CHECK (offsetof (ENetHost, outgoingBandwidth) == 16 && sizeof (((const ENetHost *) 0)->outgoingBandwidth) == 4);
CHECK (offsetof (ENetHost, bandwidthThrottleEpoch) == 20 && sizeof (((const ENetHost *) 0)->bandwidthThrottleEpoch) == 4);
CHECK (offsetof (ENetHost, mtu) == 24 && sizeof (((const ENetHost *) 0)->mtu) == 4);
CHECK (offsetof (ENetHost, randomSeed) == 28 && sizeof (((const ENetHost *) 0)->randomSeed) == 4);
CHECK (offsetof (ENetHost, recalculateBandwidthLimits) == 32 && sizeof (((const ENetHost *) 0)->recalculateBandwidthLimits) == 4);
#endif
CHECK (offsetof (ENetHost, peers) == 40 && sizeof (((const ENetHost *) 0)->peers) == 8);
CHECK (offsetof (ENetHost, peerCount) == 48 && sizeof (((const ENetHost *) 0)->peerCount) == 8);
CHECK (offsetof (ENetHost, channelLimit) == 56 && sizeof (((const ENetHost *) 0)->channelLimit) == 8);
CHECK (offsetof (ENetHost, serviceTime) == 64 && sizeof (((const ENetHost *) 0)->serviceTime) == 4);
CHECK (offsetof (ENetHost, dispatchQueue) == 72 && sizeof (((const ENetHost *) 0)->dispatchQueue) == 16);
CHECK (offsetof (ENetHost, RENAMED_CONTINUE_SENDING) == 88 && sizeof (((const ENetHost *) 0)->RENAMED_CONTINUE_SENDING) == 4);
CHECK (HAS_TYPE (((const ENetHost *) 0)->RENAMED_CONTINUE_SENDING, RENAMED_CONTINUE_SENDING_TYPE));
CHECK (offsetof (ENetHost, packetSize) == 96 && sizeof (((const ENetHost *) 0)->packetSize) == 8);
CHECK (offsetof (ENetHost, headerFlags) == 104 && sizeof (((const ENetHost *) 0)->headerFlags) == 2);
CHECK (offsetof (ENetHost, commands) == 106 && sizeof (((const ENetHost *) 0)->commands) == 1536);
CHECK (offsetof (ENetHost, commandCount) == 1648 && sizeof (((const ENetHost *) 0)->commandCount) == 8);
CHECK (offsetof (ENetHost, buffers) == 1656 && sizeof (((const ENetHost *) 0)->buffers) == 1040);
CHECK (offsetof (ENetHost, bufferCount) == 2696 && sizeof (((const ENetHost *) 0)->bufferCount) == 8);
CHECK (offsetof (ENetHost, checksum) == 2704 && sizeof (((const ENetHost *) 0)->checksum) == 8);
CHECK (offsetof (ENetHost, compressor) == 2712 && sizeof (((const ENetHost *) 0)->compressor) == 32);
CHECK (offsetof (ENetHost, packetData) == 2744 && sizeof (((const ENetHost *) 0)->packetData) == 8192);
CHECK (offsetof (ENetHost, receivedAddress) == 10936 && sizeof (((const ENetHost *) 0)->receivedAddress) == 8);
CHECK (offsetof (ENetHost, receivedData) == 10944 && sizeof (((const ENetHost *) 0)->receivedData) == 8);
CHECK (offsetof (ENetHost, receivedDataLength) == 10952 && sizeof (((const ENetHost *) 0)->receivedDataLength) == 8);
CHECK (offsetof (ENetHost, totalSentData) == 10960 && sizeof (((const ENetHost *) 0)->totalSentData) == 4);
CHECK (offsetof (ENetHost, totalSentPackets) == 10964 && sizeof (((const ENetHost *) 0)->totalSentPackets) == 4);
CHECK (offsetof (ENetHost, totalReceivedData) == 10968 && sizeof (((const ENetHost *) 0)->totalReceivedData) == 4);
CHECK (offsetof (ENetHost, totalReceivedPackets) == 10972 && sizeof (((const ENetHost *) 0)->totalReceivedPackets) == 4);
CHECK (offsetof (ENetHost, intercept) == 10976 && sizeof (((const ENetHost *) 0)->intercept) == 8);
CHECK (offsetof (ENetHost, connectedPeers) == 10984 && sizeof (((const ENetHost *) 0)->connectedPeers) == 8);
CHECK (offsetof (ENetHost, bandwidthLimitedPeers) == 10992 && sizeof (((const ENetHost *) 0)->bandwidthLimitedPeers) == 8);
CHECK (offsetof (ENetHost, duplicatePeers) == 11000 && sizeof (((const ENetHost *) 0)->duplicatePeers) == 8);
CHECK (offsetof (ENetHost, maximumPacketSize) == 11008 && sizeof (((const ENetHost *) 0)->maximumPacketSize) == 8);
CHECK (offsetof (ENetHost, maximumWaitingData) == 11016 && sizeof (((const ENetHost *) 0)->maximumWaitingData) == 8);
CHECK (sizeof (ENetEvent) == 32 && ALIGNOF (ENetEvent) == 8);
CHECK (offsetof (ENetEvent, type) == 0 && sizeof (((const ENetEvent *) 0)->type) == 4);
CHECK (offsetof (ENetEvent, peer) == 8 && sizeof (((const ENetEvent *) 0)->peer) == 8);
CHECK (offsetof (ENetEvent, channelID) == 16 && sizeof (((const ENetEvent *) 0)->channelID) == 1);
CHECK (offsetof (ENetEvent, data) == 20 && sizeof (((const ENetEvent *) 0)->data) == 4);
CHECK (offsetof (ENetEvent, packet) == 24 && sizeof (((const ENetEvent *) 0)->packet) == 8);
CHECK (sizeof (ENetProtocolHeader) == 4 && ALIGNOF (ENetProtocolHeader) == 1);
CHECK (offsetof (ENetProtocolHeader, peerID) == 0 && sizeof (((const ENetProtocolHeader *) 0)->peerID) == 2);
CHECK (offsetof (ENetProtocolHeader, sentTime) == 2 && sizeof (((const ENetProtocolHeader *) 0)->sentTime) == 2);
CHECK (sizeof (ENetProtocolCommandHeader) == 4 && ALIGNOF (ENetProtocolCommandHeader) == 1);
CHECK (offsetof (ENetProtocolCommandHeader, command) == 0 && sizeof (((const ENetProtocolCommandHeader *) 0)->command) == 1);
CHECK (offsetof (ENetProtocolCommandHeader, channelID) == 1 && sizeof (((const ENetProtocolCommandHeader *) 0)->channelID) == 1);
CHECK (offsetof (ENetProtocolCommandHeader, reliableSequenceNumber) == 2 && sizeof (((const ENetProtocolCommandHeader *) 0)->reliableSequenceNumber) == 2);
CHECK (sizeof (ENetProtocolAcknowledge) == 8 && ALIGNOF (ENetProtocolAcknowledge) == 1);
CHECK (offsetof (ENetProtocolAcknowledge, header) == 0 && sizeof (((const ENetProtocolAcknowledge *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolAcknowledge, receivedReliableSequenceNumber) == 4 && sizeof (((const ENetProtocolAcknowledge *) 0)->receivedReliableSequenceNumber) == 2);
CHECK (offsetof (ENetProtocolAcknowledge, receivedSentTime) == 6 && sizeof (((const ENetProtocolAcknowledge *) 0)->receivedSentTime) == 2);
CHECK (sizeof (ENetProtocolConnect) == 48 && ALIGNOF (ENetProtocolConnect) == 1);
CHECK (offsetof (ENetProtocolConnect, header) == 0 && sizeof (((const ENetProtocolConnect *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolConnect, outgoingPeerID) == 4 && sizeof (((const ENetProtocolConnect *) 0)->outgoingPeerID) == 2);
CHECK (offsetof (ENetProtocolConnect, incomingSessionID) == 6 && sizeof (((const ENetProtocolConnect *) 0)->incomingSessionID) == 1);
CHECK (offsetof (ENetProtocolConnect, outgoingSessionID) == 7 && sizeof (((const ENetProtocolConnect *) 0)->outgoingSessionID) == 1);
CHECK (offsetof (ENetProtocolConnect, mtu) == 8 && sizeof (((const ENetProtocolConnect *) 0)->mtu) == 4);
CHECK (offsetof (ENetProtocolConnect, windowSize) == 12 && sizeof (((const ENetProtocolConnect *) 0)->windowSize) == 4);
CHECK (offsetof (ENetProtocolConnect, channelCount) == 16 && sizeof (((const ENetProtocolConnect *) 0)->channelCount) == 4);
CHECK (offsetof (ENetProtocolConnect, incomingBandwidth) == 20 && sizeof (((const ENetProtocolConnect *) 0)->incomingBandwidth) == 4);
CHECK (offsetof (ENetProtocolConnect, outgoingBandwidth) == 24 && sizeof (((const ENetProtocolConnect *) 0)->outgoingBandwidth) == 4);
CHECK (offsetof (ENetProtocolConnect, packetThrottleInterval) == 28 && sizeof (((const ENetProtocolConnect *) 0)->packetThrottleInterval) == 4);
CHECK (offsetof (ENetProtocolConnect, packetThrottleAcceleration) == 32 && sizeof (((const ENetProtocolConnect *) 0)->packetThrottleAcceleration) == 4);
CHECK (offsetof (ENetProtocolConnect, packetThrottleDeceleration) == 36 && sizeof (((const ENetProtocolConnect *) 0)->packetThrottleDeceleration) == 4);
CHECK (offsetof (ENetProtocolConnect, connectID) == 40 && sizeof (((const ENetProtocolConnect *) 0)->connectID) == 4);
CHECK (offsetof (ENetProtocolConnect, data) == 44 && sizeof (((const ENetProtocolConnect *) 0)->data) == 4);
CHECK (sizeof (ENetProtocolVerifyConnect) == 44 && ALIGNOF (ENetProtocolVerifyConnect) == 1);
CHECK (offsetof (ENetProtocolVerifyConnect, header) == 0 && sizeof (((const ENetProtocolVerifyConnect *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, outgoingPeerID) == 4 && sizeof (((const ENetProtocolVerifyConnect *) 0)->outgoingPeerID) == 2);
CHECK (offsetof (ENetProtocolVerifyConnect, incomingSessionID) == 6 && sizeof (((const ENetProtocolVerifyConnect *) 0)->incomingSessionID) == 1);
CHECK (offsetof (ENetProtocolVerifyConnect, outgoingSessionID) == 7 && sizeof (((const ENetProtocolVerifyConnect *) 0)->outgoingSessionID) == 1);
CHECK (offsetof (ENetProtocolVerifyConnect, mtu) == 8 && sizeof (((const ENetProtocolVerifyConnect *) 0)->mtu) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, windowSize) == 12 && sizeof (((const ENetProtocolVerifyConnect *) 0)->windowSize) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, channelCount) == 16 && sizeof (((const ENetProtocolVerifyConnect *) 0)->channelCount) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, incomingBandwidth) == 20 && sizeof (((const ENetProtocolVerifyConnect *) 0)->incomingBandwidth) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, outgoingBandwidth) == 24 && sizeof (((const ENetProtocolVerifyConnect *) 0)->outgoingBandwidth) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, packetThrottleInterval) == 28 && sizeof (((const ENetProtocolVerifyConnect *) 0)->packetThrottleInterval) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, packetThrottleAcceleration) == 32 && sizeof (((const ENetProtocolVerifyConnect *) 0)->packetThrottleAcceleration) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, packetThrottleDeceleration) == 36 && sizeof (((const ENetProtocolVerifyConnect *) 0)->packetThrottleDeceleration) == 4);
CHECK (offsetof (ENetProtocolVerifyConnect, connectID) == 40 && sizeof (((const ENetProtocolVerifyConnect *) 0)->connectID) == 4);
CHECK (sizeof (ENetProtocolBandwidthLimit) == 12 && ALIGNOF (ENetProtocolBandwidthLimit) == 1);
CHECK (offsetof (ENetProtocolBandwidthLimit, header) == 0 && sizeof (((const ENetProtocolBandwidthLimit *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolBandwidthLimit, incomingBandwidth) == 4 && sizeof (((const ENetProtocolBandwidthLimit *) 0)->incomingBandwidth) == 4);
CHECK (offsetof (ENetProtocolBandwidthLimit, outgoingBandwidth) == 8 && sizeof (((const ENetProtocolBandwidthLimit *) 0)->outgoingBandwidth) == 4);
CHECK (sizeof (ENetProtocolThrottleConfigure) == 16 && ALIGNOF (ENetProtocolThrottleConfigure) == 1);
CHECK (offsetof (ENetProtocolThrottleConfigure, header) == 0 && sizeof (((const ENetProtocolThrottleConfigure *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolThrottleConfigure, packetThrottleInterval) == 4 && sizeof (((const ENetProtocolThrottleConfigure *) 0)->packetThrottleInterval) == 4);
CHECK (offsetof (ENetProtocolThrottleConfigure, packetThrottleAcceleration) == 8 && sizeof (((const ENetProtocolThrottleConfigure *) 0)->packetThrottleAcceleration) == 4);
CHECK (offsetof (ENetProtocolThrottleConfigure, packetThrottleDeceleration) == 12 && sizeof (((const ENetProtocolThrottleConfigure *) 0)->packetThrottleDeceleration) == 4);
CHECK (sizeof (ENetProtocolDisconnect) == 8 && ALIGNOF (ENetProtocolDisconnect) == 1);
CHECK (offsetof (ENetProtocolDisconnect, header) == 0 && sizeof (((const ENetProtocolDisconnect *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolDisconnect, data) == 4 && sizeof (((const ENetProtocolDisconnect *) 0)->data) == 4);
CHECK (sizeof (ENetProtocolPing) == 4 && ALIGNOF (ENetProtocolPing) == 1);
CHECK (offsetof (ENetProtocolPing, header) == 0 && sizeof (((const ENetProtocolPing *) 0)->header) == 4);
CHECK (sizeof (ENetProtocolSendReliable) == 6 && ALIGNOF (ENetProtocolSendReliable) == 1);
CHECK (offsetof (ENetProtocolSendReliable, header) == 0 && sizeof (((const ENetProtocolSendReliable *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolSendReliable, dataLength) == 4 && sizeof (((const ENetProtocolSendReliable *) 0)->dataLength) == 2);
CHECK (sizeof (ENetProtocolSendUnreliable) == 8 && ALIGNOF (ENetProtocolSendUnreliable) == 1);
CHECK (offsetof (ENetProtocolSendUnreliable, header) == 0 && sizeof (((const ENetProtocolSendUnreliable *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolSendUnreliable, unreliableSequenceNumber) == 4 && sizeof (((const ENetProtocolSendUnreliable *) 0)->unreliableSequenceNumber) == 2);
CHECK (offsetof (ENetProtocolSendUnreliable, dataLength) == 6 && sizeof (((const ENetProtocolSendUnreliable *) 0)->dataLength) == 2);
CHECK (sizeof (ENetProtocolSendUnsequenced) == 8 && ALIGNOF (ENetProtocolSendUnsequenced) == 1);
CHECK (offsetof (ENetProtocolSendUnsequenced, header) == 0 && sizeof (((const ENetProtocolSendUnsequenced *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolSendUnsequenced, unsequencedGroup) == 4 && sizeof (((const ENetProtocolSendUnsequenced *) 0)->unsequencedGroup) == 2);
CHECK (offsetof (ENetProtocolSendUnsequenced, dataLength) == 6 && sizeof (((const ENetProtocolSendUnsequenced *) 0)->dataLength) == 2);
CHECK (sizeof (ENetProtocolSendFragment) == 24 && ALIGNOF (ENetProtocolSendFragment) == 1);
CHECK (offsetof (ENetProtocolSendFragment, header) == 0 && sizeof (((const ENetProtocolSendFragment *) 0)->header) == 4);
CHECK (offsetof (ENetProtocolSendFragment, startSequenceNumber) == 4 && sizeof (((const ENetProtocolSendFragment *) 0)->startSequenceNumber) == 2);
CHECK (offsetof (ENetProtocolSendFragment, dataLength) == 6 && sizeof (((const ENetProtocolSendFragment *) 0)->dataLength) == 2);
CHECK (offsetof (ENetProtocolSendFragment, fragmentCount) == 8 && sizeof (((const ENetProtocolSendFragment *) 0)->fragmentCount) == 4);
CHECK (offsetof (ENetProtocolSendFragment, fragmentNumber) == 12 && sizeof (((const ENetProtocolSendFragment *) 0)->fragmentNumber) == 4);
CHECK (offsetof (ENetProtocolSendFragment, totalLength) == 16 && sizeof (((const ENetProtocolSendFragment *) 0)->totalLength) == 4);
CHECK (offsetof (ENetProtocolSendFragment, fragmentOffset) == 20 && sizeof (((const ENetProtocolSendFragment *) 0)->fragmentOffset) == 4);
CHECK (sizeof (ENetProtocol) == 48 && ALIGNOF (ENetProtocol) == 1);
CHECK (offsetof (ENetProtocol, header) == 0 && sizeof (((const ENetProtocol *) 0)->header) == 4);
CHECK (offsetof (ENetProtocol, acknowledge) == 0 && sizeof (((const ENetProtocol *) 0)->acknowledge) == 8);
CHECK (offsetof (ENetProtocol, connect) == 0 && sizeof (((const ENetProtocol *) 0)->connect) == 48);
CHECK (offsetof (ENetProtocol, verifyConnect) == 0 && sizeof (((const ENetProtocol *) 0)->verifyConnect) == 44);
CHECK (offsetof (ENetProtocol, disconnect) == 0 && sizeof (((const ENetProtocol *) 0)->disconnect) == 8);
CHECK (offsetof (ENetProtocol, ping) == 0 && sizeof (((const ENetProtocol *) 0)->ping) == 4);
CHECK (offsetof (ENetProtocol, sendReliable) == 0 && sizeof (((const ENetProtocol *) 0)->sendReliable) == 6);
CHECK (offsetof (ENetProtocol, sendUnreliable) == 0 && sizeof (((const ENetProtocol *) 0)->sendUnreliable) == 8);
CHECK (offsetof (ENetProtocol, sendUnsequenced) == 0 && sizeof (((const ENetProtocol *) 0)->sendUnsequenced) == 8);
CHECK (offsetof (ENetProtocol, sendFragment) == 0 && sizeof (((const ENetProtocol *) 0)->sendFragment) == 24);
CHECK (offsetof (ENetProtocol, bandwidthLimit) == 0 && sizeof (((const ENetProtocol *) 0)->bandwidthLimit) == 12);
CHECK (offsetof (ENetProtocol, throttleConfigure) == 0 && sizeof (((const ENetProtocol *) 0)->throttleConfigure) == 16);
#ifdef _WIN32
/* SOCKET is pointer-sized; fd_set is a u_int count and 64 SOCKETs. */
CHECK (sizeof (ENetSocket) == 8 && ALIGNOF (ENetSocket) == 8);
CHECK (sizeof (ENetSocketSet) == 520 && ALIGNOF (ENetSocketSet) == 8);
#else
CHECK (sizeof (ENetSocket) == 4 && ALIGNOF (ENetSocket) == 4);
CHECK (sizeof (ENetSocketSet) == 128 && ALIGNOF (ENetSocketSet) == 8);
#endif
CHECK (sizeof (ENetPeerState) == 4 && ALIGNOF (ENetPeerState) == 4);
CHECK (sizeof (ENetEventType) == 4 && ALIGNOF (ENetEventType) == 4);
CHECK (sizeof (ENetVersion) == 4 && ALIGNOF (ENetVersion) == 4);

/* The tags name the same types as the typedefs. */
CHECK (sizeof (struct _ENetPeer) == 456);
CHECK (sizeof (struct _ENetHost) == 11024);
CHECK (sizeof (struct _ENetPacket) == 48);
CHECK (sizeof (struct _ENetEvent) == 32);
CHECK (sizeof (union _ENetProtocol) == 48);
CHECK (sizeof (enum _ENetPeerState) == sizeof (int));

/* ENET_PACKED packs whatever it is put on, wherever stock puts it. */
typedef struct
{
    enet_uint8 tag;
    enet_uint32 value;
} ENET_PACKED PackedProbe;
CHECK (sizeof (PackedProbe) == 5);

/* ENET_CALLBACK and ENET_API as programs use them. */
typedef void (ENET_CALLBACK * FreeHook) (ENetPacket *);
ENET_API int enet_initialize (void);

/* ---- every function, as a pointer of the type stock declares --------- */

int (* p_enet_initialize) (void) = enet_initialize;
int (* p_enet_initialize_with_callbacks) (ENetVersion, const ENetCallbacks *) = enet_initialize_with_callbacks;
void (* p_enet_deinitialize) (void) = enet_deinitialize;
ENetVersion (* p_enet_linked_version) (void) = enet_linked_version;
enet_uint32 (* p_enet_time_get) (void) = enet_time_get;
void (* p_enet_time_set) (enet_uint32) = enet_time_set;
ENetSocket (* p_enet_socket_create) (ENetSocketType) = enet_socket_create;
int (* p_enet_socket_bind) (ENetSocket, const ENetAddress *) = enet_socket_bind;
int (* p_enet_socket_get_address) (ENetSocket, ENetAddress *) = enet_socket_get_address;
int (* p_enet_socket_listen) (ENetSocket, int) = enet_socket_listen;
ENetSocket (* p_enet_socket_accept) (ENetSocket, ENetAddress *) = enet_socket_accept;
int (* p_enet_socket_connect) (ENetSocket, const ENetAddress *) = enet_socket_connect;
int (* p_enet_socket_send) (ENetSocket, const ENetAddress *, const ENetBuffer *, size_t) = enet_socket_send;
int (* p_enet_socket_receive) (ENetSocket, ENetAddress *, ENetBuffer *, size_t) = enet_socket_receive;
int (* p_enet_socket_wait) (ENetSocket, enet_uint32 *, enet_uint32) = enet_socket_wait;
int (* p_enet_socket_set_option) (ENetSocket, ENetSocketOption, int) = enet_socket_set_option;
int (* p_enet_socket_get_option) (ENetSocket, ENetSocketOption, int *) = enet_socket_get_option;
int (* p_enet_socket_shutdown) (ENetSocket, ENetSocketShutdown) = enet_socket_shutdown;
void (* p_enet_socket_destroy) (ENetSocket) = enet_socket_destroy;
int (* p_enet_socketset_select) (ENetSocket, ENetSocketSet *, ENetSocketSet *, enet_uint32) = enet_socketset_select;
int (* p_enet_address_set_host_ip) (ENetAddress *, const char *) = enet_address_set_host_ip;
int (* p_enet_address_set_host) (ENetAddress *, const char *) = enet_address_set_host;
int (* p_enet_address_get_host_ip) (const ENetAddress *, char *, size_t) = enet_address_get_host_ip;
int (* p_enet_address_get_host) (const ENetAddress *, char *, size_t) = enet_address_get_host;
ENetPacket * (* p_enet_packet_create) (const void *, size_t, enet_uint32) = enet_packet_create;
void (* p_enet_packet_destroy) (ENetPacket *) = enet_packet_destroy;
int (* p_enet_packet_resize) (ENetPacket *, size_t) = enet_packet_resize;
enet_uint32 (* p_enet_crc32) (const ENetBuffer *, size_t) = enet_crc32;
ENetHost * (* p_enet_host_create) (const ENetAddress *, size_t, size_t, enet_uint32, enet_uint32) = enet_host_create;
void (* p_enet_host_destroy) (ENetHost *) = enet_host_destroy;
ENetPeer * (* p_enet_host_connect) (ENetHost *, const ENetAddress *, size_t, enet_uint32) = enet_host_connect;
int (* p_enet_host_check_events) (ENetHost *, ENetEvent *) = enet_host_check_events;
int (* p_enet_host_service) (ENetHost *, ENetEvent *, enet_uint32) = enet_host_service;
void (* p_enet_host_flush) (ENetHost *) = enet_host_flush;
void (* p_enet_host_broadcast) (ENetHost *, enet_uint8, ENetPacket *) = enet_host_broadcast;
void (* p_enet_host_compress) (ENetHost *, const ENetCompressor *) = enet_host_compress;
int (* p_enet_host_compress_with_range_coder) (ENetHost *) = enet_host_compress_with_range_coder;
void (* p_enet_host_channel_limit) (ENetHost *, size_t) = enet_host_channel_limit;
void (* p_enet_host_bandwidth_limit) (ENetHost *, enet_uint32, enet_uint32) = enet_host_bandwidth_limit;
void (* p_enet_host_bandwidth_throttle) (ENetHost *) = enet_host_bandwidth_throttle;
enet_uint32 (* p_enet_host_random_seed) (void) = enet_host_random_seed;
int (* p_enet_peer_send) (ENetPeer *, enet_uint8, ENetPacket *) = enet_peer_send;
ENetPacket * (* p_enet_peer_receive) (ENetPeer *, enet_uint8 *) = enet_peer_receive;
void (* p_enet_peer_ping) (ENetPeer *) = enet_peer_ping;
void (* p_enet_peer_ping_interval) (ENetPeer *, enet_uint32) = enet_peer_ping_interval;
void (* p_enet_peer_timeout) (ENetPeer *, enet_uint32, enet_uint32, enet_uint32) = enet_peer_timeout;
void (* p_enet_peer_reset) (ENetPeer *) = enet_peer_reset;
void (* p_enet_peer_disconnect) (ENetPeer *, enet_uint32) = enet_peer_disconnect;
void (* p_enet_peer_disconnect_now) (ENetPeer *, enet_uint32) = enet_peer_disconnect_now;
void (* p_enet_peer_disconnect_later) (ENetPeer *, enet_uint32) = enet_peer_disconnect_later;
void (* p_enet_peer_throttle_configure) (ENetPeer *, enet_uint32, enet_uint32, enet_uint32) = enet_peer_throttle_configure;
int (* p_enet_peer_throttle) (ENetPeer *, enet_uint32) = enet_peer_throttle;
void (* p_enet_peer_reset_queues) (ENetPeer *) = enet_peer_reset_queues;
void (* p_enet_peer_setup_outgoing_command) (ENetPeer *, ENetOutgoingCommand *) = enet_peer_setup_outgoing_command;
ENetOutgoingCommand * (* p_enet_peer_queue_outgoing_command) (ENetPeer *, const ENetProtocol *, ENetPacket *, enet_uint32, enet_uint16) = enet_peer_queue_outgoing_command;
ENetIncomingCommand * (* p_enet_peer_queue_incoming_command) (ENetPeer *, const ENetProtocol *, const void *, size_t, enet_uint32, enet_uint32) = enet_peer_queue_incoming_command;
ENetAcknowledgement * (* p_enet_peer_queue_acknowledgement) (ENetPeer *, const ENetProtocol *, enet_uint16) = enet_peer_queue_acknowledgement;
void (* p_enet_peer_dispatch_incoming_unreliable_commands) (ENetPeer *, ENetChannel *, ENetIncomingCommand *) = enet_peer_dispatch_incoming_unreliable_commands;
void (* p_enet_peer_dispatch_incoming_reliable_commands) (ENetPeer *, ENetChannel *, ENetIncomingCommand *) = enet_peer_dispatch_incoming_reliable_commands;
void (* p_enet_peer_on_connect) (ENetPeer *) = enet_peer_on_connect;
void (* p_enet_peer_on_disconnect) (ENetPeer *) = enet_peer_on_disconnect;
void * (* p_enet_range_coder_create) (void) = enet_range_coder_create;
void (* p_enet_range_coder_destroy) (void *) = enet_range_coder_destroy;
size_t (* p_enet_range_coder_compress) (void *, const ENetBuffer *, size_t, size_t, enet_uint8 *, size_t) = enet_range_coder_compress;
size_t (* p_enet_range_coder_decompress) (void *, const enet_uint8 *, size_t, enet_uint8 *, size_t) = enet_range_coder_decompress;
size_t (* p_enet_protocol_command_size) (enet_uint8) = enet_protocol_command_size;
void (* p_enet_list_clear) (ENetList *) = enet_list_clear;
ENetListIterator (* p_enet_list_insert) (ENetListIterator, void *) = enet_list_insert;
void * (* p_enet_list_remove) (ENetListIterator) = enet_list_remove;
ENetListIterator (* p_enet_list_move) (ENetListIterator, void *, void *) = enet_list_move;
size_t (* p_enet_list_size) (ENetList *) = enet_list_size;
void * (* p_enet_malloc) (size_t) = enet_malloc;
void (* p_enet_free) (void *) = enet_free;

/* The callback typedefs and struct members, spelled as stock spells them. */
ENetPacketFreeCallback p_free_callback = (FreeHook) 0;
ENetChecksumCallback p_checksum = enet_crc32;
enet_uint32 (ENET_CALLBACK * p_checksum_spelled) (const ENetBuffer *, size_t) = (ENetChecksumCallback) 0;
int (ENET_CALLBACK * p_intercept_spelled) (struct _ENetHost *, struct _ENetEvent *) = (ENetInterceptCallback) 0;
void (ENET_CALLBACK * p_free_callback_spelled) (struct _ENetPacket *) = (ENetPacketFreeCallback) 0;
void * (ENET_CALLBACK * p_malloc_member) (size_t size);
void (ENET_CALLBACK * p_free_member) (void * memory);
void (ENET_CALLBACK * p_no_memory_member) (void);
size_t (ENET_CALLBACK * p_compress_member) (void *, const ENetBuffer *, size_t, size_t, enet_uint8 *, size_t);
size_t (ENET_CALLBACK * p_decompress_member) (void *, const enet_uint8 *, size_t, enet_uint8 *, size_t);
void (ENET_CALLBACK * p_destroy_member) (void *);

void fill_compressor (ENetCompressor * compressor);
void fill_callbacks (ENetCallbacks * callbacks);
void fill_host (ENetHost * host);
void read_members (const ENetCallbacks * callbacks, const ENetCompressor * compressor);

void
read_members (const ENetCallbacks * callbacks, const ENetCompressor * compressor)
{
    p_malloc_member = callbacks -> malloc;
    p_free_member = callbacks -> free;
    p_no_memory_member = callbacks -> no_memory;
    p_compress_member = compressor -> compress;
    p_decompress_member = compressor -> decompress;
    p_destroy_member = compressor -> destroy;
}

void
fill_compressor (ENetCompressor * compressor)
{
    compressor -> context = enet_range_coder_create ();
    compressor -> compress = enet_range_coder_compress;
    compressor -> decompress = enet_range_coder_decompress;
    compressor -> destroy = enet_range_coder_destroy;
}

void
fill_callbacks (ENetCallbacks * callbacks)
{
    callbacks -> malloc = malloc;
    callbacks -> free = free;
    callbacks -> no_memory = abort;
}

void
fill_host (ENetHost * host)
{
    host -> checksum = enet_crc32;
    host -> intercept = (ENetInterceptCallback) 0;
}

/* ---- the function-like macros, evaluated ----------------------------- */

static int failures = 0;

static void
expect (int condition)
{
    if (! condition)
      ++ failures;
}

static void
exercise_byte_order (void)
{
    enet_uint16 port = 0x1234;
    enet_uint32 host = 0x12345678;
    enet_uint32 wire = ENET_HOST_TO_NET_32 (host);
    const unsigned char * bytes = (const unsigned char *) & wire;

    expect (bytes [0] == 0x12 && bytes [3] == 0x78);
    expect (ENET_NET_TO_HOST_32 (wire) == host);
    expect (ENET_NET_TO_HOST_16 (ENET_HOST_TO_NET_16 (port)) == port);
}

static void
exercise_socketset (void)
{
    ENetSocketSet set;

    ENET_SOCKETSET_EMPTY (set);
    expect (! ENET_SOCKETSET_CHECK (set, 3));
    ENET_SOCKETSET_ADD (set, 3);
    expect (ENET_SOCKETSET_CHECK (set, 3));
    ENET_SOCKETSET_REMOVE (set, 3);
    expect (! ENET_SOCKETSET_CHECK (set, 3));
}

static void
exercise_list (void)
{
    ENetList list;
    ENetListNode first, second;
    ENetListIterator position;

    list.sentinel.next = & list.sentinel;
    list.sentinel.previous = & list.sentinel;
    expect (enet_list_empty (& list));
    expect (enet_list_begin (& list) == enet_list_end (& list));

    /* sentinel <-> first <-> second <-> sentinel */
    list.sentinel.next = & first;
    first.previous = & list.sentinel;
    first.next = & second;
    second.previous = & first;
    second.next = & list.sentinel;
    list.sentinel.previous = & second;

    expect (! enet_list_empty (& list));
    position = enet_list_begin (& list);
    expect (position == & first);
    position = enet_list_next (position);
    expect (position == & second);
    expect (enet_list_next (position) == enet_list_end (& list));
    expect (enet_list_previous (enet_list_end (& list)) == & second);
    expect (enet_list_previous (position) == & first);
    expect (enet_list_front (& list) == (void *) & first);
    expect (enet_list_back (& list) == (void *) & second);
}

static void
exercise_time (void)
{
    enet_uint32 early = 0xFFFFFFF0U, late = 5;

    expect (ENET_TIME_LESS (early, late) && ! ENET_TIME_LESS (late, early));
    expect (ENET_TIME_GREATER (late, early) && ! ENET_TIME_GREATER (early, late));
    expect (ENET_TIME_LESS_EQUAL (early, late) && ENET_TIME_LESS_EQUAL (late, late));
    expect (ENET_TIME_GREATER_EQUAL (late, early) && ENET_TIME_GREATER_EQUAL (early, early));
    expect (ENET_TIME_DIFFERENCE (late, early) == 21 && ENET_TIME_DIFFERENCE (early, late) == 21);
    expect (ENET_TIME_LESS (0U, (enet_uint32) ENET_TIME_OVERFLOW));
}

static void
exercise_utility (void)
{
    int small = 3, large = 10;

    expect (ENET_MAX (small, large) == 10 && ENET_MIN (small, large) == 3);
    expect (ENET_DIFFERENCE (small, large) == 7 && ENET_DIFFERENCE (large, small) == 7);
}

int
main (void)
{
    ENetEvent event;
    enum _ENetEventType kind = ENET_EVENT_TYPE_NONE;

    event.type = kind;
    event.peer = (ENetPeer *) 0;
    expect (event.type == ENET_EVENT_TYPE_NONE && event.peer == 0);
#ifdef _WIN32
    expect (ENET_SOCKET_NULL == INVALID_SOCKET);
#else
    expect (ENET_SOCKET_NULL < 0);
#endif

    exercise_byte_order ();
    exercise_socketset ();
    exercise_list ();
    exercise_time ();
    exercise_utility ();
    return failures == 0 ? 0 : 1;
}
