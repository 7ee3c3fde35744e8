//! A host's counters, gathered from every layer that drops datagrams: the
//! protocol engine's (`proto::state::counters`), the socket batches'
//! oversized datagrams, the encryption's and the network conditioner's.
//! Both APIs read them through [`Endpoint::stats`].

use super::Endpoint;
use crate::proto::state::counters::HostCounters;
use crate::wire::DropReason;

/// Why a received datagram was dropped, in whichever layer dropped it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatagramDrop {
    /// The protocol engine dropped it, or cut it short.
    Protocol(DropReason),
    /// Longer than ENet's largest datagram: skipped by the socket layer.
    Oversized,
    /// It ended its address's DTLS session with an error.
    DtlsFailed,
    /// On an established DTLS session, it yielded no ENet datagram.
    DtlsDiscarded,
    /// From an address with no DTLS session, and no ClientHello to answer.
    DtlsNoSession,
}

/// How many kinds of drop there are.
pub const DATAGRAM_DROPS: usize = DropReason::ALL.len() + 4;

impl DatagramDrop {
    /// A dense index: the protocol's reasons in their order, then the
    /// others (the numbers of `ENetRsDropReason`).
    pub fn index(self) -> usize {
        let protocol = DropReason::ALL.len();
        match self {
            DatagramDrop::Protocol(reason) => reason.index(),
            DatagramDrop::Oversized => protocol,
            DatagramDrop::DtlsFailed => protocol + 1,
            DatagramDrop::DtlsDiscarded => protocol + 2,
            DatagramDrop::DtlsNoSession => protocol + 3,
        }
    }

    /// Every kind, by index.
    pub fn all() -> impl Iterator<Item = DatagramDrop> {
        DropReason::ALL
            .into_iter()
            .map(DatagramDrop::Protocol)
            .chain([
                DatagramDrop::Oversized,
                DatagramDrop::DtlsFailed,
                DatagramDrop::DtlsDiscarded,
                DatagramDrop::DtlsNoSession,
            ])
    }

    /// A short stable name, for logs and counter dumps.
    pub fn name(self) -> &'static str {
        match self {
            DatagramDrop::Protocol(reason) => reason.name(),
            DatagramDrop::Oversized => "oversized",
            DatagramDrop::DtlsFailed => "dtls-failed",
            DatagramDrop::DtlsDiscarded => "dtls-discarded",
            DatagramDrop::DtlsNoSession => "dtls-no-session",
        }
    }
}

/// What a host counted since it was created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostStats {
    /// The protocol engine's counts: datagrams in and out, connects,
    /// reassembly evictions.
    pub engine: HostCounters,
    /// Dropped datagrams, by [`DatagramDrop::index`].
    pub dropped: [u64; DATAGRAM_DROPS],
    /// DTLS sessions the host keeps now.
    pub dtls_sessions: u64,
    /// Datagrams the network conditioner dropped (loss and rate cap, both
    /// directions) since it was set.
    pub netsim_dropped: u64,
}

impl HostStats {
    /// How many datagrams were dropped for `why`.
    pub fn dropped_for(&self, why: DatagramDrop) -> u64 {
        self.dropped[why.index()]
    }

    /// Every datagram dropped, for any reason.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

impl Endpoint {
    /// What the host and the layers under it counted.
    pub fn stats(&self) -> HostStats {
        let engine = *self.host.counters();
        let mut dropped = [0; DATAGRAM_DROPS];
        dropped[..DropReason::ALL.len()].copy_from_slice(&engine.drops);
        dropped[DatagramDrop::Oversized.index()] = self.io.oversized();
        let (dtls_sessions, dtls) = self
            .secure
            .as_deref()
            .map_or((0, Default::default()), |layer| {
                (layer.session_count() as u64, layer.drops())
            });
        dropped[DatagramDrop::DtlsFailed.index()] = dtls.failed;
        dropped[DatagramDrop::DtlsDiscarded.index()] = dtls.discarded;
        dropped[DatagramDrop::DtlsNoSession.index()] = dtls.no_session;
        let netsim_dropped = self.io.netsim().map_or(0, |conditioner| {
            conditioner
                .stats()
                .iter()
                .map(|link| link.dropped + link.rate_dropped)
                .sum()
        });
        HostStats {
            engine,
            dropped,
            dtls_sessions,
            netsim_dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_drop_has_its_index_and_a_unique_name() {
        let all: Vec<_> = DatagramDrop::all().collect();
        assert_eq!(all.len(), DATAGRAM_DROPS);
        for (position, why) in all.iter().enumerate() {
            assert_eq!(why.index(), position);
        }
        let mut names: Vec<_> = all.iter().map(|why| why.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DATAGRAM_DROPS);
    }
}
