//! Scenario `broadcast`: one server; one client process holding
//! `--clients` hosts (each its own socket and one peer). Each client host
//! sends 10 reliable packets; the server broadcasts 50 small and one
//! 100 kB reliable packet, and learns when ENet frees each. Once all are
//! connected, client host 0 sends PAUSE, flushes and stops servicing for
//! 2.5 s (longer, up to 4.5 s, until the other hosts have the whole
//! broadcast, as peer.c); the server broadcasts only after PAUSE, so it
//! can check that no broadcast packet is freed while one peer has not
//! acknowledged it. Each client host reports GOT after the last broadcast
//! packet; the server then waits for every packet to be freed (exactly
//! once each) and disconnects every peer with its own data.
//!
//! peer.c counts frees with a `freeCallback`. rusty_enet keeps that
//! callback for itself: it drops the packet's data object when ENet frees
//! the packet. So the data object here is a [`Tracked`] buffer whose
//! `Drop` counts, which happens at the same moment and exactly as often.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rusty_enet::{EventNoRef, Packet, PacketKind, PeerID};

use crate::msg::{self, kind, SERVER_TAG};
use crate::net::{self, flag, EnetHost};
use crate::report::check_deadline;
use crate::Options;

const CHANNELS: usize = 2;
const SMALL: u32 = 50;
const TOTAL: u32 = SMALL + 1;
const BIG_LEN: usize = 100_000;
const UP: u32 = 10;
const PAUSE_MS: u64 = 2500;
/// After the pause, host 0 waits for the other hosts to have every
/// broadcast packet and this long more for their GOTs to arrive...
const GOT_GRACE_MS: u64 = 500;
/// ...but never past this, which keeps the server from timing host 0 out
/// (ENet's minimum is 5 s).
const PAUSE_LIMIT_MS: u64 = 4500;
const CONNECT_DATA: u32 = 0xB000_0000;
const DISCONNECT_DATA: u32 = 0xB0D1_0000;

/// How often each broadcast packet was freed.
struct FreeLog {
    per_seq: Vec<Cell<u32>>,
    total: Cell<u32>,
}

/// A broadcast packet's data; counts in the log when ENet frees it.
struct Tracked {
    bytes: Vec<u8>,
    seq: usize,
    log: Rc<FreeLog>,
}

impl AsRef<[u8]> for Tracked {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let slot = &self.log.per_seq[self.seq];
        slot.set(slot.get() + 1);
        self.log.total.set(self.log.total.get() + 1);
    }
}

fn bcast_len(seq: u32) -> usize {
    if seq == SMALL {
        BIG_LEN
    } else {
        msg::small_len(seq)
    }
}

fn client_tag(index: usize) -> u8 {
    b'a' + index as u8
}

fn broadcast_all(host: &mut EnetHost, log: &Rc<FreeLog>) {
    for seq in 0..TOTAL {
        let m = net::msg(kind::BCAST, SERVER_TAG, 0, seq);
        let data = Tracked {
            bytes: msg::build(bcast_len(seq), &m),
            seq: seq as usize,
            log: Rc::clone(log),
        };
        let packet = Packet::new(Box::new(data), PacketKind::Reliable);
        host.broadcast(0, &packet);
        // Our handle goes: from now on only the peers' references keep the
        // packet (stock: the caller hands the packet over).
        drop(packet);
        if log.per_seq[seq as usize].get() != 0 {
            fail!("broadcast packet {seq} freed during Host::broadcast");
        }
    }
}

fn peer_index(peers: &[Option<PeerID>], peer: PeerID) -> usize {
    peers
        .iter()
        .position(|&p| p == Some(peer))
        .unwrap_or_else(|| fail!("event for a peer that never connected"))
}

