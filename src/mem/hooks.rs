//! The installed allocator hooks (`ENetCallbacks`), through which every
//! piece of memory C code sees or frees is allocated.

use core::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::abi::ENetCallbacks;

type MallocFn = unsafe extern "C" fn(usize) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type NoMemoryFn = unsafe extern "C" fn();

/// The installed hooks, as function-pointer addresses; 0 means libc's.
static MALLOC: AtomicUsize = AtomicUsize::new(0);
static FREE: AtomicUsize = AtomicUsize::new(0);
static NO_MEMORY: AtomicUsize = AtomicUsize::new(0);

fn installed_malloc() -> MallocFn {
    match MALLOC.load(Ordering::Acquire) {
        0 => libc::malloc,
        // SAFETY: only `enet_initialize_with_callbacks` stores here, and it
        // stores the address of a non-null `MallocFn`.
        address => unsafe { core::mem::transmute::<usize, MallocFn>(address) },
    }
}

fn installed_free() -> FreeFn {
    match FREE.load(Ordering::Acquire) {
        0 => libc::free,
        // SAFETY: only a non-null `FreeFn` address is ever stored.
        address => unsafe { core::mem::transmute::<usize, FreeFn>(address) },
    }
}

fn out_of_memory() {
    match NO_MEMORY.load(Ordering::Acquire) {
        0 => std::process::abort(),
        address => {
            // SAFETY: only a non-null `NoMemoryFn` address is ever stored.
            let hook = unsafe { core::mem::transmute::<usize, NoMemoryFn>(address) };
            // SAFETY: the program installed this hook to be called on OOM.
            unsafe { hook() }
        }
    }
}

/// Whether libc's `malloc` and `free` are in use (no program hooks).
pub fn default_allocator() -> bool {
    MALLOC.load(Ordering::Acquire) == 0
}

/// Allocates `size` bytes through the installed hook; calls `no_memory`
/// (by default: abort) when the hook returns NULL, as ENet does.
pub fn malloc(size: usize) -> *mut c_void {
    // SAFETY: the hook is libc's malloc or the program's equivalent.
    let memory = unsafe { installed_malloc()(size) };
    if memory.is_null() {
        out_of_memory();
    }
    memory
}

/// Frees memory obtained from [`malloc`].
///
/// # Safety
/// `memory` must come from [`malloc`] (or be NULL) and not be used again.
pub unsafe fn free(memory: *mut c_void) {
    // SAFETY: the caller hands back memory from the matching allocator.
    unsafe { installed_free()(memory) }
}

/// Frees memory that came from [`malloc`] while no hooks were installed,
/// whatever hooks are installed now.
///
/// # Safety
/// `memory` must come from [`malloc`] called with the default allocator
/// (or be NULL) and not be used again.
pub unsafe fn free_from_default(memory: *mut c_void) {
    // SAFETY: the caller hands back memory from libc's malloc.
    unsafe { libc::free(memory) }
}

/// Gives the free pages of libc's heap back to the system (glibc's
/// `malloc_trim`, which also releases whole free pages inside the heap).
/// Nothing with a program's own allocator or another C library.
pub fn give_back_free_pages() {
    if !default_allocator() {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only hands malloc's own free memory back to the
    // system; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Whether a sanitizer's runtime (Address, Thread, Memory or HWAddress),
/// which replaces `malloc` and `free`, is in the process: its
/// `__*san_init` resolves. Not looked for elsewhere than Unix.
pub fn sanitizer_replaces_malloc() -> bool {
    #[cfg(unix)]
    {
        [
            named_c_text!(b"__asan_init\0"),
            named_c_text!(b"__tsan_init\0"),
            named_c_text!(b"__msan_init\0"),
            named_c_text!(b"__hwasan_init\0"),
        ]
        .iter()
        .any(|name| {
            // SAFETY: looks a symbol up by a NUL-terminated name; nothing
            // is called through the result.
            !unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.is_null()
        })
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Why [`install`] refused a set of hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartialHooks;

/// Whether `hooks` replace the allocator (`malloc` and `free` both
/// given), or why [`install`] would refuse them (only one of the two).
pub fn replaces_allocator(hooks: &ENetCallbacks) -> Result<bool, PartialHooks> {
    match (hooks.malloc, hooks.free) {
        (Some(_), Some(_)) => Ok(true),
        (None, None) => Ok(false),
        _ => Err(PartialHooks),
    }
}

/// Installs the program's hooks: `malloc` and `free` together or neither;
/// `no_memory` on its own. Hooks left NULL keep their current value.
/// [`crate::mem::install_hooks`] empties the packet pool first.
pub fn install(hooks: &ENetCallbacks) -> Result<(), PartialHooks> {
    match (hooks.malloc, hooks.free) {
        (Some(malloc), Some(free)) => {
            MALLOC.store(malloc as usize, Ordering::Release);
            FREE.store(free as usize, Ordering::Release);
        }
        (None, None) => {}
        _ => return Err(PartialHooks),
    }
    if let Some(no_memory) = hooks.no_memory {
        NO_MEMORY.store(no_memory as usize, Ordering::Release);
    }
    Ok(())
}
