//! `wire_parse`: the datagram header, the command iterator and each
//! command's parser, on arbitrary bytes; the checksum and decompression
//! paths a receiver takes; and the round trips the emitters promise.
//!
//! Input: one mode byte (bit 0: the host uses a checksum; bit 1: the
//! checksum seed is the 4 bytes that follow, else zeros; bit 2: the
//! rebuilt datagram is compressed), then the datagram.

use std::cell::RefCell;

use enet::wire::checksum::{self, enet_crc32};
use enet::wire::command::{Command, CommandHeader};
use enet::wire::range_coder::RangeCoder;
use enet::wire::{ConnectId, Datagram, DatagramBuilder, DatagramHeader, Envelope};

use crate::input::Input;

/// Largest body a receiver decompresses to (ENET_PROTOCOL_MAXIMUM_MTU).
const MAXIMUM_MTU: usize = 4096;

thread_local! {
    static CODER: RefCell<RangeCoder> = RefCell::new(RangeCoder::new());
}

pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let mode = input.u8();
    let has_checksum = mode & 1 != 0;
    let seed = if mode & 2 != 0 {
        ConnectId(input.u32().to_be_bytes())
    } else {
        ConnectId::default()
    };
    let bytes = input.rest();

    check_header(bytes, has_checksum);
    let Ok(datagram) = Datagram::parse(bytes, has_checksum) else {
        return;
    };
    let header = *datagram.header();
    assert_eq!(
        [datagram.header_bytes(), datagram.body()].concat(),
        bytes,
        "header and body split the datagram"
    );

    // The body as the engine would walk it: decompressed first if flagged.
    let mut plain = vec![0u8; MAXIMUM_MTU];
    let body: &[u8] = if header.compressed {
        let len = CODER.with(|coder| coder.borrow_mut().decompress(datagram.body(), &mut plain));
        assert!(len <= plain.len());
        if len == 0 {
            return;
        }
        &plain[..len]
    } else {
        datagram.body()
    };

    // The checksum check is deterministic and agrees with a recomputation.
    let seed = checksum::seed(header.peer_id, seed);
    let verdict = checksum::verify(&header, body, seed, enet_crc32);
    match header.checksum {
        None => assert!(verdict.is_ok()),
        Some(slot) => {
            let expected = checksum::compute(&header, body, seed, enet_crc32);
            assert_eq!(verdict.is_ok(), slot == expected);
        }
    }

    let commands = check_commands(body);
    rebuild(&header, seed, &commands, mode & 4 != 0);
}

/// Header parse/emit: every bit survives, and emit refuses short output.
fn check_header(bytes: &[u8], has_checksum: bool) {
    match DatagramHeader::parse(bytes, has_checksum) {
        Ok((header, len)) => {
            assert!(len <= bytes.len() && len == header.buffer_len());
            assert_eq!(header.checksum.is_some(), has_checksum);
            assert!(header.peer_id <= 0x0FFF && header.session_id <= 3);
            let mut out = [0u8; 8];
            assert_eq!(header.emit(&mut out), len);
            assert_eq!(&out[..len], &bytes[..len], "header round trip");
            assert_eq!(&*header.to_bytes(), &bytes[..len]);
            let mut short = vec![0xA5u8; len - 1];
            assert_eq!(header.emit(&mut short), 0);
            assert!(short.iter().all(|&b| b == 0xA5), "a refused emit wrote");
        }
        Err(_) => {
            // Only a datagram too short for the header it announces fails.
            assert!(bytes.len() < 8);
        }
    }
}

/// Walks the commands; each parsed command emits back to exactly the bytes
/// it was parsed from. Returns the commands (owned copies).
fn check_commands(body: &[u8]) -> Vec<(CommandHeader, Vec<u8>)> {
    let mut commands = body_commands(body);
    let mut out = Vec::new();
    let mut offset = 0usize;
    for item in commands.by_ref() {
        let Ok((header, command)) = item else {
            assert_eq!(commands.offset(), offset);
            break;
        };
        let len = command.wire_len();
        let original = &body[offset..offset + len];
        let mut emitted = vec![0u8; len];
        assert_eq!(command.emit(&header, &mut emitted), len);
        assert_eq!(emitted, original, "command round trip");
        let (header_again, command_again, consumed) =
            Command::parse(&emitted).expect("an emitted command parses");
        assert_eq!(
            (header_again, command_again, consumed),
            (header, command, len)
        );
        // Emitting into too short a buffer writes nothing.
        let mut short = vec![0xA5u8; len - 1];
        assert_eq!(command.emit(&header, &mut short), 0);
        assert!(short.iter().all(|&b| b == 0xA5), "a refused emit wrote");
        offset += len;
        out.push((header, emitted));
    }
    if commands.stop_reason().is_none() {
        assert_eq!(offset, body.len(), "the iterator stopped silently");
    } else {
        assert!(offset < body.len());
    }
    out
}

fn body_commands(body: &[u8]) -> enet::wire::Commands<'_> {
    enet::wire::Commands::new(body)
}

/// Packs the parsed commands into a new datagram (with checksum and
/// compression) and parses that back: same commands, checksum verifies.
fn rebuild(
    header: &DatagramHeader,
    seed: ConnectId,
    commands: &[(CommandHeader, Vec<u8>)],
    compress: bool,
) {
    let mut builder = DatagramBuilder::new(MAXIMUM_MTU as u32);
    let mut packed = Vec::new();
    for (command_header, bytes) in commands {
        let (_, command, _) = Command::parse(bytes).expect("reparse");
        if builder.push(command_header, &command).is_err() {
            break;
        }
        packed.extend_from_slice(bytes);
    }
    assert_eq!(builder.body(), &packed[..]);
    if builder.is_empty() {
        return;
    }
    let checksum_on = header.checksum.is_some();
    let mut checksum_fn = |parts: &[&[u8]]| enet_crc32(parts);
    let sent = CODER.with(|coder| {
        let mut coder = coder.borrow_mut();
        let mut compressor = |input: &[u8], out: &mut [u8]| coder.compress(&[input], out);
        builder.finish(Envelope {
            peer_id: header.peer_id,
            session_id: header.session_id,
            sent_time: header.sent_time.unwrap_or(0),
            connect_id: seed,
            checksum: checksum_on.then_some(&mut checksum_fn as _),
            compressor: if compress {
                Some(&mut compressor)
            } else {
                None
            },
        })
    });
    let datagram = Datagram::parse(&sent, checksum_on).expect("a built datagram parses");
    let again = *datagram.header();
    assert_eq!(again.peer_id, header.peer_id);
    if header.peer_id != 0x0FFF {
        assert_eq!(again.session_id, header.session_id);
    }
    let mut plain = vec![0u8; MAXIMUM_MTU];
    let body: &[u8] = if again.compressed {
        let len = CODER.with(|coder| coder.borrow_mut().decompress(datagram.body(), &mut plain));
        &plain[..len]
    } else {
        datagram.body()
    };
    assert_eq!(body, &packed[..], "built body survives compression");
    let seed = checksum::seed(again.peer_id, seed);
    assert!(checksum::verify(&again, body, seed, enet_crc32).is_ok());
}
