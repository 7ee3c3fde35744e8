/*
 * Cross test of two range-coder implementations loaded side by side:
 *   cross_range_coder STOCK_LIBRARY OUR_LIBRARY [SWEEP_CASES [SEED]]
 * For thousands of seeded inputs: both compress to the same bytes, each
 * decompresses the other's output back to the input, and both refuse an
 * output one byte short; both give the same enet_crc32 of the input's
 * buffers. Corrupt input must decode identically too. Then a
 * sweep of SWEEP_CASES inputs (default 300000, what ctest runs, ~25 s;
 * lengths 1..1400 and their edges, six data shapes, 1-4 buffers with empty
 * ones among them, output limits around the compressed size) must compress
 * to identical bytes and return values in both; the tally line tells
 * mismatches on splits with an empty buffer after the first (stock reads a
 * byte there) from all others.
 * A larger run is one command, e.g.
 *   build/tests-c/cross_range_coder /usr/lib/x86_64-linux-gnu/libenet.so.7 \
 *     build/lib/libenet.so.7 5000000 0x5eed
 * Prints "cross: N passed, M failed"; exits non-zero on any failure.
 *
 * Across machines (libraries that cannot share a process):
 *   cross_range_coder --dump LIBRARY [CASES [SEED]] > FILE
 * writes, for CASES seeded inputs (default 10000; the inputs are the same
 * on every machine, whatever its word size or byte order), what LIBRARY's
 * range coder and CRC-32 make of them: each compressed stream, the
 * refusal of an output one byte short, each stream decompressed, the
 * enet_crc32 value as it lies in memory (which is what a host puts on the
 * wire: stock returns it in network byte order), and corrupt streams
 * decoded. Two machines' files must be identical byte for byte
 * (scripts/test-linux-target.sh compares s390x's, big-endian, and other
 * targets' with x86_64 stock's). The case count goes to stderr.
 *
 * Build: gcc -std=c99 -Wall -Wextra -Wpedantic -Werror cross_range_coder.c -ldl
 * (not linked with -lenet, so nothing interposes on either library).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ENetBuffer on Unix, declared here so no ENet header picks a side. */
typedef struct {
    void *data;
    size_t dataLength;
} Buffer;

typedef void *(*CreateFn)(void);
typedef void (*DestroyFn)(void *);
typedef size_t (*CompressFn)(void *, const Buffer *, size_t, size_t, unsigned char *, size_t);
typedef size_t (*DecompressFn)(void *, const unsigned char *, size_t, unsigned char *, size_t);
typedef uint32_t (*Crc32Fn)(const Buffer *, size_t);

typedef struct {
    const char *name;
    void *library;
    CreateFn create;
    DestroyFn destroy;
    CompressFn compress;
    DecompressFn decompress;
    Crc32Fn crc32;
    void *context;
} Coder;

#define CASES 3000
#define GARBAGE_CASES 40000
#define DEFAULT_SWEEP_CASES 300000
#define MAX_INPUT 1400
#define MAX_OUTPUT 4096
#define MAX_BUFFERS 4

/* One spare byte past the longest input: an empty buffer at the end points
 * there, and stock codes the byte it points at. */
static unsigned char input[MAX_INPUT + 1];
/* The bytes stock's compressor reads from the current buffers, in order. */
static unsigned char expected[MAX_INPUT + MAX_BUFFERS];
static size_t expected_length;
/* Whether the current split has an empty buffer after the first (the one
 * place where stock reads a byte it was not given), and sweep tallies. */
static int empty_later;
static unsigned long sweep_empty_later, sweep_mismatch_empty, sweep_mismatch_plain;
static unsigned char packed[2][MAX_OUTPUT];
static unsigned char unpacked[2][MAX_OUTPUT];
/* Cases (one input each) that passed every check, or failed one. */
static unsigned long passed, failed;
static int case_failed;

static uint64_t prng_state = 0x13198A2E03707344ull;

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

