//! The datagram header (`ENetProtocolHeader` plus the optional checksum slot).
//!
//! ```text
//! offset 0  u16 BE  bit 15     SENT_TIME flag: the sentTime field is present
//!                   bit 14     COMPRESSED flag: the commands are range-coded
//!                   bits 13-12 session id
//!                   bits 11-0  peer id (0xFFF: "no peer yet", used by CONNECT)
//! offset 2  u16 BE  sentTime, only with SENT_TIME
//! next      4 bytes checksum slot, only if the host uses a checksum
//! ```
//!
//! Nothing on the wire says whether the checksum slot is there: both hosts
//! must agree out of band, so it is a parameter of [`DatagramHeader::parse`].
//! The slot holds raw bytes (ENet stores its checksum callback's native `u32`
//! result unchanged); with ENet's CRC-32 they are the big-endian CRC.

use super::field::{read_array, read_u16, write_bytes, write_u16, Field};
use super::DropReason;
use crate::abi::{ENetProtocolFlag, ENET_PROTOCOL_MAXIMUM_PEER_ID};

mod field {
    use super::Field;
    pub const PEER_ID: Field = 0..2;
    pub const SENT_TIME: Field = 2..4;
}

/// The peer-id word's SENT_TIME flag.
pub const FLAG_SENT_TIME: u16 = ENetProtocolFlag::ENET_PROTOCOL_HEADER_FLAG_SENT_TIME as u16;
/// The peer-id word's COMPRESSED flag.
pub const FLAG_COMPRESSED: u16 = ENetProtocolFlag::ENET_PROTOCOL_HEADER_FLAG_COMPRESSED as u16;
const SESSION_SHIFT: u32 = ENetProtocolFlag::ENET_PROTOCOL_HEADER_SESSION_SHIFT as u32;
const SESSION_MASK: u16 = ENetProtocolFlag::ENET_PROTOCOL_HEADER_SESSION_MASK as u16;
/// The peer id of a datagram sent before the sender knows its index at the
/// receiver (`ENET_PROTOCOL_MAXIMUM_PEER_ID`); only CONNECT is accepted.
pub const NO_PEER_ID: u16 = ENET_PROTOCOL_MAXIMUM_PEER_ID as u16;
/// The peer-id word's low bits that hold the peer id (the id space is
/// `0..=NO_PEER_ID`, every bit below the flags and the session).
const PEER_ID_MASK: u16 = NO_PEER_ID;
/// Size of the checksum slot.
pub const CHECKSUM_LEN: usize = 4;
/// Size of the header without sentTime and without checksum.
pub const MIN_HEADER_LEN: usize = field::PEER_ID.end;
/// Size of the header with sentTime, without checksum.
pub const SENT_TIME_HEADER_LEN: usize = field::SENT_TIME.end;
/// Size of the header with sentTime and checksum.
pub const MAX_HEADER_LEN: usize = field::SENT_TIME.end + CHECKSUM_LEN;

/// A parsed datagram header. Parsing and emitting cover every bit of the
/// header, so `emit(parse(bytes))` reproduces `bytes` exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DatagramHeader {
    /// Index of the receiving peer at the receiver, 12 bits
    /// ([`NO_PEER_ID`] before the connection is set up).
    pub peer_id: u16,
    /// Session id, 2 bits (senders leave it 0 with [`NO_PEER_ID`]).
    pub session_id: u8,
    /// The commands after the header are compressed.
    pub compressed: bool,
    /// Low 16 bits of the sender's service time; present (SENT_TIME flag)
    /// when the datagram carries an ACKNOWLEDGE-flagged command.
    pub sent_time: Option<u16>,
    /// The checksum slot, raw bytes; `Some` iff the host uses a checksum.
    pub checksum: Option<[u8; CHECKSUM_LEN]>,
}

impl DatagramHeader {
    /// Parses the header at the start of `bytes`. Returns it with its length,
    /// which is where the (possibly compressed) commands begin.
    ///
    /// Fails with [`DropReason::Truncated`] if `bytes` is shorter than the
    /// header its flags announce. (Stock ENet reads past such a short
    /// datagram into its receive buffer and then finds no command or a bad
    /// checksum; dropping it up front gives the same result without
    /// touching bytes that are not part of the datagram.)
    pub fn parse(bytes: &[u8], has_checksum: bool) -> Result<(Self, usize), DropReason> {
        let word = read_u16(bytes, field::PEER_ID).ok_or(DropReason::Truncated)?;
        let sent_time = if word & FLAG_SENT_TIME != 0 {
            Some(read_u16(bytes, field::SENT_TIME).ok_or(DropReason::Truncated)?)
        } else {
            None
        };
        let mut header = DatagramHeader {
            peer_id: word & PEER_ID_MASK,
            session_id: ((word & SESSION_MASK) >> SESSION_SHIFT) as u8,
            compressed: word & FLAG_COMPRESSED != 0,
            sent_time,
            checksum: None,
        };
        if has_checksum {
            let slot = header.checksum_field();
            header.checksum = Some(read_array(bytes, slot).ok_or(DropReason::Truncated)?);
        }
        Ok((header, header.buffer_len()))
    }

    /// The length of the emitted header: 2, 4, 6 or 8 bytes.
    pub fn buffer_len(&self) -> usize {
        let mut len = MIN_HEADER_LEN;
        if self.sent_time.is_some() {
            len = field::SENT_TIME.end;
        }
        if self.checksum.is_some() {
            len += CHECKSUM_LEN;
        }
        len
    }

