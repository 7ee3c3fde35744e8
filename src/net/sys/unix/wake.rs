//! Waking a host's service thread on Unix: an eventfd on Linux (one
//! descriptor, a counter), a non-blocking pipe elsewhere; the wait polls
//! the host's socket and the waker's read side together.

use std::io::{self, ErrorKind};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::abi::ENetSocket;
use crate::net::sys::Woken;

/// Lets other threads cut a host's wait short.
pub struct Waker {
    /// Polled by the waiting thread, drained when it fires.
    read: OwnedFd,
    /// Written by waking threads; the eventfd itself on Linux.
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    write: OwnedFd,
}

/// Maps a `-1`-on-error system call result to the OS error.
pub(super) fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

impl Waker {
    /// A non-blocking eventfd, closed on exec.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn new() -> io::Result<Waker> {
        // SAFETY: plain system call with constant arguments.
        let fd = check(unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) })?;
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let read = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Waker { read })
    }

    /// A pipe, both ends non-blocking and closed on exec.
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub fn new() -> io::Result<Waker> {
        let mut ends = [0 as RawFd; 2];
        // SAFETY: `ends` has room for the two descriptors pipe writes.
        check(unsafe { libc::pipe(ends.as_mut_ptr()) })?;
        // SAFETY: both descriptors were just opened and are owned by
        // nothing else.
        let (read, write) =
            unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
        for end in [&read, &write] {
            let fd = end.as_raw_fd();
            // SAFETY: fcntl on a descriptor we own, with integer flags.
            unsafe {
                let flags = check(libc::fcntl(fd, libc::F_GETFL))?;
                check(libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK))?;
                check(libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC))?;
            }
        }
        Ok(Waker { read, write })
    }

    /// What a wait watches: readable while a wake is pending.
    pub fn readable(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    /// Where waking threads write.
    fn write_end(&self) -> RawFd {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        return self.read.as_raw_fd();
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        return self.write.as_raw_fd();
    }

    /// Wakes whoever waits. A full eventfd counter or pipe (EAGAIN) means
    /// a wake is pending anyway.
    pub fn wake(&self) {
        let one = 1u64;
        // SAFETY: `one` is readable for the 8 bytes written (an eventfd
        // takes exactly 8; a pipe takes any count).
        let _ = unsafe { libc::write(self.write_end(), (&one as *const u64).cast(), 8) };
    }

    /// Consumes pending wakes: an eventfd reads as one counter, a pipe
    /// holds 8 bytes a wake.
    pub fn drain(&self) {
        let mut sink = [0u64; 16];
        loop {
            // SAFETY: `sink` is writable for its whole size; a drained
            // non-blocking descriptor fails with EAGAIN and ends the loop.
            let read = unsafe {
                libc::read(
                    self.read.as_raw_fd(),
                    sink.as_mut_ptr().cast(),
                    core::mem::size_of_val(&sink),
                )
            };
            if read < core::mem::size_of_val(&sink) as isize {
                break;
            }
        }
    }

    /// Waits up to `timeout` ms until `socket` has a datagram or the waker
    /// was woken (the wake is consumed).
    pub fn wait(&self, socket: ENetSocket, timeout: u32) -> io::Result<Woken> {
        let mut descriptors = [
            libc::pollfd {
                fd: socket,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.read.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfds; the timeout cast reproduces C's int
        // conversion, as stock's wait does.
        let ready = unsafe { libc::poll(descriptors.as_mut_ptr(), 2, timeout as libc::c_int) };
        if ready < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == ErrorKind::Interrupted {
                return Ok(Woken::Interrupted);
            }
            return Err(error);
        }
        if descriptors[1].revents & libc::POLLIN != 0 {
            self.drain();
        }
        Ok(Woken::Ready)
    }
}
