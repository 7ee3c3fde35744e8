//! What the engine reports to the program.

use super::peer_index::PeerIndex;
use crate::mem::PacketRef;

/// An event for the peer in slot `peer`. Each kind carries only what it
/// reports; the C driver writes just those fields into `ENetEvent`.
#[derive(Debug)]
pub enum Event {
    /// The connection is up; `data` is the connect request's user data.
    Connect { peer: PeerIndex, data: u32 },
    /// The connection is gone; `data` is what the remote side sent with
    /// its DISCONNECT (0 after a timeout).
    Disconnect { peer: PeerIndex, data: u32 },
    /// A packet arrived; the event owns one reference to it.
    Receive {
        peer: PeerIndex,
        channel_id: u8,
        packet: PacketRef,
    },
}

impl Event {
    /// The slot of the peer the event is about.
    pub fn peer(&self) -> PeerIndex {
        match *self {
            Event::Connect { peer, .. }
            | Event::Disconnect { peer, .. }
            | Event::Receive { peer, .. } => peer,
        }
    }
}

/// Where handlers put an event that happens "now".
///
/// Stock ENet passes an `ENetEvent *` that may be NULL (e.g. from
/// `enet_host_flush`): with one, a connection that completes or times out
/// is reported at once; without, the peer is queued for dispatch and
/// reported by a later `enet_host_service`. `wanted` is that pointer's
/// presence.
#[derive(Debug, Default)]
pub struct EventSlot {
    pub wanted: bool,
    pub event: Option<Event>,
}

impl EventSlot {
    pub fn wanted() -> Self {
        EventSlot {
            wanted: true,
            event: None,
        }
    }

    pub fn unwanted() -> Self {
        EventSlot::default()
    }

    pub fn has_event(&self) -> bool {
        self.event.is_some()
    }
}
