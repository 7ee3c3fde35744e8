//! Name lookup and socket addresses on Unix: the C library's resolver
//! (`getaddrinfo`, `getnameinfo`), called exactly as stock ENet's Unix
//! build calls it, so `/etc/hosts`, nsswitch and the numeric shorthands
//! the resolver accepts (`"127.1"`, `"0x7f.0.0.1"`) behave the same.

use core::ffi::{c_char, c_int, CStr};
use core::mem::{size_of, MaybeUninit};
use core::ptr;

use crate::abi::ENetAddress;
use crate::net::address::{parse_ip, NameLookup};

/// Resolves a host name (or numeric text) to an IPv4 host, as stock
/// `enet_address_set_host` does: the first IPv4 result of `getaddrinfo`
/// (asked without hints, as stock does, so any family may come back); if
/// the resolver succeeds but has no IPv4 result, strict dotted-quad
/// parsing. When the resolver fails outright there is no fallback.
pub fn resolve(name: &CStr) -> Option<u32> {
    let mut results: *mut libc::addrinfo = ptr::null_mut();
    // SAFETY: `name` is NUL-terminated; no service, no hints; `results` is
    // a valid place for the list pointer.
    let status =
        unsafe { libc::getaddrinfo(name.as_ptr(), ptr::null(), ptr::null(), &mut results) };
    if status != 0 {
        return None;
    }
    let found = first_ipv4(results);
    if !results.is_null() {
        // SAFETY: `results` came from a successful getaddrinfo and is freed once.
        unsafe { libc::freeaddrinfo(results) };
    }
    found.or_else(|| parse_ip(name.to_bytes()))
}

/// The first IPv4 address in a `getaddrinfo` result list.
fn first_ipv4(mut entry: *const libc::addrinfo) -> Option<u32> {
    while !entry.is_null() {
        // SAFETY: `entry` is a node of a live list returned by getaddrinfo.
        let node = unsafe { &*entry };
        let is_ipv4 = node.ai_family == libc::AF_INET
            && !node.ai_addr.is_null()
            && node.ai_addrlen as usize >= size_of::<libc::sockaddr_in>();
        if is_ipv4 {
            // SAFETY: an AF_INET address of at least sockaddr_in's size;
            // read unaligned in case the resolver packed it oddly.
            let sin = unsafe { ptr::read_unaligned(node.ai_addr.cast::<libc::sockaddr_in>()) };
            return Some(sin.sin_addr.s_addr);
        }
        entry = node.ai_next;
    }
    None
}

/// Classifies a `getnameinfo` status: only "no such name" falls back to
/// numeric text; every other error is a failure (stock's rule).
fn lookup_outcome(status: c_int) -> NameLookup {
    match status {
        0 => NameLookup::Named,
        libc::EAI_NONAME => NameLookup::NoName,
        _ => NameLookup::Failed,
    }
}

/// Looks up the name of `address` with `getnameinfo(NI_NAMEREQD)` into
/// `out` (NUL-terminated on success). An empty `out` asks the resolver
/// for nothing, which it reports as success.
pub fn lookup_name(address: &ENetAddress, out: &mut [MaybeUninit<u8>]) -> NameLookup {
    let sin = sockaddr_in(address);
    // A socklen_t on Linux and macOS, a size_t on FreeBSD.
    let capacity = out.len().min(u32::MAX as usize);
    // SAFETY: `sin` is a valid sockaddr_in of the given size; `out` is
    // writable for `capacity` bytes; no service buffer is requested.
    let status = unsafe {
        libc::getnameinfo(
            (&sin as *const libc::sockaddr_in).cast(),
            size_of::<libc::sockaddr_in>() as libc::socklen_t,
            out.as_mut_ptr().cast::<c_char>(),
            capacity as _,
            ptr::null_mut(),
            0,
            libc::NI_NAMEREQD,
        )
    };
    let outcome = lookup_outcome(status);
    // Stock also rejects a "successful" name that is not terminated
    // within the buffer.
    if outcome == NameLookup::Named && !out.is_empty() && !has_terminator(out) {
        return NameLookup::Failed;
    }
    outcome
}

/// Whether `out` holds a NUL, scanning only up to the first one.
fn has_terminator(out: &[MaybeUninit<u8>]) -> bool {
    out.iter().any(|byte| {
        // SAFETY: called after getnameinfo reported success, which means it
        // stored a NUL-terminated string at the start of `out`; `any` stops
        // at that NUL, so only bytes it wrote are read.
        unsafe { byte.assume_init() == 0 }
    })
}

/// An `ENetAddress` as the OS's `sockaddr_in` (port to network order).
pub fn sockaddr_in(address: &ENetAddress) -> libc::sockaddr_in {
    // SAFETY: sockaddr_in is plain old data; all zeroes is a valid value
    // (and zeroes the padding, as stock's memset does).
    let mut sin: libc::sockaddr_in = unsafe { core::mem::zeroed() };
    sin.sin_family = libc::AF_INET as libc::sa_family_t;
    sin.sin_port = address.port.to_be();
    sin.sin_addr.s_addr = address.host;
    sin
}

/// The `ENetAddress` of a `sockaddr_in` (port to host order).
pub fn from_sockaddr_in(sin: &libc::sockaddr_in) -> ENetAddress {
    ENetAddress {
        host: sin.sin_addr.s_addr,
        port: u16::from_be(sin.sin_port),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(a: u8, b: u8, c: u8, d: u8) -> u32 {
        u32::from_ne_bytes([a, b, c, d])
    }

    #[test]
    fn only_no_name_falls_back_to_numeric() {
        assert_eq!(lookup_outcome(0), NameLookup::Named);
        assert_eq!(lookup_outcome(libc::EAI_NONAME), NameLookup::NoName);
        assert_eq!(lookup_outcome(libc::EAI_AGAIN), NameLookup::Failed);
        assert_eq!(lookup_outcome(libc::EAI_OVERFLOW), NameLookup::Failed);
    }

    #[test]
    fn sockaddr_round_trip() {
        let address = ENetAddress {
            host: host(192, 0, 2, 7),
            port: 0x1234,
        };
        let sin = sockaddr_in(&address);
        assert_eq!(sin.sin_port, 0x1234u16.to_be());
        assert_eq!(from_sockaddr_in(&sin), address);
    }
}
