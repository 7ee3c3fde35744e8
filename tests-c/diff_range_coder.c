/*
 * Differential test of enet_range_coder_*: run against stock libenet and
 * against ours, the output must be identical. Prints compressed bytes (in
 * full when short, else length, FNV-1a hash and a prefix) and what the
 * decoder returns, for stock's recorded vectors, seeded inputs of many
 * shapes, split buffers, output limits and corrupt input.
 *
 * Stock reads one byte past an empty buffer that follows another (and
 * crashes on a NULL one), so only the first buffer is ever empty here.
 */
#include <enet/enet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT 20000
#define MAX_OUTPUT (2 * MAX_INPUT + 64)
#define RANDOM_CASES 2000
#define GARBAGE_CASES 6000
#define SHORT_HEX 48

static unsigned char input[MAX_INPUT];
static unsigned char compressed[MAX_OUTPUT];
static unsigned char decompressed[MAX_OUTPUT];
static void *coder;

/* splitmix64: a small PRNG with a fixed seed, identical everywhere. */
static uint64_t prng_state = 0x243F6A8885A308D3ull;

static uint64_t next_random(void)
{
    uint64_t z = (prng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t random_below(size_t bound)
{
    return bound == 0 ? 0 : (size_t) (next_random() % bound);
}

static uint64_t fnv1a(const unsigned char *data, size_t length)
{
    uint64_t hash = 0xCBF29CE484222325ull;
    size_t i;
    for (i = 0; i < length; ++i) {
        hash ^= data[i];
        hash *= 0x100000001B3ull;
    }
    return hash;
}

static void print_bytes(const char *label, const unsigned char *data, size_t length)
{
    size_t i, shown = length <= SHORT_HEX ? length : 24;
    printf("%s %lu", label, (unsigned long) length);
    if (length > SHORT_HEX)
        printf(" fnv %016llx", (unsigned long long) fnv1a(data, length));
    printf(" %s", length > 0 ? "" : "-");
    for (i = 0; i < shown; ++i)
        printf("%02x", data[i]);
    if (shown < length)
        printf("...");
    printf("\n");
}

static const char *const words[] = {
    "the ", "player ", "joined ", "game ", "score ", "red ", "team ", "wins ",
    "hello ", "world ", "map ", "de_dust ", "chat: ", "gg ", "lag ", "respawn "
};

/* Fills `out` with `length` bytes of one of several shapes. */
static void generate_into(unsigned char *out, unsigned shape, size_t length)
{
    size_t i = 0;
    unsigned entity = (unsigned) next_random();
    long x = (long) random_below(10000);
    unsigned alphabet = 1 + (unsigned) random_below(256);
    switch (shape) {
    case 0: /* uniform noise */
        for (i = 0; i < length; ++i)
            out[i] = (unsigned char) next_random();
        break;
    case 1: /* small alphabet */
        for (i = 0; i < length; ++i)
            out[i] = (unsigned char) random_below(alphabet);
        break;
    case 2: /* game-like structs: slowly changing fields */
        while (i < length) {
            unsigned char record[14];
            size_t k;
            entity++;
            x += (long) random_below(17) - 8;
            record[0] = 0x07; record[1] = 0x00;
            record[2] = (unsigned char) (entity >> 8); record[3] = (unsigned char) entity;
            record[4] = (unsigned char) x; record[5] = (unsigned char) (x >> 8);
            record[6] = (unsigned char) (x >> 16); record[7] = (unsigned char) (x >> 24);
            record[8] = 0; record[9] = 0; record[10] = 0x80; record[11] = 0x3f;
            record[12] = (unsigned char) random_below(4); record[13] = 0;
            for (k = 0; k < sizeof record && i < length; ++k)
                out[i++] = record[k];
        }
        break;
    case 3: /* text */
        while (i < length) {
            const char *word = words[random_below(sizeof words / sizeof words[0])];
            while (*word != '\0' && i < length)
                out[i++] = (unsigned char) *word++;
        }
        break;
    case 4: /* runs */
        while (i < length) {
            unsigned char value = (unsigned char) next_random();
            size_t run = 1 + random_below(40);
            while (run-- > 0 && i < length)
                out[i++] = value;
        }
        break;
    case 5: /* mostly zero */
        for (i = 0; i < length; ++i)
            out[i] = random_below(8) == 0 ? (unsigned char) next_random() : 0;
        break;
    case 6: /* ENet-like commands: header then payload */
        while (i < length) {
            size_t payload = random_below(64), k;
            unsigned char header[6];
            header[0] = (unsigned char) (0x86 | (random_below(2) << 6));
            header[1] = (unsigned char) random_below(3);
            header[2] = (unsigned char) (entity >> 8); header[3] = (unsigned char) entity++;
            header[4] = (unsigned char) (payload >> 8); header[5] = (unsigned char) payload;
            for (k = 0; k < sizeof header && i < length; ++k)
                out[i++] = header[k];
            for (k = 0; k < payload && i < length; ++k)
                out[i++] = (unsigned char) ('a' + (k + entity) % 26);
        }
        break;
    default: /* a bit of everything */
        while (i < length) {
            size_t piece = 1 + random_below(200);
            if (piece > length - i)
                piece = length - i;
            generate_into(out + i, (unsigned) random_below(7), piece);
            i += piece;
        }
        break;
    }
}

static void generate(unsigned shape, size_t length)
{
    generate_into(input, shape, length);
}

/* Compresses input[0..length) split into `parts` pieces (only the first
 * may be empty), with the given inLimit and outLimit. */
static size_t compress_split(size_t length, size_t parts, size_t inLimit, size_t outLimit)
{
    ENetBuffer buffers[8];
    size_t cuts[9], i, count = 0;
    if (parts < 1)
        parts = 1;
    if (parts > 8)
        parts = 8;
    cuts[0] = 0;
    for (i = 1; i < parts; ++i)
        cuts[i] = cuts[i - 1] + random_below(length - cuts[i - 1] + 1);
    cuts[parts] = length;
    for (i = 0; i < parts; ++i) {
        size_t piece = cuts[i + 1] - cuts[i];
        if (piece == 0 && count > 0)
            continue;
        buffers[count].data = input + cuts[i];
        buffers[count].dataLength = piece;
        ++count;
    }
    return enet_range_coder_compress(coder, buffers, count, inLimit, compressed, outLimit);
}

static size_t compress_whole(size_t length, size_t outLimit)
{
    ENetBuffer buffer;
    buffer.data = input;
    buffer.dataLength = length;
    return enet_range_coder_compress(coder, &buffer, 1, length, compressed, outLimit);
}

static void report_decompress(const char *label, size_t compressedLength, size_t outLimit, size_t original)
{
    size_t length = enet_range_coder_decompress(coder, compressed, compressedLength, decompressed, outLimit);
    printf("%s -> %lu fnv %016llx roundtrip %s\n", label, (unsigned long) length,
           (unsigned long long) fnv1a(decompressed, length),
           length == original && memcmp(decompressed, input, original) == 0 ? "exact" : "differs");
}

static void vectors(void)
{
    static const char *const inputs[3] = {
        "hello hello hello hello hello hello", NULL, "\x86\x00\x00\x01\x00\x0ehello-reliable"
    };
    static const size_t lengths[3] = { 35, 64, 20 };
    size_t v;
    for (v = 0; v < 3; ++v) {
        size_t n = lengths[v], m;
        if (inputs[v] != NULL)
            memcpy(input, inputs[v], n);
        else
            memset(input, 'a', n);
        m = compress_whole(n, MAX_OUTPUT);
        printf("vector %lu\n", (unsigned long) v);
        print_bytes("  compressed", compressed, m);
        report_decompress("  decompress", m, MAX_OUTPUT, n);
        report_decompress("  decompress exact limit", m, n, n);
        report_decompress("  decompress limit n-1", m, n - 1, n);
        printf("  compress limit m: %lu\n", (unsigned long) compress_whole(n, m));
        printf("  compress limit m-1: %lu\n", (unsigned long) compress_whole(n, m - 1));
        printf("  split 2: %s\n", compress_split(n, 2, n, MAX_OUTPUT) == m ? "same length" : "other length");
        print_bytes("  split 2 bytes", compressed, compress_split(n, 2, n, MAX_OUTPUT));
    }
}

static void edge_cases(void)
{
    ENetBuffer buffers[2];
    size_t m;
    memcpy(input, "abcabcabc", 9);
    buffers[0].data = input;
    buffers[0].dataLength = 0;
    buffers[1].data = input;
    buffers[1].dataLength = 9;
    printf("edge inLimit 0: %lu\n",
           (unsigned long) enet_range_coder_compress(coder, buffers + 1, 1, 0, compressed, MAX_OUTPUT));
    printf("edge bufferCount 0: %lu\n",
           (unsigned long) enet_range_coder_compress(coder, buffers + 1, 0, 9, compressed, MAX_OUTPUT));
    printf("edge one empty buffer: %lu\n",
           (unsigned long) enet_range_coder_compress(coder, buffers, 1, 5, compressed, MAX_OUTPUT));
    m = enet_range_coder_compress(coder, buffers, 2, 9, compressed, MAX_OUTPUT);
    print_bytes("edge empty first buffer", compressed, m);
    m = enet_range_coder_compress(coder, buffers + 1, 1, 1, compressed, MAX_OUTPUT);
    print_bytes("edge inLimit 1 of 9", compressed, m);
    m = enet_range_coder_compress(coder, buffers + 1, 1, 100000, compressed, MAX_OUTPUT);
    print_bytes("edge inLimit 100000 of 9", compressed, m);
    printf("edge outLimit 0: %lu\n",
           (unsigned long) enet_range_coder_compress(coder, buffers + 1, 1, 9, compressed, 0));
    printf("edge decompress inLimit 0: %lu\n",
           (unsigned long) enet_range_coder_decompress(coder, compressed, 0, decompressed, MAX_OUTPUT));
    report_decompress("edge decompress outLimit 0", m, 0, 9);
    compressed[0] = 0;
    report_decompress("edge decompress one zero byte", 1, MAX_OUTPUT, 0);
    compressed[0] = 0xFF;
    report_decompress("edge decompress one 0xff byte", 1, MAX_OUTPUT, 0);
    /* A code at the very top lands past the root's last byte slot. */
    memset(compressed, 0xFF, 8);
    report_decompress("edge decompress ff x4", 4, MAX_OUTPUT, 0);
    report_decompress("edge decompress ff x8", 8, MAX_OUTPUT, 0);
    print_bytes("  bytes", decompressed, enet_range_coder_decompress(coder, compressed, 8, decompressed, MAX_OUTPUT));
    compressed[3] = 0xFE;
    report_decompress("edge decompress ff ff ff fe ff..", 8, MAX_OUTPUT, 0);
}

static void random_cases(void)
{
    size_t c;
    for (c = 0; c < RANDOM_CASES; ++c) {
        unsigned shape = (unsigned) random_below(8);
        size_t n = random_below(1401), m, parts = 1 + random_below(5);
        char label[64];
        generate(shape, n);
        m = compress_whole(n, MAX_OUTPUT);
        sprintf(label, "case %lu shape %u", (unsigned long) c, shape);
        print_bytes(label, compressed, m);
        report_decompress("  decompress", m, MAX_OUTPUT, n);
        if (c % 4 == 0 && m > 0) {
            report_decompress("  decompress exact limit", m, n, n);
            printf("  compress limit m-1: %lu\n", (unsigned long) compress_whole(n, m - 1));
            printf("  compress limit n: %lu\n", (unsigned long) compress_whole(n, n));
        }
        if (c % 3 == 0 && n > 0) {
            size_t split = compress_split(n, parts, n, MAX_OUTPUT);
            printf("  split %lu: %lu fnv %016llx\n", (unsigned long) parts, (unsigned long) split,
                   (unsigned long long) fnv1a(compressed, split));
        }
    }
}

static void long_cases(void)
{
    static const size_t lengths[] = { 3000, 6000, 12000, MAX_INPUT };
    size_t c;
    for (c = 0; c < sizeof lengths / sizeof lengths[0]; ++c) {
        unsigned shape;
        for (shape = 0; shape < 8; shape += 2) {
            size_t n = lengths[c], m;
            char label[64];
            generate(shape, n);
            m = compress_whole(n, MAX_OUTPUT);
            sprintf(label, "long %lu shape %u", (unsigned long) n, shape);
            print_bytes(label, compressed, m);
            report_decompress("  decompress", m, MAX_OUTPUT, n);
        }
    }
}

/* Corrupt input: noise, and valid streams with bits flipped or cut short.
 * The decoder must return what stock returns, byte for byte. */
static void garbage_cases(void)
{
    size_t c;
    for (c = 0; c < GARBAGE_CASES; ++c) {
        size_t m, limit = random_below(3000), length;
        char label[64];
        if (c % 2 == 0) {
            m = 1 + random_below(600);
            for (length = 0; length < m; ++length)
                compressed[length] = (unsigned char) next_random();
        } else {
            size_t n = 1 + random_below(1400), flips = random_below(4);
            generate((unsigned) random_below(8), n);
            m = compress_whole(n, MAX_OUTPUT);
            if (m == 0)
                continue;
            while (flips-- > 0)
                compressed[random_below(m)] ^= (unsigned char) (1u << random_below(8));
            if (random_below(4) == 0)
                m = 1 + random_below(m);
        }
        length = enet_range_coder_decompress(coder, compressed, m, decompressed, limit);
        sprintf(label, "garbage %lu in %lu limit %lu ->", (unsigned long) c, (unsigned long) m,
                (unsigned long) limit);
        print_bytes(label, decompressed, length);
    }
}

int main(void)
{
    coder = enet_range_coder_create();
    if (coder == NULL) {
        fprintf(stderr, "enet_range_coder_create failed\n");
        return 1;
    }
    vectors();
    edge_cases();
    random_cases();
    long_cases();
    garbage_cases();
    enet_range_coder_destroy(coder);
    enet_range_coder_destroy(NULL);
    printf("done\n");
    return 0;
}
