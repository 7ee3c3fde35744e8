//! CRC-32 as ENet's `enet_crc32` computes it: the reflected IEEE polynomial
//! (the one zlib uses), initial value and final xor all-ones.
//!
//! ENet stores the checksum in network byte order, so the value the C API
//! returns is the byte-swapped CRC on little-endian machines; see
//! [`Crc32::finish_wire`].

const POLYNOMIAL: u32 = 0xEDB8_8320;

/// Lookup table for one byte at a time, built at compile time.
static TABLE: [u32; 256] = build_table();

const fn build_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut index = 0;
    while index < 256 {
        let mut crc = index as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ POLYNOMIAL
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[index] = crc;
        index += 1;
    }
    table
}

/// A running CRC-32 over one or more byte slices.
#[derive(Debug, Clone, Copy)]
pub struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Self {
        Self::new()
    }
}

impl Crc32 {
    pub fn new() -> Self {
        Crc32 { state: 0xFFFF_FFFF }
    }

    pub fn update(&mut self, bytes: &[u8]) {
        let mut crc = self.state;
        for &byte in bytes {
            crc = (crc >> 8) ^ TABLE[((crc ^ u32::from(byte)) & 0xFF) as usize];
        }
        self.state = crc;
    }

    /// The standard CRC-32 value (`crc32("123456789") == 0xCBF43926`).
    pub fn finish(self) -> u32 {
        !self.state
    }

    /// The value ENet's API returns: the CRC in network byte order, so that
    /// storing it as a native `u32` puts the big-endian CRC on the wire.
    pub fn finish_wire(self) -> u32 {
        self.finish().to_be()
    }
}

/// CRC-32 of a sequence of slices, as one stream.
pub fn crc32<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> u32 {
    let mut crc = Crc32::new();
    for part in parts {
        crc.update(part);
    }
    crc.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_value() {
        assert_eq!(crc32([&b"123456789"[..]]), 0xCBF4_3926);
    }

    #[test]
    fn split_input_gives_the_same_crc() {
        assert_eq!(crc32([&b"1234"[..], &b"56789"[..]]), 0xCBF4_3926);
        assert_eq!(crc32([&b""[..], &b"123456789"[..], &b""[..]]), 0xCBF4_3926);
    }

    #[test]
    fn wire_value_is_big_endian_bytes_in_memory() {
        let mut crc = Crc32::new();
        crc.update(b"123456789");
        assert_eq!(crc.finish_wire().to_ne_bytes(), [0xCB, 0xF4, 0x39, 0x26]);
    }

    #[test]
    fn empty_input() {
        assert_eq!(crc32(std::iter::empty()), 0);
    }
}
