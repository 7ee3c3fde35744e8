/* Stand-in for the Windows SDK's <winsock2.h>, for the MSVC-style test
 * program built with neither the CRT nor the Windows SDK (../test-sdk.sh):
 * the WinSock types that enet/win32.h's own types are made of, with the
 * SDK's definitions (SOCKET is a UINT_PTR: 8 bytes on 64-bit Windows, 4 on
 * 32-bit; fd_set holds a count and FD_SETSIZE = 64 sockets). The program
 * calls no WinSock function, so none is declared. */
#ifndef ENET_SDK_TEST_WINSOCK2_H
#define ENET_SDK_TEST_WINSOCK2_H
#ifdef _WIN64
typedef unsigned __int64 SOCKET;
#else
typedef unsigned int SOCKET;
#endif
#define INVALID_SOCKET ((SOCKET) ~0)
typedef struct fd_set {
    unsigned int fd_count;
    SOCKET fd_array[64];
} fd_set;
#endif