static int load(Coder *coder, const char *path)
{
    coder->name = path;
    coder->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (coder->library == NULL) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return -1;
    }
    /* POSIX's way to turn dlsym's object pointer into a function pointer. */
    *(void **) (&coder->create) = dlsym(coder->library, "enet_range_coder_create");
    *(void **) (&coder->destroy) = dlsym(coder->library, "enet_range_coder_destroy");
    *(void **) (&coder->compress) = dlsym(coder->library, "enet_range_coder_compress");
    *(void **) (&coder->decompress) = dlsym(coder->library, "enet_range_coder_decompress");
    *(void **) (&coder->crc32) = dlsym(coder->library, "enet_crc32");
    if (coder->create == NULL || coder->destroy == NULL || coder->compress == NULL ||
        coder->decompress == NULL || coder->crc32 == NULL) {
        fprintf(stderr, "%s: missing enet_range_coder_* or enet_crc32 symbols\n", path);
        return -1;
    }
    coder->context = coder->create();
    if (coder->context == NULL) {
        fprintf(stderr, "%s: enet_range_coder_create returned NULL\n", path);
        return -1;
    }
    return 0;
}

static void check(int ok, const char *what, unsigned long index)
{
    if (!ok && !case_failed && failed < 20)
        printf("FAIL %s (case %lu)\n", what, index);
    if (!ok)
        case_failed = 1;
}

static void end_case(void)
{
    if (case_failed)
        ++failed;
    else
        ++passed;
    case_failed = 0;
}

/* Inputs of several shapes: noise, small alphabets, game-like records,
 * text, runs, sparse (mostly zero). */
static void generate(size_t length)
{
    static const char text[] = "the player joined the game; red team wins; gg ";
    unsigned shape = (unsigned) random_below(6), alphabet = 1 + (unsigned) random_below(256);
    unsigned entity = (unsigned) next_random();
    size_t i;
    for (i = 0; i < length; ++i) {
        switch (shape) {
        case 0:
            input[i] = (unsigned char) next_random();
            break;
        case 1:
            input[i] = (unsigned char) random_below(alphabet);
            break;
        case 2:
            if (i % 12 == 0)
                entity++;
            input[i] = (unsigned char) (i % 12 < 4 ? entity >> (8 * (i % 4)) : (i % 12 == 7 ? random_below(3) : 0x3f));
            break;
        case 3:
            input[i] = (unsigned char) text[(i + entity) % (sizeof text - 1)];
            break;
        case 4:
            input[i] = (unsigned char) (random_below(16) == 0 ? next_random() : (i / 32));
            break;
        default:
            input[i] = (unsigned char) (random_below(10) == 0 ? next_random() : 0);
            break;
        }
    }
}

/* Splits input[0..length) into 1-4 buffers at random points; a buffer may
 * be empty (its pointer stays inside input[], as a real caller's would).
 * Records in expected[] what stock's compressor reads from them: an empty
 * buffer after the first still gives the byte at its pointer. */
static size_t split(Buffer *buffers, size_t length, int allow_empty)
{
    size_t parts = 1 + random_below(MAX_BUFFERS), count = 0, start = 0, i;
    expected_length = 0;
    empty_later = 0;
    for (i = 0; i < parts; ++i) {
        size_t left = length - start, piece;
        if (i + 1 == parts)
            piece = left;
        else if (allow_empty)
            piece = random_below(left + 1);
        else if (left <= 1)
            piece = left;
        else
            piece = 1 + random_below(left - 1);
        if (!allow_empty && piece == 0)
            continue;
        buffers[count].data = input + start;
        buffers[count].dataLength = piece;
        if (piece > 0) {
            memcpy(expected + expected_length, input + start, piece);
            expected_length += piece;
        } else if (count > 0) {
            expected[expected_length++] = input[start];
            empty_later = 1;
        }
        ++count;
        start += piece;
    }
    return count;
}

