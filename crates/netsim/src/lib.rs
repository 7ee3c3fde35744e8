//! The impairment model of enet-rs: one place that decides what a bad
//! network does to each datagram, used by the library's built-in network
//! conditioner (`ENET_RS_NETSIM`, `enet_rs_host_set_netsim`) and by the
//! `enet-impair` proxy.
//!
//! - [`Impairer`] draws one datagram's fate from a seeded generator: lost
//!   (independently or in Gilbert-Elliott bursts), duplicated, corrupted,
//!   held back to reorder, and its delay with jitter.
//! - [`Link`] is one direction of a path over a caller's clock: it applies
//!   those decisions, a rate cap with a tail-dropping queue, and holds the
//!   copies until they are due.
//! - [`spec`] reads the settings as text (`loss=5%,lag=40ms,...`), with
//!   named presets.
//!
//! The same seed and the same datagrams give the same decisions.

pub mod impairment;
pub mod link;
pub mod spec;

pub use impairment::{Decision, Impairer, Profile, Random};
pub use link::{Link, LinkStats};
pub use spec::{Spec, SpecError, PRESETS};
