/* Differential test of the enet_socket_* functions and
 * enet_socketset_select over loopback: return codes, errno after failures,
 * scatter/gather contents, wait conditions, every socket option (and
 * invalid ones), shutdown, destroy. Prints only deterministic facts (no
 * ports, descriptors or times); output must be identical on stock ENet and
 * on enet-rs.
 *
 * Not covered here on purpose: receiving a datagram larger than the
 * buffers. Stock 1.3.17 returns -1 there and enet-rs deliberately returns
 * -2 (as ENet 1.3.18+ does, so a host can skip the datagram); that case is
 * tested in the Rust tests (tests/engine/net_socket.rs). NULL pointer arguments,
 * which crash stock, are tested there too. */
#define _DEFAULT_SOURCE 1
#include <enet/enet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define LOOPBACK 0x0100007fu /* 127.0.0.1 in network byte order on x86_64 */
#define NOT_OPEN 900         /* a descriptor this program never opens */

static const char *errno_name(int error)
{
    switch (error) {
    case 0: return "0";
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case ENOTSOCK: return "ENOTSOCK";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EDESTADDRREQ: return "EDESTADDRREQ";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ENOTCONN: return "ENOTCONN";
    case EINTR: return "EINTR";
    case EAGAIN: return "EAGAIN";
    case EINPROGRESS: return "EINPROGRESS";
    case EADDRINUSE: return "EADDRINUSE";
    case EISCONN: return "EISCONN";
    case EFAULT: return "EFAULT";
    case EMSGSIZE: return "EMSGSIZE";
    case EDOM: return "EDOM";
    case ENOPROTOOPT: return "ENOPROTOOPT";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EPIPE: return "EPIPE";
    case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
    default: return "other";
    }
}

/* Prints a result code, and errno when the call reported failure. */
static void show(const char *what, int result, int error)
{
    if (result == -1)
        printf("%s: %d errno=%s\n", what, result, errno_name(error));
    else
        printf("%s: %d\n", what, result);
}

#define CALL(what, expression)                 \
    do {                                       \
        int result_;                           \
        errno = 0;                             \
        result_ = (expression);                \
        show((what), result_, errno);          \
    } while (0)

static void yes(const char *what, int fact) { printf("%s: %s\n", what, fact ? "yes" : "no"); }

static void fail(const char *what)
{
    fprintf(stderr, "internal failure: %s\n", what);
    exit(1);
}

static ENetSocket udp_on_loopback(ENetAddress *bound)
{
    ENetAddress address;
    ENetSocket socket = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    if (socket == ENET_SOCKET_NULL)
        fail("udp socket");
    address.host = LOOPBACK;
    address.port = 0;
    if (enet_socket_bind(socket, &address) != 0 || enet_socket_get_address(socket, bound) != 0)
        fail("udp bind");
    return socket;
}

static int socket_type(ENetSocket socket)
{
    int type = -1;
    socklen_t length = sizeof type;
    if (getsockopt(socket, SOL_SOCKET, SO_TYPE, &type, &length) != 0)
        return -1;
    return type;
}

static void test_create(void)
{
    ENetSocket udp = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    ENetSocket tcp = enet_socket_create(ENET_SOCKET_TYPE_STREAM);
    ENetSocket zero = enet_socket_create((ENetSocketType) 0);
    ENetSocket odd = enet_socket_create((ENetSocketType) 99);
    int flags;
    puts("== create");
    yes("datagram valid", udp >= 0);
    yes("datagram is SOCK_DGRAM", socket_type(udp) == SOCK_DGRAM);
    yes("stream valid", tcp >= 0);
    yes("stream is SOCK_STREAM", socket_type(tcp) == SOCK_STREAM);
    yes("type 0 is SOCK_STREAM", socket_type(zero) == SOCK_STREAM);
    yes("type 99 is SOCK_STREAM", socket_type(odd) == SOCK_STREAM);
    flags = fcntl(udp, F_GETFL);
    yes("blocking by default", flags != -1 && !(flags & O_NONBLOCK));
    flags = fcntl(udp, F_GETFD);
    yes("close-on-exec", flags != -1 && (flags & FD_CLOEXEC));
    enet_socket_destroy(udp);
    enet_socket_destroy(tcp);
    enet_socket_destroy(zero);
    enet_socket_destroy(odd);
}

