//! The host's side of back-pressure (`enet_rs_peer_set_send_limit`): a
//! peer's send limit is kept in the engine's table, beside the slots, until
//! the slot is reset; the refusal itself is `PeerMut::send`'s, so
//! `enet_peer_send`, `enet_host_broadcast` and the requests of other
//! threads all meet it.

use super::engine::Host;
use crate::abi::ENetPeerState;
use crate::proto::peer::send::send_backlog;
use crate::proto::state::peer_index::PeerIndex;

/// Why a send limit was not set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoConnection;

impl Host {
    /// Gives the peer in slot `index` a send limit of `bytes` (0 takes it
    /// away) until its slot is reset. Refused for a free slot: the next
    /// connection to take it is another peer, which starts without one.
    pub fn set_send_limit(&mut self, index: PeerIndex, bytes: usize) -> Result<(), NoConnection> {
        if self.engine.peers[index].state == ENetPeerState::ENET_PEER_STATE_DISCONNECTED {
            return Err(NoConnection);
        }
        let peer_count = self.engine.peers.len();
        self.engine.send_limits.set(index, peer_count, bytes);
        Ok(())
    }

    /// The send limit of the peer in slot `index`, in bytes; 0 for none.
    pub fn send_limit(&self, index: PeerIndex) -> usize {
        self.engine.send_limits.of(index)
    }

    /// The send backlog of the peer in slot `index`: what its send limit
    /// is compared with.
    pub fn send_backlog(&self, index: PeerIndex) -> usize {
        send_backlog(&self.engine.slots[index])
    }
}
