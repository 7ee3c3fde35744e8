//! The platform layer on Windows: WinSock sockets (`SOCKET`), `select`,
//! WinSock's resolver, one datagram per system call, a loopback socket as
//! the waker, and WinSock's start-up with the 1 ms system timer in
//! `enet_initialize`, as stock's `win32.c` does.

use core::mem::ManuallyDrop;
use std::io;
use std::os::windows::io::{FromRawSocket, IntoRawSocket, RawSocket};
use std::sync::OnceLock;

use windows_sys::Win32::Media::{timeBeginPeriod, timeEndPeriod};
use windows_sys::Win32::Networking::WinSock::{WSACleanup, WSAGetLastError, WSAStartup, WSADATA};

use crate::abi::ENetSocket;

pub mod address;
mod lock;
pub mod socket;
mod thread;
mod wait_set;
mod wake;

pub use super::single::{ReceiveBatch, SendBatch};
pub use lock::Lock;
pub use thread::current_thread;
pub use wait_set::WaitSet;
pub use wake::Waker;

/// The WinSock version stock ENet asks for: 1.1.
const WINSOCK_1_1: u16 = 0x0101;

/// The last WinSock error of this thread.
fn last_error() -> io::Error {
    // SAFETY: reads this thread's last WinSock error; no arguments.
    io::Error::from_raw_os_error(unsafe { WSAGetLastError() })
}

/// Starts WinSock (version 1.1) and asks for a 1 ms system timer, as
/// stock's `enet_initialize` does; each call is undone by one [`cleanup`]
/// (the system counts them).
pub fn startup() -> io::Result<()> {
    // SAFETY: WSADATA is plain old data; all zeroes is valid.
    let mut data: WSADATA = unsafe { core::mem::zeroed() };
    // SAFETY: `data` is writable; WSAStartup fills it in.
    let status = unsafe { WSAStartup(WINSOCK_1_1, &mut data) };
    if status != 0 {
        return Err(io::Error::from_raw_os_error(status));
    }
    if data.wVersion != WINSOCK_1_1 {
        // SAFETY: balances the successful WSAStartup above.
        unsafe { WSACleanup() };
        return Err(io::ErrorKind::Unsupported.into());
    }
    // SAFETY: plain call; balanced by timeEndPeriod in `cleanup`. Waits
    // (select's timeout) then end within a millisecond, not the default
    // 15.6 ms tick.
    unsafe { timeBeginPeriod(1) };
    Ok(())
}

/// Undoes one [`startup`].
pub fn cleanup() {
    // SAFETY: plain calls, balancing `startup`'s (a program calling this
    // without `enet_initialize` gets WinSock's own error, ignored as stock
    // ignores it).
    unsafe {
        timeEndPeriod(1);
        WSACleanup();
    }
}

/// Makes sure WinSock is started in this process before the library's
/// own socket calls, whether or not the program called `enet_initialize`
/// (stock needs it; we do not). Started once and never cleaned up, as
/// Rust's standard library does for itself.
fn winsock_ready() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        // SAFETY: WSADATA is plain old data; all zeroes is valid.
        let mut data: WSADATA = unsafe { core::mem::zeroed() };
        // SAFETY: `data` is writable. 2.2 is the newest version; a failure
        // shows up as the socket calls' own errors.
        let _ = unsafe { WSAStartup(0x0202, &mut data) };
    });
}

/// A socket2 view of a socket someone else owns: never closed by the view.
///
/// # Safety
/// `socket` must be an open socket that stays open while the view is used.
pub unsafe fn sock_ref(socket: ENetSocket) -> ManuallyDrop<socket2::Socket> {
    // SAFETY: caller contract: open while the view lives; ManuallyDrop
    // keeps the view from closing it.
    ManuallyDrop::new(unsafe { socket2::Socket::from_raw_socket(socket as RawSocket) })
}

/// Hands a socket2 socket over as a raw `ENetSocket` that whoever takes it
/// closes (`socket::destroy`).
pub fn into_enet_socket(socket: socket2::Socket) -> ENetSocket {
    socket.into_raw_socket() as ENetSocket
}

/// Windows has no `SO_REUSEPORT` (its `SO_REUSEADDR` lets another socket
/// take a port over, which is not sharing it), so a shared port is
/// refused.
pub fn share_port(_socket: &socket2::Socket) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// The monotonic clock in whole milliseconds: `std::time::Instant`
/// (QueryPerformanceCounter).
pub fn monotonic_ms() -> u64 {
    super::instant_since_first_use().as_millis() as u64
}
