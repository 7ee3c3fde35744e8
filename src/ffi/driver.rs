//! The host behind every `ENetHost *` the library hands out, and handing a
//! new one to C. The way back to it from the pointers C code holds is
//! `try_host!`/`try_peer!` (`mod.rs`); this module imports no other `ffi`
//! module but the guard's.

use core::ptr;

use super::busy::{self, HostGuard};
use crate::abi::*;
use crate::endpoint::{BoundSocket, Endpoint, HostBuilder, Housed};

/// A host as entry points borrow it: the assembly both APIs share, whose
/// first field is the engine's host, so the `ENetHost *` C code holds (the
/// engine host's first field) points at the whole of it.
pub(crate) type DriverHost = Endpoint;

/// A host's allocation as `enet_host_create` makes it: the host, then its
/// re-entrancy guard, which stays outside what entry points borrow.
pub(crate) type CHost = Housed<HostGuard>;

/// Builds a host on `socket` and hands it to C (`enet_host_destroy` takes
/// it back); NULL, with the socket closed, if it cannot be made.
pub(crate) fn host_on_socket(builder: HostBuilder, socket: BoundSocket) -> *mut ENetHost {
    let Some(mut housed) = builder.build_beside(socket, HostGuard::new()) else {
        return ptr::null_mut();
    };
    // Each peer's `host` leads back to the whole allocation, guard
    // included (the engine set it from its own public part alone).
    let whole = housed.as_ptr().cast::<ENetHost>();
    let Housed { endpoint, beside } = &mut *housed;
    for slot in 0..endpoint.host.peer_count() {
        if let Some(index) = endpoint.host.slot(slot) {
            endpoint.host.peer_mut(index).host = whole;
        }
    }
    beside.describe(
        whole,
        endpoint.host.public.peers,
        endpoint.host.peer_count(),
    );
    busy::register(beside);
    housed.into_raw().cast::<ENetHost>()
}

/// The guard of the host at `host`.
///
/// # Safety
/// `host` is a live host from `enet_host_create` (every export's
/// contract), with the provenance of its whole allocation.
#[inline(always)]
pub(crate) unsafe fn guard_of<'a>(host: *mut ENetHost) -> &'a HostGuard {
    // SAFETY: such a pointer is the address of a live `CHost` (the endpoint
    // comes first in it, the engine host first in that, `ENetHost` first in
    // that, all `#[repr(C)]`), and its guard is only ever borrowed shared:
    // entry points borrow the endpoint alone, mutably.
    unsafe { &*ptr::addr_of!((*host.cast::<CHost>()).beside) }
}

/// The endpoint of the host at `host`, borrowed for one entry point.
///
/// # Safety
/// As [`guard_of`], and no other reference to the endpoint is live: the
/// host's guard says it is idle, and the caller marks it busy on this
/// thread for as long as it holds the reference.
#[inline(always)]
pub(crate) unsafe fn endpoint_of<'a>(host: *mut ENetHost) -> &'a mut DriverHost {
    // SAFETY: as `guard_of`; the caller's contract makes the reference
    // unique, and it covers the endpoint only, not the guard beside it.
    unsafe { &mut *ptr::addr_of_mut!((*host.cast::<CHost>()).endpoint) }
}
