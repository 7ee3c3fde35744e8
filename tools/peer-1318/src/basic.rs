//! Scenario `basic`: both sides send each other the same traffic.
//!
//! * ch0: 200 small reliable (in order, exactly once; seq 77 over the
//!   caller's buffer, every 50th 3000 bytes so fragmented), then 1 MiB
//!   reliable, then FIN;
//! * ch1: 200 small unreliable (seq 100 of 3000 bytes without
//!   `UNRELIABLE_FRAGMENT`, which ENet sends reliably), then 64 KiB and
//!   1 MiB with `UNRELIABLE_FRAGMENT`;
//! * ch2: 200 small unsequenced (seq 100 of 2500 bytes, sent reliably).
//!
//! The server answers the client's FIN with ACKFIN (ch2, reliable); the
//! client disconnects with data once it has both FIN and ACKFIN.

use std::time::{Duration, Instant};

use rusty_enet::consts::{
    PEER_PACKET_THROTTLE_ACCELERATION, PEER_PACKET_THROTTLE_INTERVAL, PEER_PACKET_THROTTLE_SCALE,
};
use rusty_enet::{EventNoRef, Packet, PacketKind, PeerID, PeerState};

use crate::msg::{self, kind, Msg, CLIENT_TAG, SERVER_TAG};
use crate::net::{self, flag, EnetHost};
use crate::Options;

const CHANNELS: usize = 3;
const SMALL: u32 = 200;
const BATCH: u32 = 10;
const FORCED_SEQ: u32 = 100;
const NOALLOC_SEQ: u32 = 77;
const BIG_LEN: usize = 1024 * 1024;
const MED_LEN: usize = 64 * 1024;
const CONNECT_DATA: u32 = 0x1234_5678;
const DISCONNECT_DATA: u32 = 0xD15C_0001;
/// Unreliable and unsequenced delivery is not guaranteed; on an idle
/// loopback link stock delivers all of it, so demand at least this much.
const MIN_RATIO_PERCENT: u32 = 50;

const RELIABLE: PacketKind = PacketKind::Reliable;
const UNRELIABLE: PacketKind = PacketKind::Unreliable { sequenced: true };
const UNSEQUENCED: PacketKind = PacketKind::Unreliable { sequenced: false };
/// `ENET_PACKET_FLAG_UNRELIABLE_FRAGMENT` (sequenced).
const UNRELIABLE_FRAGMENT: PacketKind = PacketKind::AlwaysUnreliable { sequenced: true };

struct Basic {
    peer: Option<PeerID>,
    mine: u8,
    theirs: u8,
    // sending
    sent_small: u32,
    next_batch: Instant,
    batch: Duration,
    sent_tail: bool,
    /// The peer's packet throttle when each batch is queued: below the
    /// full scale a sender drops that share of its unreliable packets,
    /// which explains a low delivery share on the other side.
    throttle_sum: u64,
    throttle_min: u32,
    batches: u32,
    // receiving
    ch0_next: u32,
    big_fnv: u32,
    got_ackfin: bool,
    sent_ackfin: bool,
    ch1_last: Option<u32>,
    ch1_count: u32,
    ch1_forced: bool,
    med_frag: bool,
    big_frag: bool,
    ch2_count: u32,
    ch2_forced: bool,
    ch2_seen: [bool; SMALL as usize],
}

fn rel_len(seq: u32) -> usize {
    if seq % 50 == 25 {
        3000
    } else {
        msg::small_len(seq)
    }
}

impl Basic {
    fn send_batch(&mut self, host: &mut EnetHost, peer: PeerID) {
        let end = (self.sent_small + BATCH).min(SMALL);
        for seq in self.sent_small..end {
            let m = net::msg(kind::REL, self.mine, 0, seq);
            if seq == NOALLOC_SEQ {
                send_over_own_buffer(host, peer, m);
            } else {
                net::send_message(host, peer, m, rel_len(seq), RELIABLE);
            }
            let (unrel_len, unseq_len) = if seq == FORCED_SEQ {
                (3000, 2500)
            } else {
                (msg::small_len(seq), msg::small_len(seq))
            };
            let m = net::msg(kind::UNREL, self.mine, 1, seq);
            net::send_message(host, peer, m, unrel_len, UNRELIABLE);
            let m = net::msg(kind::UNSEQ, self.mine, 2, seq);
            net::send_message(host, peer, m, unseq_len, UNSEQUENCED);
        }
        self.sent_small = end;
    }

