//! The host behind every `ENetHost *` the library hands out, and handing a
//! new one to C. The way back to it from the pointers C code holds is
//! `try_host!`/`try_peer!` (`mod.rs`); this module imports no other `ffi`
//! module.

use core::ptr;

use crate::abi::*;
use crate::endpoint::{BoundSocket, Endpoint, HostBuilder};

/// A host as `enet_host_create` makes it: the assembly both APIs share,
/// whose first field is the engine's host, so the `ENetHost *` C code
/// holds (the engine host's first field) points at the whole of it.
pub(crate) type DriverHost = Endpoint;

/// Builds a host on `socket` and hands it to C (`enet_host_destroy` takes
/// it back); NULL, with the socket closed, if it cannot be made.
pub(crate) fn host_on_socket(builder: HostBuilder, socket: BoundSocket) -> *mut ENetHost {
    match builder.build(socket) {
        Some(endpoint) => endpoint.into_raw().cast::<ENetHost>(),
        None => ptr::null_mut(),
    }
}
