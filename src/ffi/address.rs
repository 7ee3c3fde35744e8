//! `enet_address_*` (filled in by the address work).

use core::ffi::{c_char, c_int};

use crate::abi::ENetAddress;

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_address_set_host_ip(
    _address: *mut ENetAddress,
    _hostName: *const c_char,
) -> c_int {
    -1
}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_address_set_host(
    _address: *mut ENetAddress,
    _hostName: *const c_char,
) -> c_int {
    -1
}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_address_get_host_ip(
    _address: *const ENetAddress,
    _hostName: *mut c_char,
    _nameLength: usize,
) -> c_int {
    -1
}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_address_get_host(
    _address: *const ENetAddress,
    _hostName: *mut c_char,
    _nameLength: usize,
) -> c_int {
    -1
}
