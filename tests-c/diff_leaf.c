/* Differential test of the leaf functions: initialisation and allocator
 * hooks, packets, CRC-32, lists and command sizes. Prints deterministic
 * lines; the output must be identical on stock ENet and on enet-rs. */
#include <enet/enet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int malloc_calls, free_calls, no_memory_calls, fail_next_malloc, failed_mallocs;

static void *counting_malloc(size_t size)
{
    ++malloc_calls;
    if (fail_next_malloc) {
        fail_next_malloc = 0;
        ++failed_mallocs;
        return NULL;
    }
    return malloc(size);
}

static void counting_free(void *memory)
{
    if (memory != NULL)
        ++free_calls;
    free(memory);
}

static void record_no_memory(void) { ++no_memory_calls; }

static int free_callback_calls;
static int free_callback_saw_data;

static void on_packet_free(ENetPacket *packet)
{
    ++free_callback_calls;
    free_callback_saw_data = packet->data != NULL && packet->dataLength > 0 &&
                             packet->data[0] == 'x';
}

static void print_counts(const char *what)
{
    printf("%s: malloc=%d free=%d no_memory=%d\n", what, malloc_calls, free_calls, no_memory_calls);
}

/* For packets, whether allocations are still live rather than how many
 * calls made them: enet-rs puts a packet and its bytes in one allocation
 * (stock makes two), a documented difference. Every allocation must still
 * be freed, and failures and out-of-memory calls must match. */
static void print_packet_counts(const char *what)
{
    int live = malloc_calls - failed_mallocs - free_calls;
    printf("%s: live=%s failed=%d no_memory=%d\n", what,
           live == 0 ? "none" : live > 0 ? "some" : "NEGATIVE", failed_mallocs, no_memory_calls);
}

static void test_initialisation(void)
{
    ENetCallbacks only_malloc = {counting_malloc, NULL, NULL};
    ENetCallbacks only_free = {NULL, counting_free, NULL};
    ENetCallbacks none = {NULL, NULL, NULL};
    ENetCallbacks hooks = {counting_malloc, counting_free, record_no_memory};

    printf("linked_version=0x%x\n", (unsigned) enet_linked_version());
    printf("ENET_VERSION=0x%x\n", (unsigned) ENET_VERSION);
    printf("initialize=%d\n", enet_initialize());
    enet_deinitialize();
    printf("with_callbacks(1.2.9)=%d\n",
           enet_initialize_with_callbacks(ENET_VERSION_CREATE(1, 2, 9), &none));
    printf("with_callbacks(only malloc)=%d\n", enet_initialize_with_callbacks(ENET_VERSION, &only_malloc));
    printf("with_callbacks(only free)=%d\n", enet_initialize_with_callbacks(ENET_VERSION, &only_free));
    printf("with_callbacks(none)=%d\n", enet_initialize_with_callbacks(ENET_VERSION, &none));
    print_counts("after rejected callbacks");
    printf("with_callbacks(1.3.0, hooks)=%d\n",
           enet_initialize_with_callbacks(ENET_VERSION_CREATE(1, 3, 0), &hooks));
}

static void test_allocator(void)
{
    void *memory;
    malloc_calls = free_calls = no_memory_calls = 0;
    memory = enet_malloc(64);
    printf("enet_malloc(64) non-null=%d\n", memory != NULL);
    enet_free(memory);
    print_counts("malloc+free");
    fail_next_malloc = 1;
    memory = enet_malloc(64);
    printf("failing enet_malloc null=%d\n", memory == NULL);
    print_counts("failed malloc");
}

