//! The engine's floor of plain state: the structures a host and its peers
//! keep (command queues, reliable commands in flight, sequence maps,
//! reassembly, the send schedule, half-open slots, loss recovery), the
//! channel ids and sequence numbers they are keyed by, and the values the
//! engine hands out (events, peer indices and handles).
//!
//! Nothing here knows a peer's view or the host: these modules name only
//! each other (`tests/module_layers.rs` checks that neither `peer` nor
//! `host` is named), so each can be read and tested on its own.

pub mod channel;
pub mod channel_id;
pub mod command;
pub(in crate::proto) mod connected;
pub mod counters;
pub mod event;
pub(in crate::proto) mod half_open;
pub mod handle;
pub(in crate::proto) mod hold;
pub(in crate::proto) mod path_search;
pub mod peer_end;
pub(in crate::proto) mod peer_index;
pub(in crate::proto) mod queue;
pub mod reassembly;
pub mod recovery;
pub(in crate::proto) mod schedule;
pub(in crate::proto) mod scratch;
pub(in crate::proto) mod send_limit;
pub(in crate::proto) mod sent;
pub mod sequence;
pub(in crate::proto) mod sequence_map;
pub(in crate::proto) mod unreliable_group;