static void test_bind_and_address(void)
{
    ENetAddress address, bound, other;
    ENetSocket a = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    ENetSocket b = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    ENetSocket c = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    int devnull = open("/dev/null", O_RDONLY);
    puts("== bind / get_address");
    CALL("bind NULL (any)", enet_socket_bind(a, NULL));
    bound.host = 0x12345678;
    bound.port = 0;
    CALL("get_address", enet_socket_get_address(a, &bound));
    yes("any host", bound.host == 0);
    yes("port nonzero", bound.port != 0);
    CALL("bind again", enet_socket_bind(a, NULL));

    address.host = LOOPBACK;
    address.port = 0;
    CALL("bind loopback", enet_socket_bind(b, &address));
    CALL("get_address", enet_socket_get_address(b, &bound));
    yes("host 127.0.0.1", bound.host == LOOPBACK);
    yes("port nonzero", bound.port != 0);
    CALL("bind same port", enet_socket_bind(c, &bound));
    CALL("reuseaddr", enet_socket_set_option(c, ENET_SOCKOPT_REUSEADDR, 1));
    CALL("bind same port after reuseaddr", enet_socket_bind(c, &bound));

    other.host = 0x5a5a5a5a;
    other.port = 0x5a5a;
    CALL("get_address unbound", enet_socket_get_address(c, &other));
    yes("unbound any:0", other.host == 0 && other.port == 0);
    other.host = 0x5a5a5a5a;
    other.port = 0x5a5a;
    CALL("get_address bad fd", enet_socket_get_address(NOT_OPEN, &other));
    CALL("get_address -1", enet_socket_get_address(-1, &other));
    CALL("get_address not a socket", enet_socket_get_address(devnull, &other));
    yes("address untouched", other.host == 0x5a5a5a5a && other.port == 0x5a5a);
    address.host = LOOPBACK;
    address.port = 0;
    CALL("bind bad fd", enet_socket_bind(NOT_OPEN, &address));
    CALL("bind -1", enet_socket_bind(-1, NULL));
    CALL("bind not a socket", enet_socket_bind(devnull, &address));
    address.host = 0x010000c0u; /* 192.0.0.1: not a local address */
    CALL("bind foreign address", enet_socket_bind(c, &address));
    close(devnull);
    enet_socket_destroy(a);
    enet_socket_destroy(b);
    enet_socket_destroy(c);
}

