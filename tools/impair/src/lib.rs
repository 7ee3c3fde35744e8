//! A seeded impairing UDP proxy for soak tests and benchmarks.
//!
//! The proxy listens on a loopback port and forwards to one server. Each
//! client source address gets its own upstream socket (as a NAT would), so
//! several clients work and the server's replies find their way back. In
//! each direction, every datagram meets the same [`Profile`]: it may be
//! lost, corrupted (one random bit flipped), duplicated, held back for a
//! reordering delay, delayed by a fixed latency plus jitter, and queued
//! behind a bandwidth cap. What passes can be captured to a pcap file. Given the seed and the order datagrams arrive
//! in, every decision is the same from run to run.

pub mod pcap;
pub mod proxy;

/// The model lives in `enet-netsim`, shared with the library's network
/// conditioner; the proxy applies it between two sockets.
pub use netsim::impairment;
pub use netsim::{Decision, Impairer, Profile, Random};
pub use proxy::{Counters, Proxy};
