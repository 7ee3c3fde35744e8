//! `enet/unix.h`: the platform types of the Unix build.

use core::ffi::c_void;

/// A socket: a file descriptor.
pub type ENetSocket = core::ffi::c_int;

/// The invalid socket.
pub const ENET_SOCKET_NULL: ENetSocket = -1;

/// A scatter/gather buffer; laid out as `struct iovec` so it can be handed
/// to `sendmsg`/`recvmsg` as is.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ENetBuffer {
    pub data: *mut c_void,
    pub dataLength: usize,
}

/// A set of sockets for `enet_socketset_select`.
pub type ENetSocketSet = libc::fd_set;
