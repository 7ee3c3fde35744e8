/*
 * Built for arm64 by tests-c/packaging/test-deb.sh and run under
 * qemu-user in the throwaway root: prints "LIB <path>", the libenet file
 * the loader mapped into this process (/proc/self/maps, which qemu-user
 * gives for the emulated process), and "VERSION 0x<n>",
 * enet_linked_version(). Exit 0 when a libenet is mapped.
 */
#include <enet/enet.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char line[4096], found[4096] = "";
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL)
        return 1;
    while (found[0] == '\0' && fgets(line, sizeof line, maps) != NULL) {
        char *path = strchr(line, '/');
        if (path != NULL && strstr(path, "/libenet") != NULL) {
            path[strcspn(path, "\n")] = '\0';
            strcpy(found, path);
        }
    }
    fclose(maps);
    printf("LIB %s\nVERSION 0x%x\n", found, (unsigned) enet_linked_version());
    return found[0] != '\0' ? 0 : 1;
}
