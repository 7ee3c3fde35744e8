//! Thread-safe sending (`enet/enet_rs.h`): an `ENetRsSender` lets any
//! thread queue sends, broadcasts and disconnects for a host while another
//! thread runs `enet_host_service`; the service thread applies them (see
//! `proto::request`) and is woken from its wait by an eventfd.
//!
//! The queue's lock is a pthread mutex rather than `std::sync::Mutex`, so
//! ThreadSanitizer and helgrind, which watch pthread calls, see the order
//! it gives between a sender's writes (the packet it filled) and the
//! service thread's reads.

use core::cell::UnsafeCell;
use core::ffi::c_int;
use core::ptr;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;

use super::host::{host_mut, peer_host};
use crate::abi::*;
use crate::mem::PacketRef;
use crate::net::socket;
use crate::proto::request::{is_current, Generations};
use crate::proto::{PeerHandle, Request};

/// What the lock guards.
struct Pending {
    requests: Vec<Request>,
    /// The host was destroyed: nothing more is taken.
    closed: bool,
}

/// A host's queue of requests from other threads. The C sender
/// (`ENetRsSender`) and the safe Rust API's `Sender` both queue through it.
pub struct RequestQueue {
    /// Boxed: a pthread mutex must not move once used.
    lock: Box<UnsafeCell<libc::pthread_mutex_t>>,
    pending: UnsafeCell<Pending>,
    /// An eventfd the service thread's wait watches.
    wake: OwnedFd,
    generations: Generations,
}

// SAFETY: `pending` is only touched with `lock` held (see `locked`), and the
// packets its requests hold belong to the queue alone: a request enters
// only with the sole reference to its packet (`queue` checks it for Rust
// callers; the C API's contract says so for `push`), so whichever thread
// takes or drops it touches a packet no other thread can reach.
unsafe impl Send for RequestQueue {}
// SAFETY: as above.
unsafe impl Sync for RequestQueue {}

