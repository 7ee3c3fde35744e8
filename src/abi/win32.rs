//! `enet/win32.h`: the platform types of the Windows build (`enet.dll`).
//!
//! Stock ENet's Windows ABI: a socket is a WinSock `SOCKET` (a
//! pointer-sized unsigned integer), a buffer is laid out as `WSABUF`
//! (length first, the reverse of the Unix `iovec` order), and a socket
//! set is WinSock's `fd_set` (a count and an array of 64 sockets).

use core::ffi::c_void;

pub use windows_sys::Win32::Networking::WinSock::FD_SET as fd_set;
pub use windows_sys::Win32::Networking::WinSock::{INVALID_SOCKET, SOCKET};

/// A socket: a WinSock `SOCKET`.
pub type ENetSocket = SOCKET;

/// The invalid socket.
pub const ENET_SOCKET_NULL: ENetSocket = INVALID_SOCKET;

/// A scatter/gather buffer; laid out as `WSABUF` so it can be handed to
/// `WSASendTo`/`WSARecvFrom` as is.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ENetBuffer {
    pub dataLength: usize,
    pub data: *mut c_void,
}

/// A set of sockets for `enet_socketset_select`.
pub type ENetSocketSet = fd_set;
