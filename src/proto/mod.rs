//! The sans-IO protocol engine: ENet 1.3.17's connection state machine,
//! sequencing, reliability, fragmentation, throttling and timeouts.
//!
//! It owns no socket and reads no clock. The service loop itself
//! ([`Host::service`], in `host/service.rs`) is the engine's: a driver supplies a
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
//! Three wings, each naming only the ones before it: [`state`] (plain
//! structures: queues, sent commands, sequence numbers and maps,
//! reassembly, the send schedule, events), [`peer`] (one peer through its
//! [`PeerMut`] view) and [`host`] (the host and everything that spans its
//! peers, the service loop included). `docs/architecture.md` has a table
//! of what each holds.
//!
//! The engine is safe Rust: every `unsafe` block belongs to the `ffi`,
//! `net` and `mem` glue, so the compiler refuses one here.
#![forbid(unsafe_code)]

pub mod host;
pub mod peer;
pub mod state;

pub use host::codec::{Codec, NoCodec, WireCodec};
pub use host::disconnect::DisconnectEffect;
pub use host::internal::Sequenced;
pub use host::outgoing::{Grouping, Transmitted};
pub use host::request::{PeerHandle, Request};
pub use host::service::{CodecOnly, Hooks, Intercept, ServiceFailed, Serviced, Transport};
pub use host::{Host, HostSettings};
pub use peer::{PeerEffect, PeerMut, SendError, SendTerms, Wake};
pub use state::channel::Queued;
pub use state::channel_id::ChannelId;
pub use state::event::{Event, EventSlot};
pub use state::peer_end::PeerEnd;
pub use state::peer_index::PeerIndex;
pub use state::recovery::{LossRecovery, RecoveryStats};
