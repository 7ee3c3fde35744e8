//! One peer: its engine state beside the public `ENetPeer` (the slot), and
//! everything that works on one peer at a time through its [`PeerMut`]
//! view: numbering and queueing outgoing commands, packing them into a
//! datagram, the reliable commands in flight, receive-side ordering, and
//! the round-trip and throttle estimates.
//!
//! A peer never reaches its host (`tests/module_layers.rs` checks that no
//! module here names `host`): what a step means for other peers or for the
//! host-wide state is returned to the caller, who owns the host.

pub(in crate::proto) mod estimate;
pub(in crate::proto) mod in_flight;
pub(in crate::proto) mod ordering;
pub(in crate::proto) mod packing;
pub(in crate::proto) mod send;
pub(in crate::proto) mod sequencing;
pub(in crate::proto) mod slot;

pub use send::{Delivered, PeerEffect, SendTerms, Wake};
pub use slot::{PeerMut, SendError};
