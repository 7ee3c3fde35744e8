//! A bounded, fixed-seed fuzz run over the parsers: random bytes and
//! mutated captured datagrams. Asserts that nothing panics and that
//! whatever parses re-emits to the same bytes and parses back the same.

use super::captures::{COMPRESSED, CRC, PLAIN};
use crate::wire::builder::MAX_COMMANDS;
use crate::wire::checksum::{self, enet_crc32};
use crate::wire::{
    Command, ConnectId, Datagram, DatagramBuilder, DatagramHeader, DropReason, Envelope,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const ITERATIONS: usize = 200_000;
const SEED: u64 = 0x0065_6e65_742d_7273; // "enet-rs" in ASCII

/// Whole captured datagrams to mutate (the complete ones, rebuilt
/// fragments included).
fn corpus() -> Vec<Vec<u8>> {
    let mut corpus = Vec::new();
    corpus.extend(PLAIN.iter().map(|c| c.bytes(false)));
    corpus.extend(CRC.iter().map(|c| c.bytes(true)));
    corpus.extend(
        COMPRESSED
            .iter()
            .filter(|c| c.is_complete())
            .map(|c| c.shown()),
    );
    corpus
}

fn random_bytes(rng: &mut StdRng) -> Vec<u8> {
    let len = if rng.gen_ratio(1, 50) {
        rng.gen_range(0..1600)
    } else {
        rng.gen_range(0..64)
    };
    let mut bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    // Valid command numbers are 1..=12 out of 16; make them common after a
    // plausible header so that the command parsers see real work.
    for at in [2usize, 4, 8] {
        if let Some(byte) = bytes.get_mut(at) {
            if rng.gen_bool(0.5) {
                *byte = (*byte & 0xf0) | rng.gen_range(1..13);
            }
        }
    }
    bytes
}

fn mutate(rng: &mut StdRng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = corpus[rng.gen_range(0..corpus.len())].clone();
    for _ in 0..rng.gen_range(1..5) {
        let len = bytes.len();
        match rng.gen_range(0..6) {
            0 if len > 0 => {
                let at = rng.gen_range(0..len);
                bytes[at] ^= 1 << rng.gen_range(0..8);
            }
            1 if len > 0 => {
                let at = rng.gen_range(0..len);
                bytes[at] = rng.gen();
            }
            2 => bytes.truncate(rng.gen_range(0..=len)),
            3 => {
                let at = rng.gen_range(0..=len);
                let extra: Vec<u8> = (0..rng.gen_range(1..8)).map(|_| rng.gen()).collect();
                bytes.splice(at..at, extra);
            }
            4 if len > 1 => {
                // Stretch or shrink a 16-bit field, as a bad dataLength would.
                let at = rng.gen_range(0..len - 1);
                let value: u16 = rng.gen();
                bytes[at..at + 2].copy_from_slice(&value.to_be_bytes());
            }
            _ if len > 0 => {
                // Repeat a slice: duplicated commands.
                let start = rng.gen_range(0..len);
                let end = rng.gen_range(start..=len);
                let copy = bytes[start..end].to_vec();
                bytes.extend_from_slice(&copy);
            }
            _ => {}
        }
    }
    bytes
}

/// Every property for one input and one checksum mode.
fn check(bytes: &[u8], has_checksum: bool, seed: ConnectId) {
    let datagram = match Datagram::parse(bytes, has_checksum) {
        Ok(datagram) => datagram,
        Err(reason) => {
            assert_eq!(reason, DropReason::Truncated);
            assert!(bytes.len() < 2 + 2 + 4);
            return;
        }
    };
    let header = *datagram.header();
    assert_eq!(&*header.to_bytes(), datagram.header_bytes());
    assert_eq!(
        DatagramHeader::parse(&header.to_bytes(), has_checksum),
        Ok((header, header.buffer_len()))
    );
    // The checksum is computed over any body without panicking.
    let _ = checksum::verify(&header, datagram.body(), seed, enet_crc32);

    let body = datagram.body();
    let mut commands = datagram.commands();
    let mut parsed = Vec::new();
    let mut offset = 0;
    let mut out = vec![0u8; body.len()];
    for item in commands.by_ref() {
        let (command_header, command) = match item {
            Ok(ok) => ok,
            Err(_) => break,
        };
        let len = command.wire_len();
        assert_eq!(command.emit(&command_header, &mut out), len);
        assert_eq!(
            &out[..len],
            &body[offset..offset + len],
            "emit reproduces the input"
        );
        assert_eq!(
            Command::parse(&out[..len]),
            Ok((command_header, command, len)),
            "parse(emit(x)) == x"
        );
        offset += len;
        parsed.push((command_header, command));
    }
    assert_eq!(commands.offset(), offset);
    match commands.stop_reason() {
        None => assert_eq!(offset, body.len()),
        Some(reason) => {
            assert!(offset < body.len());
            assert!(matches!(
                reason,
                DropReason::TruncatedCommand
                    | DropReason::UnknownCommand
                    | DropReason::PayloadOutOfBounds
            ));
        }
    }

    // What parsed can be packed again (a received datagram may hold more
    // than the 32 commands a sender packs, so in several datagrams) and
    // parses back the same.
    let rebuilt: Vec<Vec<u8>> = parsed
        .chunks(MAX_COMMANDS)
        .map(|chunk| {
            let mut builder = DatagramBuilder::new(u32::MAX);
            for (command_header, command) in chunk {
                builder.push(command_header, command).unwrap();
            }
            let mut crc = enet_crc32;
            builder.finish(Envelope {
                connect_id: seed,
                checksum: has_checksum.then_some(&mut crc as _),
                ..Envelope::plain(header.peer_id, header.session_id, 0)
            })
        })
        .collect();
    let mut reparsed = Vec::new();
    for bytes in &rebuilt {
        let again = Datagram::parse(bytes, has_checksum).unwrap();
        reparsed.extend(again.commands().map(Result::unwrap));
        if has_checksum {
            let seed = checksum::seed(header.peer_id, seed);
            assert_eq!(
                checksum::verify(again.header(), again.body(), seed, enet_crc32),
                Ok(())
            );
        }
    }
    assert_eq!(reparsed, parsed);
}

#[test]
fn parsers_never_panic_and_round_trip() {
    let corpus = corpus();
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut commands_seen = 0usize;
    for iteration in 0..ITERATIONS {
        let bytes = if iteration % 2 == 0 {
            random_bytes(&mut rng)
        } else {
            mutate(&mut rng, &corpus)
        };
        let seed = ConnectId(rng.gen());
        for has_checksum in [false, true] {
            check(&bytes, has_checksum, seed);
        }
        if let Ok(datagram) = Datagram::parse(&bytes, false) {
            commands_seen += datagram.commands().filter(Result::is_ok).count();
        }
    }
    // The run must exercise the command parsers, not only reject headers.
    assert!(
        commands_seen > ITERATIONS / 4,
        "{commands_seen} commands parsed"
    );
}
