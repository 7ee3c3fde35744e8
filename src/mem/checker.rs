//! Whether a memory checker that replaces `malloc` watches the process:
//! the packet pool then stays off, so that a use after
//! `enet_packet_destroy` is still reported and a block crossing threads is
//! still seen through `malloc` and `free`.

use super::hooks;

/// valgrind's heap tools (memcheck, helgrind, drd...) or a sanitizer;
/// `preload` is the loader's preload list (`LD_PRELOAD`), if set.
pub fn memory_checked(preload: Option<&str>) -> bool {
    valgrind_heap_tool(preload) || hooks::sanitizer_replaces_malloc()
}

/// valgrind's tools that track the heap preload a library of their own
/// beside `vgpreload_core` (callgrind and cachegrind do not).
fn valgrind_heap_tool(preload: Option<&str>) -> bool {
    preload.is_some_and(|preload| {
        preload.split([':', ' ']).any(|library| {
            library.contains(named_text!(b"vgpreload_"))
                && !library.contains(named_text!(b"vgpreload_core"))
        })
    })
}
