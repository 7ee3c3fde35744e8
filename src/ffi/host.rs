//! `host.c` entry points. The protocol engine behind them arrives with the
//! engine work; until then each returns its documented failure value.

use core::ffi::c_int;
use core::ptr;

use crate::abi::{ENetAddress, ENetCompressor, ENetEvent, ENetHost, ENetPacket, ENetPeer};

/// # Safety
/// `address` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_host_create(
    _address: *const ENetAddress,
    _peerCount: usize,
    _channelLimit: usize,
    _incomingBandwidth: u32,
    _outgoingBandwidth: u32,
) -> *mut ENetHost {
    ptr::null_mut()
}

/// # Safety
/// `host` must be NULL or a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_host_destroy(_host: *mut ENetHost) {}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_host_connect(
    _host: *mut ENetHost,
    _address: *const ENetAddress,
    _channelCount: usize,
    _data: u32,
) -> *mut ENetPeer {
    ptr::null_mut()
}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_host_check_events(
    _host: *mut ENetHost,
    _event: *mut ENetEvent,
) -> c_int {
    -1
}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_host_service(
    _host: *mut ENetHost,
    _event: *mut ENetEvent,
    _timeout: u32,
) -> c_int {
    -1
}

/// # Safety
/// `host` must be NULL or a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_host_flush(_host: *mut ENetHost) {}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_host_broadcast(
    _host: *mut ENetHost,
    _channelID: u8,
    _packet: *mut ENetPacket,
) {
}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_host_compress(
    _host: *mut ENetHost,
    _compressor: *const ENetCompressor,
) {
}

/// # Safety
/// `host` must be NULL or a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_host_compress_with_range_coder(_host: *mut ENetHost) -> c_int {
    -1
}

/// # Safety
/// `host` must be NULL or a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_host_channel_limit(_host: *mut ENetHost, _channelLimit: usize) {}

/// # Safety
/// `host` must be NULL or a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_host_bandwidth_limit(
    _host: *mut ENetHost,
    _incomingBandwidth: u32,
    _outgoingBandwidth: u32,
) {
}

/// # Safety
/// `host` must be NULL or a live host.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_host_bandwidth_throttle(_host: *mut ENetHost) {}

/// A seed for a new host's `randomSeed`.
/// cbindgen:prefix=extern
#[no_mangle]
pub extern "C" fn enet_host_random_seed() -> u32 {
    0
}
