//! Parse every captured stock datagram, check it against the capture
//! tool's annotation and the documented field values, re-emit it and
//! compare bytes exactly.

use super::captures::{Capture, COMPRESSED, CRC, PLAIN};
use crate::wire::checksum::{self, enet_crc32};
use crate::wire::header::NO_PEER_ID;
use crate::wire::{
    Command, CommandFlags, CommandHeader, ConnectFields, ConnectId, Datagram, DatagramHeader,
    DropReason, Fragment,
};

/// The annotation's command names, indexed by command number.
const NAMES: [&str; 13] = [
    "",
    "ACK",
    "CONNECT",
    "VERIFY_CONNECT",
    "DISCONNECT",
    "PING",
    "SEND_RELIABLE",
    "SEND_UNRELIABLE",
    "SEND_FRAGMENT",
    "SEND_UNSEQUENCED",
    "BANDWIDTH_LIMIT",
    "THROTTLE_CONFIGURE",
    "SEND_UNRELIABLE_FRAGMENT",
];

fn field<'a>(part: &'a str, key: &str) -> &'a str {
    part.split_whitespace()
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in {part:?}"))
}

fn number(text: &str) -> u32 {
    match text.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).unwrap(),
        None => text.parse().unwrap(),
    }
}

/// Checks the header against the annotation's first part.
fn check_header_annotation(header: &DatagramHeader, annotation: &str) {
    let first = annotation.split(" | ").next().unwrap();
    assert_eq!(u32::from(header.peer_id), number(field(first, "peerID")));
    assert_eq!(
        u32::from(header.session_id),
        number(field(first, "session"))
    );
    assert_eq!(
        u32::from(header.compressed),
        number(field(first, "compressed"))
    );
    assert_eq!(
        u32::from(header.sent_time.is_some()),
        number(field(first, "sentTime"))
    );
}

