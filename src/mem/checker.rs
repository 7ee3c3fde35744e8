//! Whether a memory checker that replaces `malloc` watches the process:
//! the packet pool then stays off, so that a use after
//! `enet_packet_destroy` is still reported and a block crossing threads is
//! still seen through `malloc` and `free`.

use super::hooks;
use crate::config;

/// valgrind's heap tools (memcheck, helgrind, drd...) or a sanitizer.
pub fn memory_checked() -> bool {
    valgrind_heap_tool() || hooks::sanitizer_replaces_malloc()
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
