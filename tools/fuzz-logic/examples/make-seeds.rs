//! Writes the hand-made seeds of the `engine` and `reassembly` corpora
//! (their step formats are described in `src/engine.rs` and
//! `src/reassembly.rs`), checking each does what it is meant to:
//! `cargo run -p fuzz-logic --example make-seeds -- fuzz/corpus`.
//! The wire seeds come from `fuzz/seeds/extract.py`.

use std::path::Path;

fn write(dir: &Path, target: &str, name: &str, data: &[u8]) {
    let dir = dir.join(target);
    std::fs::create_dir_all(&dir).expect("corpus dir");
    std::fs::write(dir.join(format!("seed-{name}")), data).expect("seed");
}

/// Engine setup: no codec options, channel limit 0, 3 channels, clock.
fn engine_setup(codec: u8) -> Vec<u8> {
    vec![codec, 0, 2, 0, 0, 0x10, 0]
}

/// A send of `len` (< 1500) bytes with `flags` from `side` on `channel`,
/// then `rounds` service rounds of both hosts.
fn send(side: u8, channel: u8, flags: u8, len: u16, rounds: u8) -> Vec<u8> {
    let mut step = vec![4 | (side << 7), 0, channel, flags, 1];
    step.extend_from_slice(&len.to_be_bytes());
    step.extend_from_slice(&[8, 0, rounds - 1]);
    step.extend(std::iter::repeat_n(4, usize::from(rounds)));
    step
}

/// A fragmented send of `len` (< 8000) bytes.
fn send_big(side: u8, channel: u8, flags: u8, len: u16, rounds: u8) -> Vec<u8> {
    let mut step = send(side, channel, flags, len, rounds);
    step[4] = 2;
    step
}

fn fragment(shape: u8, length: u8, count: u8, number: u8, short: u8, fill: u8) -> Vec<u8> {
    vec![shape, length, count, number, short, fill, 2]
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: make-seeds CORPUS_DIR");
    let dir = Path::new(&dir);
    let mut engine: Vec<(&str, Vec<u8>)> = Vec::new();

    for (codec, name) in [(0u8, "plain"), (1, "crc")] {
        let mut seed = engine_setup(codec);
        seed.extend(send(0, 0, 1, 32, 3));
        seed.extend(send(1, 1, 0, 100, 3));
        seed.extend(send(1, 2, 2, 10, 3));
        seed.extend(send_big(0, 0, 1, 5000, 8));
        seed.extend(send_big(1, 1, 8, 3000, 8));
        engine.push((name, seed));
    }
    // Receive with enet_peer_receive instead of events.
    let mut seed = engine_setup(0);
    seed.extend(send(1, 0, 1, 20, 1));
    seed.extend([0x07, 1, 0x0A, 0, 0x0B, 0]);
    engine.push(("peer-receive", seed));
    // Timeouts: a long silence after a reliable send with the link cut.
    let mut seed = engine_setup(0);
    seed.extend([0x04, 0, 0, 1, 0, 10]);
    seed.extend([
        0x08, 1, 0xFF, 0xFF, 0xFF, 0xFF, 7, 63, 63, 63, 63, 63, 63, 63, 63,
    ]);
    seed.extend([0x06, 1, 0x40, 0x00]);
    seed.extend([0x08, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0, 1]);
    engine.push(("timeout", seed));
    // Disconnects: graceful, later, now.
    for (how, name) in [
        (1u8, "disconnect"),
        (3, "disconnect-later"),
        (2, "disconnect-now"),
    ] {
        let mut seed = engine_setup(0);
        seed.extend(send(1, 0, 1, 20, 1));
        seed.extend([0x8C, 0, 0, 0, 0, 7, how]);
        seed.extend([0x08, 0, 5, 1, 1, 1, 1, 1, 1]);
        engine.push((name, seed));
    }
    // Structured datagrams: reliable data, ping, bandwidth, throttle.
    for (number, name) in [
        (6u8, "cmd-reliable"),
        (5, "cmd-ping"),
        (10, "cmd-bandwidth"),
        (11, "cmd-throttle"),
        (4, "cmd-disconnect"),
        (2, "cmd-connect"),
    ] {
        let mut seed = engine_setup(0);
        // op 1 on host 0: addressing as the client, one command.
        seed.extend([0x01, 4, 0, 0]);
        seed.extend([number - 1, 0x01]);
        seed.extend(std::iter::repeat_n([1u8, 7], 12).flatten());
        seed.extend([0, 4, b'd', b'a', b't', b'a']);
        seed.extend([0x08, 0, 1, 1]);
        engine.push((name, seed));
    }
    // A second connection from the client, then a reset.
    let mut seed = engine_setup(0);
    seed.extend([0x8F, 2, 0, 0, 0, 1]);
    seed.extend([0x08, 0, 7, 1, 1, 1, 1, 1, 1, 1, 1]);
    seed.extend([0x0C, 0x81, 0, 0, 0, 0, 4]);
    engine.push(("second-connect", seed));

    for (name, seed) in &engine {
        let (events, received) = fuzz_logic::engine::stats(seed);
        println!("engine/{name}: {events} events, {received} packets");
        write(dir, "engine", name, seed);
    }

    // Reassembly: reliable 3 x 8 bytes in order, reversed, duplicated;
    // unreliable 4 x 16 with a short last one; a mix on two channels.
    let mut reassembly: Vec<(&str, Vec<u8>)> = Vec::new();
    let head = |codec: u8| vec![codec, 0, 0, 0x10, 0];
    let mut seed = head(0);
    seed.push(2);
    seed.extend(fragment(0x08, 7, 2, 0, 0, 0x10));
    seed.extend(fragment(0x00, 7, 2, 1, 0, 0x10));
    seed.extend(fragment(0x00, 7, 2, 2, 0, 0x10));
    seed.push(1);
    reassembly.push(("reliable-in-order", seed));
    let mut seed = head(1);
    seed.push(3);
    seed.extend(fragment(0x08, 7, 2, 2, 0, 0x20));
    seed.extend(fragment(0x00, 7, 2, 1, 0, 0x20));
    seed.extend(fragment(0x00, 7, 2, 1, 0, 0x20));
    seed.extend(fragment(0x00, 7, 2, 0, 0, 0x20));
    seed.push(1);
    reassembly.push(("reliable-reversed-duplicate", seed));
    let mut seed = head(2);
    seed.push(3);
    seed.extend(fragment(0x09, 15, 3, 0, 5, 0x30));
    seed.extend(fragment(0x01, 15, 3, 1, 5, 0x30));
    seed.extend(fragment(0x01, 15, 3, 2, 5, 0x30));
    seed.extend(fragment(0x01, 15, 3, 3, 5, 0x30));
    seed.push(1);
    reassembly.push(("unreliable-short-last", seed));
    let mut seed = head(3);
    seed.push(1);
    seed.extend(fragment(0x0A, 3, 1, 0, 0, 0x40));
    seed.extend(fragment(0x0D, 3, 1, 0, 0, 0x50));
    seed.push(0);
    seed.push(1);
    seed.extend(fragment(0x02, 3, 1, 1, 0, 0x40));
    seed.extend(fragment(0x05, 3, 1, 1, 0, 0x50));
    seed.push(1);
    reassembly.push(("two-channels-two-datagrams", seed));
    for (name, seed) in &reassembly {
        let delivered = fuzz_logic::reassembly::delivered(seed);
        println!("reassembly/{name}: {delivered} packets");
        write(dir, "reassembly", name, seed);
    }
}
