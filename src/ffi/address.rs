//! `enet_address_*`: IPv4 text and name lookup over [`crate::net::address`],
//! with stock `unix.c`'s return codes (0 success, -1 failure) and output.
//!
//! Stock ENet crashes on NULL pointers here; we return -1. Output buffers
//! are written only on success (a NUL-terminated string), never partially.

use core::ffi::{c_char, c_int};

use crate::abi::ENetAddress;
use crate::net::address::{self, NameLookup};
use crate::net::sys::address::{lookup_name, resolve};

/// Sets `address->host` from strict dotted-quad text (`inet_pton`
/// rules: no `"127.1"`, no leading zeros). Returns 0, or -1 leaving the
/// address unchanged.
///
/// # Safety
/// `address` must be NULL or writable; `hostName` NULL or a C string.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_address_set_host_ip(
    address: *mut ENetAddress,
    hostName: *const c_char,
) -> c_int {
    guard!(-1, {
        let Some(address) = arg_mut!(address) else {
            return -1;
        };
        let Some(text) = arg_cstr!(hostName) else {
            return -1;
        };
        match address::parse_ip(text.to_bytes()) {
            Some(host) => {
                address.host = host;
                0
            }
            None => -1,
        }
    })
}

/// Sets `address->host` by resolving `hostName` (first IPv4 result of
/// `getaddrinfo`, which also takes numeric shorthands such as `"127.1"`).
/// Returns 0, or -1 leaving the address unchanged.
///
/// # Safety
/// `address` must be NULL or writable; `hostName` NULL or a C string.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_address_set_host(
    address: *mut ENetAddress,
    hostName: *const c_char,
) -> c_int {
    guard!(-1, {
        let Some(address) = arg_mut!(address) else {
            return -1;
        };
        let Some(name) = arg_cstr!(hostName) else {
            return -1;
        };
        match resolve(name) {
            Some(host) => {
                address.host = host;
                0
            }
            None => -1,
        }
    })
}

/// Writes `address->host` as dotted-quad text into `hostName`. Returns 0,
/// or -1 (writing nothing) if the text and its NUL need more than
/// `nameLength` bytes.
///
/// # Safety
/// `address` must be NULL or valid; `hostName` NULL or writable for
/// `nameLength` bytes.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_address_get_host_ip(
    address: *const ENetAddress,
    hostName: *mut c_char,
    nameLength: usize,
) -> c_int {
    guard!(-1, {
        let Some(address) = arg_ref!(address) else {
            return -1;
        };
        if hostName.is_null() {
            return -1;
        }
        let out = arg_out_bytes!(hostName, nameLength);
        match address::write_ip(address.host, out) {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// Writes the name of `address->host` (reverse lookup) into `hostName`,
/// or its dotted-quad text if it has no name. Returns -1 if the lookup
/// fails otherwise or the text does not fit. As in stock (glibc), a
/// `nameLength` of 0 asks for nothing and returns 0.
///
/// # Safety
/// `address` must be NULL or valid; `hostName` NULL or writable for
/// `nameLength` bytes.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_address_get_host(
    address: *const ENetAddress,
    hostName: *mut c_char,
    nameLength: usize,
) -> c_int {
    guard!(-1, {
        let Some(address) = arg_ref!(address) else {
            return -1;
        };
        if hostName.is_null() {
            return -1;
        }
        let out = arg_out_bytes!(hostName, nameLength);
        match lookup_name(address, out) {
            NameLookup::Named => 0,
            NameLookup::NoName => match address::write_ip(address.host, out) {
                Ok(()) => 0,
                Err(_) => -1,
            },
            NameLookup::Failed => -1,
        }
    })
}