    fn send_tail(&mut self, host: &mut EnetHost, peer: PeerID) {
        let tail = [
            (kind::FRAG_MED, 1, SMALL, MED_LEN, UNRELIABLE_FRAGMENT),
            (kind::FRAG_BIG, 1, SMALL + 1, BIG_LEN, UNRELIABLE_FRAGMENT),
            (kind::BIG_REL, 0, SMALL, BIG_LEN, RELIABLE),
            (kind::FIN, 0, SMALL + 1, 40, RELIABLE),
        ];
        for (k, channel, seq, len, packet_kind) in tail {
            let m = net::msg(k, self.mine, channel, seq);
            net::send_message(host, peer, m, len, packet_kind);
        }
        self.sent_tail = true;
    }

    fn pump(&mut self, host: &mut EnetHost, peer: PeerID) {
        let now = Instant::now();
        if self.sent_small < SMALL {
            if now >= self.next_batch {
                let throttle = net::packet_throttle(host, peer).unwrap_or(0);
                if self.batches == 0 || throttle < self.throttle_min {
                    self.throttle_min = throttle;
                }
                self.batches += 1;
                self.throttle_sum += u64::from(throttle);
                self.send_batch(host, peer);
                self.next_batch = now + self.batch;
            }
        } else if !self.sent_tail {
            self.send_tail(host, peer);
        }
    }

    fn receive_ch0(&mut self, packet: &Packet, m: &Msg) {
        let want_kind = match self.ch0_next {
            n if n < SMALL => kind::REL,
            n if n == SMALL => kind::BIG_REL,
            n if n == SMALL + 1 => kind::FIN,
            _ => 0,
        };
        if m.kind != want_kind || m.seq != self.ch0_next {
            fail!(
                "ch0: got kind {} seq {}, expected kind {want_kind} seq {} (reliable order broken)",
                m.kind,
                m.seq,
                self.ch0_next
            );
        }
        net::expect_flags(packet, flag::RELIABLE, "ch0 reliable");
        if m.kind == kind::BIG_REL {
            self.big_fnv = msg::fnv1a(packet.data());
        }
        self.ch0_next += 1;
    }

    fn receive_ch1(&mut self, packet: &Packet, m: &Msg) {
        if let Some(last) = self.ch1_last.filter(|&last| m.seq <= last) {
            fail!(
                "ch1: seq {} after seq {last} (unreliable out of order or duplicated)",
                m.seq
            );
        }
        self.ch1_last = Some(m.seq);
        if m.kind == kind::UNREL && m.seq < SMALL {
            if m.seq == FORCED_SEQ {
                net::expect_flags(packet, flag::RELIABLE, "ch1 unreliable larger than the MTU");
                self.ch1_forced = true;
            } else {
                net::expect_flags(packet, 0, "ch1 unreliable");
                self.ch1_count += 1;
            }
        } else if m.kind == kind::FRAG_MED && m.seq == SMALL {
            net::expect_flags(packet, flag::UNRELIABLE_FRAGMENT, "ch1 64 KiB fragment");
            self.med_frag = true;
        } else if m.kind == kind::FRAG_BIG && m.seq == SMALL + 1 {
            net::expect_flags(packet, flag::UNRELIABLE_FRAGMENT, "ch1 1 MiB fragment");
            self.big_frag = true;
        } else {
            fail!("ch1: unexpected kind {} seq {}", m.kind, m.seq);
        }
    }

    fn receive_ch2(&mut self, packet: &Packet, m: &Msg) {
        if m.kind == kind::ACKFIN {
            net::expect_flags(packet, flag::RELIABLE, "ch2 ACKFIN");
            if self.got_ackfin {
                fail!("ch2: ACKFIN received twice");
            }
            self.got_ackfin = true;
            return;
        }
        if m.kind != kind::UNSEQ || m.seq >= SMALL {
            fail!("ch2: unexpected kind {} seq {}", m.kind, m.seq);
        }
        let seen = &mut self.ch2_seen[m.seq as usize];
        if *seen {
            fail!("ch2: unsequenced seq {} delivered twice", m.seq);
        }
        *seen = true;
        if m.seq == FORCED_SEQ {
            net::expect_flags(
                packet,
                flag::RELIABLE,
                "ch2 unsequenced larger than the MTU",
            );
            self.ch2_forced = true;
        } else {
            net::expect_flags(packet, flag::UNSEQUENCED, "ch2 unsequenced");
            self.ch2_count += 1;
        }
    }

