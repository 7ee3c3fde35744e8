//! Commands not in the captured session, from a second capture against
//! Debian's stock libenet 1.3.17 (two hosts on loopback with an intercept
//! callback printing each datagram; `enet_host_bandwidth_limit(client,
//! 100000, 200000)`, `enet_peer_throttle_configure(peer, 3000, 3, 4)`,
//! `enet_peer_disconnect_now(peer, 0x77)`), and the edges of parse/emit.

use super::captures::from_hex;
use crate::wire::command::{number, COMMAND_HEADER_LEN};
use crate::wire::{command_size, Command, CommandFlags, CommandHeader, Datagram, DropReason};

/// Parses a whole datagram (no checksum) that must hold exactly one
/// command, checks the re-emitted bytes and returns the command.
fn only_command(bytes: &[u8]) -> (CommandHeader, Command<'_>) {
    let datagram = Datagram::parse(bytes, false).unwrap();
    let mut commands = datagram.commands();
    let (header, command) = commands.next().unwrap().unwrap();
    assert!(commands.next().is_none());
    assert_eq!(commands.stop_reason(), None);
    let mut out = vec![0u8; command.wire_len()];
    assert_eq!(command.emit(&header, &mut out), datagram.body().len());
    assert_eq!(out, datagram.body());
    (header, command)
}

#[test]
fn stock_bandwidth_limit() {
    let bytes = from_hex("80000c9c8aff00040000000000030d40");
    let (header, command) = only_command(&bytes);
    assert_eq!(header.flags, CommandFlags::ACKNOWLEDGE);
    assert_eq!(header.channel_id, 0xff);
    assert_eq!(header.reliable_sequence_number, 4);
    assert_eq!(
        command,
        Command::BandwidthLimit {
            incoming_bandwidth: 0,
            outgoing_bandwidth: 200_000
        }
    );
}

#[test]
fn stock_throttle_configure() {
    let bytes = from_hex("8000137c8bff000800000bb80000000300000004");
    let (header, command) = only_command(&bytes);
    assert_eq!(header.reliable_sequence_number, 8);
    assert_eq!(
        command,
        Command::ThrottleConfigure {
            packet_throttle_interval: 3000,
            packet_throttle_acceleration: 3,
            packet_throttle_deceleration: 4
        }
    );
}

#[test]
fn stock_disconnect_now_is_unsequenced() {
    let bytes = from_hex("000044ff000900000077");
    let (header, command) = only_command(&bytes);
    assert_eq!(header.flags, CommandFlags::UNSEQUENCED);
    assert_eq!(header.reliable_sequence_number, 9);
    assert_eq!(command, Command::Disconnect { data: 0x77 });
}

#[test]
fn unused_flag_bits_survive_a_round_trip() {
    // Stock ignores bits 0x30 of the command byte; we keep them.
    let bytes = [0xb5, 0x07, 0x12, 0x34];
    let (header, command, consumed) = Command::parse(&bytes).unwrap();
    assert_eq!(consumed, 4);
    assert_eq!(command, Command::Ping);
    assert!(header.flags.contains(CommandFlags::ACKNOWLEDGE));
    assert!(!header.flags.contains(CommandFlags::UNSEQUENCED));
    assert_eq!(header.flags.bits(), 0xb0);
    let mut out = [0u8; 4];
    assert_eq!(command.emit(&header, &mut out), 4);
    assert_eq!(out, bytes);
}

/// One command of each kind, as the engine would build them.
fn one_of_each(data: &[u8]) -> Vec<Command<'_>> {
    use crate::wire::{ConnectFields, ConnectId, Fragment};
    let fields = ConnectFields {
        outgoing_peer_id: 0x0123,
        incoming_session_id: 1,
        outgoing_session_id: 2,
        mtu: 1400,
        window_size: 32768,
        channel_count: 255,
        incoming_bandwidth: 1,
        outgoing_bandwidth: 2,
        packet_throttle_interval: 5000,
        packet_throttle_acceleration: 2,
        packet_throttle_deceleration: 2,
        connect_id: ConnectId([1, 2, 3, 4]),
    };
    let fragment = Fragment {
        start_sequence_number: 7,
        fragment_count: 3,
        fragment_number: 1,
        total_length: 3000,
        fragment_offset: 1372,
        data,
    };
    vec![
        Command::Acknowledge {
            received_reliable_sequence_number: 0xfffe,
            received_sent_time: 0x1234,
        },
        Command::Connect { fields, data: 42 },
        Command::VerifyConnect(fields),
        Command::Disconnect { data: 0xdead_beef },
        Command::Ping,
        Command::SendReliable { data },
        Command::SendUnreliable {
            unreliable_sequence_number: 9,
            data,
        },
        Command::SendFragment(fragment),
        Command::SendUnsequenced {
            unsequenced_group: 0xffff,
            data,
        },
        Command::BandwidthLimit {
            incoming_bandwidth: u32::MAX,
            outgoing_bandwidth: 0,
        },
        Command::ThrottleConfigure {
            packet_throttle_interval: 1,
            packet_throttle_acceleration: 2,
            packet_throttle_deceleration: 3,
        },
        Command::SendUnreliableFragment(fragment),
    ]
}

