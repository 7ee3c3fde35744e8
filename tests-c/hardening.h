/* The check macro of the hardening programs: count and report failures,
 * keep going. */
#ifndef ENET_RS_HARDENING_H
#define ENET_RS_HARDENING_H

#include <stdio.h>
#include <stdlib.h>

static int failures;

#ifdef _WIN32
/* The C runtime of Windows spells POSIX's environment calls its own way;
   both update the process environment the library reads. */
static inline int setenv(const char *name, const char *value, int overwrite)
{
    (void) overwrite;
    return _putenv_s(name, value);
}

static inline int unsetenv(const char *name)
{
    return _putenv_s(name, "");
}
#endif

#define CHECK(condition)                                            \
    do {                                                            \
        if (!(condition)) {                                         \
            printf("FAILED: %s (line %d)\n", #condition, __LINE__); \
            ++failures;                                             \
        }                                                           \
    } while (0)

#endif
