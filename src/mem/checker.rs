//! Whether a memory checker that replaces `malloc` watches the process:
//! the packet pool then stays off, so that a use after
//! `enet_packet_destroy` is still reported and a block crossing threads is
//! still seen through `malloc` and `free`.

use crate::config;

/// valgrind's heap tools (memcheck, helgrind, drd...) or a sanitizer.
pub fn memory_checked() -> bool {
    valgrind_heap_tool() || sanitizer_runtime_linked()
}

/// valgrind's tools that track the heap preload a library of their own
/// beside `vgpreload_core` (callgrind and cachegrind do not).
fn valgrind_heap_tool() -> bool {
    config::LD_PRELOAD.read().is_some_and(|preload| {
        preload
            .split([':', ' '])
            .any(|library| library.contains("vgpreload_") && !library.contains("vgpreload_core"))
    })
}

/// Whether a sanitizer's runtime (Address, Thread, Memory or HWAddress) is
/// in the process: its `__*san_init` resolves.
#[cfg(unix)]
fn sanitizer_runtime_linked() -> bool {
    [
        c"__asan_init",
        c"__tsan_init",
        c"__msan_init",
        c"__hwasan_init",
    ]
    .iter()
    .any(|name| {
        // SAFETY: looks a symbol up by a NUL-terminated name; nothing is
        // called through the result.
        !unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.is_null()
    })
}

/// Not looked for on Windows.
#[cfg(not(unix))]
fn sanitizer_runtime_linked() -> bool {
    false
}