static void round_trips(Coder coders[2])
{
    unsigned long c;
    for (c = 0; c < CASES; ++c) {
        size_t n = 1 + random_below(MAX_INPUT), m[2], back[2], e;
        Buffer buffers[MAX_BUFFERS];
        size_t count;
        int i;
        generate(n);
        count = split(buffers, n, (int) random_below(2));
        e = expected_length;
        for (i = 0; i < 2; ++i)
            m[i] = coders[i].compress(coders[i].context, buffers, count, n, packed[i], MAX_OUTPUT);
        check(m[0] > 0 && m[0] == m[1] && memcmp(packed[0], packed[1], m[0]) == 0,
              "identical compressed bytes", c);
        check(coders[0].crc32(buffers, count) == coders[1].crc32(buffers, count),
              "identical enet_crc32", c);
        /* Each decodes the other's stream. */
        for (i = 0; i < 2; ++i)
            back[i] = coders[i].decompress(coders[i].context, packed[1 - i], m[1 - i], unpacked[i], MAX_OUTPUT);
        check(back[0] == e && memcmp(unpacked[0], expected, e) == 0, "ours -> stock round trip", c);
        check(back[1] == e && memcmp(unpacked[1], expected, e) == 0, "stock -> ours round trip", c);
        /* One byte short: both refuse, compressing and decompressing. */
        for (i = 0; i < 2; ++i) {
            check(coders[i].compress(coders[i].context, buffers, count, n, packed[i], m[0] - 1) == 0,
                  i == 0 ? "stock refuses outLimit m-1" : "ours refuses outLimit m-1", c);
            check(coders[i].decompress(coders[i].context, packed[0], m[0], unpacked[i], e - 1) == 0,
                  i == 0 ? "stock refuses outLimit n-1" : "ours refuses outLimit n-1", c);
        }
        end_case();
    }
}

static void dump(const char *who, const unsigned char *bytes, size_t length)
{
    size_t k;
    printf("  %s (%zu bytes):", who, length);
    for (k = 0; k < length; ++k)
        printf("%s%02x", k % 32 == 0 ? "\n    " : "", bytes[k]);
    printf("\n");
}

/* Compressed bytes and return values must be identical for every input:
 * generous limits, and limits at, just under and just over stock's size. */
static void identical_sweep(Coder coders[2], unsigned long cases)
{
    static const size_t edges[] = { 1, 2, 3, 4, 1399, 1400 };
    unsigned long c;
    for (c = 0; c < cases; ++c) {
        size_t n = c % 8 == 0 ? edges[(c / 8) % 6] : 1 + random_below(MAX_INPUT);
        size_t count, limit, m[2];
        Buffer buffers[MAX_BUFFERS];
        int i, same;
        generate(n);
        count = split(buffers, n, 1);
        for (i = 0; i < 2; ++i)
            m[i] = coders[i].compress(coders[i].context, buffers, count, n, packed[i], MAX_OUTPUT);
        same = m[0] == m[1] && memcmp(packed[0], packed[1], m[0]) == 0;
        if (same && c % 4 == 0) {
            limit = m[0] + random_below(3) - 1;
            if (n % 2 == 0)
                limit = n; /* what a host offers: no larger than the input */
            for (i = 0; i < 2; ++i)
                m[i] = coders[i].compress(coders[i].context, buffers, count, n, packed[i], limit);
            same = m[0] == m[1] && memcmp(packed[0], packed[1], m[0]) == 0;
        }
        if (!same && failed < 3) {
            printf("sweep case %lu: input of %zu bytes in %zu buffers, stock %zu, ours %zu\n", c, n,
                   count, m[0], m[1]);
            dump("input as stock reads it", expected, expected_length);
            dump("stock", packed[0], m[0]);
            dump("ours", packed[1], m[1]);
        }
        sweep_empty_later += (unsigned long) empty_later;
        if (!same)
            ++*(empty_later ? &sweep_mismatch_empty : &sweep_mismatch_plain);
        check(same, "sweep: identical compressed bytes and length", c);
        end_case();
    }
}

