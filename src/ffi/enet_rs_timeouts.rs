//! Holding timeouts (`enet/enet_rs.h`): a program that knows it will
//! stall (a level load, a debugger attached) keeps its peers through it.
//! The work is the engine's (`proto/host/hold.rs`).

use core::ffi::c_int;

use crate::abi::*;
use crate::net::clock;

/// For `ms` milliseconds of the host's clock from now, no peer of `host`
/// is given up on for its silence: neither `enet_peer_timeout`'s limits
/// nor a command's own deadline ends a peer, while the service calls the
/// program makes meanwhile send, resend and acknowledge as always.
/// `UINT32_MAX` holds until ended; a new call replaces the hold; 0 ends
/// it. When a hold ends (at the first service call at or after its end,
/// or at once for 0), every reliable command in flight counts as sent
/// then, so a peer gets a full timeout from there. 0, or -1 for a NULL
/// host.
///
/// # Safety
/// `host` must be NULL or live.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_hold_timeouts(host: *mut ENetHost, ms: u32) -> c_int {
    guard!(-1, {
        try_host!(let host = host, else -1);
        host.hold_timeouts(clock::now(), ms);
        0
    })
}