pub fn server(o: &Options) {
    let n = o.clients;
    let mut host = net::start_server(o, n, CHANNELS);
    let log = Rc::new(FreeLog {
        per_seq: (0..TOTAL).map(|_| Cell::new(0)).collect(),
        total: Cell::new(0),
    });
    let mut peers: Vec<Option<PeerID>> = vec![None; n];
    let mut up_next = vec![0u32; n];
    let mut got = vec![false; n];
    let (mut connected, mut gots, mut disconnected) = (0, 0, 0);
    // 0: not yet, 1: broadcast, 2: disconnects asked for
    let mut broadcast_done = 0;
    let mut checked_early = false;
    let mut pause_seen = false;
    let tick = Duration::from_millis(1);

    while disconnected < n {
        check_deadline(match () {
            _ if connected < n => "CONNECTs",
            _ if broadcast_done == 0 => "PAUSE from client 0",
            _ if gots < n => "GOTs",
            _ => "DISCONNECTs",
        });
        if broadcast_done == 0 && connected == n && pause_seen {
            broadcast_all(&mut host, &log);
            broadcast_done = 1;
        }
        if gots == n && broadcast_done == 1 {
            if log.total.get() < TOTAL {
                if let Some(event) = net::service(&mut host, tick) {
                    fail!(
                        "unexpected event type {} while waiting for frees",
                        net::event_type(&event)
                    );
                }
                continue;
            }
            for (seq, freed) in log.per_seq.iter().enumerate() {
                if freed.get() != 1 {
                    fail!("broadcast packet {seq} freed {} times", freed.get());
                }
            }
            say!(
                "freeCallback: none before every peer acknowledged, then each of {TOTAL} packets exactly once"
            );
            for (i, peer) in peers.iter().enumerate() {
                let peer = peer.unwrap_or_else(|| fail!("client {i} never connected"));
                host.peer_mut(peer).disconnect(DISCONNECT_DATA | i as u32);
            }
            broadcast_done = 2;
        }
        let Some(event) = net::service(&mut host, tick) else {
            continue;
        };
        match event {
            EventNoRef::Connect { peer, data } => {
                let index = data.wrapping_sub(CONNECT_DATA) as usize;
                if index >= n || peers[index].is_some() {
                    fail!("CONNECT with unexpected data 0x{data:08x}");
                }
                peers[index] = Some(peer);
                connected += 1;
                if connected == n {
                    say!(
                        "{n} clients connected with data 0x{CONNECT_DATA:08x} + index, connectedPeers={}",
                        net::connected_peers(&host)
                    );
                }
            }
            EventNoRef::Receive {
                peer,
                channel_id,
                packet,
            } => {
                let index = peer_index(&peers, peer);
                let m = net::expect_intact(&packet, channel_id);
                net::expect_flags(&packet, flag::RELIABLE, "client packet");
                drop(packet);
                if m.sender != client_tag(index) || channel_id != 0 {
                    fail!(
                        "packet from client {index} claims sender '{}'",
                        char::from(m.sender)
                    );
                }
                if up_next[index] < UP {
                    if m.kind != kind::REL || m.seq != up_next[index] {
                        fail!(
                            "client {index}: kind {} seq {}, expected reliable seq {}",
                            m.kind,
                            m.seq,
                            up_next[index]
                        );
                    }
                    up_next[index] += 1;
                    continue;
                }
                if m.kind == kind::PAUSE && index == 0 && !pause_seen {
                    pause_seen = true;
                    continue;
                }
                if m.kind != kind::GOT || got[index] || broadcast_done == 0 {
                    fail!(
                        "client {index}: unexpected kind {} after its 10 packets",
                        m.kind
                    );
                }
                got[index] = true;
                gots += 1;
                if index == 0 && gots != n {
                    fail!("paused client 0 reported before the others (inconclusive ordering)");
                }
                if gots == n - 1 && n > 1 {
                    if log.total.get() != 0 {
                        fail!(
                            "{} broadcast packets freed while client 0 had not acknowledged them",
                            log.total.get()
                        );
                    }
                    checked_early = true;
                }
            }
            EventNoRef::Disconnect { peer, data } => {
                let index = peer_index(&peers, peer);
                if broadcast_done != 2 {
                    fail!("client {index} disconnected early (data 0x{data:08x})");
                }
                if data != 0 {
                    fail!("DISCONNECT event data 0x{data:08x} for the server-initiated disconnect");
                }
                disconnected += 1;
            }
        }
    }
    if n > 1 && !checked_early {
        fail!("early-free check never ran");
    }
    if let Some(i) = (0..n).find(|&i| up_next[i] != UP || !got[i]) {
        fail!("client {i} did not send everything");
    }
    say!("received {UP} reliable packets in order from each client");
    say!(
        "all {n} DISCONNECT events with data 0, connectedPeers={}",
        net::connected_peers(&host)
    );
    net::linger(&mut host, 200);
}

