//! The sans-IO protocol engine: ENet 1.3.17's connection state machine,
//! sequencing, reliability, fragmentation, throttling and timeouts.
//!
//! It owns no socket and reads no clock. The service loop itself
//! ([`Host::service`], in `service.rs`) is the engine's: a driver supplies a
//! [`Transport`] (clock, datagrams in and out, waiting) and [`Hooks`] (the
//! program's callbacks), and gets back events and the time the engine next
//! needs to run ([`Host::next_deadline`]). The C driver (`ffi::host`) runs
//! it over a socket; the simulator (`tests/engine/sim`) runs the same loop over
//! virtual links and virtual time, so every protocol behaviour is testable
//! there.
//!
//! State a program can see lives in the `#[repr(C)]` structs (`ENetHost`,
//! `ENetPeer`, `ENetChannel`), and the engine reads and writes it there;
//! everything else (queues, reassembly, timers) lives in Rust structures
//! beside it, indexed by the peer's slot.
//!
//! The engine is safe Rust: every `unsafe` block belongs to the `ffi`,
//! `net` and `mem` glue, so the compiler refuses one here.
#![forbid(unsafe_code)]

pub mod channel;
pub mod codec;
pub mod command;
mod connection;
mod delivery;
pub mod disconnect;
mod dispatch;
pub mod endpoint;
mod estimate;
pub mod event;
mod half_open;
pub mod handle;
pub mod host;
mod in_flight;
mod incoming;
mod internal;
mod ordering;
mod outgoing;
mod packet_flag;
mod packing;
mod peer;
mod peer_index;
mod peer_ops;
mod peer_reset;
mod queue;
pub mod reassembly;
pub mod recovery;
pub mod request;
mod schedule;
mod scratch;
mod sent;
mod sequence_map;
mod sequencing;
pub mod service;
mod throttle;
mod transition;

pub use channel::Queued;
pub use codec::{Codec, NoCodec, WireCodec};
pub use disconnect::DisconnectEffect;
pub use event::{Event, EventSlot};
pub use host::{Host, HostSettings};
pub use internal::Sequenced;
pub use outgoing::{Grouping, Transmitted};
pub use peer::{PeerMut, SendError};
pub use peer_index::PeerIndex;
pub use recovery::{LossRecovery, RecoveryStats};
pub use request::{PeerHandle, Request};
pub use service::{CodecOnly, Hooks, Intercept, ServiceFailed, Serviced, Transport};