impl RequestQueue {
    /// A queue for the host whose slots' generations these are; `None`
    /// if the system refuses an eventfd.
    pub fn new(generations: Generations) -> Option<RequestQueue> {
        Some(RequestQueue {
            lock: Box::new(UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER)),
            pending: UnsafeCell::new(Pending {
                requests: Vec::new(),
                closed: false,
            }),
            wake: socket::wake_descriptor().ok()?,
            generations,
        })
    }

    /// Runs `f` on the pending requests with the lock held.
    fn locked<R>(&self, f: impl FnOnce(&mut Pending) -> R) -> R {
        // SAFETY: the mutex was initialized statically and never moves
        // (boxed); lock and unlock pair up on this thread.
        unsafe { libc::pthread_mutex_lock(self.lock.get()) };
        // SAFETY: the lock is held, so no other reference to `pending`
        // exists until it is released below.
        let result = f(unsafe { &mut *self.pending.get() });
        // SAFETY: as above.
        unsafe { libc::pthread_mutex_unlock(self.lock.get()) };
        result
    }

    /// Queues a request and wakes the service thread; gives the request
    /// back if the host is gone. Only the first request after the service
    /// thread took the queue wakes it (it takes them all at once), so a
    /// burst of sends costs one wake, not a system call each.
    fn push(&self, request: Request) -> Result<(), Request> {
        let first = self.locked(|pending| {
            if pending.closed {
                return Err(request);
            }
            pending.requests.push(request);
            Ok(pending.requests.len() == 1)
        })?;
        if first {
            socket::wake(self.wake.as_raw_fd());
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
    pub fn take(&self, into: &mut Vec<Request>) {
        self.locked(|pending| into.append(&mut pending.requests));
    }

    /// The eventfd the service thread's wait watches.
    pub fn wake_descriptor(&self) -> c_int {
        self.wake.as_raw_fd()
    }

    /// Whether `handle` still names the connection it was taken from.
    pub fn is_current(&self, handle: PeerHandle) -> bool {
        is_current(&self.generations, handle)
    }

    /// Whether the host was destroyed.
    pub fn is_closed(&self) -> bool {
        self.locked(|pending| pending.closed)
    }

    /// The host is being destroyed: refuse what comes, and drop what is
    /// pending (its packets are freed).
    pub fn close(&self) {
        let left = self.locked(|pending| {
            pending.closed = true;
            std::mem::take(&mut pending.requests)
        });
        drop(left);
    }
}

impl Drop for RequestQueue {
    fn drop(&mut self) {
        // SAFETY: no one else holds the queue any more, so the mutex is
        // unlocked and unused.
        unsafe { libc::pthread_mutex_destroy(self.lock.get()) };
    }
}

/// A handle other threads use to queue work for one host.
pub struct ENetRsSender {
    queue: Arc<RequestQueue>,
}

impl From<PeerHandle> for ENetRsPeerHandle {
    fn from(handle: PeerHandle) -> Self {
        ENetRsPeerHandle {
            index: handle.index,
            generation: handle.generation,
        }
    }
}

impl From<ENetRsPeerHandle> for PeerHandle {
    fn from(handle: ENetRsPeerHandle) -> Self {
        PeerHandle {
            index: handle.index,
            generation: handle.generation,
        }
    }
}

/// Turns thread-safe sending on for `host` (the first call) and returns a
/// sender for it, which any thread may use until
/// `enet_rs_sender_destroy`; call it on the thread that services the host
/// (or before that thread starts). NULL for a NULL host or if the system
/// refuses an eventfd.
///
/// # Safety
/// `host` must be NULL or a live host not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_sender(host: *mut ENetHost) -> *mut ENetRsSender {
    guard!(ptr::null_mut(), {
        // SAFETY: caller contract.
        let Some(host) = (unsafe { host_mut(host) }) else {
            return ptr::null_mut();
        };
        if host.requests.is_none() {
            let Some(queue) = RequestQueue::new(host.generations()) else {
                return ptr::null_mut();
            };
            host.requests = Some(Arc::new(queue));
        }
        let queue = host.requests.as_ref().map(Arc::clone);
        match queue {
            Some(queue) => Box::into_raw(Box::new(ENetRsSender { queue })),
            None => ptr::null_mut(),
        }
    })
}

/// Gives a sender up (the host keeps applying what it queued). NULL is
/// ignored.
///
/// # Safety
/// `sender` must be NULL or from `enet_rs_host_sender`, not used after.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_sender_destroy(sender: *mut ENetRsSender) {
    guard!((), {
        if !sender.is_null() {
            // SAFETY: caller contract: a box we handed out, given back once.
            drop(unsafe { Box::from_raw(sender) });
        }
    })
}

/// The handle other threads name `peer` by: its slot and the slot's
/// generation, which changes when the slot is reset, so a handle of a peer
/// that left never reaches a later peer in its slot. A free slot's handle
/// (generation 0) names no one. Call it where `peer` may be read (the
/// service thread, e.g. at its CONNECT event).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host not in use by another
/// thread.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_handle(peer: *mut ENetPeer) -> ENetRsPeerHandle {
    guard!(ENetRsPeerHandle::default(), {
        // SAFETY: caller contract.
        match unsafe { peer_host(peer) } {
            Some((host, index)) => host.peer_handle(index).into(),
            None => ENetRsPeerHandle::default(),
        }
    })
}

/// The sender behind a pointer from C.
///
/// # Safety
/// `sender` must be NULL or a live sender.
unsafe fn sender_ref<'a>(sender: *const ENetRsSender) -> Option<&'a RequestQueue> {
    // SAFETY: caller contract; senders are shared read-only.
    unsafe { sender.as_ref() }.map(|sender| &*sender.queue)
}

/// The sender behind a pointer from C and `peer` as the engine names it,
/// if the sender is live and the handle still names its peer.
///
/// # Safety
/// As [`sender_ref`].
unsafe fn sender_for<'a>(
    sender: *const ENetRsSender,
    peer: ENetRsPeerHandle,
) -> Option<(&'a RequestQueue, PeerHandle)> {
    // SAFETY: caller contract.
    let requests = unsafe { sender_ref(sender) }?;
    let peer = PeerHandle::from(peer);
    is_current(&requests.generations, peer).then_some((requests, peer))
}