    fn receive(&mut self, from: PeerID, channel: u8, packet: &Packet) {
        if Some(from) != self.peer {
            fail!("packet from an unknown peer");
        }
        let m = net::expect_intact(packet, channel);
        if m.sender != self.theirs {
            fail!(
                "packet claims sender '{}', expected '{}'",
                char::from(m.sender),
                char::from(self.theirs)
            );
        }
        match channel {
            0 => self.receive_ch0(packet, &m),
            1 => self.receive_ch1(packet, &m),
            2 => self.receive_ch2(packet, &m),
            _ => fail!("packet on channel {channel} of {CHANNELS}"),
        }
    }

    fn report(&self) {
        let counted = SMALL - 1;
        let delivered_min = counted * MIN_RATIO_PERCENT / 100;
        let yes = |b| if b { "yes" } else { "lost" };
        note!(
            "delivered: ch1 unreliable {}/{counted}, ch2 unsequenced {}/{counted}, \
             64 KiB fragment {}, 1 MiB fragment {}",
            self.ch1_count,
            self.ch2_count,
            yes(self.med_frag),
            yes(self.big_frag)
        );
        let mean = match self.batches {
            0 => 0.0,
            n => self.throttle_sum as f64 / f64::from(n),
        };
        note!(
            "packetThrottle when queueing the {} batches: mean {mean:.1}/{PEER_PACKET_THROTTLE_SCALE}, min {}",
            self.batches,
            self.throttle_min
        );
        if self.ch0_next != SMALL + 2 {
            fail!("ch0 stream incomplete: next seq {}", self.ch0_next);
        }
        say!(
            "ch0 reliable: {SMALL} packets in order, exactly once, intact, flags=0x{:x}",
            flag::RELIABLE
        );
        say!(
            "ch0 reliable 1 MiB: length={BIG_LEN} fnv1a={:08x}, then FIN in order",
            self.big_fnv
        );
        if !self.ch1_forced {
            fail!("ch1 unreliable packet larger than the MTU (sent reliably) never arrived");
        }
        say!(
            "ch1 unreliable larger than MTU without UNRELIABLE_FRAGMENT: delivered, flags=0x{:x}",
            flag::RELIABLE
        );
        if self.ch1_count < delivered_min {
            fail!(
                "ch1 unreliable: only {} of {counted} delivered",
                self.ch1_count
            );
        }
        say!("ch1 unreliable: in order, intact, no duplicates, flags=0x0, delivered >= {MIN_RATIO_PERCENT}%");
        say!(
            "ch1 UNRELIABLE_FRAGMENT 64 KiB and 1 MiB: in order and intact when delivered, flags=0x{:x}",
            flag::UNRELIABLE_FRAGMENT
        );
        if !self.ch2_forced {
            fail!("ch2 unsequenced packet larger than the MTU (sent reliably) never arrived");
        }
        say!(
            "ch2 unsequenced larger than MTU: delivered, flags=0x{:x}",
            flag::RELIABLE
        );
        if self.ch2_count < delivered_min {
            fail!(
                "ch2 unsequenced: only {} of {counted} delivered",
                self.ch2_count
            );
        }
        say!(
            "ch2 unsequenced: intact, no duplicates, flags=0x{:x}, delivered >= {MIN_RATIO_PERCENT}%",
            flag::UNSEQUENCED
        );
    }
}

/// peer.c sends seq 77 with `NO_ALLOCATE` from its own buffer and checks
/// that the packet uses it. rusty_enet wraps every packet around the
/// caller's buffer (it creates them all with `NO_ALLOCATE` and gives the
/// buffer back when ENet frees the packet), so the honest equivalent is the
/// same check on this one packet: its data is the very buffer handed over.
fn send_over_own_buffer(host: &mut EnetHost, peer: PeerID, m: Msg) {
    let data = msg::build(rel_len(m.seq), &m);
    let buffer = data.as_ptr();
    let packet = Packet::new(data, RELIABLE);
    if packet.data().as_ptr() != buffer {
        fail!(
            "the packet of seq {} does not use the caller's buffer",
            m.seq
        );
    }
    net::send_packet(host, peer, m, packet);
}

