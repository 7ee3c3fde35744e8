//! The datagram builder: rebuilding captured stock datagrams byte for byte,
//! and the aggregation limits of protocol.c@v1.3.17.

use super::captures::{CRC, PLAIN};
use crate::wire::builder::MAX_COMMANDS;
use crate::wire::checksum::{self, enet_crc32};
use crate::wire::header::NO_PEER_ID;
use crate::wire::{
    Command, CommandFlags, CommandHeader, ConnectId, Datagram, DatagramBuilder, DatagramHeader,
    Envelope, Full,
};

/// Parses a stock datagram and packs its commands again with the builder.
fn rebuild(stock: &[u8], has_checksum: bool, mtu: u32, connect_id: ConnectId) -> Vec<u8> {
    let datagram = Datagram::parse(stock, has_checksum).unwrap();
    let header = datagram.header();
    let mut builder = DatagramBuilder::new(mtu);
    for item in datagram.commands() {
        let (command_header, command) = item.unwrap();
        builder.push(&command_header, &command).unwrap();
    }
    let mut crc = enet_crc32;
    let envelope = Envelope {
        peer_id: header.peer_id,
        // A sender addressing "no peer yet" leaves its session out; pass a
        // non-zero one to see that the builder does too.
        session_id: if header.peer_id == NO_PEER_ID {
            3
        } else {
            header.session_id
        },
        sent_time: header.sent_time.unwrap_or(0xdead),
        connect_id,
        checksum: has_checksum.then_some(&mut crc as _),
        compressor: None,
    };
    builder.finish(envelope)
}

#[test]
fn rebuilds_every_plain_captured_datagram() {
    for capture in PLAIN {
        let stock = capture.bytes(false);
        assert_eq!(
            rebuild(&stock, false, 1400, ConnectId::default()),
            stock,
            "{}",
            capture.annotation
        );
    }
}

#[test]
fn one_builder_rebuilds_every_capture_in_whatever_buffer_it_is_left() {
    // The transport takes each finished datagram's buffer and leaves
    // another: empty, shorter than the header room, or long and stale.
    let mut builder = DatagramBuilder::new(1400);
    for (round, capture) in PLAIN.iter().enumerate() {
        let stock = capture.bytes(false);
        let datagram = Datagram::parse(&stock, false).unwrap();
        let header = datagram.header();
        builder.restart(1400);
        for item in datagram.commands() {
            let (command_header, command) = item.unwrap();
            builder.push(&command_header, &command).unwrap();
        }
        let envelope = Envelope::plain(
            header.peer_id,
            header.session_id,
            header.sent_time.unwrap_or(0),
        );
        let (buffer, range) = builder.finish_for_transmit(envelope);
        let left = vec![0xEE; [0, 3, 200][round % 3]];
        let taken = std::mem::replace(buffer, left);
        assert_eq!(&taken[range], &stock[..], "{}", capture.annotation);
    }
}

#[test]
fn rebuilds_every_checksummed_captured_datagram() {
    let connect_id = ConnectId([0xf0, 0x8d, 0x65, 0x4d]);
    for capture in CRC {
        let stock = capture.bytes(true);
        assert_eq!(
            rebuild(&stock, true, 1400, connect_id),
            stock,
            "{}",
            capture.annotation
        );
    }
}

const PING: Command<'static> = Command::Ping;
const RELIABLE: CommandHeader = CommandHeader {
    flags: CommandFlags::ACKNOWLEDGE,
    channel_id: 0xff,
    reliable_sequence_number: 1,
};

#[test]
fn a_full_size_fragment_fills_the_mtu_exactly() {
    // PLAIN[5]: 4-byte header + 24 + 1372 = 1400 at MTU 1400.
    let stock = PLAIN[5].bytes(false);
    let datagram = Datagram::parse(&stock, false).unwrap();
    let (header, fragment) = datagram.commands().next().unwrap().unwrap();
    let mut builder = DatagramBuilder::new(1400);
    assert!(!builder.fits(1401 - 4));
    builder.push(&header, &fragment).unwrap();
    assert_eq!(builder.remaining(), 0);
    assert_eq!(builder.push(&RELIABLE, &PING), Err(Full));
    assert_eq!(builder.command_count(), 1);
}

#[test]
fn commands_are_packed_while_they_fit_in_the_mtu() {
    let header = CommandHeader::default();
    let payload = [7u8; 100];
    let command = Command::SendUnreliable {
        unreliable_sequence_number: 1,
        data: &payload,
    };
    // 8 + 100 = 108 bytes each: (576 - 4) / 108 = 5 commands, leaving 32.
    let mut builder = DatagramBuilder::new(576);
    for _ in 0..5 {
        builder.push(&header, &command).unwrap();
    }
    assert_eq!(builder.remaining(), 32);
    let before = builder.body().to_vec();
    assert_eq!(builder.push(&header, &command), Err(Full));
    assert_eq!(
        builder.body(),
        &before[..],
        "a refused push changes nothing"
    );
    // A smaller command still fits; stopping at the first misfit is the
    // caller's loop policy, as in stock.
    builder.push(&header, &PING).unwrap();
    assert_eq!(builder.remaining(), 28);
    let bytes = builder.finish(Envelope::plain(0, 0, 0));
    // No ACKNOWLEDGE-flagged command: 2-byte header.
    assert_eq!(bytes.len(), 2 + 5 * 108 + 4);
}

