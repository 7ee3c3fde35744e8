//! The name of a peer that a host hands out, and that its thread and the
//! [`Sender`](crate::Sender)s of other threads give back.

use enet::proto::PeerHandle;

/// A peer: its host, a slot of that host and the slot's generation. Copy
/// it freely; once the peer has disconnected, calls with it fail with
/// [`Error::PeerGone`](crate::Error::PeerGone), whoever holds the slot by
/// then, and another host refuses it with
/// [`Error::ForeignPeer`](crate::Error::ForeignPeer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Peer {
    /// The slot and its generation, in the engine's terms.
    pub(crate) handle: PeerHandle,
    /// The id of the host that reported it (hosts are numbered from 1 as
    /// they are made).
    pub(crate) host: u32,
}

impl Peer {
    /// The peer's slot in its host (reused after the peer has gone).
    pub fn slot(&self) -> usize {
        self.handle.index as usize
    }
}
