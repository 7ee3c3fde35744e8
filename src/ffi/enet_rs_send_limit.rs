//! Back-pressure (`enet/enet_rs.h`): a per-peer send limit, past which
//! `enet_peer_send` refuses a packet and `enet_host_broadcast` skips the
//! peer. The limit and its count are the engine's (`proto::host::send_limit`,
//! `PeerMut::send_backlog`).

use core::ffi::c_int;

use crate::abi::*;

/// Sets a send limit of `bytes` on `peer` (0, the default, means none):
/// while the peer's send backlog (see `enet_rs_peer_get_send_backlog`) is
/// at or over it, `enet_peer_send` to the peer returns -1 and leaves the
/// packet the caller's, as stock's own refusals do, and
/// `enet_host_broadcast` skips the peer. The limit is checked before a
/// packet is queued, so the packet that crosses it is taken: a backlog
/// reaches at most the limit plus one packet. It lasts until the peer's
/// slot is reset (its disconnect, timeout or `enet_peer_reset`); a new
/// connection in the slot starts without one. 0, or -1 for a NULL or
/// foreign peer or a free (DISCONNECTED) slot.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of the peer's host's own
/// callbacks (intercept, checksum, compressor, packet free callback) it
/// returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_set_send_limit(peer: *mut ENetPeer, bytes: usize) -> c_int {
    guard!(-1, {
        try_peer!(let (host, index) = peer, else -1);
        match host.set_send_limit(index, bytes) {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// The send limit of `peer` in bytes; 0 for none (or a NULL or foreign
/// peer).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of the peer's host's own
/// callbacks (intercept, checksum, compressor, packet free callback) it
/// returns 0.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_send_limit(peer: *mut ENetPeer) -> usize {
    guard!(0, {
        try_peer!(let (host, index) = peer, else 0);
        host.send_limit(index)
    })
}

/// The send backlog of `peer`, what its send limit is compared with: the
/// payload bytes of the packets sent to it that have not yet gone. An
/// unreliable packet goes when it is sent (or dropped by the throttle), a
/// reliable one when it is acknowledged, each fragment on its own; a
/// retransmission does not count twice. Kept for every peer, limit or
/// not. 0 for a NULL or foreign peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of the peer's host's own
/// callbacks (intercept, checksum, compressor, packet free callback) it
/// returns 0.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_send_backlog(peer: *mut ENetPeer) -> usize {
    guard!(0, {
        try_peer!(let (host, index) = peer, else 0);
        host.send_backlog(index)
    })
}
