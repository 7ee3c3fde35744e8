//! A host's datagram I/O in batches: what the engine's transport reads
//! and sends through. The batches themselves are the platform's
//! (`sys::ReceiveBatch`, `sys::SendBatch`: `recvmmsg`/`sendmmsg` with UDP
//! offload on Linux, one datagram per system call elsewhere); what they
//! hand out, defined here, is the same everywhere.

use std::net::SocketAddr;

/// Datagrams per batch (per system call where the system batches).
pub const BATCH: usize = 32;
/// Room for one datagram: the largest ENet datagram (its maximum MTU).
/// A longer one arrives truncated and is reported as such.
pub const DATAGRAM_CAPACITY: usize = 4096;

/// One datagram taken from a [`ReceiveBatch`](super::sys::ReceiveBatch).
#[derive(Debug)]
pub enum Datagram<'a> {
    Received {
        from: SocketAddr,
        bytes: &'a [u8],
    },
    /// Longer than [`DATAGRAM_CAPACITY`]; its contents are lost.
    Truncated,
}

/// Whether UDP offload is allowed (`ENET_RS_UDP_OFFLOAD` unset, or
/// anything but `off`/`0`): runs of equal-size datagrams to one peer leave
/// in one segmented send and receives may come coalesced, where the system
/// offers it (Linux). `ENET_RS_UDP_OFFLOAD=off` turns both off for every
/// host created after.
pub fn offload_allowed_by_env() -> bool {
    !matches!(
        crate::config::UDP_OFFLOAD.read().as_deref().map(str::trim),
        Some("off" | "0")
    )
}
