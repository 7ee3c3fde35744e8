//! Which peers the host counts as connected: the one predicate on a peer's
//! state, and the set of slots it holds for, kept with its count.
//!
//! Stock counts a peer in `connectedPeers` from its `enet_peer_on_connect`
//! until its `enet_peer_on_disconnect`, which is while its state is
//! CONNECTED or DISCONNECT_LATER; the bandwidth throttle divides the host's
//! bandwidth by that count, and broadcasts go to the CONNECTED among them.
//! The set keeps the slots themselves beside the count, so those passes
//! visit the connected peers rather than every slot, and the count C code
//! reads in `ENetHost::connectedPeers` is the set's size by construction.

use crate::abi::ENetPeerState::{self, *};
use crate::proto::state::peer_index::{PeerIndex, SlotVec};

/// Whether the host counts a peer in `state` among its connected peers
/// (stock's `enet_peer_on_connect` and `_on_disconnect` conditions, which
/// also gate a PING and the bandwidth limit a peer announces).
pub(crate) fn counts_as_connected(state: ENetPeerState) -> bool {
    matches!(
        state,
        ENET_PEER_STATE_CONNECTED | ENET_PEER_STATE_DISCONNECT_LATER
    )
}

/// The slots of the peers counted as connected.
#[derive(Debug, Default)]
pub(crate) struct ConnectedSet {
    members: SlotVec<bool>,
    count: usize,
}

impl ConnectedSet {
    /// An empty set for a host with `peer_count` slots.
    pub(crate) fn new(peer_count: usize) -> ConnectedSet {
        ConnectedSet {
            members: SlotVec::from_fn(peer_count, |_| false),
            count: 0,
        }
    }

    /// Counts `index` as connected; false if it already was.
    pub(crate) fn insert(&mut self, index: PeerIndex) -> bool {
        let newly = !core::mem::replace(&mut self.members[index], true);
        self.count += usize::from(newly);
        newly
    }

    /// Stops counting `index` as connected; false if it was not.
    pub(crate) fn remove(&mut self, index: PeerIndex) -> bool {
        let was = core::mem::replace(&mut self.members[index], false);
        self.count -= usize::from(was);
        was
    }

    /// How many slots are counted.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The counted slots, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = PeerIndex> + '_ {
        self.members
            .iter_enumerated()
            .filter_map(|(index, &member)| member.then_some(index))
    }
}

/// Every peer state, in stock's order, for tests that decide over all.
#[cfg(test)]
pub(crate) const ALL_STATES: [ENetPeerState; 10] = [
    ENET_PEER_STATE_DISCONNECTED,
    ENET_PEER_STATE_CONNECTING,
    ENET_PEER_STATE_ACKNOWLEDGING_CONNECT,
    ENET_PEER_STATE_CONNECTION_PENDING,
    ENET_PEER_STATE_CONNECTION_SUCCEEDED,
    ENET_PEER_STATE_CONNECTED,
    ENET_PEER_STATE_DISCONNECT_LATER,
    ENET_PEER_STATE_DISCONNECTING,
    ENET_PEER_STATE_ACKNOWLEDGING_DISCONNECT,
    ENET_PEER_STATE_ZOMBIE,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_connected_and_disconnect_later_count() {
        let counted: Vec<ENetPeerState> = ALL_STATES
            .into_iter()
            .filter(|&state| counts_as_connected(state))
            .collect();
        assert_eq!(
            counted,
            [ENET_PEER_STATE_CONNECTED, ENET_PEER_STATE_DISCONNECT_LATER]
        );
    }

    #[test]
    fn the_count_follows_the_members() {
        let mut set = ConnectedSet::new(4);
        let [first, third] = [0, 2].map(PeerIndex::for_tests);
        assert!(set.insert(third));
        assert!(set.insert(first));
        assert!(!set.insert(first), "a second insert changes nothing");
        assert_eq!(set.len(), 2);
        assert_eq!(set.iter().collect::<Vec<_>>(), [first, third]);
        assert!(set.remove(first));
        assert!(!set.remove(first), "a second remove changes nothing");
        assert_eq!(set.len(), 1);
        assert_eq!(set.iter().collect::<Vec<_>>(), [third]);
    }
}
