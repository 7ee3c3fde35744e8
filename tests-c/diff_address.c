/* Differential test of the enet_address_* functions: text parsing (good
 * and bad strings), numeric shorthands the resolver accepts, printing into
 * buffers of every size around the needed one, and reverse lookup of
 * 127.0.0.1. The output must be identical on stock ENet and on enet-rs.
 *
 * Only names that need no DNS are used: "localhost" (from /etc/hosts),
 * numeric forms, IPv6 literals, and names the resolver rejects before
 * asking a server (empty, longer than a DNS name may be). Reverse lookups
 * of other addresses would ask a DNS server, so the "no name: print the
 * number" fallback is covered by the Rust tests instead. NULL pointers
 * crash stock ENet and are tested in Rust too. */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

#define SENTINEL_HOST 0x11111111u
#define BUFFER_SIZE 24

/* Prints the buffer byte by byte: '|' for NUL, the fill byte '#' where
 * nothing was written. */
static void show_buffer(const char *buffer)
{
    int i;
    putchar('[');
    for (i = 0; i < BUFFER_SIZE; ++i)
        putchar(buffer[i] == '\0' ? '|' : buffer[i]);
    puts("]");
}

static void set_host_ip(const char *text)
{
    ENetAddress address;
    int result;
    address.host = SENTINEL_HOST;
    address.port = 4242;
    result = enet_address_set_host_ip(&address, text);
    printf("set_host_ip \"%s\": %d host=%08x port=%u\n", text, result, (unsigned) address.host,
           (unsigned) address.port);
}

static void set_host(const char *text)
{
    ENetAddress address;
    int result;
    address.host = SENTINEL_HOST;
    address.port = 4242;
    result = enet_address_set_host(&address, text);
    printf("set_host \"%s\": %d host=%08x port=%u\n", text, result, (unsigned) address.host,
           (unsigned) address.port);
}

static void get_host_ip(enet_uint32 host, size_t length)
{
    ENetAddress address;
    char buffer[BUFFER_SIZE];
    int result;
    address.host = host;
    address.port = 1;
    memset(buffer, '#', sizeof buffer);
    result = enet_address_get_host_ip(&address, buffer, length);
    printf("get_host_ip %08x len %2u: %2d ", (unsigned) host, (unsigned) length, result);
    show_buffer(buffer);
}

static void get_host(enet_uint32 host, size_t length)
{
    ENetAddress address;
    char buffer[BUFFER_SIZE];
    int result;
    address.host = host;
    address.port = 1;
    memset(buffer, '#', sizeof buffer);
    result = enet_address_get_host(&address, buffer, length);
    printf("get_host %08x len %2u: %2d ", (unsigned) host, (unsigned) length, result);
    show_buffer(buffer);
}

int main(void)
{
    static const char *dotted[] = {
        "1.2.3.4", "127.0.0.1", "0.0.0.0", "255.255.255.255", "10.0.100.250",
        "1.2.3", "1.2", "1", "127.1", "01.2.3.4", "1.2.3.00", "017.0.0.1",
        "1.2.3.256", "1.2.3.1000", "256.1.1.1", " 1.2.3.4", "1.2.3.4 ",
        "1.2.3.4x", "1.2.3.4.", ".1.2.3.4", "1..2.3", "1.2.3.4.5", "0x7f.0.0.1",
        "+1.2.3.4", "-1.2.3.4", "::1", "::ffff:1.2.3.4", "4294967295", "",
        "localhost", "1.2.3.4\t", "1.2.3.4\n", "\xd9\xa1.2.3.4"};
    /* Names the resolver handles without a DNS server. */
    static const char *resolvable[] = {
        "1.2.3.4", "127.0.0.1", "0.0.0.0", "255.255.255.255", "1.2.3", "1.2",
        "1", "127.1", "01.2.3.4", "017.0.0.1", "0x7f.0.0.1", "0x7f.1",
        "4294967295", "::1", "::ffff:1.2.3.4", "localhost", "LOCALHOST", ""};
    static const enet_uint32 hosts[] = {0x0100007fu, 0x00000000u, 0xffffffffu, 0x04030201u,
                                        0x0a0b0c0du};
    char long_name[300], long_label[80];
    size_t i, length;

    if (enet_initialize() != 0)
        return 1;

    puts("== set_host_ip");
    for (i = 0; i < sizeof dotted / sizeof dotted[0]; ++i)
        set_host_ip(dotted[i]);

    puts("== set_host");
    for (i = 0; i < sizeof resolvable / sizeof resolvable[0]; ++i)
        set_host(resolvable[i]);
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    set_host(long_name);
    memset(long_label, 'b', sizeof long_label - 1);
    long_label[sizeof long_label - 1] = '\0';
    set_host(long_label);

    puts("== get_host_ip");
    for (i = 0; i < sizeof hosts / sizeof hosts[0]; ++i)
        for (length = 0; length <= 17; ++length)
            get_host_ip(hosts[i], length);

    puts("== get_host (127.0.0.1 is named in /etc/hosts)");
    for (length = 0; length <= 12; ++length)
        get_host(0x0100007fu, length);
    get_host(0x0100007fu, BUFFER_SIZE);

    enet_deinitialize();
    return 0;
}
