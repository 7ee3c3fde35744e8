//! IPv4 addresses as text: parsing and printing, the same on every
//! system. Name lookups are the platform's (`sys::address`), which
//! builds on these.
//!
//! Hosts are `u32`s in network byte order, as in `ENetAddress::host`.

use core::mem::MaybeUninit;

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
}
