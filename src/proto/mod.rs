//! The sans-IO protocol engine: ENet 1.3.17's connection state machine,
//! sequencing, reliability, fragmentation, throttling and timeouts.
//!
//! It owns no socket and reads no clock. The driver (`ffi::host`) hands it
//! the current time and received datagrams, and it hands back datagrams to
//! send (through a `transmit` callback), events, and the time it next needs
//! to run ([`Host::next_deadline`]). That makes every protocol behaviour
//! testable on a simulated network (`tests/sim_*.rs`).
//!
//! State a program can see lives in the `#[repr(C)]` structs (`ENetHost`,
//! `ENetPeer`, `ENetChannel`), and the engine reads and writes it there;
//! everything else (queues, reassembly, timers) lives in Rust structures
//! beside it, indexed by the peer's slot.

pub mod channel;
pub mod codec;
pub mod command;
mod connection;
mod dispatch;
pub mod event;
mod half_open;
pub mod host;
mod incoming;
mod internal;
mod outgoing;
mod peer;
mod queue;
pub mod reassembly;
mod schedule;
mod throttle;

pub use channel::Queued;
pub use codec::{Codec, NoCodec, WireCodec};
pub use event::{Event, EventKind, EventSlot};
pub use host::{Host, HostSettings};
pub use internal::Sequenced;
pub use peer::SendError;
