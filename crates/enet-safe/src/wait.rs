//! A host a program's own event loop waits on: [`Host::wait_handle`] and
//! [`Host::next_deadline`].

use std::time::Duration;

use crate::error::Error;
use crate::host::Host;

/// What a host's wait handle is on this system: a file descriptor on Unix
/// (a `std::os::fd::RawFd`), an event `HANDLE` on Windows (an `isize`, as
/// `windows-sys` spells it).
pub use enet::endpoint::RawWaitHandle;

impl Host {
    /// The handle an event loop waits on for this host: on Unix a
    /// descriptor that polls readable (an epoll descriptor on Linux, a
    /// kqueue on macOS and the BSDs), on Windows an event `HANDLE` that is
    /// signalled, when the socket has datagrams or a [`Sender`] queued a
    /// request. Made on the first call (later calls return the same one);
    /// the host closes it when dropped: only wait on it.
    ///
    /// The loop: wait on the handle for up to [`Host::next_deadline`]
    /// (asked before every wait, as it also clears what the last wake left
    /// signalled), then call [`Host::service`] with `Duration::ZERO` until
    /// it returns no event.
    ///
    /// [`Sender`]: crate::Sender
    pub fn wait_handle(&mut self) -> Result<RawWaitHandle, Error> {
        self.endpoint.wait_handle().map_err(Error::Socket)
    }

    /// How long the host can be left alone if nothing arrives: until its
    /// next retransmission, ping, throttle pass or timeout; `Some(ZERO)`
    /// when it has work now (events to report, datagrams read but not
    /// handled, sends or disconnects queued since the last service call,
    /// requests from senders, a due timer); `None` when nothing is timed
    /// (no peer connected or connecting). It also clears the wait handle's
    /// pending signal, so ask it before every wait.
    pub fn next_deadline(&mut self) -> Option<Duration> {
        self.endpoint
            .next_deadline_ms()
            .map(|ms| Duration::from_millis(u64::from(ms)))
    }
}
