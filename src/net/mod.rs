//! The operating-system glue: the ENet clock, IPv4 and IPv6 sockets, a
//! host's datagram I/O and its wait, address text and lookup, the request
//! queue other threads send through. `unsafe` is allowed here (and in
//! `ffi`) only.
//!
//! Everything that differs between systems lives in [`sys`], one
//! implementation per family (Unix, Windows) behind one interface; the
//! other modules here are the same on every system.

pub mod address;
pub mod batch;
pub mod clock;
pub mod host_socket;
pub mod netsim;
pub mod request_queue;
pub mod sys;
pub mod transport;

pub use sys::socket;
pub use sys::{cleanup, startup};