/// Checks the commands against the annotation's later parts.
fn check_commands_annotation(commands: &[(CommandHeader, Command<'_>)], annotation: &str) {
    let parts: Vec<&str> = annotation.split(" | ").skip(1).collect();
    assert_eq!(commands.len(), parts.len(), "{annotation}");
    for ((header, command), part) in commands.iter().zip(parts) {
        let name = part.split_whitespace().next().unwrap();
        let (base, flags) = match name.split_once('+') {
            Some((base, "ACK")) => (base, CommandFlags::ACKNOWLEDGE),
            Some((base, "UNSEQ")) => (base, CommandFlags::UNSEQUENCED),
            Some((_, other)) => panic!("unknown flag {other}"),
            None => (name, CommandFlags::NONE),
        };
        assert_eq!(NAMES[usize::from(command.number())], base, "{part}");
        assert_eq!(header.flags, flags, "{part}");
        assert_eq!(u32::from(header.channel_id), number(field(part, "ch")));
        assert_eq!(
            u32::from(header.reliable_sequence_number),
            number(field(part, "rsn"))
        );
    }
}

/// Parses a whole uncompressed datagram: it must parse to the end, match
/// its annotation and re-emit to the same bytes. Returns the commands.
fn parse_exactly<'a>(
    capture: &Capture,
    bytes: &'a [u8],
    has_checksum: bool,
) -> (DatagramHeader, Vec<(CommandHeader, Command<'a>)>) {
    let datagram = Datagram::parse(bytes, has_checksum).unwrap();
    let header = *datagram.header();
    check_header_annotation(&header, capture.annotation);
    let mut iter = datagram.commands();
    let commands: Vec<_> = iter.by_ref().map(Result::unwrap).collect();
    assert_eq!(iter.stop_reason(), None);
    assert_eq!(iter.offset(), datagram.body().len());
    check_commands_annotation(&commands, capture.annotation);

    let mut emitted = header.to_bytes().to_vec();
    for (command_header, command) in &commands {
        let mut out = vec![0u8; command.wire_len()];
        assert_eq!(command.emit(command_header, &mut out), out.len());
        emitted.extend_from_slice(&out);
    }
    assert_eq!(
        emitted, bytes,
        "re-emitted bytes of the datagram to the {}: {}",
        capture.to, capture.annotation
    );
    (header, commands)
}

const CONNECT_FIELDS: ConnectFields = ConnectFields {
    outgoing_peer_id: 0,
    incoming_session_id: 0xff,
    outgoing_session_id: 0xff,
    mtu: 1400,
    window_size: 65536,
    channel_count: 2,
    incoming_bandwidth: 0,
    outgoing_bandwidth: 0,
    packet_throttle_interval: 5000,
    packet_throttle_acceleration: 2,
    packet_throttle_deceleration: 2,
    connect_id: ConnectId([0xf7, 0xc7, 0x60, 0xdd]),
};

#[test]
fn plain_trace_parses_matches_and_re_emits() {
    let all: Vec<Vec<u8>> = PLAIN.iter().map(|c| c.bytes(false)).collect();
    let parsed: Vec<_> = PLAIN
        .iter()
        .zip(&all)
        .map(|(capture, bytes)| parse_exactly(capture, bytes, false))
        .collect();
    assert_eq!(parsed.len(), 14);

    // CONNECT: fields as facts §5c decodes them.
    let (header, commands) = &parsed[0];
    assert_eq!(header.peer_id, NO_PEER_ID);
    assert_eq!(header.sent_time, Some(0xf707));
    assert_eq!(
        commands[0].1,
        Command::Connect {
            fields: CONNECT_FIELDS,
            data: 0x1234_5678
        }
    );

    // VERIFY_CONNECT: the server's index 0, sessions 0, same connectID.
    let verify = ConnectFields {
        incoming_session_id: 0,
        outgoing_session_id: 0,
        ..CONNECT_FIELDS
    };
    assert_eq!(parsed[1].1[0].1, Command::VerifyConnect(verify));

    // ACK of the VERIFY_CONNECT echoes its sentTime, then a PING.
    assert_eq!(
        parsed[2].1[0].1,
        Command::Acknowledge {
            received_reliable_sequence_number: 1,
            received_sent_time: 0xf708
        }
    );
    assert_eq!(parsed[2].1[1].1, Command::Ping);
    assert_eq!(parsed[3].0.sent_time, None);

    // Reliable, unreliable and unsequenced in one datagram.
    let commands = &parsed[4].1;
    assert_eq!(
        commands[0].1,
        Command::SendReliable {
            data: b"hello-reliable"
        }
    );
    assert_eq!(
        commands[1].1,
        Command::SendUnreliable {
            unreliable_sequence_number: 1,
            data: b"hello-unreliable"
        }
    );
    assert_eq!(
        commands[2].1,
        Command::SendUnsequenced {
            unsequenced_group: 1,
            data: b"hello-unsequenced"
        }
    );

    // A 3000-byte packet in reliable, then unreliable, fragments of 1372.
    let packet: Vec<u8> = (0..3000).map(|i| (i % 7) as u8).collect();
    for (index, expected_offset) in [0u32, 1372, 2744].into_iter().enumerate() {
        let length = (3000 - expected_offset).min(1372) as usize;
        let start = expected_offset as usize;
        let expected = Fragment {
            start_sequence_number: 2,
            fragment_count: 3,
            fragment_number: index as u32,
            total_length: 3000,
            fragment_offset: expected_offset,
            data: &packet[start..start + length],
        };
        assert_eq!(parsed[5 + index].1[0].1, Command::SendFragment(expected));
        assert_eq!(
            parsed[8 + index].1[0].1,
            Command::SendUnreliableFragment(expected)
        );
        assert_eq!(all[5 + index].len(), 4 + 24 + length);
        assert_eq!(all[8 + index].len(), 2 + 24 + length);
    }

    // Four ACKs in one datagram, then DISCONNECT carrying its data.
    assert_eq!(parsed[11].1.len(), 4);
    assert_eq!(parsed[12].1[0].1, Command::Disconnect { data: 0xabcd });
}

#[test]
fn checksummed_trace_parses_verifies_and_re_emits() {
    let all: Vec<Vec<u8>> = CRC.iter().map(|c| c.bytes(true)).collect();
    let parsed: Vec<_> = CRC
        .iter()
        .zip(&all)
        .map(|(capture, bytes)| parse_exactly(capture, bytes, true))
        .collect();

    // The connectID comes from the CONNECT itself.
    let connect_id = match parsed[0].1[0].1 {
        Command::Connect { fields, .. } => fields.connect_id,
        other => panic!("first datagram is {other:?}"),
    };
    assert_eq!(connect_id, ConnectId([0xf0, 0x8d, 0x65, 0x4d]));

    for (bytes, (header, _)) in all.iter().zip(&parsed) {
        let body = &bytes[header.buffer_len()..];
        let seed = checksum::seed(header.peer_id, connect_id);
        // Seeded with zeros for the CONNECT, with the connectID after it.
        assert_eq!(seed == connect_id, header.peer_id != NO_PEER_ID);
        assert_eq!(checksum::verify(header, body, seed, enet_crc32), Ok(()));
        let wrong_seed = ConnectId([seed.0[0] ^ 0x80, seed.0[1], seed.0[2], seed.0[3]]);
        assert_eq!(
            checksum::verify(header, body, wrong_seed, enet_crc32),
            Err(DropReason::BadChecksum)
        );
        // The slot is the big-endian CRC-32 of the datagram with the slot
        // holding the seed, checked here independently of `verify`.
        let mut seeded = bytes.clone();
        let slot = header.checksum_field();
        seeded[slot.clone()].copy_from_slice(&seed.0);
        let crc = crate::wire::crc32::crc32([&seeded[..]]);
        assert_eq!(&bytes[slot], &crc.to_be_bytes());
    }

    // Fragments shrink by the 4-byte slot: 1368 instead of 1372.
    match parsed[5].1[0].1 {
        Command::SendFragment(fragment) => assert_eq!(fragment.data.len(), 1368),
        other => panic!("{other:?}"),
    }
    assert_eq!(all[5].len(), 1400);
}

#[test]
fn compressed_trace_headers_and_plain_datagrams() {
    let mut compressed = 0;
    for capture in COMPRESSED {
        let shown = capture.shown();
        let (header, header_len) = DatagramHeader::parse(&shown, false).unwrap();
        check_header_annotation(&header, capture.annotation);
        assert_eq!(header_len, if header.sent_time.is_some() { 4 } else { 2 });
        assert_eq!(&*header.to_bytes(), &shown[..header_len]);
        if header.compressed {
            compressed += 1;
            // The body is range-coded: only its length can be checked here.
            let datagram = Datagram::parse(&shown, false).unwrap();
            assert!(capture.len > header_len);
            if capture.is_complete() {
                assert_eq!(datagram.body().len(), capture.len - header_len);
            }
        } else {
            parse_exactly(capture, &capture.bytes(false), false);
        }
    }
    assert_eq!(compressed, 10);
}
