//! The host behind every `ENetHost *` the library hands out, the way back
//! to it from the pointers C code holds (a host, or one of its peers), and
//! handing a new one to C. Every other `ffi` module finds its host through
//! here, so this one imports none of them.

use core::ptr;

use crate::abi::*;
use crate::endpoint::{BoundSocket, Endpoint, HostBuilder};
use crate::proto::PeerIndex;

/// A host as `enet_host_create` makes it: the assembly both APIs share,
/// whose first field is the engine's host, so the `ENetHost *` C code
/// holds (the engine host's first field) points at the whole of it.
pub(crate) type DriverHost = Endpoint;

/// The whole host behind an `ENetHost *` from C.
///
/// # Safety
/// `host` must be NULL or a pointer returned by `enet_host_create` that has
/// not been destroyed, and no other reference to that host may be live.
pub(crate) unsafe fn host_mut<'a>(host: *mut ENetHost) -> Option<&'a mut DriverHost> {
    // SAFETY: every `ENetHost *` we hand out points at `Host::public`, the
    // first field of the `#[repr(C)] Host` that is the first field of a
    // `#[repr(C)] Endpoint`, so it is the `Endpoint` pointer.
    unsafe { host.cast::<DriverHost>().as_mut() }
}

/// The host owning `peer` and the peer's slot in it.
///
/// # Safety
/// `peer` must be NULL or point into the peer array of a live host.
pub(crate) unsafe fn peer_host<'a>(peer: *mut ENetPeer) -> Option<(&'a mut DriverHost, PeerIndex)> {
    // SAFETY: a non-null peer of a live host can be read.
    let host_pointer = unsafe { peer.as_ref() }?.host;
    // SAFETY: `peer->host` of a live peer is its live host.
    let host = unsafe { host_mut(host_pointer) }?;
    let index = host.peer_index(peer)?;
    Some((host, index))
}

/// Builds a host on `socket` and hands it to C (`enet_host_destroy` takes
/// it back); NULL, with the socket closed, if it cannot be made.
pub(crate) fn host_on_socket(builder: HostBuilder, socket: BoundSocket) -> *mut ENetHost {
    match builder.build(socket) {
        Some(endpoint) => endpoint.into_raw().cast::<ENetHost>(),
        None => ptr::null_mut(),
    }
}
