//! `engine`: the sans-IO engine fed sequences of steps after a real
//! in-process handshake. Host 0 is a server (4 slots), host 1 its
//! connected client; a virtual clock; a lossy link the input controls.
//!
//! Input: a setup byte (bit 0 checksum, bit 2 bandwidth limits), limits
//! and channel counts, then steps until the input ends (at most [`MAX_STEPS`]):
//!
//! - a datagram of arbitrary bytes, to either host, from its peer or a
//!   stranger;
//! - a datagram of well-formed commands with fuzzed fields, addressed as
//!   the right peer or with a wrong peer id, session or connect id;
//! - a send on a peer and channel (any flags, lengths up to fragmenting);
//! - a time step (small, large, or wrapping);
//! - a service or flush of one host, or of both with the link delivering
//!   what is in flight, minus a fuzzed drop mask;
//! - peer calls: ping, disconnect (now, later), reset, timeouts, throttle,
//!   channel and bandwidth limits, a new connect; draining received
//!   packets with `enet_peer_receive`.
//!
//! After every step [`Pair::check`] asserts the host invariants.

use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, DisconnectEffect, PeerIndex};
use enet::wire::ConnectId;

use crate::commands::{self, Addressing};
use crate::driver::{Pair, STRANGER};
use crate::input::{counting_bytes, Input};

pub const MAX_STEPS: usize = 96;

pub fn run(data: &[u8]) {
    stats(data);
}

/// [`run`], returning the events and the received packets of both hosts.
pub fn stats(data: &[u8]) -> (usize, usize) {
    let mut input = Input::new(data);
    let setup = input.u8();
    let bandwidth = if setup & 4 != 0 {
        (field_small(&mut input), field_small(&mut input))
    } else {
        (0, 0)
    };
    let channel_limit = usize::from(input.u8() % 8);
    let channels = 1 + usize::from(input.u8() % 6);
    let start = input.u32();
    // No compression: under coverage instrumentation the range coder took
    // nine tenths of the time of every run that had it, and the fuzzer
    // favours those runs. The coder has its own target, and `wire_parse`
    // takes compressed datagrams apart.
    let checksum = setup & 1 != 0;
    let mut pair = Pair::new(start, 4, channel_limit, bandwidth, checksum, false);
    let (client_peer, server_peer) = pair.handshake(channels, 0x1234_5678);
    pair.check();
    let mut run = Run {
        pair,
        peers: [server_peer, client_peer],
        base: Box::new([[0; 256]; 2]),
        buffers: Vec::new(),
    };
    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        run.step(&mut input);
        run.pair.check();
    }
    // Wind down: let everything settle, still checking.
    for _ in 0..4 {
        run.pair.step_all(0);
        run.pair.check();
    }
    let sides = &run.pair.sides;
    (
        sides[0].events + sides[1].events,
        sides[0].received.len() + sides[1].received.len(),
    )
}

/// A bandwidth figure: 0 (unlimited) or a plausible or extreme value.
fn field_small(input: &mut Input<'_>) -> u32 {
    match input.u8() % 4 {
        0 => 0,
        1 => u32::from(input.u16()),
        2 => u32::from(input.u16()) * 64,
        _ => input.u32(),
    }
}

struct Run {
    pair: Pair,
    /// The peer slot of the handshake on each host.
    peers: [PeerIndex; 2],
    /// Suggested reliable sequence numbers, per host and channel.
    base: Box<[[u16; 256]; 2]>,
    /// The bytes of every packet sent, kept until the hosts are gone
    /// (fields drop in order: `pair` first).
    buffers: Vec<Vec<u8>>,
}

impl Run {
    /// A peer slot of host `side`: usually the connected one.
    fn peer(&self, input: &mut Input<'_>, side: usize) -> PeerIndex {
        let choice = input.u8();
        let count = self.pair.sides[side].host.peer_count();
        if choice & 0x80 != 0 {
            self.pair.sides[side]
                .host
                .slot(usize::from(choice) % count)
                .expect("a slot below the count")
        } else {
            self.peers[side]
        }
    }

