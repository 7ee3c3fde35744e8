/* The check macro of the hardening programs: count and report failures,
 * keep going. */
#ifndef ENET_RS_HARDENING_H
#define ENET_RS_HARDENING_H

#include <stdio.h>

static int failures;

#define CHECK(condition)                                            \
    do {                                                            \
        if (!(condition)) {                                         \
            printf("FAILED: %s (line %d)\n", #condition, __LINE__); \
            ++failures;                                             \
        }                                                           \
    } while (0)

#endif
