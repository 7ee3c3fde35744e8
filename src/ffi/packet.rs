//! `packet.c`: packet creation, destruction and resizing.
//!
//! Packets and their data are allocated with [`alloc::malloc`] because C code
//! receives them and may free them with `enet_packet_destroy` or inspect
//! them; the free callback runs just before the memory is released.

use core::ffi::{c_int, c_void};
use core::ptr;

use super::alloc;
use crate::abi::{ENetPacket, ENetPacketFlag};

const NO_ALLOCATE: u32 = ENetPacketFlag::ENET_PACKET_FLAG_NO_ALLOCATE as u32;

/// Creates a packet of `data_length` bytes, copied from `data` unless `data`
/// is NULL (then left uninitialised), or borrowing `data` itself when
/// `NO_ALLOCATE` is set. A zero-length packet has NULL data.
///
/// # Safety
/// `data` must be NULL or readable for `data_length` bytes; with
/// `NO_ALLOCATE` it must stay valid for the packet's life.
pub unsafe fn create(data: *const c_void, data_length: usize, flags: u32) -> *mut ENetPacket {
    let packet = alloc::malloc(core::mem::size_of::<ENetPacket>()).cast::<ENetPacket>();
    if packet.is_null() {
        return ptr::null_mut();
    }
    let packet_data = if flags & NO_ALLOCATE != 0 {
        data.cast_mut().cast::<u8>()
    } else if data_length == 0 {
        ptr::null_mut()
    } else {
        let copy = alloc::malloc(data_length).cast::<u8>();
        if copy.is_null() {
            // SAFETY: `packet` came from `alloc::malloc` just above.
            unsafe { alloc::free(packet.cast()) };
            return ptr::null_mut();
        }
        if !data.is_null() {
            // SAFETY: the caller guarantees `data_length` readable bytes, and
            // `copy` is a fresh allocation of that size.
            unsafe { ptr::copy_nonoverlapping(data.cast::<u8>(), copy, data_length) };
        }
        copy
    };
    // SAFETY: `packet` is a fresh, suitably aligned allocation for one
    // ENetPacket (malloc alignment covers it).
    unsafe {
        packet.write(ENetPacket {
            referenceCount: 0,
            flags,
            data: packet_data,
            dataLength: data_length,
            freeCallback: None,
            userData: ptr::null_mut(),
        });
    }
    packet
}

/// Runs the free callback, then frees the data (unless borrowed) and the packet.
///
/// # Safety
/// `packet` must be NULL or a live packet from [`create`], not used again.
pub unsafe fn destroy(packet: *mut ENetPacket) {
    if packet.is_null() {
        return;
    }
    // SAFETY: the caller passes a live packet.
    if let Some(callback) = unsafe { (*packet).freeCallback } {
        // SAFETY: the program asked to be told before its packet is freed.
        unsafe { callback(packet) };
    }
    // SAFETY: the packet is still live; the callback may not free it.
    let (flags, data) = unsafe { ((*packet).flags, (*packet).data) };
    if flags & NO_ALLOCATE == 0 && !data.is_null() {
        // SAFETY: owned data came from `alloc::malloc` in `create`/`resize`.
        unsafe { alloc::free(data.cast()) };
    }
    // SAFETY: the packet itself came from `alloc::malloc` in `create`.
    unsafe { alloc::free(packet.cast()) };
}

/// Resizes the packet's data. Shrinking (or any size with `NO_ALLOCATE`)
/// only changes the length; growing copies into a new allocation.
///
/// # Safety
/// `packet` must be a live packet from [`create`].
pub unsafe fn resize(packet: &mut ENetPacket, data_length: usize) -> c_int {
    if data_length <= packet.dataLength || packet.flags & NO_ALLOCATE != 0 {
        packet.dataLength = data_length;
        return 0;
    }
    let grown = alloc::malloc(data_length).cast::<u8>();
    if grown.is_null() {
        return -1;
    }
    if !packet.data.is_null() {
        // SAFETY: the old data holds `dataLength` bytes, fewer than the new
        // allocation's `data_length`.
        unsafe { ptr::copy_nonoverlapping(packet.data, grown, packet.dataLength) };
        // SAFETY: owned data came from `alloc::malloc`.
        unsafe { alloc::free(packet.data.cast()) };
    }
    packet.data = grown;
    packet.dataLength = data_length;
    0
}

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
