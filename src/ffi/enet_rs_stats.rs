//! A host's counters and a peer's (`enet/enet_rs.h`): versioned structs
//! the caller sizes, filled from what the engine and the layers under it
//! counted (`endpoint::stats`, `proto::host::counters`).

use core::ffi::c_int;

use super::versioned::{caller_size, fill_versioned};
use crate::abi::*;
use crate::endpoint::{HostStats, DATAGRAM_DROPS};
use crate::proto::state::counters::PeerCounters;

// Every kind of drop has its slot in `ENetRsHostStats::dropped`.
const _: () = assert!(DATAGRAM_DROPS <= ENET_RS_DROP_REASON_SLOTS);

/// The C form of a host's counters.
fn host_stats(stats: &HostStats) -> ENetRsHostStats {
    let engine = &stats.engine;
    let mut dropped = [0; ENET_RS_DROP_REASON_SLOTS];
    dropped[..DATAGRAM_DROPS].copy_from_slice(&stats.dropped);
    ENetRsHostStats {
        size: ENET_RS_HOST_STATS_SIZE_V1 as u64,
        datagramsReceived: engine.datagrams_in,
        bytesReceived: engine.bytes_in,
        datagramsSent: engine.datagrams_out,
        bytesSent: engine.bytes_out,
        datagramsIntercepted: engine.intercepted,
        connectsAccepted: engine.connects_accepted,
        connectsRefused: engine.connects_refused,
        connectsEvicted: engine.connects_evicted,
        reassembliesEvicted: engine.reassemblies_evicted,
        reassemblyPeersLost: engine.reassembly_peers_lost,
        fragmentsOverBudget: engine.fragments_over_budget,
        dtlsSessions: stats.dtls_sessions,
        netsimDropped: stats.netsim_dropped,
        dropped,
    }
}

/// The C form of a peer's counters.
fn peer_counters(counters: &PeerCounters, peer: &ENetPeer) -> ENetRsPeerCounters {
    let recovery = &counters.recovery;
    ENetRsPeerCounters {
        size: ENET_RS_PEER_COUNTERS_SIZE_V1 as u64,
        queuedCommands: counters.queued_commands,
        queuedBytes: counters.queued_bytes,
        inFlightCommands: counters.in_flight_commands,
        inFlightBytes: counters.in_flight_bytes,
        resends: recovery.retransmitted_commands,
        resentBytes: recovery.retransmitted_bytes,
        fastRetransmits: recovery.fast_retransmits,
        timeouts: recovery.timeouts,
        roundTripTime: peer.roundTripTime,
        roundTripTimeVariance: peer.roundTripTimeVariance,
        lowestRoundTripTime: peer.lowestRoundTripTime,
        packetLoss: peer.packetLoss,
        packetLossVariance: peer.packetLossVariance,
        packetThrottle: peer.packetThrottle,
        congestionWindow: counters.congestion_window,
        mtu: peer.mtu,
    }
}

/// Fills `stats` with what the host counted since it was created:
/// datagrams and bytes in and out, dropped datagrams by
/// `ENetRsDropReason`, connects accepted, refused and evicted, reassembly
/// evictions, DTLS sessions and the network conditioner's drops. Set
/// `stats->size` to `sizeof(ENetRsHostStats)` first: the call fills that
/// much (or all it knows, if less) and sets `size` to the bytes it filled.
/// 0, or -1 for a NULL argument or a `size` below
/// `ENET_RS_HOST_STATS_SIZE_V1`. Reading costs nothing while the host
/// runs: the counters are plain additions it makes anyway.
///
/// # Safety
/// `host` must be NULL or live; `stats` NULL or writable for `stats->size`
/// bytes.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_get_stats(
    host: *mut ENetHost,
    stats: *mut ENetRsHostStats,
) -> c_int {
    guard!(-1, {
        let out = stats.cast::<u64>();
        // SAFETY: the contract: `stats` is NULL or points at the struct.
        let Some(size) = (unsafe { caller_size(out, ENET_RS_HOST_STATS_SIZE_V1) }) else {
            return -1;
        };
        try_host!(let host = host, else -1);
        let value = host_stats(&host.stats());
        // SAFETY: the contract: `stats` is writable for `size` bytes.
        unsafe { fill_versioned(out, &value, size) };
        0
    })
}

