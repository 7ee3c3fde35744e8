//! The host: the public `ENetHost` with the engine state beside it
//! (`engine.rs`), and everything that is `impl Host`: the service loop and
//! its passes (receiving, dispatching events, sending), connection set-up,
//! disconnection and reset, delivery of received packets, the throttle and
//! bandwidth, peers' addresses, and work handed over by other threads.
//!
//! This is the one wing that sees every peer at once; single-peer logic it
//! delegates to `proto::peer`, and the structures it keeps live in
//! `proto::state`.

pub mod codec;
mod connection;
mod counters;
mod delivery;
pub mod disconnect;
mod dispatch;
mod ending;
pub mod endpoint;
pub(in crate::proto) mod engine;
mod hold;
mod incoming;
pub(in crate::proto) mod internal;
pub(in crate::proto) mod outgoing;
mod path_mtu;
mod peer_ops;
mod peer_reset;
pub mod request;
pub mod send_limit;
pub mod service;
mod throttle;
pub(in crate::proto) mod transition;
mod wait;

pub(crate) use engine::{set_up_public, Engine};
pub use engine::{Host, HostSettings};
