//! Why a peer left (`enet/enet_rs.h`): the reason the engine recorded when
//! the connection ended, and a host's choice to report time-outs as an
//! event type of their own. The recording is `proto::host::ending`'s.

use core::ffi::{c_char, c_int};

use super::versioned::{caller_size, fill_versioned};
use crate::abi::*;
use crate::dtls::Status;
use crate::net::address::write_c_string;
use crate::proto::{Host, PeerEnd, PeerIndex};

use ENetRsDisconnectKind::*;

/// The C kind, data and a short description of `end`.
fn describe(end: PeerEnd) -> (ENetRsDisconnectKind, u32, &'static str) {
    match end {
        PeerEnd::RemoteDisconnect { data } => (
            ENET_RS_DISCONNECT_REMOTE,
            data,
            "the remote end disconnected",
        ),
        PeerEnd::Timeout => (ENET_RS_DISCONNECT_TIMEOUT, 0, "timed out"),
        PeerEnd::LocalDisconnect => (ENET_RS_DISCONNECT_LOCAL, 0, "disconnected by this end"),
        PeerEnd::LocalReset => (ENET_RS_DISCONNECT_LOCAL_RESET, 0, "reset by this end"),
        PeerEnd::ConnectRefused { data } => {
            (ENET_RS_DISCONNECT_CONNECT_REFUSED, data, "connect refused")
        }
        PeerEnd::ConnectUnanswered => (
            ENET_RS_DISCONNECT_CONNECT_UNANSWERED,
            0,
            "nothing answered the connect",
        ),
        PeerEnd::EncryptionFailed => (
            ENET_RS_DISCONNECT_ENCRYPTION_FAILED,
            0,
            "the encrypted session ended",
        ),
        PeerEnd::ReassemblyBudget => (
            ENET_RS_DISCONNECT_REASSEMBLY_BUDGET,
            0,
            "a fragment reassembly was dropped to keep the host's reassembly budget",
        ),
        PeerEnd::HalfOpenEvicted => (
            ENET_RS_DISCONNECT_HALF_OPEN_EVICTED,
            0,
            "a newer connect took the half-open slot",
        ),
    }
}

/// Why the peer's connection ended, into `*reason` (whose `size` the
/// caller sets to `sizeof (ENetRsDisconnectReason)`), and a description
/// as text (NUL-terminated, cut to fit) into `detail` unless it is NULL:
/// for `ENET_RS_DISCONNECT_ENCRYPTION_FAILED` the encrypted session's own
/// reason. The reason is recorded when the connection ends, so it can be
/// read during the peer's DISCONNECT event, and it stays until the peer's
/// slot connects again (`enet_host_connect`, or an incoming connect
/// taking it). 0, or -1 for a NULL or foreign argument, a `size` below
/// `ENET_RS_DISCONNECT_REASON_SIZE_V1`, or a peer whose connection has not
/// ended (or that never connected). As for `enet_rs_host_get_stats`, the call
/// fills as much of the struct as `size` covers and writes back in `size`
/// the bytes it filled.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `reason` NULL or
/// writable for its `size` bytes (a `uint64_t` first);
/// `detail` NULL or writable for `detailLength` bytes.
/// One thread at a time per host. From one of the peer's host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_get_disconnect_reason(
    peer: *mut ENetPeer,
    reason: *mut ENetRsDisconnectReason,
    detail: *mut c_char,
    detailLength: usize,
) -> c_int {
    guard!(-1, {
        let out = reason.cast::<u64>();
        // SAFETY: the contract: `reason` is NULL or points at the struct.
        let Some(size) = (unsafe { caller_size(out, ENET_RS_DISCONNECT_REASON_SIZE_V1) }) else {
            return -1;
        };
        try_peer!(let (host, index) = peer, else -1);
        let Some(end) = host.peer_end(index) else {
            return -1;
        };
        let (kind, data, text) = describe(end);
        let value = ENetRsDisconnectReason {
            size: ENET_RS_DISCONNECT_REASON_SIZE_V1 as u64,
            kind: kind as u32,
            data,
        };
        // SAFETY: the contract: `reason` is writable for `size` bytes.
        unsafe { fill_versioned(out, &value, size) };
        if detail.is_null() {
            return 0;
        }
        let session = match (&host.secure, end) {
            (Some(layer), PeerEnd::EncryptionFailed) => {
                match layer.peer_status(&host.peer_endpoint(index), false) {
                    Status::Failed(why) => Some(why),
                    _ => None,
                }
            }
            _ => None,
        };
        let text = session.as_deref().unwrap_or(text).as_bytes();
        let out = arg_out_bytes!(detail, detailLength);
        if let Some(room) = detailLength.checked_sub(1) {
            let _ = write_c_string(&text[..text.len().min(room)], out);
        }
        0
    })
}

/// Sets how the host reports events, from `ENET_RS_EVENT_OPTION_*` flags
/// (0: as stock ENet, the default). With
/// `ENET_RS_EVENT_OPTION_TIMEOUT_EVENTS`, a DISCONNECT that is a time-out
/// (of a connection, or of a connect nothing answered) comes from
/// `enet_host_service` and `enet_host_check_events` with the type
/// `ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT` (zpl-c/enet's
/// `ENET_EVENT_TYPE_DISCONNECT_TIMEOUT`) instead of
/// `ENET_EVENT_TYPE_DISCONNECT`, its other fields unchanged. 0, or -1 for
/// a NULL host or an unknown flag (nothing changes then).
///
/// # Safety
/// `host` must be NULL or live.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_set_event_options(host: *mut ENetHost, flags: u32) -> c_int {
    guard!(-1, {
        try_host!(let host = host, else -1);
        if flags & !ENET_RS_EVENT_OPTION_TIMEOUT_EVENTS != 0 {
            return -1;
        }
        host.set_timeout_events(flags & ENET_RS_EVENT_OPTION_TIMEOUT_EVENTS != 0);
        0
    })
}

/// Writes the DISCONNECT event of slot `index` carrying `data` into
/// `event` (its peer already there): of the type
/// `ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT` if the host asked for time-out
/// events and the connection timed out. Out of line, and cold (once per
/// connection), so that the service call, which writes every event, is no
/// larger for it.
#[cold]
#[inline(never)]
pub(super) fn fill_disconnect(host: &Host, index: PeerIndex, data: u32, event: &mut ENetEvent) {
    event.r#type = ENetEventType::ENET_EVENT_TYPE_DISCONNECT;
    event.data = data;
    if host.reports_timeout_event(index) {
        mark_timeout(event);
    }
}

/// Gives a DISCONNECT event just written into `event` the type
/// `ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT`, a value `ENetEventType` has no
/// variant for on the Rust side: it is written as the integer the C enum
/// is, and nothing in this library reads the field back as the Rust enum
/// before clearing it (`clear_event` writes it, the next call's first
/// step).
fn mark_timeout(event: &mut ENetEvent) {
    let field = core::ptr::addr_of_mut!(event.r#type).cast::<u32>();
    // SAFETY: `ENetEventType` is a `#[repr(C)]` field-less enum, which is
    // laid out as a C `int` (4 bytes, aligned as `u32`), so the cast
    // pointer is valid and aligned for a `u32` write into the program's
    // own event; no Rust reference to the field is alive across it.
    unsafe { field.write(ENET_RS_EVENT_TYPE_DISCONNECT_TIMEOUT) };
}