static void test_datagrams(void)
{
    ENetAddress receiver_address, sender_address, from;
    ENetSocket receiver = udp_on_loopback(&receiver_address);
    ENetSocket sender = udp_on_loopback(&sender_address);
    char part1[] = "abc", part3[] = "defgh", in1[4], in2[10], big[64];
    ENetBuffer out[3], in[2], one;
    int result;
    puts("== send / receive");
    out[0].data = part1;
    out[0].dataLength = 3;
    out[1].data = NULL;
    out[1].dataLength = 0;
    out[2].data = part3;
    out[2].dataLength = 5;
    CALL("nonblock receiver", enet_socket_set_option(receiver, ENET_SOCKOPT_NONBLOCK, 1));

    memset(in1, '.', sizeof in1);
    memset(in2, '.', sizeof in2);
    in[0].data = in1;
    in[0].dataLength = sizeof in1;
    in[1].data = in2;
    in[1].dataLength = sizeof in2;
    from.host = 1;
    from.port = 1;
    CALL("receive empty", enet_socket_receive(receiver, &from, in, 2));
    yes("address untouched", from.host == 1 && from.port == 1);
    CALL("receive empty, NULL address", enet_socket_receive(receiver, NULL, in, 2));

    CALL("send 3 buffers", enet_socket_send(sender, &receiver_address, out, 3));
    CALL("receive into 2 buffers", enet_socket_receive(receiver, &from, in, 2));
    printf("scattered: [%.4s] [%.10s]\n", in1, in2);
    yes("from 127.0.0.1", from.host == LOOPBACK);
    yes("from sender port", from.port == sender_address.port);

    CALL("send 0 buffers", enet_socket_send(sender, &receiver_address, NULL, 0));
    one.data = big;
    one.dataLength = sizeof big;
    CALL("receive empty datagram", enet_socket_receive(receiver, &from, &one, 1));
    CALL("send 1 buffer", enet_socket_send(sender, &receiver_address, out, 1));
    CALL("receive, NULL address", enet_socket_receive(receiver, NULL, &one, 1));
    CALL("send exact fit", enet_socket_send(sender, &receiver_address, &out[2], 1));
    one.dataLength = 5;
    CALL("receive exact fit", enet_socket_receive(receiver, &from, &one, 1));
    printf("exact: [%.5s]\n", big);

    CALL("send no address, unconnected", enet_socket_send(sender, NULL, out, 3));
    CALL("connect udp", enet_socket_connect(sender, &receiver_address));
    CALL("send no address, connected", enet_socket_send(sender, NULL, out, 1));
    one.dataLength = sizeof big;
    CALL("receive", enet_socket_receive(receiver, &from, &one, 1));
    CALL("send bad fd", enet_socket_send(NOT_OPEN, &receiver_address, out, 3));
    CALL("receive bad fd", enet_socket_receive(NOT_OPEN, &from, &one, 1));
    CALL("send -1", enet_socket_send(-1, &receiver_address, out, 3));
    CALL("receive -1", enet_socket_receive(-1, &from, &one, 1));
    puts("send 2000 buffers (> IOV_MAX)");
    {
        ENetBuffer many[2000];
        int i;
        for (i = 0; i < 2000; ++i) {
            many[i].data = part1;
            many[i].dataLength = 1;
        }
        CALL("  result", enet_socket_send(sender, &receiver_address, many, 2000));
        CALL("  receive", enet_socket_receive(receiver, NULL, many, 2000));
    }
    result = enet_socket_receive(receiver, NULL, &one, 1);
    yes("nothing left", result == 0);
    enet_socket_destroy(receiver);
    enet_socket_destroy(sender);
}

