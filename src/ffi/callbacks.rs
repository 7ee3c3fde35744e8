//! `callbacks.c`: global initialisation, the version, and the allocator
//! entry points.

use core::ffi::{c_int, c_void};

use crate::abi::{ENetCallbacks, ENetVersion, ENET_VERSION};
use crate::mem::hooks;
use crate::net;

/// `ENET_VERSION_CREATE(1, 3, 0)`: the oldest caller ABI we accept.
const OLDEST_SUPPORTED_VERSION: ENetVersion = (1 << 16) | (3 << 8);

/// Initialises ENet: on Windows, starts WinSock (version 1.1, as stock
/// asks for) and sets the system timer to 1 ms, both undone by
/// `enet_deinitialize` (the system counts the calls); nothing on Unix.
/// 0, or -1 if the system refuses.
#[no_mangle]
pub extern "C" fn enet_initialize() -> c_int {
    guard!(-1, {
        match net::startup() {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// Initialises ENet with allocator hooks.
///
/// Fails (-1) for a caller built against a version before 1.3.0, or when
/// only one of `malloc`/`free` is given. A NULL `inits` is refused too.
///
/// # Safety
/// `inits` must be NULL or point to a valid `ENetCallbacks`.
/// Call it before any other call, from one thread; never from a
/// host's callbacks.
#[no_mangle]
pub unsafe extern "C" fn enet_initialize_with_callbacks(
    version: ENetVersion,
    inits: *const ENetCallbacks,
) -> c_int {
    guard!(-1, {
        if version < OLDEST_SUPPORTED_VERSION {
            return -1;
        }
        let Some(inits) = arg_ref!(inits) else {
            return -1;
        };
        match crate::mem::install_hooks(inits) {
            Ok(()) => enet_initialize(),
            Err(hooks::PartialHooks) => -1,
        }
    })
}

/// Shuts ENet down: undoes one `enet_initialize` (WinSock and the timer
/// on Windows), and gives the packet pool's idle blocks back to `free`,
/// and the channel arrays' chunks too when no host has a peer using them.
#[no_mangle]
pub extern "C" fn enet_deinitialize() {
    guard!((), {
        crate::mem::pool::trim();
        crate::mem::channels::trim();
        net::cleanup()
    })
}

/// The release of ENet this library identifies as: 1.3.17, or 1.3.18 when
/// built with the `identity-1-3-18` feature.
#[no_mangle]
pub extern "C" fn enet_linked_version() -> ENetVersion {
    ENET_VERSION
}

/// Allocates through the installed hooks (internal export).
#[no_mangle]
pub extern "C" fn enet_malloc(size: usize) -> *mut c_void {
    guard!(core::ptr::null_mut(), hooks::malloc(size))
}

/// Frees memory from `enet_malloc` (internal export).
///
/// # Safety
/// `memory` must be NULL or come from `enet_malloc` and not be used again.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_free(memory: *mut c_void) {
    // SAFETY: `hooks::free` needs memory from `enet_malloc` (or NULL) that
    // nothing uses afterwards, which this function's contract promises.
    guard!((), unsafe { hooks::free(memory) })
}
