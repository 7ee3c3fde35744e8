//! A host a program's own event loop can wait on: a handle that is ready
//! when the host's socket has datagrams or another thread queued a
//! request ([`Endpoint::wait_handle`]), and the time until the engine
//! next needs a service call without either ([`Endpoint::next_deadline_ms`]).
//! Together they let a loop sleep as long as `enet_host_service` would,
//! then service the host without waiting.

use std::io;

use super::Endpoint;
use crate::dtls::MaybeSecure;
use crate::net::clock;
use crate::net::sys::WaitSet;

/// What a host's wait handle is on this system: a descriptor on Unix, an
/// event `HANDLE` on Windows.
pub type RawWaitHandle = crate::abi::ENetRsWaitHandle;

impl Endpoint {
    /// The host's wait handle, made on the first call (with the host's
    /// request queue, whose waker it watches); the host closes it. An
    /// error if the system refuses one, or has none (Unix without epoll
    /// or kqueue).
    pub fn wait_handle(&mut self) -> io::Result<RawWaitHandle> {
        if let Some(set) = self.io.wait_set() {
            return Ok(set.raw());
        }
        let queue = self
            .request_queue()
            .ok_or_else(|| io::Error::other("the system refused a waker"))?;
        let set = WaitSet::new(self.host.public.socket, queue.waker())?;
        let raw = set.raw();
        self.io.set_wait_set(Some(set));
        Ok(raw)
    }

    /// Milliseconds until the host needs a service call though nothing
    /// arrives: 0 when it has work now, `None` when nothing is timed.
    /// Work now is: events queued for dispatch, datagrams already read
    /// from the socket (a read takes many), peers the program gave work
    /// since the last send pass, requests from other threads, a copy the
    /// network conditioner holds that is due, a due timer. An encrypted
    /// host's due handshake timers run here, as a wait would run them.
    ///
    /// With a wait handle it also consumes the handle's pending signals,
    /// so call it before each wait on the handle, never between the wait
    /// and the service call.
    pub fn next_deadline_ms(&mut self) -> Option<u32> {
        let socket = self.host.public.socket;
        let mut now_work = false;
        if let Some(queue) = &self.requests {
            if let Some(set) = self.io.wait_set() {
                now_work |= set.rearm(socket, queue.waker());
            }
            now_work |= queue.has_pending();
        }
        if now_work || self.host.has_work_now() || self.io.has_received() {
            return Some(0);
        }
        let mut soonest = self.host.next_deadline(clock::now());
        let mut sooner = |candidate: Option<u32>| {
            if let Some(ms) = candidate {
                soonest = Some(soonest.map_or(ms, |known| known.min(ms)));
            }
        };
        sooner(self.io.conditioner_due_ms());
        if self.secure.is_some() {
            sooner(self.run(|_, transport, _| match transport {
                MaybeSecure::Secure(secure) => secure.run_due_timers(),
                MaybeSecure::Plain(_) => None,
            }));
        }
        soonest
    }
}