static void test_stream(void)
{
    ENetAddress listen_address, client_local, peer, closed_address;
    ENetSocket listener = enet_socket_create(ENET_SOCKET_TYPE_STREAM);
    ENetSocket client = enet_socket_create(ENET_SOCKET_TYPE_STREAM);
    ENetSocket client2 = enet_socket_create(ENET_SOCKET_TYPE_STREAM);
    ENetSocket refused = enet_socket_create(ENET_SOCKET_TYPE_STREAM);
    ENetSocket udp = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    ENetSocket accepted, accepted2, closed_probe;
    char text[] = "hello", in[16];
    ENetBuffer buffer;
    int value;
    enet_uint32 condition;
    puts("== stream listen / connect / accept");
    listen_address.host = LOOPBACK;
    listen_address.port = 0;
    CALL("bind listener", enet_socket_bind(listener, &listen_address));
    CALL("get_address", enet_socket_get_address(listener, &listen_address));
    CALL("listen backlog -1", enet_socket_listen(listener, -1));
    CALL("listen again backlog 5", enet_socket_listen(listener, 5));
    CALL("listen udp", enet_socket_listen(udp, 5));
    CALL("listen bad fd", enet_socket_listen(NOT_OPEN, 5));
    CALL("accept bad fd", enet_socket_accept(NOT_OPEN, &peer));
    CALL("accept udp", enet_socket_accept(udp, &peer));

    CALL("connect", enet_socket_connect(client, &listen_address));
    CALL("get_address client", enet_socket_get_address(client, &client_local));
    peer.host = 0;
    peer.port = 0;
    accepted = enet_socket_accept(listener, &peer);
    yes("accepted valid", accepted >= 0);
    yes("peer host 127.0.0.1", peer.host == LOOPBACK);
    yes("peer port is client's", peer.port == client_local.port);
    CALL("connect again", enet_socket_connect(client, &listen_address));

    CALL("nonblock client2", enet_socket_set_option(client2, ENET_SOCKOPT_NONBLOCK, 1));
    CALL("nonblocking connect", enet_socket_connect(client2, &listen_address));
    condition = ENET_SOCKET_WAIT_SEND;
    CALL("wait connected", enet_socket_wait(client2, &condition, 2000));
    printf("condition: %u\n", condition);
    value = -7;
    CALL("get ERROR", enet_socket_get_option(client2, ENET_SOCKOPT_ERROR, &value));
    printf("error value: %s\n", errno_name(value));
    accepted2 = enet_socket_accept(listener, NULL);
    yes("accept NULL address valid", accepted2 >= 0);
    CALL("nonblock listener", enet_socket_set_option(listener, ENET_SOCKOPT_NONBLOCK, 1));
    CALL("accept none pending", enet_socket_accept(listener, &peer));

    /* A port with no listener: take a fresh port, then close it. */
    closed_probe = enet_socket_create(ENET_SOCKET_TYPE_STREAM);
    closed_address.host = LOOPBACK;
    closed_address.port = 0;
    if (enet_socket_bind(closed_probe, &closed_address) != 0 ||
        enet_socket_get_address(closed_probe, &closed_address) != 0)
        fail("probe bind");
    enet_socket_destroy(closed_probe);
    CALL("connect refused", enet_socket_connect(refused, &closed_address));
    CALL("connect bad fd", enet_socket_connect(NOT_OPEN, &listen_address));

    puts("== stream send / receive / shutdown");
    buffer.data = text;
    buffer.dataLength = 5;
    CALL("send", enet_socket_send(client, NULL, &buffer, 1));
    memset(in, 0, sizeof in);
    buffer.data = in;
    buffer.dataLength = sizeof in;
    CALL("receive", enet_socket_receive(accepted, NULL, &buffer, 1));
    printf("got: [%s]\n", in);
    CALL("shutdown how 3", enet_socket_shutdown(client, (ENetSocketShutdown) 3));
    CALL("shutdown how -1", enet_socket_shutdown(client, (ENetSocketShutdown) -1));
    CALL("shutdown write", enet_socket_shutdown(client, ENET_SOCKET_SHUTDOWN_WRITE));
    CALL("receive after peer shutdown", enet_socket_receive(accepted, NULL, &buffer, 1));
    buffer.data = text;
    buffer.dataLength = 5;
    CALL("send after own shutdown", enet_socket_send(client, NULL, &buffer, 1));
    CALL("shutdown read", enet_socket_shutdown(client, ENET_SOCKET_SHUTDOWN_READ));
    CALL("shutdown read_write", enet_socket_shutdown(accepted, ENET_SOCKET_SHUTDOWN_READ_WRITE));
    CALL("shutdown unconnected", enet_socket_shutdown(refused, ENET_SOCKET_SHUTDOWN_READ_WRITE));
    CALL("shutdown udp", enet_socket_shutdown(udp, ENET_SOCKET_SHUTDOWN_READ));
    CALL("shutdown bad fd", enet_socket_shutdown(NOT_OPEN, ENET_SOCKET_SHUTDOWN_READ));

    enet_socket_destroy(accepted);
    enet_socket_destroy(accepted2);
    enet_socket_destroy(client);
    enet_socket_destroy(client2);
    enet_socket_destroy(refused);
    enet_socket_destroy(listener);
    enet_socket_destroy(udp);
}

static volatile sig_atomic_t alarms;
static void on_alarm(int signal_number)
{
    (void) signal_number;
    ++alarms;
}

/* Interrupts the next blocking call in about 20 ms. */
static void arm_interrupt(void)
{
    struct itimerval timer;
    memset(&timer, 0, sizeof timer);
    timer.it_value.tv_usec = 20000;
    if (setitimer(ITIMER_REAL, &timer, NULL) != 0)
        fail("setitimer");
}

