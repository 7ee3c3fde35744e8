//! The network conditioner: a host's own bad network, at its socket.
//!
//! When a host has one (`ENET_RS_NETSIM` when it was built, or
//! `enet_rs_host_set_netsim` later), every datagram the host sends and
//! every datagram it receives passes one direction of it: the model of
//! `enet-netsim` ([`netsim::Link`]) decides its fate and holds its copies
//! until they are due. It sits below encryption, so it impairs what goes
//! on the wire, and it decides per ENet datagram, before the socket's
//! batches join datagrams into segmented sends.
//!
//! [`SocketTransport`](super::transport::SocketTransport) consults it; a
//! host without one never reaches this code. What is held lives here,
//! inside the host's socket I/O, and goes with the host.

use std::net::SocketAddr;
use std::time::Instant;

use netsim::spec::{self, Spec};
use netsim::{Link, LinkStats, SpecError};

use crate::proto::Grouping;

/// Both directions of a host's conditioner and the clock they run on.
pub struct Conditioner {
    start: Instant,
    /// What the host sends: each copy's address, and how the engine let
    /// it leave in a segmented run.
    pub(crate) outgoing: Link<(SocketAddr, Grouping)>,
    /// What the host receives, with the address it came from.
    pub(crate) incoming: Link<SocketAddr>,
}

impl Conditioner {
    /// A conditioner as `text` describes it: `Ok(None)` for an empty
    /// text (none), the refused key otherwise. Without `seed=`, the seed
    /// is drawn afresh.
    pub fn from_spec(text: &str) -> Result<Option<Conditioner>, SpecError> {
        Ok(spec::parse(text)?.map(|spec| Conditioner::new(&spec)))
    }

    pub fn new(spec: &Spec) -> Conditioner {
        let [out_seed, in_seed] = Spec::direction_seeds(spec.seed.unwrap_or_else(fresh_seed));
        Conditioner {
            start: Instant::now(),
            outgoing: Link::new(spec.outgoing, out_seed),
            incoming: Link::new(spec.incoming, in_seed),
        }
    }

    /// Microseconds on the conditioner's clock.
    pub(crate) fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// What the outgoing and the incoming direction did.
    pub fn stats(&self) -> [LinkStats; 2] {
        [self.outgoing.stats(), self.incoming.stats()]
    }

    /// Copies held in both directions.
    pub fn held(&self) -> usize {
        self.outgoing.held() + self.incoming.held()
    }

    /// Milliseconds, rounded up, until the next held copy is due at
    /// `now_us` (0 if one is due already).
    pub(crate) fn next_due_ms(&self, now_us: u64) -> Option<u32> {
        let due = [self.outgoing.next_due(), self.incoming.next_due()]
            .into_iter()
            .flatten()
            .min()?;
        let left = due.saturating_sub(now_us).div_ceil(1000);
        Some(u32::try_from(left).unwrap_or(u32::MAX))
    }
}

/// A seed that differs from host to host and run to run.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_makes_one_and_empty_none() {
        assert!(Conditioner::from_spec("").unwrap().is_none());
        assert_eq!(Conditioner::from_spec("lag=-3").err().unwrap().key, "lag");
        let mut sim = Conditioner::from_spec("lag=20ms,seed=1").unwrap().unwrap();
        let to: SocketAddr = "127.0.0.1:9".parse().unwrap();
        sim.outgoing.admit(0, b"x", (to, Grouping::Alone));
        assert_eq!(sim.next_due_ms(0), Some(20));
        assert_eq!(sim.next_due_ms(19_500), Some(1));
        assert_eq!(sim.next_due_ms(25_000), Some(0));
        assert_eq!(sim.held(), 1);
    }
}
