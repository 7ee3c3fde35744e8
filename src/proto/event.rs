//! What the engine reports to the program.

use crate::mem::PacketRef;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Connect,
    Disconnect,
    Receive,
}

/// An event for the peer in slot `peer`.
#[derive(Debug)]
pub struct Event {
    pub kind: EventKind,
    pub peer: usize,
    pub channel_id: u8,
    pub data: u32,
    /// The received packet, for [`EventKind::Receive`].
    pub packet: Option<PacketRef>,
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