pub fn run(o: &Options) {
    let (mine, theirs) = if o.is_server {
        (SERVER_TAG, CLIENT_TAG)
    } else {
        (CLIENT_TAG, SERVER_TAG)
    };
    let mut b = Basic {
        peer: None,
        mine,
        theirs,
        sent_small: 0,
        next_batch: Instant::now(),
        batch: Duration::from_millis(o.batch_ms),
        sent_tail: false,
        throttle_sum: 0,
        throttle_min: 0,
        batches: 0,
        ch0_next: 0,
        big_fnv: 0,
        got_ackfin: false,
        sent_ackfin: false,
        ch1_last: None,
        ch1_count: 0,
        ch1_forced: false,
        med_frag: false,
        big_frag: false,
        ch2_count: 0,
        ch2_forced: false,
        ch2_seen: [false; SMALL as usize],
    };
    let mut host = if o.is_server {
        net::start_server(o, 1, CHANNELS)
    } else {
        let mut host = net::make_host(o, false, 1, CHANNELS);
        b.peer = Some(net::connect(&mut host, o, CHANNELS, CONNECT_DATA));
        host
    };
    let mut disconnect_called = false;
    let mut phase = "CONNECT";
    loop {
        crate::report::check_deadline(phase);
        if let Some(peer) = b
            .peer
            .filter(|&p| host.peer(p).state() == PeerState::Connected)
        {
            b.pump(&mut host, peer);
        }
        if let Some(peer) = b.peer.filter(|_| {
            !o.is_server && !disconnect_called && b.ch0_next == SMALL + 2 && b.got_ackfin
        }) {
            host.peer_mut(peer).disconnect(DISCONNECT_DATA);
            let state = host.peer(peer).state();
            if state != PeerState::Disconnecting {
                fail!(
                    "state {} after Peer::disconnect, expected DISCONNECTING",
                    net::state_number(state)
                );
            }
            disconnect_called = true;
            phase = "DISCONNECT acknowledgement";
        }
        let Some(event) = net::service(&mut host, Duration::from_millis(1)) else {
            continue;
        };
        match event {
            EventNoRef::Connect { peer, data } => {
                if b.peer.is_some_and(|p| p != peer) {
                    fail!("CONNECT for an unknown peer");
                }
                if o.is_server && b.peer.is_some() {
                    fail!("second CONNECT");
                }
                b.peer = Some(peer);
                say!(
                    "connect: event data=0x{data:08x}, channels={}, connectedPeers={}",
                    host.peer(peer).channel_count(),
                    net::connected_peers(&host)
                );
                if o.is_server && data != CONNECT_DATA {
                    fail!("connect data 0x{data:08x}, expected 0x{CONNECT_DATA:08x}");
                }
                // --steady-throttle: no deceleration of the packet throttle
                // on round-trip jitter (see peer.c and the README).
                if o.steady_throttle {
                    host.peer_mut(peer).set_throttle(
                        PEER_PACKET_THROTTLE_INTERVAL,
                        PEER_PACKET_THROTTLE_ACCELERATION,
                        0,
                    );
                }
                b.next_batch = Instant::now();
                phase = "all traffic";
            }
            EventNoRef::Receive {
                peer,
                channel_id,
                packet,
            } => {
                b.receive(peer, channel_id, &packet);
                drop(packet);
                if o.is_server && b.ch0_next == SMALL + 2 && !b.sent_ackfin {
                    let m = net::msg(kind::ACKFIN, b.mine, 2, 0);
                    net::send_message(&mut host, peer, m, 32, RELIABLE);
                    b.sent_ackfin = true;
                    phase = "the client's DISCONNECT";
                }
            }
            EventNoRef::Disconnect { peer, data } => {
                if Some(peer) != b.peer {
                    fail!("DISCONNECT for an unknown peer");
                }
                if o.is_server {
                    if data != DISCONNECT_DATA {
                        fail!("DISCONNECT data 0x{data:08x}, expected 0x{DISCONNECT_DATA:08x}");
                    }
                } else if !disconnect_called {
                    fail!("DISCONNECT before the client asked for it (data 0x{data:08x})");
                }
                b.report();
                say!(
                    "disconnect: event data=0x{data:08x}, peer state={}, connectedPeers={}",
                    net::state_number(host.peer(peer).state()),
                    net::connected_peers(&host)
                );
                break;
            }
        }
    }
    if o.is_server {
        net::linger(&mut host, 200);
    }
}
