//! `callbacks.c`: global initialisation and the allocator every piece of
//! memory C code sees or frees goes through.

use core::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::abi::{ENetCallbacks, ENetVersion, ENET_VERSION};

type MallocFn = unsafe extern "C" fn(usize) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type NoMemoryFn = unsafe extern "C" fn();

/// The installed hooks, as function-pointer addresses; 0 means libc's.
static MALLOC: AtomicUsize = AtomicUsize::new(0);
static FREE: AtomicUsize = AtomicUsize::new(0);
static NO_MEMORY: AtomicUsize = AtomicUsize::new(0);

/// `ENET_VERSION_CREATE(1, 3, 0)`: the oldest caller ABI we accept.
const OLDEST_SUPPORTED_VERSION: ENetVersion = (1 << 16) | (3 << 8);

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

/// Initialises ENet. Nothing to set up on Unix; always succeeds.
#[no_mangle]
pub extern "C" fn enet_initialize() -> c_int {
    0
}

/// Initialises ENet with allocator hooks.
///
/// Fails (-1) for a caller built against a version before 1.3.0, or when
/// only one of `malloc`/`free` is given. A NULL `inits` is refused too.
///
/// # Safety
/// `inits` must be NULL or point to a valid `ENetCallbacks`.
#[no_mangle]
pub unsafe extern "C" fn enet_initialize_with_callbacks(
    version: ENetVersion,
    inits: *const ENetCallbacks,
) -> c_int {
    guard!(-1, {
        if version < OLDEST_SUPPORTED_VERSION {
            return -1;
        }
        // SAFETY: the caller passes NULL or a valid struct.
        let Some(inits) = (unsafe { inits.as_ref() }) else {
            return -1;
        };
        match (inits.malloc, inits.free) {
            (Some(malloc), Some(free)) => {
                MALLOC.store(malloc as usize, Ordering::Release);
                FREE.store(free as usize, Ordering::Release);
            }
            (None, None) => {}
            _ => return -1,
        }
        if let Some(no_memory) = inits.no_memory {
            NO_MEMORY.store(no_memory as usize, Ordering::Release);
        }
        enet_initialize()
    })
}

/// Shuts ENet down. Nothing to release on Unix.
#[no_mangle]
pub extern "C" fn enet_deinitialize() {}

/// The version of ENet this library implements: 1.3.17.
#[no_mangle]
pub extern "C" fn enet_linked_version() -> ENetVersion {
    ENET_VERSION
}

/// Allocates through the installed hooks (internal export).
#[no_mangle]
pub extern "C" fn enet_malloc(size: usize) -> *mut c_void {
    guard!(core::ptr::null_mut(), malloc(size))
}

/// Frees memory from `enet_malloc` (internal export).
///
/// # Safety
/// `memory` must be NULL or come from `enet_malloc` and not be used again.
#[no_mangle]
pub unsafe extern "C" fn enet_free(memory: *mut c_void) {
    // SAFETY: forwarded caller contract.
    guard!((), unsafe { free(memory) })
}