/* Corrupt streams of several kinds: noise (uniform, or biased to extreme
 * bytes), and valid streams with bits flipped, cut short, or continued or
 * overwritten with noise (which drives the decoder into a learned model
 * with nonsense codes). */
static size_t make_garbage(Coder *coder, unsigned kind)
{
    size_t m, k, n;
    Buffer buffer;
    if (kind < 2) {
        m = 1 + random_below(kind == 0 ? 600 : 40);
        for (k = 0; k < m; ++k)
            packed[0][k] = (unsigned char) next_random();
        return m;
    }
    if (kind == 2) {
        /* Extreme bytes; a 0xff prefix codes past the root's last slot. */
        size_t ones = random_below(8);
        m = 1 + random_below(300);
        for (k = 0; k < m; ++k)
            packed[0][k] = k < ones ? 0xFF
                         : random_below(2) ? (unsigned char) (0xF0 | random_below(16))
                                           : (unsigned char) random_below(16);
        return m;
    }
    n = 1 + random_below(MAX_INPUT);
    generate(n);
    buffer.data = input;
    buffer.dataLength = n;
    m = coder->compress(coder->context, &buffer, 1, n, packed[0], MAX_OUTPUT);
    if (m == 0)
        return 0;
    switch (kind) {
    case 3:
        for (k = 1 + random_below(3); k > 0; --k)
            packed[0][random_below(m)] ^= (unsigned char) (1u << random_below(8));
        return m;
    case 4:
        return 1 + random_below(m);
    case 5:
        for (k = 0, n = random_below(200); k < n && m < MAX_OUTPUT; ++k)
            packed[0][m++] = (unsigned char) next_random();
        return m;
    default:
        for (k = random_below(m); k < m; ++k)
            packed[0][k] = (unsigned char) next_random();
        return m;
    }
}

static void garbage(Coder coders[2])
{
    unsigned long c;
    for (c = 0; c < GARBAGE_CASES; ++c) {
        size_t m = make_garbage(&coders[0], (unsigned) (c % 7)), limit = random_below(MAX_OUTPUT), got[2];
        int i;
        for (i = 0; i < 2; ++i)
            got[i] = coders[i].decompress(coders[i].context, packed[0], m, unpacked[i], limit);
        check(got[0] == got[1] && memcmp(unpacked[0], unpacked[1], got[0]) == 0,
              "garbage decodes identically", c);
        end_case();
    }
}

/* Stock's compressor reads the byte at an empty second buffer's data
 * pointer and codes it; ours must code it too, and both decoders return
 * that extra byte. */
static void empty_buffer_stream(Coder coders[2])
{
    static const unsigned char tail[1] = { 0x5A };
    Buffer buffers[2];
    size_t n = 23, m[2], back[2];
    int i;
    memcpy(input, "hello hello hello hello", n);
    buffers[0].data = input;
    buffers[0].dataLength = n;
    buffers[1].data = (void *) tail;
    buffers[1].dataLength = 0;
    for (i = 0; i < 2; ++i)
        m[i] = coders[i].compress(coders[i].context, buffers, 2, n, packed[i], MAX_OUTPUT);
    check(m[0] > 0 && m[0] == m[1] && memcmp(packed[0], packed[1], m[0]) == 0,
          "an empty second buffer codes its pointed-at byte in both", 0);
    for (i = 0; i < 2; ++i)
        back[i] = coders[i].decompress(coders[i].context, packed[0], m[0], unpacked[i], MAX_OUTPUT);
    check(back[0] == n + 1 && back[1] == n + 1 && memcmp(unpacked[0], unpacked[1], n + 1) == 0 &&
              unpacked[1][n] == 0x5A,
          "the pointed-at byte decodes the same in both", 0);
    end_case();
}

/* --dump: one length as two bytes, most significant first, then the
 * bytes it counts. */
static void put_bytes(const unsigned char *bytes, size_t length)
{
    putchar((int) ((length >> 8) & 0xFF));
    putchar((int) (length & 0xFF));
    fwrite(bytes, 1, length, stdout);
}