    /// Where the checksum slot is (or would be) in this header.
    pub fn checksum_field(&self) -> Field {
        let start = if self.sent_time.is_some() {
            field::SENT_TIME.end
        } else {
            field::PEER_ID.end
        };
        start..start + CHECKSUM_LEN
    }

    /// The first 16-bit word: flags, session and peer id. Bits of `peer_id`
    /// and `session_id` beyond their widths are ignored.
    pub fn peer_id_word(&self) -> u16 {
        let mut word = self.peer_id & PEER_ID_MASK;
        word |= (u16::from(self.session_id) << SESSION_SHIFT) & SESSION_MASK;
        if self.compressed {
            word |= FLAG_COMPRESSED;
        }
        if self.sent_time.is_some() {
            word |= FLAG_SENT_TIME;
        }
        word
    }

    /// Writes the header to the start of `out` and returns its length, or
    /// returns 0 and writes nothing if `out` is shorter than
    /// [`buffer_len`](Self::buffer_len).
    pub fn emit(&self, out: &mut [u8]) -> usize {
        let len = self.buffer_len();
        if out.len() < len {
            return 0;
        }
        self.write_fields(out).map_or(0, |()| len)
    }

    fn write_fields(&self, out: &mut [u8]) -> Option<()> {
        write_u16(out, field::PEER_ID, self.peer_id_word())?;
        if let Some(sent_time) = self.sent_time {
            write_u16(out, field::SENT_TIME, sent_time)?;
        }
        if let Some(checksum) = self.checksum {
            write_bytes(out, self.checksum_field(), &checksum)?;
        }
        Some(())
    }

    /// The header as bytes (at most [`MAX_HEADER_LEN`]), without allocating.
    pub fn to_bytes(&self) -> HeaderBytes {
        let mut bytes = [0u8; MAX_HEADER_LEN];
        let len = self.emit(&mut bytes);
        HeaderBytes { bytes, len }
    }
}

/// An emitted header held in a small array; derefs to its bytes.
#[derive(Debug, Clone, Copy)]
pub struct HeaderBytes {
    bytes: [u8; MAX_HEADER_LEN],
    len: usize,
}

impl core::ops::Deref for HeaderBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_captured_connect_header() {
        // First bytes of the CONNECT datagram in wiretrace-plain.txt.
        let bytes = [0x8f, 0xff, 0xf7, 0x07, 0x82, 0xff];
        let (header, len) = DatagramHeader::parse(&bytes, false).unwrap();
        assert_eq!(len, 4);
        assert_eq!(
            header,
            DatagramHeader {
                peer_id: NO_PEER_ID,
                session_id: 0,
                compressed: false,
                sent_time: Some(0xf707),
                checksum: None,
            }
        );
        let mut out = [0u8; 4];
        assert_eq!(header.emit(&mut out), 4);
        assert_eq!(out, bytes[..4]);
    }

    #[test]
    fn every_flag_and_field_round_trips() {
        for word in [0x0000u16, 0x0FFF, 0x3000, 0x4123, 0x8FFF, 0xFFFF, 0x7ABC] {
            for has_checksum in [false, true] {
                let mut bytes = word.to_be_bytes().to_vec();
                bytes.extend_from_slice(&[0x11, 0x22, 0x33, 0x44, 0x55, 0x66]);
                let (header, len) = DatagramHeader::parse(&bytes, has_checksum).unwrap();
                assert_eq!(header.peer_id_word(), word);
                assert_eq!(header.checksum.is_some(), has_checksum);
                assert_eq!(len, header.buffer_len());
                assert_eq!(&*header.to_bytes(), &bytes[..len]);
            }
        }
    }

    #[test]
    fn session_and_flags_are_split_out() {
        let (header, len) = DatagramHeader::parse(&[0x72, 0x34], false).unwrap();
        assert_eq!(len, 2);
        assert_eq!(header.peer_id, 0x234);
        assert_eq!(header.session_id, 3);
        assert!(header.compressed);
        assert_eq!(header.sent_time, None);
    }

    #[test]
    fn checksum_slot_follows_the_optional_sent_time() {
        let bytes = [0x80, 0x00, 0x0b, 0xb5, 0x0c, 0x66, 0x90, 0x3b];
        let (header, len) = DatagramHeader::parse(&bytes, true).unwrap();
        assert_eq!(len, 8);
        assert_eq!(header.checksum, Some([0x0c, 0x66, 0x90, 0x3b]));
        let (header, len) = DatagramHeader::parse(&[0x00, 0x00, 1, 2, 3, 4], true).unwrap();
        assert_eq!(len, 6);
        assert_eq!(header.checksum_field(), 2..6);
        assert_eq!(header.checksum, Some([1, 2, 3, 4]));
    }

    #[test]
    fn short_headers_are_truncated() {
        let cases: [(&[u8], bool); 5] = [
            (&[], false),
            (&[0x00], false),
            (&[0x80, 0x00, 0x01], false),
            (&[0x00, 0x00, 1, 2, 3], true),
            (&[0x80, 0x00, 0, 0, 1, 2, 3], true),
        ];
        for (bytes, has_checksum) in cases {
            assert_eq!(
                DatagramHeader::parse(bytes, has_checksum),
                Err(DropReason::Truncated),
                "{bytes:02x?}"
            );
        }
    }

    #[test]
    fn emit_refuses_a_short_buffer() {
        let header = DatagramHeader {
            peer_id: 1,
            session_id: 2,
            compressed: false,
            sent_time: Some(7),
            checksum: Some([9; 4]),
        };
        let mut out = [0xAAu8; 7];
        assert_eq!(header.emit(&mut out), 0);
        assert_eq!(out, [0xAA; 7]);
    }
}
