/* Preloaded into bench/engine.c's rss-server by bench/rss_breakdown.sh:
 * when the server asks for mallinfo2() (right after it reads its RSS), a
 * copy of /proc/self/smaps goes to the file $SMAPS_SNAPSHOT, so the
 * breakdown describes the moment the RSS figure was taken. Then it
 * answers as the C library would. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

struct mallinfo2 mallinfo2(void)
{
    struct mallinfo2 (*next)(void) = (struct mallinfo2 (*)(void))dlsym(RTLD_NEXT, "mallinfo2");
    const char *path = getenv("SMAPS_SNAPSHOT");
    FILE *in = fopen("/proc/self/smaps", "r");
    FILE *out = path ? fopen(path, "w") : NULL;
    if (in && out) {
        char buffer[4096];
        size_t n;
        while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
            fwrite(buffer, 1, n, out);
    }
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    return next();
}
