//! The network conditioner (`enet/enet_rs.h`): a host's own bad network,
//! set and read at run time. The work is `crate::net::netsim`'s; the
//! model is the `enet-netsim` crate's.

use core::ffi::{c_char, c_int};

use crate::abi::*;
use crate::net::netsim::Conditioner;

/// One direction's counts as C has them.
fn direction(stats: netsim::LinkStats) -> ENetRsNetsimDirection {
    ENetRsNetsimDirection {
        datagrams: stats.datagrams,
        released: stats.released,
        dropped: stats.dropped,
        delayed: stats.delayed,
        duplicated: stats.duplicated,
        reordered: stats.reordered,
        corrupted: stats.corrupted,
        rateDropped: stats.rate_dropped,
    }
}

/// Gives the host the network conditioner `spec` describes (as
/// `ENET_RS_NETSIM` has it, e.g. `"loss=5%,lag=40ms,jitter=10ms"` or
/// `"preset:wifi-bad"`), in place of the one it had; NULL or `""` turns it
/// off. Datagrams the old conditioner held are dropped and its counts
/// start again. 0, or -1 for a NULL host or a spec that cannot be read (the
/// host keeps what it had).
///
/// # Safety
/// `host` must be NULL or live; `spec` NULL or NUL-terminated.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_set_netsim(
    host: *mut ENetHost,
    spec: *const c_char,
) -> c_int {
    guard!(-1, {
        try_host!(let host = host, else -1);
        let text = if spec.is_null() {
            ""
        } else {
            match arg_str!(spec) {
                Some(text) => text,
                None => return -1,
            }
        };
        match Conditioner::from_spec(text) {
            Ok(conditioner) => {
                host.io.set_netsim(conditioner.map(Box::new));
                0
            }
            Err(_) => -1,
        }
    })
}

/// Writes what the host's network conditioner did, per direction, into
/// `*stats`: 0 with its counts, 1 for a host without one (all counts
/// 0), -1 for a NULL argument.
///
/// # Safety
/// `host` must be NULL or live; `stats` NULL or writable.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_netsim_stats(
    host: *mut ENetHost,
    stats: *mut ENetRsNetsimStats,
) -> c_int {
    guard!(-1, {
        let Some(out) = arg_mut!(stats) else {
            return -1;
        };
        try_host!(let host = host, else -1);
        match host.io.netsim() {
            Some(conditioner) => {
                let [outgoing, incoming] = conditioner.stats();
                *out = ENetRsNetsimStats {
                    outgoing: direction(outgoing),
                    incoming: direction(incoming),
                };
                0
            }
            None => {
                *out = ENetRsNetsimStats::default();
                1
            }
        }
    })
}