    fn step(&mut self, input: &mut Input<'_>) {
        let op = input.u8();
        let side = usize::from(op >> 7);
        let other = 1 - side;
        match op % 16 {
            0 => {
                // Arbitrary bytes.
                let from = if input.bool() {
                    self.pair.address(other)
                } else {
                    STRANGER
                };
                let bytes = input.blob(4200).to_vec();
                self.pair.receive(side, from, &bytes);
            }
            1..=3 => self.structured(input, side),
            4..=5 => {
                let peer = self.peer(input, side);
                let channel = match input.u8() {
                    c if c & 0x80 != 0 => c,
                    c => c % 8,
                };
                let flags = PacketFlags::from_bits_retain(u32::from(input.u8() & 0x0F));
                let length = match input.u8() % 4 {
                    0 => usize::from(input.u8()),
                    1 => usize::from(input.u16() % 1500),
                    2 => usize::from(input.u16() % 8000),
                    _ => usize::from(input.u16()),
                };
                let data = counting_bytes(length, 253);
                let Some(packet) = PacketRef::new_with_data(&data, flags) else {
                    return;
                };
                let _ = self.pair.sides[side].host.with_peer(peer, |view, terms| {
                    view.send(ChannelId::from(channel), &packet, terms)
                });
                packet.release();
                // With ENET_PACKET_FLAG_NO_ALLOCATE the packet points into
                // `data`, which must then outlive it (as in C).
                self.buffers.push(data);
            }
            6 => {
                let step = match input.u8() % 4 {
                    0 => u32::from(input.u8()),
                    1 => u32::from(input.u16()),
                    2 => u32::from(input.u16()) * 16,
                    _ => input.u32(),
                };
                self.pair.now = self.pair.now.wrapping_add(step);
            }
            7 => {
                let check_timeouts = input.bool();
                self.pair.sides[side].host.bandwidth_throttle(self.pair.now);
                self.pair.service(side, check_timeouts);
            }
            8 | 9 => {
                let drop_mask = if input.bool() { input.u32() } else { 0 };
                let rounds = 1 + input.u8() % 8;
                for _ in 0..rounds {
                    self.pair.step_all(drop_mask);
                    self.pair.now = self.pair.now.wrapping_add(1 + u32::from(input.u8() % 64));
                }
            }
            10 => {
                self.pair
                    .deliver(if input.bool() { input.u32() } else { 0 });
                self.pair.dispatch_all(side);
            }
            11 => {
                let peer = self.peer(input, side);
                self.pair.drain(side, peer);
            }
            12 => {
                let peer = self.peer(input, side);
                let data = input.u32();
                let how = input.u8() % 5;
                let host = &mut self.pair.sides[side].host;
                // As the C driver does: the effect asks for a flush, a
                // reset, or both.
                let effect = match how {
                    0 => {
                        host.with_peer(peer, |view, _| view.ping());
                        DisconnectEffect::Done
                    }
                    1 => host.disconnect(peer, data),
                    2 => host.disconnect_now(peer, data),
                    3 => host.disconnect_later(peer, data),
                    _ => DisconnectEffect::Reset,
                };
                let flush = effect == DisconnectEffect::FlushThenReset;
                let reset = effect.resets();
                if flush {
                    self.pair.service(side, false);
                }
                if reset {
                    self.pair.sides[side].host.reset_peer(peer);
                    self.pair.sides[side].connected[peer.get()] = false;
                }
            }
            13 => {
                let peer = self.peer(input, side);
                let (a, b, c) = (
                    commands::field(input),
                    commands::field(input),
                    commands::field(input),
                );
                let host = &mut self.pair.sides[side].host;
                match input.u8() % 3 {
                    0 => host.with_peer(peer, |view, _| view.set_timeout(a, b, c)),
                    1 => host.with_peer(peer, |view, _| view.throttle_configure(a, b, c)),
                    _ => host.with_peer(peer, |view, _| view.set_ping_interval(a)),
                }
            }
            14 => {
                let host = &mut self.pair.sides[side].host;
                match input.u8() % 3 {
                    0 => host.set_channel_limit(usize::from(input.u8())),
                    1 => {
                        let (a, b) = (field_small(input), field_small(input));
                        host.set_bandwidth_limit(a, b);
                    }
                    _ => {
                        let _ = host.next_deadline(self.pair.now);
                    }
                }
            }
            _ => {
                let to = self.pair.address(other);
                let channels = usize::from(input.u8());
                let data = input.u32();
                let _ = self.pair.sides[side].host.connect(to, channels, data);
            }
        }
    }

    /// A datagram of well-formed commands into host `side`.
    fn structured(&mut self, input: &mut Input<'_>, side: usize) {
        let other = 1 - side;
        let addressing_choice = input.u8();
        // The sender's view of the receiving peer: the peer of `other`
        // whose address is `side`'s.
        let sender_peer = self.peers[other];
        let view = self.pair.sides[other].host.peer(sender_peer);
        let mut addressing = Addressing {
            peer_id: view.outgoingPeerID,
            session_id: view.outgoingSessionID,
            sent_time: (self.pair.now as u16).wrapping_sub(u16::from(input.u8())),
            connect_id: ConnectId::from_native(view.connectID),
        };
        let channels = view.channelCount.clamp(1, 255) as u8;
        match addressing_choice % 8 {
            0 => addressing.peer_id = input.u16() & 0x0FFF,
            1 => addressing.session_id = input.u8() & 3,
            2 => addressing.connect_id = ConnectId(input.u32().to_be_bytes()),
            3 => addressing.peer_id = 0x0FFF,
            _ => {}
        }
        let from = if addressing_choice & 0x80 != 0 {
            STRANGER
        } else {
            self.pair.address(other)
        };
        let count = 1 + usize::from(input.u8() % 6);
        let commands: Vec<_> = (0..count)
            .map(|_| commands::decode(input, channels, &mut self.base[side]))
            .collect();
        let bytes = commands::pack(&addressing, &commands, &mut self.pair.sides[other].codec);
        self.pair.receive(side, from, &bytes);
    }
}
