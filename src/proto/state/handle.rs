//! What other threads hand a host (see `request.rs`): peer handles that
//! carry their slot's generation, the slots' generations in atomics any
//! thread can read, and the requests themselves.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::mem::PacketRef;

/// A peer as other threads name it: its slot and the slot's generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PeerHandle {
    /// The slot, as a `u32` so that a handle stays 8 bytes (C code holds
    /// it as `ENetRsPeerHandle`); a `PeerIndex` once resolved.
    pub index: u32,
    /// Never 0: that names no connection (a handle of a free slot).
    pub generation: u32,
}

/// The generation of every slot of a host, readable from any thread.
pub type Generations = Arc<[AtomicU32]>;

/// New generations for `count` slots: 1 each (0 names no connection).
pub fn new_generations(count: usize) -> Generations {
    (0..count).map(|_| AtomicU32::new(1)).collect()
}

/// Whether `handle` still names the connection it was taken from.
pub fn is_current(generations: &Generations, handle: PeerHandle) -> bool {
    handle.generation != 0
        && generations
            .get(handle.index as usize)
            .is_some_and(|generation| generation.load(Ordering::Acquire) == handle.generation)
}

/// What another thread asked the host to do.
#[derive(Debug)]
pub enum Request {
    /// `enet_peer_send`; the packet reference is the request's own.
    Send {
        peer: PeerHandle,
        channel_id: u8,
        packet: PacketRef,
    },
    /// `enet_host_broadcast`.
    Broadcast { channel_id: u8, packet: PacketRef },
    /// `enet_peer_disconnect`.
    Disconnect { peer: PeerHandle, data: u32 },
}
