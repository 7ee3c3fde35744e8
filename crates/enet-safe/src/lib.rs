//! A safe Rust API over enet-rs's ENet engine: the same protocol core that
//! serves `libenet.so.7`, on the ENet 1.3.17 wire, so it talks to any stock
//! ENet peer.
//!
//! - A [`Host`] owns a UDP socket (IPv4, IPv6 or dual-stack) and its peers.
//! - A [`Peer`] is a small copyable handle: a slot and the slot's
//!   generation. Once the peer disconnects its handle goes stale, and every
//!   call with it fails with [`Error::PeerGone`], even after another peer
//!   takes the slot.
//! - [`Host::service`] sends what is queued, receives, and returns the next
//!   [`Event`].
//! - A [`Packet`] says how it is delivered ([`Delivery`]); packets on one
//!   channel keep their order as ENet's channels do.
//! - [`Host::encrypt_as_server`] and [`Host::encrypt_as_client`] carry a
//!   host's datagrams over DTLS 1.2 sessions; [`Host::encryption`] tells
//!   how a peer's stands.
//! - [`Host::set_netsim`] puts a bad network (loss, lag, jitter, ...) of
//!   the host's own between it and its socket, for testing.
//! - A host stays on its thread; a [`Sender`] from [`Host::sender`] lets
//!   any other thread queue sends, broadcasts and disconnects for it.
//!
//! No `unsafe` is needed to use it, and no C type appears in it.
//!
//! ```
//! use std::time::Duration;
//! use enet_safe::{Event, Host, HostConfig, Packet};
//!
//! # fn main() -> Result<(), enet_safe::Error> {
//! let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default())?;
//! let mut client = Host::client(HostConfig::default())?;
//! let server_address = server.local_addr()?;
//! let peer = client.connect(server_address, 2, 42)?;
//!
//! let mut greeting = None;
//! for _ in 0..2000 {
//!     if let Some(Event::Connect { peer: who, data }) = server.service(Duration::from_millis(1))? {
//!         assert_eq!(data, 42);
//!         server.send(who, 0, Packet::reliable(b"hello"))?;
//!     }
//!     if let Some(Event::Receive { packet, .. }) = client.service(Duration::ZERO)? {
//!         greeting = Some(packet.data().to_vec());
//!         break;
//!     }
//! }
//! assert_eq!(greeting.as_deref(), Some(&b"hello"[..]));
//! client.disconnect(peer, 0)?;
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod error;
mod host;
mod packet;
mod path_mtu;
mod peer;
mod reason;
mod sender;
mod timeouts;
mod wait;

/// A host's counters ([`Host::stats`]) and a peer's ([`Host::counters`]).
pub use enet::endpoint::{DatagramDrop, HostStats};
pub use enet::proto::state::counters::HostCounters;
pub use enet::wire::DropReason;
pub use error::Error;
pub use host::stats::PeerCounters;
pub use host::{Encryption, Event, Host, HostConfig, NetsimStats, PeerInfo, ServerCheck};
/// What one direction of a network conditioner did ([`Host::netsim_stats`]).
pub use netsim::LinkStats as NetsimDirection;
pub use packet::{Delivery, Packet};
pub use peer::Peer;
pub use reason::DisconnectReason;
pub use sender::Sender;
pub use wait::RawWaitHandle;
