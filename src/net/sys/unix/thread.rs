//! Which thread is running. On x86_64 and aarch64 Linux it is the thread
//! pointer register's value, one instruction; elsewhere `pthread_self`, an
//! ordinary call into the C library. (Rust's `thread_local!` in a shared
//! library goes through the dynamic linker's `__tls_get_addr`, whose call
//! stub sits in the library's last page of code and would keep that page
//! resident.)

/// A word naming the calling thread, never 0, different from every other
/// live thread's.
#[inline(always)]
pub fn current_thread() -> usize {
    thread_pointer()
}

/// x86_64 Linux: the ELF TLS ABI has the word at `%fs:0` hold the thread
/// control block's own address, which the C library sets for every thread
/// before any of the thread's code runs.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[inline(always)]
fn thread_pointer() -> usize {
    let pointer: usize;
    // SAFETY: a load from the calling thread's own control block, which
    // lives as long as the thread; it writes nothing and touches no
    // flags or stack.
    unsafe {
        core::arch::asm!(
            "mov {}, qword ptr fs:[0]",
            out(reg) pointer,
            options(nostack, readonly, preserves_flags, pure)
        )
    };
    pointer
}

/// aarch64 Linux: `TPIDR_EL0` is the thread pointer, which the C library
/// sets to the thread's control block for every thread.
#[cfg(all(target_os = "linux", target_arch = "aarch64"))]
#[inline(always)]
fn thread_pointer() -> usize {
    let pointer: usize;
    // SAFETY: reads a system register user code may read; it writes
    // nothing and touches no memory, flags or stack.
    unsafe {
        core::arch::asm!(
            "mrs {}, tpidr_el0",
            out(reg) pointer,
            options(nostack, nomem, preserves_flags, pure)
        )
    };
    pointer
}

/// Elsewhere: `pthread_self`, the address of the thread's control block on
/// every system we build for (glibc, musl, Android's bionic, macOS, the
/// BSDs), so never 0.
#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
#[inline(always)]
fn thread_pointer() -> usize {
    // SAFETY: pthread_self has no preconditions and always succeeds.
    let thread = unsafe { libc::pthread_self() };
    thread as usize
}
