//! The optional datagram checksum (facts §5b).
//!
//! Both sides compute it over the whole datagram (header, then the
//! *uncompressed* commands) with the checksum slot temporarily holding a
//! seed: the connectID of the connection, or 0 while the sender addresses
//! "no peer yet" (peer id 0xFFF, i.e. the CONNECT datagram). The header
//! already carries its COMPRESSED flag when the sender computes it. The
//! callback's 4-byte result goes into the slot as-is.
//!
//! The checksum function is a parameter because ENet lets programs install
//! their own (`host->checksum`); [`enet_crc32`] is the stock one.

use super::command::ConnectId;
use super::crc32::crc32;
use super::header::{DatagramHeader, HeaderBytes, NO_PEER_ID};
use super::DropReason;

/// The slot contents of stock `enet_crc32`: the CRC-32 in big-endian byte
/// order (it returns `htonl(crc)`, stored as a native `u32`).
pub fn enet_crc32(parts: &[&[u8]]) -> [u8; 4] {
    crc32(parts.iter().copied()).to_be_bytes()
}

/// The seed both sides put in the slot before checksumming: the peer's
/// connectID, or zeros when the datagram is addressed to no peer yet.
pub fn seed(peer_id: u16, connect_id: ConnectId) -> ConnectId {
    if peer_id < NO_PEER_ID {
        connect_id
    } else {
        ConnectId::default()
    }
}

/// `header` as checksummed: with its slot holding `seed` (a slot is added
/// if the header had none).
pub fn seeded_header(header: &DatagramHeader, seed: ConnectId) -> HeaderBytes {
    DatagramHeader {
        checksum: Some(seed.0),
        ..*header
    }
    .to_bytes()
}

/// The checksum of a datagram made of `header` and the uncompressed `body`,
/// with the slot seeded by `seed`.
pub fn compute(
    header: &DatagramHeader,
    body: &[u8],
    seed: ConnectId,
    checksum: impl FnOnce(&[&[u8]]) -> [u8; 4],
) -> [u8; 4] {
    let header_bytes = seeded_header(header, seed);
    checksum(&[&header_bytes, body])
}

/// Checks a received datagram's slot. `body` is the decompressed body if the
/// datagram was compressed. A header without a slot (host without checksum)
/// always passes.
pub fn verify(
    header: &DatagramHeader,
    body: &[u8],
    seed: ConnectId,
    checksum: impl FnOnce(&[&[u8]]) -> [u8; 4],
) -> Result<(), DropReason> {
    match header.checksum {
        None => Ok(()),
        Some(received) if received == compute(header, body, seed, checksum) => Ok(()),
        Some(_) => Err(DropReason::BadChecksum),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::datagram::Datagram;

    /// PING's ACK from wt-crc96.txt: 0000 | a079f66b | 01ff 0002 0002 0bb7,
    /// sent with the slot seeded by connectID f08d654d.
    const ACK_WITH_CRC: [u8; 14] = [
        0x00, 0x00, 0xa0, 0x79, 0xf6, 0x6b, 0x01, 0xff, 0x00, 0x02, 0x00, 0x02, 0x0b, 0xb7,
    ];
    const CONNECT_ID: ConnectId = ConnectId([0xf0, 0x8d, 0x65, 0x4d]);

    #[test]
    fn enet_crc32_stores_the_crc_big_endian() {
        // facts §5b: enet_crc32("123456789") leaves bytes cb f4 39 26.
        assert_eq!(enet_crc32(&[b"1234", b"56789"]), [0xcb, 0xf4, 0x39, 0x26]);
    }

    #[test]
    fn a_captured_checksum_verifies_only_with_its_seed_and_bytes() {
        let datagram = Datagram::parse(&ACK_WITH_CRC, true).unwrap();
        let header = datagram.header();
        assert_eq!(header.checksum, Some([0xa0, 0x79, 0xf6, 0x6b]));
        assert_eq!(seed(header.peer_id, CONNECT_ID), CONNECT_ID);
        assert_eq!(
            verify(header, datagram.body(), CONNECT_ID, enet_crc32),
            Ok(())
        );
        assert_eq!(
            verify(header, datagram.body(), ConnectId::default(), enet_crc32),
            Err(DropReason::BadChecksum)
        );
        let mut flipped = datagram.body().to_vec();
        flipped[3] ^= 1;
        assert_eq!(
            verify(header, &flipped, CONNECT_ID, enet_crc32),
            Err(DropReason::BadChecksum)
        );
    }

    #[test]
    fn no_peer_yet_seeds_with_zeros() {
        assert_eq!(seed(NO_PEER_ID, CONNECT_ID), ConnectId([0; 4]));
        assert_eq!(seed(0, CONNECT_ID), CONNECT_ID);
    }

    #[test]
    fn a_header_without_slot_always_passes() {
        let (header, _) = DatagramHeader::parse(&[0, 0], false).unwrap();
        assert_eq!(verify(&header, &[1, 2, 3], CONNECT_ID, |_| [9; 4]), Ok(()));
    }
}
