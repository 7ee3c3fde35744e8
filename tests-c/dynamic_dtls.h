/*
 * Encryption for programs built against the stock header (the benchmark
 * and soak programs, which run on either library): enet-rs's
 * enet_rs_host_dtls_* functions, looked up at run time, fed PEM files from
 * a directory. On stock ENet the lookup fails and the program stops with
 * a message. Include it once per program, after <enet/enet.h>; link with
 * -ldl on systems that need it.
 *
 *   dynamic_dtls_server(host, dir)  presents dir/cert.pem, key dir/key.pem
 *   dynamic_dtls_client(host, dir)  verifies the server against
 *                                   dir/cert.pem for the name "localhost"
 *   dynamic_dtls_session_count(host)
 */
#ifndef ENET_RS_DYNAMIC_DTLS_H
#define ENET_RS_DYNAMIC_DTLS_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void dynamic_dtls_fail(const char *what)
{
    fprintf(stderr, "dtls: %s\n", what);
    exit(1);
}

/* The whole of dir/name, NUL-terminated (the caller frees it). */
static inline char *dynamic_dtls_read(const char *dir, const char *name)
{
    char path[4096];
    static const size_t limit = 1 << 20;
    char *text;
    size_t length;
    FILE *file;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    file = fopen(path, "rb");
    if (file == NULL)
        dynamic_dtls_fail("cannot open a PEM file");
    text = malloc(limit + 1);
    if (text == NULL)
        dynamic_dtls_fail("out of memory");
    length = fread(text, 1, limit, file);
    fclose(file);
    text[length] = '\0';
    return text;
}

/* Stores into *slot (a function pointer of `size` bytes) the function
 * `name` of the libenet this process runs on (copied, as POSIX allows for
 * dlsym's result; ISO C has no cast for it). */
static inline void dynamic_dtls_lookup(const char *name, void *slot, size_t size)
{
    void *function = dlsym(RTLD_DEFAULT, name);
    if (function == NULL || size != sizeof function)
        dynamic_dtls_fail("this libenet has no enet_rs_* encryption (run it on enet-rs)");
    memcpy(slot, &function, size);
}

static inline void dynamic_dtls_server(ENetHost *host, const char *dir)
{
    int (*server)(ENetHost *, const char *, const char *);
    char *certificate = dynamic_dtls_read(dir, "cert.pem");
    char *key = dynamic_dtls_read(dir, "key.pem");
    dynamic_dtls_lookup("enet_rs_host_dtls_server", &server, sizeof server);
    if (server(host, certificate, key) != 0)
        dynamic_dtls_fail("enet_rs_host_dtls_server refused the certificate or key");
    free(certificate);
    free(key);
}

static inline void dynamic_dtls_client(ENetHost *host, const char *dir)
{
    int (*client)(ENetHost *, int, const char *, const char *);
    char *certificate = dynamic_dtls_read(dir, "cert.pem");
    dynamic_dtls_lookup("enet_rs_host_dtls_client", &client, sizeof client);
    if (client(host, 1, certificate, "localhost") != 0)
        dynamic_dtls_fail("enet_rs_host_dtls_client refused the certificate");
    free(certificate);
}

static inline size_t dynamic_dtls_session_count(ENetHost *host)
{
    static size_t (*count)(ENetHost *) = NULL; /* looked up once */
    if (count == NULL)
        dynamic_dtls_lookup("enet_rs_host_get_dtls_session_count", &count, sizeof count);
    return count(host);
}

#endif