#[test]
fn every_kind_round_trips_with_its_documented_size() {
    let header = CommandHeader {
        flags: CommandFlags::ACKNOWLEDGE,
        channel_id: 3,
        reliable_sequence_number: 0xabcd,
    };
    let commands = one_of_each(b"payload");
    assert_eq!(commands.len(), usize::from(number::COUNT) - 1);
    for (index, command) in commands.iter().enumerate() {
        assert_eq!(usize::from(command.number()), index + 1);
        let payload_len = command.payload().map_or(0, <[u8]>::len);
        assert_eq!(
            command.wire_len(),
            command_size(command.number()) + payload_len
        );
        let mut out = vec![0u8; command.wire_len() + 3];
        assert_eq!(command.emit(&header, &mut out), command.wire_len());
        // The command header is the same for every kind.
        assert_eq!(
            out[..COMMAND_HEADER_LEN],
            [0x80 | command.number(), 3, 0xab, 0xcd]
        );
        let (parsed_header, parsed, consumed) = Command::parse(&out).unwrap();
        assert_eq!(
            (parsed_header, parsed, consumed),
            (header, *command, command.wire_len())
        );
    }
}

#[test]
fn every_truncation_of_every_kind_is_refused() {
    let header = CommandHeader::default();
    for command in one_of_each(b"xyz") {
        let mut bytes = vec![0u8; command.wire_len()];
        command.emit(&header, &mut bytes);
        let fixed = command.fixed_len();
        for len in 0..bytes.len() {
            let expected = if len < fixed {
                DropReason::TruncatedCommand
            } else {
                DropReason::PayloadOutOfBounds
            };
            assert_eq!(
                Command::parse(&bytes[..len]),
                Err(expected),
                "{command:?} at {len}"
            );
        }
    }
}

#[test]
fn unknown_numbers_are_refused_before_the_size_check() {
    for byte in [0x00, 0x0d, 0x0e, 0x0f, 0xc0, 0xfd] {
        assert_eq!(
            Command::parse(&[byte, 0, 0, 0]),
            Err(DropReason::UnknownCommand)
        );
    }
}

#[test]
fn emit_refuses_short_output_and_unencodable_payloads() {
    let header = CommandHeader::default();
    let command = Command::SendReliable { data: b"hello" };
    let mut out = vec![0xeeu8; command.wire_len() - 1];
    assert_eq!(command.emit(&header, &mut out), 0);
    assert!(out.iter().all(|&b| b == 0xee), "nothing written");

    let huge = vec![0u8; usize::from(u16::MAX) + 1];
    let command = Command::SendUnreliable {
        unreliable_sequence_number: 0,
        data: &huge,
    };
    let mut out = vec![0u8; command.wire_len()];
    assert_eq!(command.emit(&header, &mut out), 0);

    let largest = &huge[..usize::from(u16::MAX)];
    let command = Command::SendReliable { data: largest };
    let mut out = vec![0u8; command.wire_len()];
    assert_eq!(command.emit(&header, &mut out), 6 + 65535);
    assert_eq!(Command::parse(&out).unwrap().1, command);
}

/// The fixed-offset path for ordinary traffic gives exactly what the
/// field-by-field parse gives (command, length or refusal) for every
/// command kind, every length up to past the payload, and arbitrary bytes.
#[test]
fn the_traffic_fast_path_agrees_with_the_full_parse() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for command_byte in [0x01, 0x81, 0x06, 0x86, 0x07, 0x47, 0x08, 0x02, 0x0d, 0x00] {
        for payload_length in [0u16, 1, 5, 300] {
            let mut bytes = vec![command_byte, 3, 0x12, 0x34, 0xAB, 0xCD];
            bytes.extend_from_slice(&payload_length.to_be_bytes());
            bytes.extend((0..400u16).map(|at| at as u8));
            for cut in 0..bytes.len().min(320) {
                inputs.push(bytes[..cut].to_vec());
            }
        }
    }
    let mut state = 0x9E37_79B9u32;
    for _ in 0..20_000 {
        let length = (state % 40) as usize;
        let bytes: Vec<u8> = (0..length)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state as u8
            })
            .collect();
        inputs.push(bytes);
    }
    for bytes in &inputs {
        assert_eq!(
            Command::parse(bytes),
            Command::parse_any(bytes),
            "bytes {bytes:02x?}"
        );
    }
}