static int dump_outputs(const char *path, unsigned long cases)
{
    static const size_t edges[] = { 1, 2, 3, 4, 1399, 1400 };
    Coder coder;
    unsigned long c;
    memset(&coder, 0, sizeof coder);
    if (load(&coder, path) != 0)
        return 2;
    for (c = 0; c < cases; ++c) {
        size_t n = c % 8 == 0 ? edges[(c / 8) % 6] : 1 + random_below(MAX_INPUT);
        size_t count, m, short_m, back;
        Buffer buffers[MAX_BUFFERS];
        uint32_t crc;
        generate(n);
        count = split(buffers, n, (int) random_below(2));
        m = coder.compress(coder.context, buffers, count, n, packed[0], MAX_OUTPUT);
        put_bytes(packed[0], m);
        short_m = m > 0 ? coder.compress(coder.context, buffers, count, n, packed[1], m - 1) : 0;
        put_bytes(packed[1], short_m);
        back = coder.decompress(coder.context, packed[0], m, unpacked[0], MAX_OUTPUT);
        put_bytes(unpacked[0], back);
        /* The value's memory image, as a host stores it in the header. */
        crc = coder.crc32(buffers, count);
        fwrite(&crc, sizeof crc, 1, stdout);
        if (c % 4 == 0) {
            size_t limit = random_below(MAX_OUTPUT);
            m = make_garbage(&coder, (unsigned) ((c / 4) % 7));
            put_bytes(unpacked[0], coder.decompress(coder.context, packed[0], m, unpacked[0], limit));
        }
    }
    coder.destroy(coder.context);
    dlclose(coder.library);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "dump: writing failed\n");
        return 1;
    }
    fprintf(stderr, "dump: %lu cases of %s\n", cases, path);
    return 0;
}

int main(int argc, char **argv)
{
    Coder coders[2];
    unsigned long sweep_cases = DEFAULT_SWEEP_CASES;
    unsigned long long seed = prng_state;
    int i;
    if (argc >= 3 && argc <= 5 && strcmp(argv[1], "--dump") == 0) {
        if (argc > 4)
            prng_state = strtoull(argv[4], NULL, 0);
        return dump_outputs(argv[2], argc > 3 ? strtoul(argv[3], NULL, 10) : 10000);
    }
    if (argc < 3 || argc > 5) {
        fprintf(stderr,
                "usage: %s STOCK_LIBRARY OUR_LIBRARY [SWEEP_CASES [SEED]]\n"
                "       %s --dump LIBRARY [CASES [SEED]] > FILE\n",
                argv[0], argv[0]);
        return 2;
    }
    if (argc > 3)
        sweep_cases = strtoul(argv[3], NULL, 10);
    if (argc > 4)
        prng_state = strtoull(argv[4], NULL, 0);
    seed = prng_state;
    memset(coders, 0, sizeof coders);
    if (load(&coders[0], argv[1]) != 0 || load(&coders[1], argv[2]) != 0)
        return 2;
    /* Two distinct copies, or this proves nothing. */
    if (coders[0].library == coders[1].library ||
        coders[0].compress == coders[1].compress || coders[0].decompress == coders[1].decompress) {
        fprintf(stderr, "both paths resolved to the same library\n");
        return 2;
    }
    printf("loaded two distinct libraries\n");
    round_trips(coders);
    garbage(coders);
    empty_buffer_stream(coders);
    identical_sweep(coders, sweep_cases);
    printf("sweep: %lu inputs compared (seed %#llx), %lu with an empty buffer after the first; "
           "mismatches: %lu with one, %lu without\n",
           sweep_cases, seed, sweep_empty_later, sweep_mismatch_empty, sweep_mismatch_plain);
    for (i = 0; i < 2; ++i) {
        coders[i].destroy(coders[i].context);
        dlclose(coders[i].library);
    }
    printf("cross: %lu passed, %lu failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