#[test]
fn at_most_32_commands() {
    let mut builder = DatagramBuilder::new(4096);
    for _ in 0..MAX_COMMANDS {
        builder.push(&RELIABLE, &PING).unwrap();
    }
    assert_eq!(MAX_COMMANDS, 32);
    assert!(builder.remaining() >= 4);
    assert_eq!(builder.push(&RELIABLE, &PING), Err(Full));
    assert!(!builder.fits(4));
    builder.clear();
    assert!(builder.is_empty());
    assert_eq!(builder.remaining(), 4096 - 4);
    assert!(!builder.needs_sent_time());
}

#[test]
fn sent_time_only_with_an_acknowledge_flagged_command() {
    let unsequenced = CommandHeader {
        flags: CommandFlags::UNSEQUENCED,
        ..CommandHeader::default()
    };
    let mut builder = DatagramBuilder::new(1400);
    builder
        .push(&unsequenced, &Command::Disconnect { data: 0 })
        .unwrap();
    assert!(!builder.needs_sent_time());
    let bytes = builder.finish(Envelope::plain(5, 2, 0x1234));
    let (header, len) = DatagramHeader::parse(&bytes, false).unwrap();
    assert_eq!(
        (header.peer_id, header.session_id, header.sent_time, len),
        (5, 2, None, 2)
    );

    builder.push(&RELIABLE, &PING).unwrap();
    assert!(builder.needs_sent_time());
    let bytes = builder.finish(Envelope::plain(5, 2, 0x1234));
    let (header, _) = DatagramHeader::parse(&bytes, false).unwrap();
    assert_eq!(header.sent_time, Some(0x1234));
}

#[test]
fn the_checksum_slot_is_not_counted_against_the_mtu() {
    // Stock starts the count at 4 (the full ENetProtocolHeader) and never
    // adds the slot: a datagram filled with small commands and a checksum
    // is 4 bytes over the MTU.
    let mut builder = DatagramBuilder::new(576);
    let payload = [1u8; 566];
    builder
        .push(&RELIABLE, &Command::SendReliable { data: &payload })
        .unwrap();
    assert_eq!(builder.remaining(), 0);
    let mut crc = enet_crc32;
    let envelope = Envelope {
        checksum: Some(&mut crc),
        connect_id: ConnectId([1, 2, 3, 4]),
        ..Envelope::plain(0, 0, 0)
    };
    let bytes = builder.finish(envelope);
    assert_eq!(bytes.len(), 580);
    let datagram = Datagram::parse(&bytes, true).unwrap();
    let seed = ConnectId([1, 2, 3, 4]);
    assert_eq!(
        checksum::verify(datagram.header(), datagram.body(), seed, enet_crc32),
        Ok(())
    );
}

#[test]
fn compression_is_used_only_when_strictly_smaller_and_checksummed_before() {
    let mut builder = DatagramBuilder::new(1400);
    builder
        .push(&RELIABLE, &Command::SendReliable { data: &[9; 40] })
        .unwrap();
    let body = builder.body().to_vec();
    let seed = ConnectId([5, 6, 7, 8]);

    // A stand-in compressor that halves the body (its bytes are arbitrary;
    // only the envelope logic is under test here).
    let mut halve = |input: &[u8], output: &mut [u8]| {
        assert_eq!(
            output.len(),
            input.len(),
            "output limited to the input size"
        );
        let len = input.len() / 2;
        output[..len].fill(0xcc);
        len
    };
    let mut crc = enet_crc32;
    let bytes = builder.finish(Envelope {
        connect_id: seed,
        checksum: Some(&mut crc),
        compressor: Some(&mut halve),
        ..Envelope::plain(0, 0, 0x0102)
    });
    let datagram = Datagram::parse(&bytes, true).unwrap();
    let header = datagram.header();
    assert!(header.compressed);
    assert_eq!(datagram.body(), &vec![0xcc; body.len() / 2][..]);
    // The checksum covers the header with its COMPRESSED flag and the
    // uncompressed commands, as the receiver checks it after decompressing.
    assert_eq!(checksum::verify(header, &body, seed, enet_crc32), Ok(()));

    // No gain (or failure) -> sent uncompressed, flag clear.
    for result in [0, body.len(), body.len() + 1] {
        let mut no_gain = |_: &[u8], _: &mut [u8]| result;
        let bytes = builder.finish(Envelope {
            compressor: Some(&mut no_gain),
            ..Envelope::plain(0, 0, 0)
        });
        let datagram = Datagram::parse(&bytes, false).unwrap();
        assert!(!datagram.header().compressed);
        assert_eq!(datagram.body(), &body[..]);
    }
}
