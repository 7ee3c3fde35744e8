//! `netsim`: two engine hosts talking through the network conditioner's
//! model (`enet-netsim`'s [`Link`], one per direction) on a virtual clock,
//! with corruption and duplication always on and loss, reordering, lag,
//! jitter and a rate cap as the input says; and the conditioner's spec
//! text, fuzzed.
//!
//! Input: a spec of up to 64 bytes (parsed; it must never panic, and what
//! it accepts must make a conditioner), a setup byte (bit 0: checksums),
//! the two directions' settings and a seed, then steps until the input
//! ends (at most [`MAX_STEPS`]): reliable or unreliable sends either way,
//! time steps, and service rounds that pass every datagram through its
//! direction's link.
//!
//! Properties, beside the engine's invariants ([`Pair::check`] after every
//! step): with checksums on, no corrupted or duplicated message reaches
//! either side: reliable messages arrive in order, each once and whole,
//! and unreliable ones each at most once and whole. Without checksums a
//! flipped bit may reach the program, as on stock ENet; only the
//! invariants hold then.

use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, PeerIndex};
use netsim::{Link, Profile};

use crate::driver::Pair;
use crate::input::Input;

pub const MAX_STEPS: usize = 128;

pub fn run(data: &[u8]) {
    stats(data);
}

/// [`run`], returning the messages both hosts received and the datagrams
/// the links corrupted and duplicated.
pub fn stats(data: &[u8]) -> (usize, u64, u64) {
    let mut input = Input::new(data);
    let spec = input.blob(64);
    if let Ok(Some(spec)) = netsim::spec::parse(&String::from_utf8_lossy(spec)) {
        let mut link = Link::new(spec.outgoing, spec.seed.unwrap_or(0));
        link.admit(0, &[1, 2, 3], ());
        while link.pop_due(u64::MAX).is_some() {}
    }
    let setup = input.u8();
    let checksum = setup & 1 != 0;
    let profiles = [profile(&mut input), profile(&mut input)];
    let seed = u64::from(input.u32());
    let mut pair = Pair::new(1000, 2, 0, (0, 0), checksum, false);
    let (client_peer, server_peer) = pair.handshake(2, 7);
    pair.check();
    let mut run = Run {
        pair,
        peers: [server_peer, client_peer],
        // Host 0 to 1, and 1 to 0.
        links: [Link::new(profiles[0], seed), Link::new(profiles[1], !seed)],
        sent: [0, 0],
        unreliable_sent: [0, 0],
    };
    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        run.step(&mut input);
        run.pair.check();
    }
    for _ in 0..8 {
        run.round();
        run.pair.now = run.pair.now.wrapping_add(50);
        run.pair.check();
    }
    if checksum {
        run.check_deliveries();
    }
    let [a, b] = [run.links[0].stats(), run.links[1].stats()];
    (
        run.pair.sides.iter().map(|side| side.received.len()).sum(),
        a.corrupted + b.corrupted,
        a.duplicated + b.duplicated,
    )
}

/// One direction's impairments: corruption and duplication always, the
/// rest as the input says.
fn profile(input: &mut Input<'_>) -> Profile {
    let share = |byte: u8, max: f64| f64::from(byte) / 255.0 * max;
    Profile {
        corrupt: share(input.u8(), 0.5).max(0.02),
        duplicate: share(input.u8(), 0.5).max(0.02),
        loss: share(input.u8(), 0.3),
        burst: f64::from(input.u8() % 8),
        reorder: share(input.u8(), 0.3),
        reorder_delay_ms: u32::from(input.u8() % 64),
        delay_ms: u32::from(input.u8() % 64),
        jitter_ms: u32::from(input.u8() % 32),
        in_order: input.bool(),
        bandwidth: match input.u8() % 4 {
            0 => u64::from(input.u16()) * 16,
            _ => 0,
        },
        queue_bytes: 1 + usize::from(input.u16()),
        mtu: 0,
    }
}

/// The bytes of message `number` from `side`, `length` long (at least the
/// 5-byte tag: side and number).
fn message(side: usize, number: u32, length: usize) -> Vec<u8> {
    let mut bytes = vec![side as u8];
    bytes.extend_from_slice(&number.to_le_bytes());
    bytes.extend((5..length.max(5)).map(|i| (i as u32 ^ number.wrapping_mul(31)) as u8));
    bytes
}

