/* Differential test of enet_time_get / enet_time_set. Prints only coarse
 * facts (generous windows, never the times themselves), so that the output
 * is identical on stock ENet and on enet-rs although stock reads the wall
 * clock and enet-rs a monotonic one. */
#define _POSIX_C_SOURCE 200809L
#include <enet/enet.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static void yes(const char *what, int fact) { printf("%s: %s\n", what, fact ? "yes" : "no"); }

static void sleep_ms(long milliseconds)
{
    struct timespec delay;
    delay.tv_sec = milliseconds / 1000;
    delay.tv_nsec = (milliseconds % 1000) * 1000000L;
    while (nanosleep(&delay, &delay) != 0)
        ;
}

/* Wall-clock milliseconds since 1970, truncated to 32 bits. */
static enet_uint32 wall_ms(void)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    return (enet_uint32) ((unsigned long long) now.tv_sec * 1000u + (unsigned long long) now.tv_usec / 1000u);
}

/* |a - b| on the wrapping 32-bit clock. */
static enet_uint32 distance(enet_uint32 a, enet_uint32 b)
{
    enet_uint32 forward = a - b, backward = b - a;
    return forward < backward ? forward : backward;
}

static int within(enet_uint32 value, enet_uint32 low, enet_uint32 high)
{
    return value - low <= high - low; /* wrap-aware */
}

int main(void)
{
    enet_uint32 first, previous, value;
    int i, ordered;

    if (enet_initialize() != 0)
        return 1;

    first = enet_time_get();
    yes("unset clock within 1 s of wall-clock ms mod 2^32", distance(first, wall_ms()) < 1000);
    sleep_ms(30);
    value = enet_time_get();
    yes("unset clock advanced 30 ms: within [25, 200]", within(value - first, 25, 200));

    enet_time_set(1000);
    value = enet_time_get();
    yes("after set(1000): within [1000, 1020]", within(value, 1000, 1020));
    sleep_ms(50);
    value = enet_time_get();
    yes("after 50 ms: within [1040, 1200]", within(value, 1040, 1200));

    enet_time_set(0);
    value = enet_time_get();
    yes("after set(0): within [0, 20]", within(value, 0, 20));

    enet_time_set(0xFFFFFFF0u);
    value = enet_time_get();
    yes("after set(2^32 - 16): within [2^32 - 16, 2^32 + 4]", within(value, 0xFFFFFFF0u, 4));
    sleep_ms(50);
    value = enet_time_get();
    yes("50 ms later wrapped past 0: within [20, 200]", within(value, 20, 200));

    enet_time_set(123456789u);
    previous = enet_time_get();
    ordered = 1;
    for (i = 0; i < 100000; ++i) {
        value = enet_time_get();
        if (value - previous > 1000u) /* went backwards (or jumped) */
            ordered = 0;
        previous = value;
    }
    yes("100000 readings never go back", ordered);
    yes("still near 123456789", within(previous, 123456789u, 123456789u + 1000u));

    enet_deinitialize();
    return 0;
}