/// Whether host 0 is still paused: for [`PAUSE_MS`] after it sent PAUSE,
/// then until the other hosts have every broadcast packet and
/// [`GOT_GRACE_MS`] more, at most [`PAUSE_LIMIT_MS`] in all.
fn host0_paused(started: Option<Instant>, others_done_at: Option<Instant>) -> bool {
    let Some(started) = started else {
        return false;
    };
    let paused_for = started.elapsed();
    if paused_for >= Duration::from_millis(PAUSE_LIMIT_MS) {
        return false;
    }
    if paused_for < Duration::from_millis(PAUSE_MS) {
        return true;
    }
    others_done_at.is_none_or(|done| done.elapsed() < Duration::from_millis(GOT_GRACE_MS))
}

pub fn client(o: &Options) {
    let n = o.clients;
    let mut hosts = Vec::with_capacity(n);
    let mut peers = Vec::with_capacity(n);
    for i in 0..n {
        let mut host = net::make_host(o, false, 1, CHANNELS);
        peers.push(net::connect(
            &mut host,
            o,
            CHANNELS,
            CONNECT_DATA | i as u32,
        ));
        hosts.push(host);
    }
    let mut next = vec![0u32; n];
    let mut down = vec![false; n];
    let (mut connected, mut disconnected) = (0, 0);
    let mut pause_started: Option<Instant> = None;
    let mut others_done_at: Option<Instant> = None;

    while disconnected < n {
        check_deadline(if connected < n {
            "CONNECTs"
        } else {
            "broadcasts and DISCONNECTs"
        });
        let mut any = false;
        for i in 0..n {
            if down[i] || (i == 0 && host0_paused(pause_started, others_done_at)) {
                continue;
            }
            while let Some(event) = net::service(&mut hosts[i], Duration::ZERO) {
                any = true;
                match event {
                    EventNoRef::Connect { peer, .. } => {
                        if peer != peers[i] {
                            fail!("host {i}: event for an unknown peer");
                        }
                        for seq in 0..UP {
                            let m = net::msg(kind::REL, client_tag(i), 0, seq);
                            net::send_message(
                                &mut hosts[i],
                                peer,
                                m,
                                msg::small_len(seq),
                                PacketKind::Reliable,
                            );
                        }
                        connected += 1;
                        if connected == n {
                            let m = net::msg(kind::PAUSE, client_tag(0), 0, UP);
                            net::send_message(&mut hosts[0], peers[0], m, 32, PacketKind::Reliable);
                            hosts[0].flush();
                            pause_started = Some(Instant::now());
                            say!(
                                "{n} hosts connected; host 0 sends PAUSE, flushes, stops servicing for at least {PAUSE_MS} ms"
                            );
                        }
                    }
                    EventNoRef::Receive {
                        peer,
                        channel_id,
                        packet,
                    } => {
                        if peer != peers[i] {
                            fail!("host {i}: event for an unknown peer");
                        }
                        let m = net::expect_intact(&packet, channel_id);
                        net::expect_flags(&packet, flag::RELIABLE, "broadcast packet");
                        drop(packet);
                        if m.kind != kind::BCAST || m.sender != SERVER_TAG || m.seq != next[i] {
                            fail!(
                                "host {i}: kind {} seq {}, expected broadcast seq {}",
                                m.kind,
                                m.seq,
                                next[i]
                            );
                        }
                        next[i] += 1;
                        if next[i] == TOTAL {
                            let m = net::msg(kind::GOT, client_tag(i), 0, UP + 1);
                            net::send_message(&mut hosts[i], peer, m, 32, PacketKind::Reliable);
                            if others_done_at.is_none() && next[1..].iter().all(|&got| got == TOTAL)
                            {
                                others_done_at = Some(Instant::now());
                            }
                        }
                    }
                    EventNoRef::Disconnect { peer, data } => {
                        if peer != peers[i] {
                            fail!("host {i}: event for an unknown peer");
                        }
                        if next[i] != TOTAL {
                            fail!(
                                "host {i}: DISCONNECT after {} of {TOTAL} broadcasts",
                                next[i]
                            );
                        }
                        let want = DISCONNECT_DATA | i as u32;
                        if data != want {
                            fail!("host {i}: DISCONNECT data 0x{data:08x}, expected 0x{want:08x}");
                        }
                        down[i] = true;
                        disconnected += 1;
                        break;
                    }
                }
            }
        }
        if !any {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    say!(
        "every host received {TOTAL} broadcast packets in order, intact, flags=0x{:x}",
        flag::RELIABLE
    );
    say!("every host got DISCONNECT with data 0x{DISCONNECT_DATA:08x} + its index");
}
