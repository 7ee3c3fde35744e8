//! `packet.c`: packet creation, destruction and resizing.

use core::ffi::{c_int, c_void};
use core::ptr;

use crate::abi::ENetPacket;
use crate::mem::packet::{create, destroy, resize};

/// Creates a packet; NULL on allocation failure.
///
/// # Safety
/// `data` must be NULL or readable for `dataLength` bytes (and, with
/// `ENET_PACKET_FLAG_NO_ALLOCATE`, outlive the packet).
#[no_mangle]
pub unsafe extern "C" fn enet_packet_create(
    data: *const c_void,
    dataLength: usize,
    flags: u32,
) -> *mut ENetPacket {
    // SAFETY: forwarded caller contract.
    guard!(ptr::null_mut(), unsafe { create(data, dataLength, flags) })
}

/// Destroys a packet and its data; NULL is ignored.
///
/// # Safety
/// `packet` must be NULL or a live packet, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn enet_packet_destroy(packet: *mut ENetPacket) {
    // SAFETY: forwarded caller contract.
    guard!((), unsafe { destroy(packet) })
}

/// Resizes a packet's data; 0 on success, -1 on failure or a NULL packet.
///
/// # Safety
/// `packet` must be NULL or a live packet.
#[no_mangle]
pub unsafe extern "C" fn enet_packet_resize(packet: *mut ENetPacket, dataLength: usize) -> c_int {
    guard!(-1, {
        // SAFETY: the caller passes NULL or a live packet.
        match unsafe { packet.as_mut() } {
            // SAFETY: `packet` is live.
            Some(packet) => unsafe { resize(packet, dataLength) },
            None => -1,
        }
    })
}
