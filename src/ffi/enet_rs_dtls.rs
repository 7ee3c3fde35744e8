//! Encrypted hosts (`enet/enet_rs.h`): a host turned into a DTLS server or
//! client, and a peer's encryption state. The work is `crate::dtls`'s.

use core::ffi::{c_char, c_int};

use crate::abi::*;
use crate::dtls::{ClientSetup, ServerSetup, Status};
use crate::net::address::write_c_string;

/// Makes the host accept encrypted connections: every datagram to and from
/// a client travels over a DTLS 1.2 session with its address, and the host
/// presents the first certificate of `certificateChainPem` (PEM), whose
/// ECDSA P-256 or P-384 key is `privateKeyPem` (PEM, PKCS#8 or SEC1). A
/// new address must answer a cookie before the host keeps anything for
/// it. From then on the host drops plaintext datagrams and never sends
/// one. 0, or -1 for a NULL argument, unreadable PEM, a key the
/// certificate cannot be used with, or a host that already has peers.
///
/// # Safety
/// `host` must be NULL or live; the strings NULL or NUL-terminated.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_dtls_server(
    host: *mut ENetHost,
    certificateChainPem: *const c_char,
    privateKeyPem: *const c_char,
) -> c_int {
    guard!(-1, {
        let (Some(chain), Some(key)) = (arg_str!(certificateChainPem), arg_str!(privateKeyPem))
        else {
            return -1;
        };
        try_host!(let host = host, else -1);
        let Ok(setup) = ServerSetup::from_pem(chain, key) else {
            return -1;
        };
        match host.secure_layer() {
            Some(layer) => {
                layer.set_server(setup);
                0
            }
            None => -1,
        }
    })
}

/// Makes the host connect out encrypted: `enet_host_connect` (and
/// `enet_rs_host_connect`) starts a DTLS 1.2 handshake with the address,
/// then ENet's CONNECT inside it. With `verify` nonzero the server's
/// certificate must be one of `trustedCertificatesPem` (PEM) or be signed
/// by one of them, and be valid now, and with a `hostName` it must name
/// that host; with `verify` 0 any certificate is taken (encrypted, not
/// authenticated). A handshake that fails or times out ends in the peer's
/// DISCONNECT event, and `enet_rs_peer_get_dtls_state` says why. 0, or -1
/// for a NULL host, unreadable PEM (or none with `verify`), a host name
/// that is neither a DNS name nor an IP address, or a host that already
/// has peers.
///
/// # Safety
/// `host` must be NULL or live; the strings NULL or NUL-terminated.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_dtls_client(
    host: *mut ENetHost,
    verify: c_int,
    trustedCertificatesPem: *const c_char,
    hostName: *const c_char,
) -> c_int {
    guard!(-1, {
        try_host!(let host = host, else -1);
        let trusted = arg_str!(trustedCertificatesPem).unwrap_or("");
        let host_name = arg_str!(hostName);
        if !hostName.is_null() && host_name.is_none() {
            return -1;
        }
        let Ok(setup) = ClientSetup::new(verify != 0, trusted, host_name) else {
            return -1;
        };
        match host.secure_layer() {
            Some(layer) => {
                layer.set_client(setup);
                0
            }
            None => -1,
        }
    })
}

/// The peer's encryption into `*state`; for `ENET_RS_DTLS_FAILED`, the
/// reason as text (NUL-terminated, cut to fit) into `reason` unless it is
/// NULL. The state of the peer's address: it stays readable after the
/// peer's DISCONNECT event, until the slot connects again. 0, or -1 for a
/// NULL or foreign argument.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `state` NULL or
/// writable; `reason` NULL or writable for `reasonLength` bytes.
/// One thread at a time per host. From one of the peer's host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_dtls_state(
    peer: *mut ENetPeer,
    state: *mut ENetRsDtlsState,
    reason: *mut c_char,
    reasonLength: usize,
) -> c_int {
    guard!(-1, {
        let Some(state) = arg_mut!(state) else {
            return -1;
        };
        try_peer!(let (host, index) = peer, else -1);
        let connecting = host.peer(index).state == ENetPeerState::ENET_PEER_STATE_CONNECTING;
        let status = match &host.secure {
            Some(layer) => layer.peer_status(&host.peer_endpoint(index), connecting),
            None => Status::None,
        };
        *state = match status {
            Status::None => ENetRsDtlsState::ENET_RS_DTLS_NONE,
            Status::Handshaking => ENetRsDtlsState::ENET_RS_DTLS_HANDSHAKING,
            Status::Established => ENetRsDtlsState::ENET_RS_DTLS_ESTABLISHED,
            Status::Failed(_) => ENetRsDtlsState::ENET_RS_DTLS_FAILED,
        };
        if let (Status::Failed(why), false) = (&status, reason.is_null()) {
            let out = arg_out_bytes!(reason, reasonLength);
            if let Some(room) = reasonLength.checked_sub(1) {
                let text = why.as_bytes();
                let _ = write_c_string(&text[..text.len().min(room)], out);
            }
        }
        0
    })
}

/// How many DTLS sessions the host keeps now, handshaking or established
/// (0 for a NULL or plain host). Addresses that only sent ClientHellos
/// without answering a cookie have none.
///
/// # Safety
/// `host` must be NULL or live.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns 0.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_get_dtls_session_count(host: *mut ENetHost) -> usize {
    guard!(0, {
        try_host!(let host = host, else 0);
        host.secure
            .as_ref()
            .map_or(0, |layer| layer.session_count())
    })
}
