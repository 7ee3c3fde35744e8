//! `packet.c`: packet creation, destruction and resizing.

use core::ffi::{c_int, c_void};
use core::ptr;

use crate::abi::ENetPacket;
use crate::endpoint::packet_pool_switches;
use crate::mem::packet::{create_reading, destroy, resize};

/// Creates a packet; NULL on allocation failure.
///
/// # Safety
/// `data` must be NULL or readable for `dataLength` bytes (and, with
/// `ENET_PACKET_FLAG_NO_ALLOCATE`, outlive the packet).
/// Any thread, one at a time per packet; it touches no host, so a host's
/// callbacks (intercept, checksum, compressor, packet free callback) may
/// call it, as stock allows.
#[no_mangle]
pub unsafe extern "C" fn enet_packet_create(
    data: *const c_void,
    dataLength: usize,
    flags: u32,
) -> *mut ENetPacket {
    // A program's first packet may come before its first host (and with
    // no `enet_initialize`): the pool may read its switches from here too.
    // SAFETY: `create_reading` needs `data` NULL or readable for
    // `dataLength` bytes, and with `ENET_PACKET_FLAG_NO_ALLOCATE` alive as
    // long as the packet: what this function's `# Safety` asks of its
    // caller. (A one-off: the packet may keep `data`, so no `arg_bytes!`.)
    guard!(ptr::null_mut(), unsafe {
        create_reading(data, dataLength, flags, packet_pool_switches)
    })
}

/// Destroys a packet and its data; NULL is ignored.
///
/// # Safety
/// `packet` must be NULL or a live packet, not used afterwards (nor
/// queued to a peer: destroying a packet a host still holds is the
/// program's error, as on stock).
/// Any thread, one at a time per packet; it touches no host, so a host's
/// callbacks (intercept, checksum, compressor, packet free callback) may
/// call it, as stock allows.
#[no_mangle]
pub unsafe extern "C" fn enet_packet_destroy(packet: *mut ENetPacket) {
    // SAFETY: `destroy` needs a live packet from `enet_packet_create` (or
    // NULL) that nothing uses after this call: what this function's
    // `# Safety` asks of its caller. (A one-off: the only export that
    // frees a packet.)
    guard!((), unsafe { destroy(packet) })
}

/// Resizes a packet's data; 0 on success, -1 on failure or a NULL packet.
///
/// # Safety
/// `packet` must be NULL or a live packet.
/// Any thread, one at a time per packet; it touches no host, so a host's
/// callbacks (intercept, checksum, compressor, packet free callback) may
/// call it, as stock allows.
#[no_mangle]
pub unsafe extern "C" fn enet_packet_resize(packet: *mut ENetPacket, dataLength: usize) -> c_int {
    guard!({
        match arg_mut!(packet) {
            // SAFETY: `resize` needs a live packet from `enet_packet_create`
            // (its data the library's own, or borrowed): what this
            // function's `# Safety` asks of its caller. (A one-off: the only
            // export that reallocates a packet's data.)
            Some(packet) => unsafe { resize(packet, dataLength) },
            None => -1,
        }
    })
}
