//! [`ChunkedPacket`]: a packet filled chunk by chunk, in any order, and
//! handed out only once every chunk is written. Fragment reassembly
//! writes fragments straight into the packet the program will receive,
//! so its bytes are copied once and never zero-filled.

use core::ptr;

use super::packet::PacketRef;
use super::PacketFlags;

/// A packet of `len` bytes cut into chunks of `chunk` bytes (the last may
/// be shorter), each written exactly once. Its bytes are uninitialised
/// until written and cannot be read before [`ChunkedPacket::finish`], which
/// requires every chunk.
#[derive(Debug)]
pub struct ChunkedPacket {
    /// Owns the packet; never read through until every chunk is written.
    packet: PacketRef,
    data: *mut u8,
    len: usize,
    chunk: usize,
    chunks: usize,
    /// One bit per chunk written.
    written: Vec<u64>,
    filled: usize,
}

impl ChunkedPacket {
    /// Bytes of bookkeeping beside the packet for `chunks` chunks.
    pub fn bookkeeping(chunks: usize) -> usize {
        chunks.div_ceil(64) * 8
    }

    /// A packet of `len` bytes in chunks of `chunk`; `None` if `chunk` is 0
    /// (with bytes to hold) or memory is short.
    pub fn new(len: usize, chunk: usize, flags: PacketFlags) -> Option<ChunkedPacket> {
        if chunk == 0 && len > 0 {
            return None;
        }
        let chunks = if len == 0 { 0 } else { len.div_ceil(chunk) };
        // The bytes are only written through `data` below, and read once
        // every chunk is.
        let (packet, data) = PacketRef::new_uninit(len, flags)?;
        Some(ChunkedPacket {
            packet,
            data,
            len,
            chunk,
            chunks,
            written: vec![0; chunks.div_ceil(64)],
            filled: 0,
        })
    }

    /// Whether chunk `index` was written.
    pub fn has(&self, index: usize) -> bool {
        index < self.chunks && self.written[index / 64] & (1 << (index % 64)) != 0
    }

    /// The length chunk `index` must have.
    fn chunk_len(&self, index: usize) -> usize {
        self.chunk.min(self.len - index * self.chunk)
    }

    /// Writes chunk `index`. `false` (nothing written) if the index is out
    /// of range, the chunk was written already, or `bytes` is not exactly
    /// the chunk's length.
    pub fn write(&mut self, index: usize, bytes: &[u8]) -> bool {
        if index >= self.chunks || self.has(index) || bytes.len() != self.chunk_len(index) {
            return false;
        }
        // SAFETY: chunk `index` is `bytes.len()` bytes at `index * chunk`,
        // inside the packet's `len` bytes (checked above), and `bytes` is a
        // separate slice.
        unsafe {
            ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.data.add(index * self.chunk),
                bytes.len(),
            );
        }
        self.written[index / 64] |= 1 << (index % 64);
        self.filled += 1;
        true
    }

    /// Whether every chunk was written.
    pub fn is_full(&self) -> bool {
        self.filled == self.chunks
    }

    /// The packet with `flags`, once every chunk is written.
    pub fn finish(self, flags: PacketFlags) -> Option<PacketRef> {
        if !self.is_full() {
            return None;
        }
        // SAFETY: the packet is live and this handle its only reference
        // (it was never shared), so one field is written in place.
        unsafe { (*self.packet.as_ptr()).flags = flags.bits() };
        Some(self.packet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_fill_in_any_order_exactly_once() {
        let mut packet = ChunkedPacket::new(10, 4, PacketFlags::NONE).unwrap();
        assert!(!packet.write(2, b"abc"), "the last chunk is 2 bytes");
        assert!(packet.write(2, b"ij"));
        assert!(!packet.write(2, b"ij"), "written already");
        assert!(packet.write(0, b"abcd"));
        assert!(!packet.is_full());
        assert!(!packet.write(3, b"zz"), "out of range");
        assert!(packet.write(1, b"efgh"));
        let packet = packet.finish(PacketFlags::NONE).unwrap();
        assert_eq!(packet.data(), b"abcdefghij");
        packet.release();
    }

    #[test]
    fn an_unfinished_packet_is_freed_unread() {
        let mut packet = ChunkedPacket::new(1 << 20, 1000, PacketFlags::NONE).unwrap();
        assert!(packet.write(5, &[7; 1000]));
        assert!(packet.finish(PacketFlags::NONE).is_none());
        assert!(ChunkedPacket::new(5, 0, PacketFlags::NONE).is_none());
        let empty = ChunkedPacket::new(0, 0, PacketFlags::NONE)
            .unwrap()
            .finish(PacketFlags::NONE)
            .unwrap();
        assert!(empty.data().is_empty());
        empty.release();
    }
}
