//! IPv4 addresses as text: parsing, printing, and name lookup.
//!
//! Hosts are `u32`s in network byte order, as in `ENetAddress::host`.
//! Name lookups go through the C library's resolver (`getaddrinfo`,
//! `getnameinfo`) exactly as stock ENet's Unix build calls it, so
//! `/etc/hosts`, nsswitch and the numeric shorthands the resolver accepts
//! (`"127.1"`, `"0x7f.0.0.1"`) behave the same.

use core::ffi::{c_char, c_int, CStr};
use core::mem::{size_of, MaybeUninit};
use core::ptr;

use crate::abi::ENetAddress;

/// Parses strict dotted-quad IPv4 text, as `inet_pton(AF_INET, ...)` does:
/// exactly four decimal octets of at most 255, no leading zeros (`"01"`),
/// no shorthand (`"127.1"`), nothing before, between or after them.
/// Returns the host in network byte order.
pub fn parse_ip(text: &[u8]) -> Option<u32> {
    let mut octets = [0u8; 4];
    let mut count = 0;
    for part in text.split(|&byte| byte == b'.') {
        if count == 4 {
            return None;
        }
        octets[count] = parse_octet(part)?;
        count += 1;
    }
    (count == 4).then(|| u32::from_ne_bytes(octets))
}

/// One decimal octet: 1-3 digits, at most 255, and `0` only on its own.
fn parse_octet(digits: &[u8]) -> Option<u8> {
    let leading_zero = digits.len() > 1 && digits[0] == b'0';
    if digits.is_empty() || digits.len() > 3 || leading_zero {
        return None;
    }
    let mut value: u32 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u32::from(digit - b'0');
    }
    u8::try_from(value).ok()
}

/// The longest dotted quad plus its NUL: `"255.255.255.255\0"`.
pub const IP_TEXT_CAPACITY: usize = 16;

/// Prints a host as dotted-quad text (`"127.0.0.1"`), without a NUL.
pub fn format_ip(host: u32) -> ([u8; IP_TEXT_CAPACITY], usize) {
    use std::io::Write;
    let [a, b, c, d] = host.to_ne_bytes();
    let mut text = [0u8; IP_TEXT_CAPACITY];
    let mut cursor = std::io::Cursor::new(&mut text[..]);
    // At most 15 bytes always fit in 16.
    let _ = write!(cursor, "{a}.{b}.{c}.{d}");
    let length = cursor.position() as usize;
    (text, length)
}

/// The destination is too small for the text and its terminating NUL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferTooSmall;

/// Copies `text` and a terminating NUL into `out`, or writes nothing if
/// they do not fit (as `inet_ntop` does).
pub fn write_c_string(text: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<(), BufferTooSmall> {
    if text.len() >= out.len() {
        return Err(BufferTooSmall);
    }
    for (slot, &byte) in out.iter_mut().zip(text.iter().chain(&[0])) {
        slot.write(byte);
    }
    Ok(())
}

/// Writes the host's dotted-quad text and a NUL into `out`.
pub fn write_ip(host: u32, out: &mut [MaybeUninit<u8>]) -> Result<(), BufferTooSmall> {
    let (text, length) = format_ip(host);
    write_c_string(&text[..length], out)
}

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

/// How a reverse lookup ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameLookup {
    /// The resolver wrote a name into the buffer.
    Named,
    /// The address has no name; the caller prints it numerically.
    NoName,
    /// Any other resolver error, including a buffer too small for the name.
    Failed,
}

impl NameLookup {
    /// Classifies a `getnameinfo` status: only "no such name" falls back
    /// to numeric text; every other error is a failure (stock's rule).
    pub fn from_status(status: c_int) -> Self {
        match status {
            0 => NameLookup::Named,
            libc::EAI_NONAME => NameLookup::NoName,
            _ => NameLookup::Failed,
        }
    }
}

/// Looks up the name of `address` with `getnameinfo(NI_NAMEREQD)` into
/// `out` (NUL-terminated on success). An empty `out` asks the resolver
/// for nothing, which it reports as success.
pub fn lookup_name(address: &ENetAddress, out: &mut [MaybeUninit<u8>]) -> NameLookup {
    let sin = sockaddr_in(address);
    let capacity = libc::socklen_t::try_from(out.len()).unwrap_or(libc::socklen_t::MAX);
    // SAFETY: `sin` is a valid sockaddr_in of the given size; `out` is
    // writable for `capacity` bytes; no service buffer is requested.
    let status = unsafe {
        libc::getnameinfo(
            (&sin as *const libc::sockaddr_in).cast(),
            size_of::<libc::sockaddr_in>() as libc::socklen_t,
            out.as_mut_ptr().cast::<c_char>(),
            capacity,
            ptr::null_mut(),
            0,
            libc::NI_NAMEREQD,
        )
    };
    let outcome = NameLookup::from_status(status);
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
    fn parses_dotted_quads() {
        assert_eq!(parse_ip(b"1.2.3.4"), Some(host(1, 2, 3, 4)));
        assert_eq!(parse_ip(b"0.0.0.0"), Some(0));
        assert_eq!(parse_ip(b"255.255.255.255"), Some(u32::MAX));
        assert_eq!(parse_ip(b"10.0.100.250"), Some(host(10, 0, 100, 250)));
    }

    #[test]
    fn rejects_what_inet_pton_rejects() {
        for text in [
            &b""[..],
            b"1.2.3",
            b"1",
            b"127.1",
            b"01.2.3.4",
            b"1.2.3.00",
            b"1.2.3.256",
            b"1.2.3.1000",
            b" 1.2.3.4",
            b"1.2.3.4 ",
            b"1.2.3.4x",
            b"1.2.3.4.",
            b".1.2.3.4",
            b"1..2.3",
            b"1.2.3.4.5",
            b"0x7f.0.0.1",
            b"+1.2.3.4",
            b"::1",
        ] {
            assert_eq!(parse_ip(text), None, "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn formats_and_fits_exactly() {
        let (text, length) = format_ip(u32::MAX);
        assert_eq!(&text[..length], b"255.255.255.255");
        let mut out = [MaybeUninit::new(b'X'); 16];
        assert_eq!(
            write_ip(host(127, 0, 0, 1), &mut out[..9]),
            Err(BufferTooSmall)
        );
        assert_eq!(write_ip(host(127, 0, 0, 1), &mut out[..10]), Ok(()));
        // SAFETY: all bytes were initialised to 'X' or written.
        let bytes: Vec<u8> = out.iter().map(|b| unsafe { b.assume_init() }).collect();
        assert_eq!(&bytes[..11], b"127.0.0.1\0X");
    }

    #[test]
    fn only_no_name_falls_back_to_numeric() {
        assert_eq!(NameLookup::from_status(0), NameLookup::Named);
        assert_eq!(
            NameLookup::from_status(libc::EAI_NONAME),
            NameLookup::NoName
        );
        assert_eq!(NameLookup::from_status(libc::EAI_AGAIN), NameLookup::Failed);
        assert_eq!(
            NameLookup::from_status(libc::EAI_OVERFLOW),
            NameLookup::Failed
        );
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