static void test_wait(void)
{
    ENetAddress receiver_address, sender_address;
    ENetSocket receiver = udp_on_loopback(&receiver_address);
    ENetSocket sender = udp_on_loopback(&sender_address);
    struct sigaction action;
    enet_uint32 condition;
    char byte = 'x';
    ENetBuffer buffer;
    puts("== wait");
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0; /* no SA_RESTART */
    if (sigaction(SIGALRM, &action, NULL) != 0)
        fail("sigaction");

    condition = ENET_SOCKET_WAIT_RECEIVE;
    CALL("wait receive, nothing", enet_socket_wait(receiver, &condition, 10));
    printf("condition: %u\n", condition);
    condition = ENET_SOCKET_WAIT_SEND;
    CALL("wait send", enet_socket_wait(receiver, &condition, 10));
    printf("condition: %u\n", condition);
    condition = ENET_SOCKET_WAIT_SEND | ENET_SOCKET_WAIT_RECEIVE;
    CALL("wait send|receive, nothing to read", enet_socket_wait(receiver, &condition, 10));
    printf("condition: %u\n", condition);

    buffer.data = &byte;
    buffer.dataLength = 1;
    if (enet_socket_send(sender, &receiver_address, &buffer, 1) != 1)
        fail("send");
    condition = ENET_SOCKET_WAIT_RECEIVE;
    CALL("wait receive, datagram", enet_socket_wait(receiver, &condition, 1000));
    printf("condition: %u\n", condition);
    condition = ENET_SOCKET_WAIT_SEND | ENET_SOCKET_WAIT_RECEIVE | ENET_SOCKET_WAIT_INTERRUPT;
    CALL("wait all, datagram", enet_socket_wait(receiver, &condition, 1000));
    printf("condition: %u\n", condition);
    condition = ENET_SOCKET_WAIT_NONE;
    CALL("wait none", enet_socket_wait(receiver, &condition, 10));
    printf("condition: %u\n", condition);
    condition = ENET_SOCKET_WAIT_RECEIVE;
    CALL("wait bad fd", enet_socket_wait(NOT_OPEN, &condition, 10));
    printf("condition: %u\n", condition);
    condition = ENET_SOCKET_WAIT_RECEIVE;
    CALL("wait -1", enet_socket_wait(-1, &condition, 10));
    printf("condition: %u\n", condition);
    condition = 0xF0 | ENET_SOCKET_WAIT_SEND;
    CALL("wait unknown flags + send", enet_socket_wait(receiver, &condition, 10));
    printf("condition: %u\n", condition);
    if (enet_socket_receive(receiver, NULL, &buffer, 1) != 1)
        fail("drain");

    arm_interrupt();
    condition = ENET_SOCKET_WAIT_RECEIVE | ENET_SOCKET_WAIT_INTERRUPT;
    CALL("wait interrupted, INTERRUPT asked", enet_socket_wait(receiver, &condition, 5000));
    printf("condition: %u\n", condition);
    arm_interrupt();
    condition = ENET_SOCKET_WAIT_RECEIVE;
    CALL("wait interrupted, not asked", enet_socket_wait(receiver, &condition, 5000));
    printf("condition: %u\n", condition);
    yes("two alarms", alarms == 2);
    enet_socket_destroy(receiver);
    enet_socket_destroy(sender);
}

static void test_select(void)
{
    ENetAddress receiver_address, sender_address;
    ENetSocket receiver = udp_on_loopback(&receiver_address);
    ENetSocket sender = udp_on_loopback(&sender_address);
    ENetSocket max = receiver > sender ? receiver : sender;
    ENetSocketSet read_set, write_set;
    char byte = 'x';
    ENetBuffer buffer;
    puts("== socketset_select");
    ENET_SOCKETSET_EMPTY(read_set);
    ENET_SOCKETSET_ADD(read_set, receiver);
    CALL("select read, nothing", enet_socketset_select(max, &read_set, NULL, 10));
    yes("receiver cleared", !ENET_SOCKETSET_CHECK(read_set, receiver));
    buffer.data = &byte;
    buffer.dataLength = 1;
    if (enet_socket_send(sender, &receiver_address, &buffer, 1) != 1)
        fail("send");
    ENET_SOCKETSET_EMPTY(read_set);
    ENET_SOCKETSET_ADD(read_set, receiver);
    ENET_SOCKETSET_ADD(read_set, sender);
    ENET_SOCKETSET_EMPTY(write_set);
    ENET_SOCKETSET_ADD(write_set, sender);
    CALL("select read+write", enet_socketset_select(max, &read_set, &write_set, 1000));
    yes("receiver readable", ENET_SOCKETSET_CHECK(read_set, receiver));
    yes("sender not readable", !ENET_SOCKETSET_CHECK(read_set, sender));
    yes("sender writable", ENET_SOCKETSET_CHECK(write_set, sender));
    CALL("select no sets", enet_socketset_select(-1, NULL, NULL, 5));
    CALL("select max -2", enet_socketset_select(-2, NULL, NULL, 5));
    ENET_SOCKETSET_EMPTY(read_set);
    ENET_SOCKETSET_ADD(read_set, NOT_OPEN);
    CALL("select bad fd", enet_socketset_select(NOT_OPEN, &read_set, NULL, 5));
    enet_socket_destroy(receiver);
    enet_socket_destroy(sender);
}