/// Takes the program's packet for a request: from now on it is the
/// library's.
///
/// # Safety
/// `packet` must be NULL or a live packet no other thread uses.
unsafe fn take_packet(packet: *mut ENetPacket) -> Option<PacketRef> {
    // SAFETY: caller contract.
    unsafe { PacketRef::retain_raw(packet) }
}

/// Queues `request`; 0, or -1 (the packet, if any, back to the program)
/// when the host is gone.
fn queue(queue: &RequestQueue, request: Request) -> c_int {
    match queue.push(request) {
        Ok(()) => 0,
        Err(Request::Send { packet, .. } | Request::Broadcast { packet, .. }) => {
            let _ = packet.hand_to_program();
            -1
        }
        Err(Request::Disconnect { .. }) => -1,
    }
}

/// Queues `enet_peer_send(peer, channelID, packet)` for the host's service
/// thread, from any thread. 0 once queued: the packet is then the
/// library's (do not touch it, or queue it again), and it is freed if the
/// send cannot be made when the service thread comes to it (the peer left,
/// a channel out of range). -1, the packet still the program's, for a
/// NULL argument, a destroyed host, or a handle whose peer has left.
///
/// # Safety
/// `sender` must be NULL or a live sender; `packet` NULL or a live packet
/// no other thread uses.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_sender_send(
    sender: *mut ENetRsSender,
    peer: ENetRsPeerHandle,
    channelID: u8,
    packet: *mut ENetPacket,
) -> c_int {
    guard!(-1, {
        // SAFETY: caller contract.
        let Some((requests, peer)) = (unsafe { sender_for(sender, peer) }) else {
            return -1;
        };
        // SAFETY: caller contract.
        let Some(packet) = (unsafe { take_packet(packet) }) else {
            return -1;
        };
        queue(
            requests,
            Request::Send {
                peer,
                channel_id: channelID,
                packet,
            },
        )
    })
}

/// Queues `enet_host_broadcast(host, channelID, packet)`, from any thread.
/// 0 once queued (the packet is then the library's), -1 (still the
/// program's) for a NULL argument or a destroyed host.
///
/// # Safety
/// As `enet_rs_sender_send`.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_sender_broadcast(
    sender: *mut ENetRsSender,
    channelID: u8,
    packet: *mut ENetPacket,
) -> c_int {
    guard!(-1, {
        // SAFETY: caller contract.
        let (Some(requests), Some(packet)) = (unsafe { sender_ref(sender) }, unsafe {
            take_packet(packet)
        }) else {
            return -1;
        };
        queue(
            requests,
            Request::Broadcast {
                channel_id: channelID,
                packet,
            },
        )
    })
}

/// Queues `enet_peer_disconnect(peer, data)`, from any thread. 0 once
/// queued, -1 for a NULL sender, a destroyed host, or a handle whose peer
/// has left.
///
/// # Safety
/// `sender` must be NULL or a live sender.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_sender_disconnect(
    sender: *mut ENetRsSender,
    peer: ENetRsPeerHandle,
    data: u32,
) -> c_int {
    guard!(-1, {
        // SAFETY: caller contract.
        let Some((requests, peer)) = (unsafe { sender_for(sender, peer) }) else {
            return -1;
        };
        queue(requests, Request::Disconnect { peer, data })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::request::new_generations;

    #[test]
    fn rust_callers_queue_only_packets_they_alone_hold() {
        let queue = RequestQueue::new(new_generations(1)).expect("an eventfd");
        let packet = PacketRef::new_with_data(b"shared", 0).unwrap();
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
        let late = PacketRef::new_with_data(b"late", 0).unwrap();
        assert!(queue
            .queue(Request::Broadcast {
                channel_id: 0,
                packet: late,
            })
            .is_err());
    }
}
