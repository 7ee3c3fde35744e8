//! Name lookup and socket addresses on Windows, through WinSock's
//! resolver. As stock's `win32.c`: a forward lookup takes the first IPv4
//! answer (or strict dotted-quad text when there is none), and a reverse
//! lookup that finds no name, for whatever reason, falls back to the
//! numeric text.

use core::ffi::CStr;
use core::mem::{size_of, MaybeUninit};
use core::ptr;

use windows_sys::Win32::Networking::WinSock::{
    freeaddrinfo, getaddrinfo, getnameinfo, ADDRINFOA, AF_INET, IN_ADDR, IN_ADDR_0, NI_MAXHOST,
    NI_NAMEREQD, SOCKADDR_IN,
};

use super::winsock_ready;
use crate::abi::ENetAddress;
use crate::net::address::{parse_ip, write_c_string, NameLookup};

/// Resolves a host name (or numeric text) to an IPv4 host: the first IPv4
/// result of `getaddrinfo`; if the resolver has no IPv4 answer, strict
/// dotted-quad parsing.
pub fn resolve(name: &CStr) -> Option<u32> {
    winsock_ready();
    let mut results: *mut ADDRINFOA = ptr::null_mut();
    // SAFETY: `name` is NUL-terminated; no service, no hints; `results` is
    // a valid place for the list pointer.
    let status =
        unsafe { getaddrinfo(name.as_ptr().cast(), ptr::null(), ptr::null(), &mut results) };
    let found = if status == 0 {
        first_ipv4(results)
    } else {
        None
    };
    if !results.is_null() {
        // SAFETY: `results` came from a successful getaddrinfo, freed once.
        unsafe { freeaddrinfo(results) };
    }
    found.or_else(|| parse_ip(name.to_bytes()))
}

/// The first IPv4 address in a `getaddrinfo` result list.
fn first_ipv4(mut entry: *const ADDRINFOA) -> Option<u32> {
    while !entry.is_null() {
        // SAFETY: `entry` is a node of a live list returned by getaddrinfo;
        // read unaligned, as wine's resolver hands out nodes at any address.
        let node = unsafe { ptr::read_unaligned(entry) };
        let is_ipv4 = node.ai_family == i32::from(AF_INET)
            && !node.ai_addr.is_null()
            && node.ai_addrlen >= size_of::<SOCKADDR_IN>();
        if is_ipv4 {
            // SAFETY: an AF_INET address of at least SOCKADDR_IN's size,
            // read unaligned in case the resolver packed it oddly.
            let sin = unsafe { ptr::read_unaligned(node.ai_addr.cast::<SOCKADDR_IN>()) };
            return Some(from_sockaddr_in(&sin).host);
        }
        entry = node.ai_next;
    }
    None
}

/// Looks up the name of `address` into `out` (NUL-terminated on
/// success). No name, for any reason, is [`NameLookup::NoName`] (the
/// caller prints the address numerically); a name too long for `out` is
/// [`NameLookup::Failed`].
pub fn lookup_name(address: &ENetAddress, out: &mut [MaybeUninit<u8>]) -> NameLookup {
    winsock_ready();
    let sin = sockaddr_in(address);
    let mut name = [0u8; NI_MAXHOST as usize];
    // SAFETY: `sin` is a valid SOCKADDR_IN of the size given; `name` is
    // writable for its length; no service buffer is requested.
    let status = unsafe {
        getnameinfo(
            (&sin as *const SOCKADDR_IN).cast(),
            size_of::<SOCKADDR_IN>() as i32,
            name.as_mut_ptr(),
            name.len() as u32,
            ptr::null_mut(),
            0,
            NI_NAMEREQD as i32,
        )
    };
    if status != 0 {
        return NameLookup::NoName;
    }
    let Ok(text) = CStr::from_bytes_until_nul(&name) else {
        return NameLookup::Failed;
    };
    match write_c_string(text.to_bytes(), out) {
        Ok(()) => NameLookup::Named,
        Err(_) => NameLookup::Failed,
    }
}

/// An `ENetAddress` as WinSock's `SOCKADDR_IN` (port to network order).
pub fn sockaddr_in(address: &ENetAddress) -> SOCKADDR_IN {
    SOCKADDR_IN {
        sin_family: AF_INET,
        sin_port: address.port.to_be(),
        sin_addr: IN_ADDR {
            S_un: IN_ADDR_0 {
                S_addr: address.host,
            },
        },
        sin_zero: [0; 8],
    }
}

/// The `ENetAddress` of a `SOCKADDR_IN` (port to host order).
pub fn from_sockaddr_in(sin: &SOCKADDR_IN) -> ENetAddress {
    ENetAddress {
        // SAFETY: every variant of the address union is the same four
        // bytes of plain data.
        host: unsafe { sin.sin_addr.S_un.S_addr },
        port: u16::from_be(sin.sin_port),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockaddr_round_trip() {
        let address = ENetAddress {
            host: u32::from_ne_bytes([192, 0, 2, 7]),
            port: 0x1234,
        };
        let sin = sockaddr_in(&address);
        assert_eq!(sin.sin_port, 0x1234u16.to_be());
        assert_eq!(from_sockaddr_in(&sin), address);
    }

    #[test]
    fn numeric_text_resolves_without_a_name_server() {
        let loopback = CStr::from_bytes_with_nul(b"127.0.0.1\0").unwrap();
        assert_eq!(resolve(loopback), Some(u32::from_ne_bytes([127, 0, 0, 1])));
    }
}
