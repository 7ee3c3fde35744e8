//! The platform layer: everything that differs between operating systems,
//! behind one interface with one implementation per system family.
//!
//! Each family module (`unix`, `windows`) provides the same names, and
//! nothing outside this module imports from one directly:
//!
//! - `socket`: the stock `enet_socket_*` calls with that system's
//!   semantics (`unix.c` or `win32.c` of stock ENet), on raw sockets the
//!   program owns;
//! - `resolver`: name lookup (`resolve`, `lookup_name`);
//! - `ReceiveBatch`, `SendBatch`: a host's datagram I/O, batched where the
//!   system can (`recvmmsg`/`sendmmsg` and UDP offload on Linux), one
//!   datagram per call elsewhere (`single.rs`);
//! - `Waker`: lets other threads cut a host's wait short (an eventfd, a
//!   pipe, or a loopback socket), and the wait itself;
//! - `Lock`: the request queue's lock;
//! - `current_thread`: a word naming the running thread (the FFI's
//!   re-entrancy guard), without the dynamic linker's thread-local stub
//!   where that costs a page;
//! - `monotonic_ms`: the clock's source;
//! - `startup`/`cleanup`: what `enet_initialize`/`enet_deinitialize` do
//!   on that system (WinSock's reference-counted start-up on Windows);
//! - `sock_ref`, `into_enet_socket`: between `ENetSocket` and socket2.
//!
//! Each system's socket errors map to the same engine behaviour: a
//! datagram too long for its buffer is reported truncated (and dropped),
//! "would block" is "nothing now", and Windows' WSAECONNRESET after an
//! ICMP port-unreachable from a vanished peer is "nothing received".

use std::sync::OnceLock;
use std::time::Duration;

use crate::abi::ENetSocketWait;

#[cfg(any(not(any(target_os = "linux", target_os = "android")), test))]
pub mod single;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;

/// `ENET_SOCKET_WAIT_*` as the bits of the `u32` condition a socket wait
/// takes and returns.
pub(crate) const WAIT_SEND: u32 = ENetSocketWait::ENET_SOCKET_WAIT_SEND as u32;
pub(crate) const WAIT_RECEIVE: u32 = ENetSocketWait::ENET_SOCKET_WAIT_RECEIVE as u32;
pub(crate) const WAIT_INTERRUPT: u32 = ENetSocketWait::ENET_SOCKET_WAIT_INTERRUPT as u32;

/// What a wait for a host's socket (and its waker) saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// A datagram waits, the waker was woken, or time is up.
    Ready,
    /// A signal cut the wait short.
    Interrupted,
}

/// Elapsed time on `std::time::Instant`, measured from its first use: the
/// monotonic source of systems without a better one (`monotonic_ms`).
/// It lives here, shared by the families, so the platform layer never
/// reaches back into `net::clock`.
pub(crate) fn instant_since_first_use() -> Duration {
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}