static void test_packets(void)
{
    static const char text[] = "xyzzy payload";
    static char borrowed[] = "borrowed bytes";
    ENetPacket *packet;
    int resized;

    malloc_calls = free_calls = no_memory_calls = failed_mallocs = 0;
    packet = enet_packet_create(text, sizeof text, ENET_PACKET_FLAG_RELIABLE);
    printf("create: refs=%lu flags=%u len=%lu same=%d copied=%d cb=%d user=%d\n",
           (unsigned long) packet->referenceCount, packet->flags, (unsigned long) packet->dataLength,
           memcmp(packet->data, text, sizeof text) == 0, packet->data != (const enet_uint8 *) text,
           packet->freeCallback == NULL, packet->userData == NULL);
    print_packet_counts("create copy");
    packet->freeCallback = on_packet_free;
    /* One statement per call: C leaves the order in which a printf's
       arguments are evaluated open, so a resize and a read of dataLength in
       one call print differently under gcc and clang. */
    resized = enet_packet_resize(packet, 4);
    printf("resize shrink=%d len=%lu\n", resized, (unsigned long) packet->dataLength);
    resized = enet_packet_resize(packet, 100);
    printf("resize grow=%d len=%lu prefix=%d\n", resized, (unsigned long) packet->dataLength,
           memcmp(packet->data, "xyzz", 4) == 0);
    print_packet_counts("after resizes");
    fail_next_malloc = 1;
    resized = enet_packet_resize(packet, 1000);
    printf("resize grow with failing malloc=%d len=%lu\n", resized,
           (unsigned long) packet->dataLength);
    enet_packet_destroy(packet);
    printf("free callback calls=%d saw data=%d\n", free_callback_calls, free_callback_saw_data);
    print_packet_counts("destroy");

    malloc_calls = free_calls = no_memory_calls = failed_mallocs = 0;
    packet = enet_packet_create(borrowed, sizeof borrowed, ENET_PACKET_FLAG_NO_ALLOCATE);
    printf("no_allocate: borrowed=%d len=%lu flags=%u\n", packet->data == (enet_uint8 *) borrowed,
           (unsigned long) packet->dataLength, packet->flags);
    resized = enet_packet_resize(packet, 500);
    printf("no_allocate resize grow=%d len=%lu still borrowed=%d\n", resized,
           (unsigned long) packet->dataLength, packet->data == (enet_uint8 *) borrowed);
    enet_packet_destroy(packet);
    print_packet_counts("no_allocate create+destroy");

    malloc_calls = free_calls = no_memory_calls = failed_mallocs = 0;
    packet = enet_packet_create(NULL, 0, 0);
    printf("empty: data null=%d len=%lu\n", packet->data == NULL, (unsigned long) packet->dataLength);
    resized = enet_packet_resize(packet, 8);
    printf("empty resize grow=%d len=%lu\n", resized, (unsigned long) packet->dataLength);
    enet_packet_destroy(packet);
    packet = enet_packet_create(NULL, 32, ENET_PACKET_FLAG_UNSEQUENCED);
    printf("uninitialised: data non-null=%d len=%lu flags=%u\n", packet->data != NULL,
           (unsigned long) packet->dataLength, packet->flags);
    enet_packet_destroy(packet);
    print_packet_counts("empty and uninitialised");

    enet_packet_destroy(NULL);
    printf("destroy(NULL) ok\n");

    malloc_calls = free_calls = no_memory_calls = failed_mallocs = 0;
    fail_next_malloc = 1;
    packet = enet_packet_create(text, sizeof text, 0);
    printf("create with failing malloc null=%d\n", packet == NULL);
    print_packet_counts("failed create");
}

static void test_crc32(void)
{
    char digits[] = "123456789";
    ENetBuffer whole = {digits, 9};
    ENetBuffer split[3] = {{digits, 4}, {digits + 4, 0}, {digits + 4, 5}};
    unsigned char bytes[4];
    enet_uint32 crc = enet_crc32(&whole, 1);
    unsigned char pattern[1000];
    ENetBuffer big = {pattern, sizeof pattern};
    int i;

    memcpy(bytes, &crc, 4);
    printf("crc32(123456789)=0x%08x bytes=%02x%02x%02x%02x\n", crc, bytes[0], bytes[1], bytes[2], bytes[3]);
    printf("crc32 split=0x%08x\n", enet_crc32(split, 3));
    printf("crc32 no buffers=0x%08x\n", enet_crc32(&whole, 0));
    for (i = 0; i < (int) sizeof pattern; ++i)
        pattern[i] = (unsigned char) (i * 7 + 3);
    printf("crc32 pattern=0x%08x\n", enet_crc32(&big, 1));
}

typedef struct {
    ENetListNode node;
    int value;
} Item;

static void print_list(const char *what, ENetList *list)
{
    ENetListIterator it;
    printf("%s: size=%lu empty=%d [", what, (unsigned long) enet_list_size(list), enet_list_empty(list));
    for (it = enet_list_begin(list); it != enet_list_end(list); it = enet_list_next(it))
        printf(" %d", ((Item *) it)->value);
    printf(" ] back-to-front [");
    for (it = enet_list_previous(enet_list_end(list)); it != enet_list_end(list); it = enet_list_previous(it))
        printf(" %d", ((Item *) it)->value);
    printf(" ]\n");
}

static void test_lists(void)
{
    ENetList list, other;
    Item items[6];
    int i;
    void *removed;

    enet_list_clear(&list);
    enet_list_clear(&other);
    print_list("cleared", &list);
    for (i = 0; i < 6; ++i) {
        items[i].value = i;
        if (enet_list_insert(enet_list_end(&list), &items[i]) != &items[i].node)
            printf("insert did not return the node\n");
    }
    print_list("six appended", &list);
    printf("front=%d back=%d\n", ((Item *) enet_list_front(&list))->value, ((Item *) enet_list_back(&list))->value);
    removed = enet_list_remove(&items[2].node);
    printf("removed=%d\n", ((Item *) removed)->value);
    print_list("after remove", &list);
    enet_list_insert(enet_list_begin(&list), &items[2]);
    print_list("reinserted at front", &list);
    enet_list_move(enet_list_end(&other), &items[3], &items[4]);
    print_list("moved 3..4 out", &list);
    print_list("other", &other);
    enet_list_move(enet_list_begin(&list), &items[3], &items[4]);
    print_list("moved back to front", &list);
    print_list("other emptied", &other);
    enet_list_clear(&list);
    print_list("cleared again", &list);
}

static void test_command_sizes(void)
{
    int command;
    printf("command sizes:");
    for (command = 0; command < 13; ++command)
        printf(" %d:%lu", command, (unsigned long) enet_protocol_command_size((enet_uint8) command));
    printf("\nwith flags: %lu %lu\n", (unsigned long) enet_protocol_command_size(0x86),
           (unsigned long) enet_protocol_command_size(0x49));
}

int main(void)
{
    test_initialisation();
    test_allocator();
    test_packets();
    test_crc32();
    test_lists();
    test_command_sizes();
    enet_deinitialize();
    return 0;
}