/// Fills `counters` with what the peer has queued and in flight, its
/// resends, round trip and loss. Set `counters->size` to
/// `sizeof(ENetRsPeerCounters)` first, as for `enet_rs_host_get_stats`.
/// 0, or -1 for a NULL or foreign argument or a `size` below
/// `ENET_RS_PEER_COUNTERS_SIZE_V1`. `enet_rs_peer_get_stats` stays as it
/// was; this call reports its counts too.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `counters` NULL or
/// writable for `counters->size` bytes.
/// One thread at a time per host. From one of the peer's host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_counters(
    peer: *mut ENetPeer,
    counters: *mut ENetRsPeerCounters,
) -> c_int {
    guard!(-1, {
        let out = counters.cast::<u64>();
        // SAFETY: the contract: `counters` is NULL or points at the struct.
        let Some(size) = (unsafe { caller_size(out, ENET_RS_PEER_COUNTERS_SIZE_V1) }) else {
            return -1;
        };
        try_peer!(let (host, index) = peer, else -1);
        let value = peer_counters(&host.peer_counters(index), host.peer(index));
        // SAFETY: the contract: `counters` is writable for `size` bytes.
        unsafe { fill_versioned(out, &value, size) };
        0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::DatagramDrop;
    use crate::wire::DropReason;
    use ENetRsDropReason::*;

    /// The C name of each kind of drop.
    fn c_reason(why: DatagramDrop) -> ENetRsDropReason {
        match why {
            DatagramDrop::Protocol(reason) => match reason {
                DropReason::Truncated => ENET_RS_DROP_TRUNCATED,
                DropReason::BadPeerId => ENET_RS_DROP_BAD_PEER_ID,
                DropReason::PeerNotConnected => ENET_RS_DROP_PEER_NOT_CONNECTED,
                DropReason::AddressMismatch => ENET_RS_DROP_ADDRESS_MISMATCH,
                DropReason::SessionMismatch => ENET_RS_DROP_SESSION_MISMATCH,
                DropReason::NoDecompressor => ENET_RS_DROP_NO_DECOMPRESSOR,
                DropReason::DecompressionFailed => ENET_RS_DROP_DECOMPRESSION_FAILED,
                DropReason::BadChecksum => ENET_RS_DROP_BAD_CHECKSUM,
                DropReason::TruncatedCommand => ENET_RS_DROP_TRUNCATED_COMMAND,
                DropReason::UnknownCommand => ENET_RS_DROP_UNKNOWN_COMMAND,
                DropReason::PayloadOutOfBounds => ENET_RS_DROP_PAYLOAD_OUT_OF_BOUNDS,
                DropReason::PayloadTooLarge => ENET_RS_DROP_PAYLOAD_TOO_LARGE,
                DropReason::NoPeerForCommand => ENET_RS_DROP_NO_PEER_FOR_COMMAND,
                DropReason::MissingSentTime => ENET_RS_DROP_MISSING_SENT_TIME,
                DropReason::CommandRejected => ENET_RS_DROP_COMMAND_REJECTED,
            },
            DatagramDrop::Oversized => ENET_RS_DROP_OVERSIZED,
            DatagramDrop::DtlsFailed => ENET_RS_DROP_DTLS_FAILED,
            DatagramDrop::DtlsDiscarded => ENET_RS_DROP_DTLS_DISCARDED,
            DatagramDrop::DtlsNoSession => ENET_RS_DROP_DTLS_NO_SESSION,
        }
    }

    #[test]
    fn the_c_numbers_are_the_drop_indices() {
        for why in DatagramDrop::all() {
            assert_eq!(c_reason(why) as usize, why.index(), "{}", why.name());
        }
        assert_eq!(ENET_RS_DROP_REASON_COUNT as usize, DATAGRAM_DROPS);
    }

    #[test]
    fn a_short_size_or_null_is_refused_and_nothing_is_written() {
        let mut stats = ENetRsHostStats {
            size: ENET_RS_HOST_STATS_SIZE_V1 as u64 - 1,
            ..host_stats(&zero_stats())
        };
        stats.datagramsSent = 7;
        // SAFETY: a NULL host, a live struct.
        let refused = unsafe { enet_rs_host_get_stats(core::ptr::null_mut(), &mut stats) };
        assert_eq!(refused, -1);
        assert_eq!(stats.datagramsSent, 7);
        // SAFETY: NULL arguments.
        let null = unsafe { enet_rs_host_get_stats(core::ptr::null_mut(), core::ptr::null_mut()) };
        assert_eq!(null, -1);
        // SAFETY: as above.
        let null_peer =
            unsafe { enet_rs_peer_get_counters(core::ptr::null_mut(), core::ptr::null_mut()) };
        assert_eq!(null_peer, -1);
    }

    #[test]
    fn a_longer_struct_is_filled_as_far_as_this_version_goes() {
        // A program built against a later header, with a longer struct.
        #[repr(C)]
        struct Later {
            stats: ENetRsHostStats,
            newer: u64,
        }
        let value = host_stats(&zero_stats());
        let mut later = Later {
            stats: ENetRsHostStats { size: 0, ..value },
            newer: 99,
        };
        let size = core::mem::size_of::<Later>();
        later.stats.size = size as u64;
        let out = (&mut later as *mut Later).cast::<u64>();
        // SAFETY: `later` is writable for `size` bytes.
        let taken = unsafe { caller_size(out, ENET_RS_HOST_STATS_SIZE_V1) };
        assert_eq!(taken, Some(size));
        // SAFETY: as above.
        unsafe { fill_versioned(out, &value, size) };
        assert_eq!(later.stats.size, ENET_RS_HOST_STATS_SIZE_V1 as u64);
        assert_eq!(later.newer, 99, "past what this version knows");
    }

    fn zero_stats() -> HostStats {
        HostStats {
            engine: Default::default(),
            dropped: [0; DATAGRAM_DROPS],
            dtls_sessions: 0,
            netsim_dropped: 0,
        }
    }
}
