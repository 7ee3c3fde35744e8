//! The platform layer on Unix (Linux, macOS, the BSDs): descriptors,
//! `poll`, the C library's resolver; `recvmmsg`/`sendmmsg`, UDP offload
//! and an eventfd on Linux.

use core::mem::ManuallyDrop;
use std::io;
use std::os::fd::{FromRawFd, IntoRawFd};

use crate::abi::ENetSocket;

pub mod address;
mod lock;
pub mod socket;
mod thread;
mod wait_set;
mod wake;

#[cfg(any(target_os = "linux", target_os = "android"))]
mod mmsg;
#[cfg(any(target_os = "linux", target_os = "android"))]
mod offload;
#[cfg(any(target_os = "linux", target_os = "android"))]
mod socket_name;

pub use lock::Lock;
pub use thread::current_thread;
pub use wait_set::WaitSet;
pub use wake::Waker;

#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub use super::single::{ReceiveBatch, SendBatch};
#[cfg(any(target_os = "linux", target_os = "android"))]
pub use mmsg::{ReceiveBatch, SendBatch};

/// What `enet_initialize` needs of the system: nothing on Unix.
pub fn startup() -> io::Result<()> {
    Ok(())
}

/// What `enet_deinitialize` gives back: nothing on Unix.
pub fn cleanup() {}

/// A socket2 view of a socket someone else owns: never closed by the view.
///
/// # Safety
/// `socket` must be an open descriptor that stays open while the view is
/// used.
pub unsafe fn sock_ref(socket: ENetSocket) -> ManuallyDrop<socket2::Socket> {
    // SAFETY: caller contract: open while the view lives; ManuallyDrop
    // keeps the view from closing it.
    ManuallyDrop::new(unsafe { socket2::Socket::from_raw_fd(socket) })
}

/// Hands a socket2 socket over as a raw `ENetSocket` that whoever takes it
/// closes (`socket::destroy`).
pub fn into_enet_socket(socket: socket2::Socket) -> ENetSocket {
    socket.into_raw_fd()
}

/// Lets other sockets of this user bound to the same port share it
/// (`SO_REUSEPORT`): the kernel spreads senders over them by address.
pub fn share_port(socket: &socket2::Socket) -> io::Result<()> {
    socket.set_reuse_port(true)
}

/// The monotonic clock, including time spent suspended (`CLOCK_BOOTTIME`),
/// so a peer silent through a suspend is timed out on resume, as with
/// stock's wall clock.
/// In whole milliseconds, floored as stock floors `gettimeofday`'s
/// microseconds: every service call reads it, and integer arithmetic on
/// the `timespec` costs less than a `Duration`'s.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn monotonic_ms() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; CLOCK_BOOTTIME exists
    // on every Linux this library supports (2.6.39+).
    let result = unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut now) };
    if result != 0 {
        return super::instant_since_first_use().as_millis() as u64;
    }
    (now.tv_sec as u64)
        .wrapping_mul(1000)
        .wrapping_add(now.tv_nsec as u64 / 1_000_000)
}

/// The monotonic clock (`std::time::Instant`) in whole milliseconds, where
/// no boot-time clock exists.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub fn monotonic_ms() -> u64 {
    super::instant_since_first_use().as_millis() as u64
}