struct Run {
    pair: Pair,
    /// The connected peer slot on each host.
    peers: [PeerIndex; 2],
    links: [Link<()>; 2],
    /// Reliable and unreliable messages each side has sent.
    sent: [u32; 2],
    unreliable_sent: [u32; 2],
}

impl Run {
    fn step(&mut self, input: &mut Input<'_>) {
        let op = input.u8();
        let side = usize::from(op >> 7);
        match op % 4 {
            0 | 1 => {
                let reliable = op & 3 == 0;
                // Unreliable messages fit one datagram: a larger one would
                // travel as reliable fragments.
                let length = 5 + usize::from(input.u16() % if reliable { 3000 } else { 1000 });
                let (channel, number) = if reliable {
                    self.sent[side] += 1;
                    (0, self.sent[side] - 1)
                } else {
                    self.unreliable_sent[side] += 1;
                    (1, self.unreliable_sent[side] - 1)
                };
                let data = message(side, number, length);
                let flags = if reliable {
                    PacketFlags::RELIABLE
                } else {
                    PacketFlags::NONE
                };
                let Some(packet) = PacketRef::new_with_data(&data, flags) else {
                    return;
                };
                let _ = self.pair.sides[side]
                    .host
                    .with_peer(self.peers[side], |peer, terms| {
                        peer.send(ChannelId::from(channel), &packet, terms)
                    });
                packet.release();
            }
            2 => {
                self.pair.now = self.pair.now.wrapping_add(u32::from(input.u8() % 128));
            }
            _ => {
                for _ in 0..1 + input.u8() % 8 {
                    self.round();
                    self.pair.now = self.pair.now.wrapping_add(1 + u32::from(input.u8() % 32));
                }
            }
        }
    }

    /// Both hosts send; what they sent enters its link; what each link
    /// has due arrives; both dispatch.
    fn round(&mut self) {
        for index in 0..2 {
            self.pair.service(index, true);
        }
        let now_us = u64::from(self.pair.now.wrapping_sub(1000)) * 1000;
        for datagram in std::mem::take(&mut self.pair.in_flight) {
            self.links[datagram.from].admit(now_us, &datagram.bytes, ());
        }
        for from in 0..2 {
            let address = self.pair.address(from);
            while let Some(((), bytes)) = self.links[from].pop_due(now_us) {
                self.pair.receive(1 - from, address, &bytes);
            }
        }
        for index in 0..2 {
            self.pair.dispatch_all(index);
        }
    }

    /// With checksums on: every message whole, reliable ones in order and
    /// each once, unreliable ones at most once.
    fn check_deliveries(&self) {
        for (side, received) in self.pair.sides.iter().enumerate() {
            let from = 1 - side;
            let mut next_reliable = 0;
            let mut last_unreliable: Option<u32> = None;
            for (_, channel, bytes) in &received.received {
                assert!(bytes.len() >= 5, "a message shorter than its tag");
                assert_eq!(usize::from(bytes[0]), from, "a message from the wrong side");
                let number = u32::from_le_bytes(bytes[1..5].try_into().unwrap());
                assert_eq!(
                    *bytes,
                    message(from, number, bytes.len()),
                    "a damaged message"
                );
                if *channel == 0 {
                    assert_eq!(number, next_reliable, "reliable out of order or twice");
                    next_reliable += 1;
                } else {
                    assert!(
                        last_unreliable.is_none_or(|last| number > last),
                        "an unreliable message twice or out of sequence"
                    );
                    last_unreliable = Some(number);
                }
            }
            assert!(next_reliable <= self.sent[from]);
        }
    }
}

#[cfg(test)]
mod tests {
    /// A run with checksums, many sends and service rounds: messages get
    /// through while the links corrupt and duplicate.
    #[test]
    fn traffic_flows_through_corruption_and_duplication() {
        let mut data = vec![0, 0, 1];
        for _ in 0..2 {
            // corrupt, dup, loss, burst, reorder, its delay, lag, jitter,
            // in order, no rate cap, queue
            data.extend_from_slice(&[100, 100, 0, 0, 0, 0, 2, 2, 1, 1, 0, 100]);
        }
        data.extend_from_slice(&[0, 0, 0, 9]);
        for i in 0..60u8 {
            data.extend_from_slice(&[i % 2 * 0x80, 0, 200]);
            data.extend_from_slice(&[3, 4, 5, 5, 5, 5]);
        }
        let (received, corrupted, duplicated) = super::stats(&data);
        assert!(received > 30, "{received}");
        assert!(
            corrupted > 10 && duplicated > 10,
            "{corrupted} {duplicated}"
        );
    }
}