static void show_option(const char *what, ENetSocket socket, int level, int name)
{
    int value = -12345;
    socklen_t length = sizeof value;
    if (getsockopt(socket, level, name, &value, &length) != 0)
        printf("  %s: getsockopt failed\n", what);
    else
        printf("  %s now %s\n", what, value ? "on" : "off");
}

static void show_timeout(const char *what, ENetSocket socket, int name)
{
    struct timeval time;
    socklen_t length = sizeof time;
    if (getsockopt(socket, SOL_SOCKET, name, &time, &length) != 0)
        printf("  %s: getsockopt failed\n", what);
    else
        printf("  %s now %ld.%06ld\n", what, (long) time.tv_sec, (long) time.tv_usec);
}

static void test_options(void)
{
    ENetSocket udp = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    ENetSocket tcp = enet_socket_create(ENET_SOCKET_TYPE_STREAM);
    int devnull = open("/dev/null", O_RDONLY);
    int option, value, buffer_size;
    socklen_t length;
    /* 10 is ENet 1.3.18's ENET_SOCKOPT_TTL, which 1.3.17 refuses and we
       take (tests/engine/net_socket.rs and compat_1_3_18.c test it). */
    static const int odd_options[] = {0, -1, 11, 99, INT_MIN, INT_MAX};
    size_t i;
    puts("== set_option / get_option");
    CALL("NONBLOCK 1", enet_socket_set_option(udp, ENET_SOCKOPT_NONBLOCK, 1));
    yes("  O_NONBLOCK set", fcntl(udp, F_GETFL) & O_NONBLOCK);
    CALL("NONBLOCK 0", enet_socket_set_option(udp, ENET_SOCKOPT_NONBLOCK, 0));
    yes("  O_NONBLOCK clear", !(fcntl(udp, F_GETFL) & O_NONBLOCK));
    CALL("NONBLOCK 42", enet_socket_set_option(udp, ENET_SOCKOPT_NONBLOCK, 42));
    yes("  O_NONBLOCK set", fcntl(udp, F_GETFL) & O_NONBLOCK);
    CALL("BROADCAST 1", enet_socket_set_option(udp, ENET_SOCKOPT_BROADCAST, 1));
    show_option("SO_BROADCAST", udp, SOL_SOCKET, SO_BROADCAST);
    CALL("BROADCAST 0", enet_socket_set_option(udp, ENET_SOCKOPT_BROADCAST, 0));
    show_option("SO_BROADCAST", udp, SOL_SOCKET, SO_BROADCAST);
    CALL("REUSEADDR 1", enet_socket_set_option(udp, ENET_SOCKOPT_REUSEADDR, 1));
    show_option("SO_REUSEADDR", udp, SOL_SOCKET, SO_REUSEADDR);
    CALL("RCVBUF 65536", enet_socket_set_option(udp, ENET_SOCKOPT_RCVBUF, 65536));
    length = sizeof buffer_size;
    getsockopt(udp, SOL_SOCKET, SO_RCVBUF, &buffer_size, &length);
    yes("  SO_RCVBUF doubled by kernel", buffer_size == 131072);
    CALL("SNDBUF 32768", enet_socket_set_option(udp, ENET_SOCKOPT_SNDBUF, 32768));
    length = sizeof buffer_size;
    getsockopt(udp, SOL_SOCKET, SO_SNDBUF, &buffer_size, &length);
    yes("  SO_SNDBUF doubled by kernel", buffer_size == 65536);
    CALL("RCVBUF -1", enet_socket_set_option(udp, ENET_SOCKOPT_RCVBUF, -1));
    CALL("RCVTIMEO 1500", enet_socket_set_option(udp, ENET_SOCKOPT_RCVTIMEO, 1500));
    show_timeout("SO_RCVTIMEO", udp, SO_RCVTIMEO);
    CALL("SNDTIMEO 250", enet_socket_set_option(udp, ENET_SOCKOPT_SNDTIMEO, 250));
    show_timeout("SO_SNDTIMEO", udp, SO_SNDTIMEO);
    CALL("RCVTIMEO 0", enet_socket_set_option(udp, ENET_SOCKOPT_RCVTIMEO, 0));
    show_timeout("SO_RCVTIMEO", udp, SO_RCVTIMEO);
    CALL("RCVTIMEO -1000", enet_socket_set_option(udp, ENET_SOCKOPT_RCVTIMEO, -1000));
    show_timeout("SO_RCVTIMEO", udp, SO_RCVTIMEO);
    CALL("RCVTIMEO -1500", enet_socket_set_option(udp, ENET_SOCKOPT_RCVTIMEO, -1500));
    CALL("SNDTIMEO INT_MAX", enet_socket_set_option(udp, ENET_SOCKOPT_SNDTIMEO, INT_MAX));
    show_timeout("SO_SNDTIMEO", udp, SO_SNDTIMEO);
    CALL("NODELAY 1 on udp", enet_socket_set_option(udp, ENET_SOCKOPT_NODELAY, 1));
    CALL("NODELAY 1 on tcp", enet_socket_set_option(tcp, ENET_SOCKOPT_NODELAY, 1));
    show_option("TCP_NODELAY", tcp, IPPROTO_TCP, TCP_NODELAY);
    CALL("ERROR (not settable)", enet_socket_set_option(udp, ENET_SOCKOPT_ERROR, 1));
    for (i = 0; i < sizeof odd_options / sizeof odd_options[0]; ++i) {
        char what[48];
        snprintf(what, sizeof what, "set option %d", odd_options[i]);
        CALL(what, enet_socket_set_option(udp, (ENetSocketOption) odd_options[i], 1));
        value = 77;
        snprintf(what, sizeof what, "get option %d", odd_options[i]);
        CALL(what, enet_socket_get_option(udp, (ENetSocketOption) odd_options[i], &value));
        printf("  value %d\n", value);
    }
    for (option = ENET_SOCKOPT_NONBLOCK; option <= ENET_SOCKOPT_NODELAY; ++option) {
        char what[48];
        snprintf(what, sizeof what, "set option %d on bad fd", option);
        CALL(what, enet_socket_set_option(NOT_OPEN, (ENetSocketOption) option, 1));
        snprintf(what, sizeof what, "set option %d on /dev/null", option);
        CALL(what, enet_socket_set_option(devnull, (ENetSocketOption) option, 1));
        value = 77;
        snprintf(what, sizeof what, "get option %d", option);
        CALL(what, enet_socket_get_option(udp, (ENetSocketOption) option, &value));
        printf("  value %d\n", value);
    }
    value = 77;
    CALL("get ERROR bad fd", enet_socket_get_option(NOT_OPEN, ENET_SOCKOPT_ERROR, &value));
    printf("  value %d\n", value);
    CALL("get ERROR /dev/null", enet_socket_get_option(devnull, ENET_SOCKOPT_ERROR, &value));
    printf("  value %d\n", value);
    close(devnull);
    enet_socket_destroy(udp);
    enet_socket_destroy(tcp);
}

static void test_destroy(void)
{
    ENetSocket socket = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    puts("== destroy");
    enet_socket_destroy(socket);
    errno = 0;
    yes("closed", fcntl(socket, F_GETFD) == -1 && errno == EBADF);
    enet_socket_destroy(ENET_SOCKET_NULL);
    enet_socket_destroy(NOT_OPEN);
    enet_socket_destroy(-5);
    puts("destroy of -1, closed and negative descriptors returned");
}

int main(void)
{
    if (enet_initialize() != 0)
        fail("enet_initialize");
    /* A peer closing a stream must not kill this program. */
    signal(SIGPIPE, SIG_IGN);
    test_create();
    test_bind_and_address();
    test_datagrams();
    test_stream();
    test_wait();
    test_select();
    test_options();
    test_destroy();
    enet_deinitialize();
    return 0;
}
