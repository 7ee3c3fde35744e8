//! Scenario `timeout` (`--victim`): both sides send an unreliable
//! heartbeat every 50 ms. The victim prints `READY` at the first heartbeat
//! it receives and goes on until the driver SIGKILLs it; the survivor must
//! get DISCONNECT between 3 s and 40 s after the last heartbeat (ENet's
//! minimum timeout is 5 s).

use std::time::{Duration, Instant};

use rusty_enet::{EventNoRef, PacketKind, PeerID};

use crate::msg::{kind, CLIENT_TAG, SERVER_TAG};
use crate::net;
use crate::report::check_deadline;
use crate::Options;

const CHANNELS: usize = 2;
const CONNECT_DATA: u32 = 0x1234_5678;
const HEARTBEAT: Duration = Duration::from_millis(50);
const HEARTBEAT_LEN: usize = 24;
const MIN_MS: f64 = 3000.0;
const MAX_MS: f64 = 40000.0;

pub fn run(o: &Options) {
    let victim = o.is_server == o.victim_is_server;
    let mine = if o.is_server { SERVER_TAG } else { CLIENT_TAG };
    let mut peer: Option<PeerID> = None;
    let mut host = if o.is_server {
        net::start_server(o, 1, CHANNELS)
    } else {
        let mut host = net::make_host(o, false, 1, CHANNELS);
        peer = Some(net::connect(&mut host, o, CHANNELS, CONNECT_DATA));
        host
    };
    let mut beat = 0;
    let mut ready = false;
    let mut next_beat = Instant::now();
    let mut last_heard: Option<Instant> = None;

    loop {
        check_deadline(if victim {
            "SIGKILL from the driver"
        } else {
            "the timeout DISCONNECT"
        });
        if let (Some(_), Some(p)) = (last_heard, peer) {
            if Instant::now() >= next_beat {
                let m = net::msg(kind::HEARTBEAT, mine, 1, beat);
                net::send_message(
                    &mut host,
                    p,
                    m,
                    HEARTBEAT_LEN,
                    PacketKind::Unreliable { sequenced: true },
                );
                beat += 1;
                next_beat = Instant::now() + HEARTBEAT;
            }
        }
        let Some(event) = net::service(&mut host, Duration::from_millis(5)) else {
            continue;
        };
        match event {
            EventNoRef::Connect { peer: p, data } => {
                peer = Some(p);
                last_heard = Some(Instant::now());
                say!("connect: event data=0x{data:08x}");
            }
            EventNoRef::Receive {
                channel_id, packet, ..
            } => {
                let m = net::expect_intact(&packet, channel_id);
                drop(packet);
                if m.kind != kind::HEARTBEAT {
                    fail!("unexpected kind {}", m.kind);
                }
                last_heard = Some(Instant::now());
                // A heartbeat proves the survivor has its CONNECT too.
                if victim && !ready {
                    say!("READY");
                    ready = true;
                }
            }
            EventNoRef::Disconnect { peer: p, data } => {
                let silent = last_heard.map_or(0.0, |t| t.elapsed().as_secs_f64() * 1000.0);
                if victim {
                    fail!("the victim got DISCONNECT (data 0x{data:08x})");
                }
                eprintln!("timeout-ms {silent:.0}");
                if silent < MIN_MS {
                    fail!("DISCONNECT only {silent:.0} ms after the last heartbeat");
                }
                if silent > MAX_MS {
                    fail!("DISCONNECT {silent:.0} ms after the last heartbeat (limit {MAX_MS:.0})");
                }
                say!("timeout-disconnect: yes (between 3 s and 40 s after the peer went silent)");
                say!(
                    "DISCONNECT event data=0x{data:08x}, peer state={}, connectedPeers={}",
                    net::state_number(host.peer(p).state()),
                    net::connected_peers(&host)
                );
                break;
            }
        }
    }
}
