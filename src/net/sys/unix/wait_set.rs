//! A host's wait handle on Unix: one descriptor an event loop polls, ready
//! while the host's socket has a datagram or its waker was woken. Linux
//! has an epoll descriptor, macOS and the BSDs a kqueue; both poll
//! readable for as long as anything they watch is (level-triggered), so a
//! loop that waits on one never misses what a service call left unread.
//! Other Unix systems have neither, and get no wait handle.

use std::io;
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
))]
use std::os::fd::FromRawFd;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use super::wake::{check, Waker};
use crate::abi::ENetSocket;

/// The descriptor a program waits on for one host; closed with it.
pub struct WaitSet {
    fd: OwnedFd,
}

impl WaitSet {
    /// An epoll descriptor watching `socket` and `waker` for input.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn new(socket: ENetSocket, waker: &Waker) -> io::Result<WaitSet> {
        // SAFETY: plain system call with a constant flag.
        let raw = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: `raw` was just opened and is owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        for watched in [socket, waker.readable()] {
            let mut interest = libc::epoll_event {
                events: libc::EPOLLIN as u32,
                u64: watched as u64,
            };
            // SAFETY: `fd` is our epoll descriptor, `watched` an open
            // descriptor (the host's socket, the waker's), `interest` a
            // valid event the call only reads.
            check(unsafe {
                libc::epoll_ctl(fd.as_raw_fd(), libc::EPOLL_CTL_ADD, watched, &mut interest)
            })?;
        }
        Ok(WaitSet { fd })
    }

    /// A kqueue watching `socket` and `waker` for input, closed on exec.
    #[cfg(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd",
        target_os = "dragonfly"
    ))]
    pub fn new(socket: ENetSocket, waker: &Waker) -> io::Result<WaitSet> {
        // SAFETY: plain system call without arguments.
        let raw = check(unsafe { libc::kqueue() })?;
        // SAFETY: `raw` was just opened and is owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: fcntl on a descriptor we own, with an integer flag.
        check(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) })?;
        let changes = [socket, waker.readable()].map(|watched| {
            // SAFETY: `kevent` is plain old data; all zeroes is valid
            // (and the fields this leaves alone are meant to be zero).
            let mut change: libc::kevent = unsafe { core::mem::zeroed() };
            change.ident = watched as _;
            change.filter = libc::EVFILT_READ as _;
            change.flags = libc::EV_ADD as _;
            change
        });
        // SAFETY: `changes` holds two valid changes the call only reads;
        // no event list is asked for, and a NULL timeout is allowed.
        check(unsafe {
            libc::kevent(
                fd.as_raw_fd(),
                changes.as_ptr(),
                changes.len() as _,
                core::ptr::null_mut(),
                0,
                core::ptr::null(),
            )
        })?;
        Ok(WaitSet { fd })
    }

    /// Systems with neither epoll nor kqueue have no wait handle.
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd",
        target_os = "dragonfly"
    )))]
    pub fn new(_socket: ENetSocket, _waker: &Waker) -> io::Result<WaitSet> {
        Err(io::ErrorKind::Unsupported.into())
    }

    /// The descriptor to wait on (readable means: service the host).
    pub fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Consumes the waker's pending wakes before the program waits again,
    /// so a wake already answered does not keep the set readable; `false`:
    /// the set shows the socket's input itself for as long as it lasts, so
    /// nothing needs looking at.
    pub fn rearm(&self, _socket: ENetSocket, waker: &Waker) -> bool {
        waker.drain();
        false
    }
}
