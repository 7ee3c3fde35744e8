/*
 * A preload that reports every read of the read-only data the shared
 * library's build moved after its code (crates/libenet/build.rs): the
 * first read-only PT_LOAD after the executable one of the library whose
 * path contains $COLD_RODATA_LIBRARY. It protects that segment, and on
 * each fault records the address (as an offset in the library) and the
 * reading instruction's, lets the one instruction run with the segment
 * readable (the trap flag), and protects it again. Each address read is
 * written once, as "read OFFSET from OFFSET", to the file
 * $COLD_RODATA_LOG. x86_64 Linux only (tests-c/check_cold_rodata.sh).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define TRAP_FLAG 0x100UL
#define PAGE 4096UL
#define MAX_SEEN 1024

static unsigned long segment_start, segment_end, library_base;
static unsigned long seen[MAX_SEEN];
static int seen_count;
static int log_fd = -1;

static int find_segment(struct dl_phdr_info *info, size_t size, void *wanted)
{
    (void) size;
    if (!strstr(info->dlpi_name, (const char *) wanted))
        return 0;
    int after_code = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD)
            continue;
        if (header->p_flags & PF_X) {
            after_code = 1;
        } else if (after_code && !(header->p_flags & PF_W)) {
            library_base = info->dlpi_addr;
            segment_start = (library_base + header->p_vaddr) & ~(PAGE - 1);
            segment_end = (library_base + header->p_vaddr + header->p_memsz + PAGE - 1) & ~(PAGE - 1);
            return 1;
        }
    }
    return 0;
}

static void on_fault(int signal_number, siginfo_t *info, void *context)
{
    unsigned long address = (unsigned long) info->si_addr;
    ucontext_t *state = context;
    if (address < segment_start || address >= segment_end) {
        /* Not ours: the default action, when the instruction runs again. */
        (void) signal_number;
        signal(SIGSEGV, SIG_DFL);
        return;
    }
    unsigned long offset = address - library_base;
    int known = 0;
    for (int i = 0; i < seen_count; i++)
        known |= seen[i] == offset;
    if (!known && seen_count < MAX_SEEN) {
        seen[seen_count++] = offset;
        char line[80];
        int length = snprintf(line, sizeof line, "read 0x%lx from 0x%lx\n", offset,
                              (unsigned long) state->uc_mcontext.gregs[REG_RIP] - library_base);
        if (write(log_fd, line, (size_t) length) < 0)
            _exit(3);
    }
    mprotect((void *) segment_start, segment_end - segment_start, PROT_READ);
    state->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
}

static void on_step(int signal_number, siginfo_t *info, void *context)
{
    (void) signal_number;
    (void) info;
    ucontext_t *state = context;
    state->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG;
    mprotect((void *) segment_start, segment_end - segment_start, PROT_NONE);
}

__attribute__((constructor)) static void arm(void)
{
    const char *wanted = getenv("COLD_RODATA_LIBRARY");
    const char *log = getenv("COLD_RODATA_LOG");
    if (!wanted || !log)
        return;
    log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log_fd < 0 || !dl_iterate_phdr(find_segment, (void *) wanted)) {
        fprintf(stderr, "cold_rodata_trap: no moved segment in a library named %s\n", wanted);
        _exit(2);
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_flags = SA_SIGINFO;
    action.sa_sigaction = on_fault;
    sigaction(SIGSEGV, &action, NULL);
    action.sa_sigaction = on_step;
    sigaction(SIGTRAP, &action, NULL);
    mprotect((void *) segment_start, segment_end - segment_start, PROT_NONE);
}
