//! A host an event loop can wait on (`enet/enet_rs.h`): a handle that is
//! ready when the host's socket has datagrams or another thread queued a
//! request, and the time until the engine's next timer. The work is the
//! endpoint's (`endpoint/wait.rs`) and the platform layer's
//! (`net::sys::WaitSet`).

use crate::abi::*;

/// The handle a program's own event loop waits on for `host`: a file
/// descriptor on Unix (an epoll descriptor on Linux, a kqueue on macOS
/// and the BSDs) that polls readable, an event `HANDLE` on Windows that is
/// signalled, when the host's socket has datagrams or a thread-safe
/// sender (`enet_rs_host_sender`) queued a request. Made on the first
/// call (later calls return the same one) and closed by
/// `enet_host_destroy`: only wait on it, never read, close or change it.
///
/// The loop: `ms = enet_rs_host_next_deadline_ms(host)`; if `ms` is not 0,
/// wait on the handle for up to `ms` (`ENET_RS_NO_DEADLINE`: no limit);
/// then `enet_host_service(host, &event, 0)` until it returns 0. Call
/// `enet_rs_host_next_deadline_ms` before every wait: it also clears what
/// the last wake left signalled.
///
/// `ENET_RS_NO_WAIT_HANDLE` (-1 on Unix, NULL on Windows) for a NULL host,
/// when the system refuses one, or on a Unix with neither epoll nor
/// kqueue. On Windows the host's socket is then in `WSAEventSelect` mode:
/// it cannot be made blocking again.
///
/// # Safety
/// `host` must be NULL or a live host not in use by another thread.
/// From one of this host's own callbacks (intercept, checksum,
/// compressor, packet free callback) it returns `ENET_RS_NO_WAIT_HANDLE`.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_get_wait_handle(host: *mut ENetHost) -> ENetRsWaitHandle {
    guard!(ENET_RS_NO_WAIT_HANDLE, {
        try_host!(let host = host, else ENET_RS_NO_WAIT_HANDLE);
        host.wait_handle().unwrap_or(ENET_RS_NO_WAIT_HANDLE)
    })
}

/// Milliseconds until `host` needs `enet_host_service` though nothing
/// arrives (its next retransmission, ping, throttle pass or timeout), as
/// long as `enet_host_service` itself would wait. 0 when it has work now:
/// events queued for dispatch, datagrams already read from the socket but
/// not handled (a read takes many at once, which no wait on the socket
/// shows), sends, disconnects or connects queued since the last service
/// call, requests from other threads, a due timer.
/// `ENET_RS_NO_DEADLINE` (`UINT32_MAX`) when no timer is armed (no peer
/// connected or connecting). 0 for a NULL host, so the loop's service call
/// reports it.
///
/// It also clears the wait handle's pending signal (see
/// `enet_rs_host_get_wait_handle`); an encrypted host's due handshake
/// timers run here, as they would in `enet_host_service`'s wait.
///
/// # Safety
/// `host` must be NULL or a live host not in use by another thread.
/// From one of this host's own callbacks (intercept, checksum,
/// compressor, packet free callback) it returns 0.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_next_deadline_ms(host: *mut ENetHost) -> u32 {
    guard!(0, {
        try_host!(let host = host, else 0);
        host.next_deadline_ms().unwrap_or(ENET_RS_NO_DEADLINE)
    })
}
