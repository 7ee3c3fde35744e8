//! `enet_address_*`: IPv4 text and name lookup over [`crate::net::address`],
//! with stock `unix.c`'s return codes (0 success, -1 failure) and output.
//!
//! Stock ENet crashes on NULL pointers here; we return -1. Output buffers
//! are written only on success (a NUL-terminated string), never partially.

use core::ffi::{c_char, c_int, CStr};
use core::mem::MaybeUninit;

use crate::abi::ENetAddress;
use crate::net::address::{self, NameLookup};
use crate::net::sys::address::{lookup_name, resolve};

/// The caller's output buffer as possibly-uninitialised bytes, or `None`
/// for NULL.
///
/// # Safety
/// `name` must be NULL or writable for `length` bytes for the returned
/// lifetime, and not otherwise accessed meanwhile.
unsafe fn output_buffer<'a>(name: *mut c_char, length: usize) -> Option<&'a mut [MaybeUninit<u8>]> {
    if name.is_null() {
        return None;
    }
    // SAFETY: non-NULL and writable for `length` bytes per the caller;
    // MaybeUninit<u8> makes no claim about the current contents.
    Some(unsafe { core::slice::from_raw_parts_mut(name.cast::<MaybeUninit<u8>>(), length) })
}

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
        // SAFETY: NULL or valid per the caller.
        let Some(address) = (unsafe { address.as_mut() }) else {
            return -1;
        };
        if hostName.is_null() {
            return -1;
        }
        // SAFETY: a NUL-terminated string per the caller.
        let text = unsafe { CStr::from_ptr(hostName) };
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
        // SAFETY: NULL or valid per the caller.
        let Some(address) = (unsafe { address.as_mut() }) else {
            return -1;
        };
        if hostName.is_null() {
            return -1;
        }
        // SAFETY: a NUL-terminated string per the caller.
        let name = unsafe { CStr::from_ptr(hostName) };
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
        // SAFETY: NULL or valid per the caller.
        let Some(address) = (unsafe { address.as_ref() }) else {
            return -1;
        };
        // SAFETY: NULL or writable for `nameLength` bytes per the caller.
        let Some(out) = (unsafe { output_buffer(hostName, nameLength) }) else {
            return -1;
        };
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
        // SAFETY: NULL or valid per the caller.
        let Some(address) = (unsafe { address.as_ref() }) else {
            return -1;
        };
        // SAFETY: NULL or writable for `nameLength` bytes per the caller.
        let Some(out) = (unsafe { output_buffer(hostName, nameLength) }) else {
            return -1;
        };
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
