//! A host's queue of requests from other threads: sends, broadcasts and
//! disconnects that any thread may queue while one thread services the
//! host. The service thread takes them all at once (see
//! `proto::host::request`), woken from its wait by the platform's [`Waker`].
//! The C sender (`ENetRsSender`) and the safe Rust API's `Sender` both
//! queue through it.

use super::sys::{Lock, Waker};
use crate::proto::host::request::{is_current, Generations};
use crate::proto::{PeerHandle, Request};
use std::sync::atomic::{AtomicBool, Ordering};

/// What the lock guards.
struct Pending {
    requests: Vec<Request>,
    /// The host was destroyed: nothing more is taken.
    closed: bool,
}

/// A host's queue of requests from other threads.
pub struct RequestQueue {
    pending: Lock<Pending>,
    /// Whether `pending` may hold requests: set with the lock held when one
    /// is pushed, cleared with it held when they are taken. The service
    /// thread reads it before locking, so a service call with nothing
    /// queued (nearly every one) takes no lock; a request pushed just
    /// after that read waits for the next call, as one pushed just after
    /// the take would.
    waiting: AtomicBool,
    /// Cuts the service thread's wait short.
    waker: Waker,
    generations: Generations,
}

// SAFETY: `pending` is only reached through its lock, and the packets its
// requests hold belong to the queue alone: a request enters only with the
// sole reference to its packet (`queue` checks it for Rust callers; the C
// API's contract says so for `push`), so whichever thread takes or drops
// it touches a packet no other thread can reach.
unsafe impl Send for RequestQueue {}
// SAFETY: as above.
unsafe impl Sync for RequestQueue {}

impl RequestQueue {
    /// A queue for the host whose slots' generations these are; `None`
    /// if the system refuses a waker.
    pub fn new(generations: Generations) -> Option<RequestQueue> {
        Some(RequestQueue {
            pending: Lock::new(Pending {
                requests: Vec::new(),
                closed: false,
            }),
            waiting: AtomicBool::new(false),
            waker: Waker::new().ok()?,
            generations,
        })
    }

    /// Queues a request and wakes the service thread; gives the request
    /// back if the host is gone. Only the first request after the service
    /// thread took the queue wakes it (it takes them all at once), so a
    /// burst of sends costs one wake, not a system call each.
    ///
    /// The C API's path: its contract makes the caller hand over the only
    /// reference to a request's packet (Rust callers use [`queue`],
    /// which checks that).
    ///
    /// [`queue`]: Self::queue
    pub fn push(&self, request: Request) -> Result<(), Request> {
        let first = self.pending.with(|pending| {
            if pending.closed {
                return Err(request);
            }
            pending.requests.push(request);
            self.waiting.store(true, Ordering::Release);
            Ok(pending.requests.len() == 1)
        })?;
        if first {
            self.waker.wake();
        }
        Ok(())
    }

    /// Queues `request` from Rust, as [`push`](Self::push) does, if its
    /// packet (if any) has no reference but the request's own; gives it
    /// back otherwise, or if the host is gone. A packet shared with
    /// anything else could be touched by two threads at once (its
    /// reference count is not atomic, as ENet's is not).
    pub fn queue(&self, request: Request) -> Result<(), Request> {
        let shared = match &request {
            Request::Send { packet, .. } | Request::Broadcast { packet, .. } => {
                packet.reference_count() != 1
            }
            Request::Disconnect { .. } => false,
        };
        if shared {
            return Err(request);
        }
        self.push(request)
    }

    /// Moves every pending request into `into` (the service thread).
    #[inline]
    pub fn take(&self, into: &mut Vec<Request>) {
        if !self.waiting.load(Ordering::Acquire) {
            return;
        }
        self.pending.with(|pending| {
            self.waiting.store(false, Ordering::Relaxed);
            into.append(&mut pending.requests);
        });
    }

    /// Whether requests wait to be taken.
    pub fn has_pending(&self) -> bool {
        self.pending.with(|pending| !pending.requests.is_empty())
    }

    /// What the service thread's wait watches besides its socket.
    pub fn waker(&self) -> &Waker {
        &self.waker
    }

    /// Whether `handle` still names the connection it was taken from.
    pub fn is_current(&self, handle: PeerHandle) -> bool {
        is_current(&self.generations, handle)
    }

    /// Whether the host was destroyed.
    pub fn is_closed(&self) -> bool {
        self.pending.with(|pending| pending.closed)
    }

    /// The host is being destroyed: refuse what comes, and drop what is
    /// pending (its packets are freed).
    pub fn close(&self) {
        let left = self.pending.with(|pending| {
            pending.closed = true;
            std::mem::take(&mut pending.requests)
        });
        drop(left);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::{PacketFlags, PacketRef};
    use crate::proto::host::request::new_generations;

    #[test]
    fn rust_callers_queue_only_packets_they_alone_hold() {
        let queue = RequestQueue::new(new_generations(1)).expect("a waker");
        let packet = PacketRef::new_with_data(b"shared", PacketFlags::NONE).unwrap();
        let other = packet.retain();
        let refused = queue.queue(Request::Broadcast {
            channel_id: 0,
            packet,
        });
        assert!(matches!(refused, Err(Request::Broadcast { .. })));
        drop(refused);
        assert_eq!(other.reference_count(), 1);
        assert!(queue
            .queue(Request::Broadcast {
                channel_id: 0,
                packet: other,
            })
            .is_ok());
        let mut taken = Vec::new();
        queue.take(&mut taken);
        assert_eq!(taken.len(), 1);
        queue.close();
        let late = PacketRef::new_with_data(b"late", PacketFlags::NONE).unwrap();
        assert!(queue
            .queue(Request::Broadcast {
                channel_id: 0,
                packet: late,
            })
            .is_err());
    }

    /// The service thread skips the lock while nothing is queued; no
    /// request pushed from another thread meanwhile may be left behind.
    #[test]
    fn every_request_pushed_from_another_thread_is_taken() {
        const PUSHED: u32 = 20_000;
        let queue = std::sync::Arc::new(RequestQueue::new(new_generations(1)).expect("a waker"));
        let pusher = {
            let queue = queue.clone();
            std::thread::spawn(move || {
                for data in 0..PUSHED {
                    let peer = PeerHandle {
                        index: 0,
                        generation: 1,
                    };
                    assert!(queue.push(Request::Disconnect { peer, data }).is_ok());
                    if data % 64 == 0 {
                        std::thread::yield_now();
                    }
                }
            })
        };
        let mut taken = Vec::new();
        let mut expected = 0;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while expected < PUSHED {
            assert!(
                std::time::Instant::now() < deadline,
                "{expected} of {PUSHED} taken"
            );
            queue.take(&mut taken);
            for request in taken.drain(..) {
                let Request::Disconnect { data, .. } = request else {
                    panic!("only disconnects were pushed");
                };
                assert_eq!(data, expected, "in the order pushed");
                expected += 1;
            }
        }
        pusher.join().unwrap();
        queue.take(&mut taken);
        assert!(taken.is_empty());
    }
}
