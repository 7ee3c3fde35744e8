//! Scenarios `disconnect_now` and `disconnect_later` (`--initiator`).
//!
//! * now: both send 20 reliable packets and GOT once they have the other's
//!   20; the initiator then disconnects at once (no event of its own may
//!   follow), the responder must get DISCONNECT with the data.
//! * later: the responder sends 20 reliable packets; once they arrived the
//!   initiator queues 100 small + one 100 kB + one small reliable packet
//!   and asks for a disconnect after them before servicing again; the
//!   responder must receive all 102 before DISCONNECT with the data, and
//!   the initiator gets its own DISCONNECT.

use std::time::Duration;

use rusty_enet::{EventNoRef, PacketKind, PeerID, PeerState};

use crate::msg::{self, kind, CLIENT_TAG, SERVER_TAG};
use crate::net::{self, flag};
use crate::report::check_deadline;
use crate::Options;

const CHANNELS: usize = 2;
const EACH: u32 = 20;
const LATER_COUNT: u32 = 102;
const LATER_BIG_SEQ: u32 = 100;
const LATER_BIG_LEN: usize = 100_000;
const CONNECT_DATA: u32 = 0x1234_5678;
const NOW_DATA: u32 = 0xD15C_0002;
const LATER_DATA: u32 = 0xD15C_0003;

fn later_len(seq: u32) -> usize {
    if seq == LATER_BIG_SEQ {
        LATER_BIG_LEN
    } else {
        msg::small_len(seq)
    }
}

fn sole_peer(peer: Option<PeerID>) -> PeerID {
    peer.unwrap_or_else(|| fail!("no peer yet"))
}

pub fn run(o: &Options, later: bool) {
    let initiator = o.is_server == o.initiator_is_server;
    let (mine, theirs) = if o.is_server {
        (SERVER_TAG, CLIENT_TAG)
    } else {
        (CLIENT_TAG, SERVER_TAG)
    };
    let data = if later { LATER_DATA } else { NOW_DATA };
    let expect_in = if later && !initiator {
        LATER_COUNT
    } else {
        EACH
    };
    let mut received = 0;
    let mut got_got = false;
    let mut disconnect_called = false;
    let mut peer: Option<PeerID> = None;
    let mut host = if o.is_server {
        net::start_server(o, 1, CHANNELS)
    } else {
        let mut host = net::make_host(o, false, 1, CHANNELS);
        peer = Some(net::connect(&mut host, o, CHANNELS, CONNECT_DATA));
        host
    };
    let reliable = PacketKind::Reliable;

    loop {
        check_deadline(if disconnect_called {
            "the end of the disconnect"
        } else {
            "traffic"
        });
        if initiator && !disconnect_called && received == expect_in && (later || got_got) {
            let p = sole_peer(peer);
            if later {
                for seq in 0..LATER_COUNT {
                    let m = net::msg(kind::REL, mine, 0, seq);
                    net::send_message(&mut host, p, m, later_len(seq), reliable);
                }
                host.peer_mut(p).disconnect_later(data);
                let state = host.peer(p).state();
                if state != PeerState::DisconnectLater {
                    fail!(
                        "state {} after Peer::disconnect_later with queued packets",
                        net::state_number(state)
                    );
                }
                say!("queued {LATER_COUNT} reliable packets, then disconnect_later: state DISCONNECT_LATER");
            } else {
                host.peer_mut(p).disconnect_now(data);
                let state = host.peer(p).state();
                if state != PeerState::Disconnected {
                    fail!(
                        "state {} after Peer::disconnect_now",
                        net::state_number(state)
                    );
                }
                say!(
                    "disconnect_now: state DISCONNECTED at once, connectedPeers={}",
                    net::connected_peers(&host)
                );
                net::linger(&mut host, 500);
                say!("no event after disconnect_now");
                break;
            }
            disconnect_called = true;
        }
        let Some(event) = net::service(&mut host, Duration::from_millis(1)) else {
            continue;
        };
        match event {
            EventNoRef::Connect { peer: p, data } => {
                if peer.is_some_and(|known| known != p) {
                    fail!("CONNECT for an unknown peer");
                }
                peer = Some(p);
                say!("connect: event data=0x{data:08x}");
                if !later || !initiator {
                    for seq in 0..EACH {
                        let m = net::msg(kind::REL, mine, 0, seq);
                        net::send_message(&mut host, p, m, msg::small_len(seq), reliable);
                    }
                }
            }
            EventNoRef::Receive {
                channel_id, packet, ..
            } => {
                let m = net::expect_intact(&packet, channel_id);
                net::expect_flags(&packet, flag::RELIABLE, "reliable packet");
                if m.sender != theirs {
                    fail!("packet claims sender '{}'", char::from(m.sender));
                }
                if received < expect_in {
                    if m.kind != kind::REL || m.seq != received {
                        fail!(
                            "kind {} seq {}, expected reliable seq {received}",
                            m.kind,
                            m.seq
                        );
                    }
                    if later && m.seq == LATER_BIG_SEQ && packet.data().len() != LATER_BIG_LEN {
                        fail!("fragmented packet has {} bytes", packet.data().len());
                    }
                    received += 1;
                    if received == expect_in && !later {
                        let m = net::msg(kind::GOT, mine, 0, EACH);
                        net::send_message(&mut host, sole_peer(peer), m, 32, reliable);
                    }
                } else if !later && m.kind == kind::GOT && !got_got {
                    got_got = true;
                } else {
                    fail!("unexpected kind {} seq {}", m.kind, m.seq);
                }
            }
            EventNoRef::Disconnect { data: got, .. } => {
                if initiator {
                    if !later || !disconnect_called {
                        fail!("DISCONNECT event on the initiating side (data 0x{got:08x})");
                    }
                    say!(
                        "disconnect_later completed: DISCONNECT event data=0x{got:08x}, connectedPeers={}",
                        net::connected_peers(&host)
                    );
                } else {
                    if received != expect_in {
                        fail!("DISCONNECT after only {received} of {expect_in} packets");
                    }
                    if got != data {
                        fail!("DISCONNECT data 0x{got:08x}, expected 0x{data:08x}");
                    }
                    say!("all {expect_in} packets arrived before DISCONNECT");
                    say!(
                        "DISCONNECT event data=0x{got:08x}, connectedPeers={}",
                        net::connected_peers(&host)
                    );
                    net::linger(&mut host, 200);
                }
                break;
            }
        }
    }
}
