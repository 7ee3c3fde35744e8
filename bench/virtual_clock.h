/* A virtual clock for one program: it defines gettimeofday and
 * clock_gettime itself, so every library it is linked with at run time
 * (stock ENet reads gettimeofday, ours clock_gettime) sees `virtual_ms`,
 * which only the program moves. Include it once, after defining
 * _GNU_SOURCE; VIRTUAL_CLOCK_START_MS sets where it starts. */
#ifndef ENET_BENCH_VIRTUAL_CLOCK_H
#define ENET_BENCH_VIRTUAL_CLOCK_H

#include <sys/time.h>
#include <time.h>

#ifndef VIRTUAL_CLOCK_START_MS
#define VIRTUAL_CLOCK_START_MS 1000000ull
#endif

static unsigned long long virtual_ms = VIRTUAL_CLOCK_START_MS;

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void) tz;
    tv->tv_sec = (time_t) (virtual_ms / 1000u);
    tv->tv_usec = (suseconds_t) ((virtual_ms % 1000u) * 1000u);
    return 0;
}

int clock_gettime(clockid_t clock, struct timespec *ts)
{
    (void) clock;
    ts->tv_sec = (time_t) (virtual_ms / 1000u);
    ts->tv_nsec = (long) ((virtual_ms % 1000u) * 1000000u);
    return 0;
}

#endif
