//! Path MTU discovery (`enet/enet_rs.h`): a host that sizes each peer's
//! datagrams to what the path carries, found with probes. The work is
//! `crate::proto::host::path_mtu`'s.

use core::ffi::c_int;

use crate::abi::*;

/// Turns path MTU discovery on (`on` non-zero) or off for the host. On,
/// each connected peer's datagrams, and the fragments of packets queued
/// for it from then on, are cut to its path size: 1200 bytes (or its MTU,
/// if smaller) until probes of larger sizes are acknowledged, never more
/// than its MTU, lowered when large datagrams vanish. The host's socket
/// gets don't-fragment (`IP_PMTUDISC_DO` / `IPV6_MTU_DISCOVER` on Linux,
/// `IP_DONTFRAG` / `IPV6_DONTFRAG` on FreeBSD and macOS,
/// `IP_DONTFRAGMENT` / `IPV6_DONTFRAG` on Windows), and a datagram the
/// system then refuses as too large lowers its peer's path size at once
/// (elsewhere the probes alone find it). Off (the default), the peer's MTU
/// alone decides and the socket gets the system's default back, as in
/// stock ENet. 0, or -1 for a NULL host.
///
/// # Safety
/// `host` must be NULL or live. One thread at a time per host. From one of
/// this host's own callbacks (intercept, checksum, compressor, packet free
/// callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_set_path_mtu_discovery(
    host: *mut ENetHost,
    on: c_int,
) -> c_int {
    guard!(-1, {
        try_host!(let host = host, else -1);
        host.set_path_mtu_discovery(on != 0);
        0
    })
}

/// The largest datagram (ENet bytes, as `peer->mtu` counts them) the host
/// now builds for the peer: its path size while the host discovers path
/// MTUs and the peer is connected, its MTU otherwise; 0 for a NULL or
/// foreign peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host. One thread at a time per
/// host. From one of the peer's host's own callbacks (intercept, checksum,
/// compressor, packet free callback) it returns 0.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_path_mtu(peer: *mut ENetPeer) -> enet_uint32 {
    guard!(0, {
        try_peer!(let (host, index) = peer, else 0);
        host.peer_path_mtu(index)
    })
}
