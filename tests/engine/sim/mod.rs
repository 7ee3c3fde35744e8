//! A deterministic simulated network for the sans-IO engine: hosts on
//! virtual addresses, virtual milliseconds, and seeded loss, duplication,
//! reordering and latency. Nothing here touches a socket or a clock.

pub mod forge;

use enet::abi::{ENetAddress, ENetPeerState, ENET_SOCKET_NULL};
use enet::mem::CBox;
use enet::proto::host::endpoint::enet_view;
use std::collections::VecDeque;
use std::net::SocketAddr;

use enet::proto::{
    Codec, CodecOnly, Event, Grouping, Host, HostSettings, NoCodec, PeerIndex, ServiceFailed,
    Serviced, Transmitted, Transport,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What a host reported, with received payloads copied out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    Connect {
        peer: PeerIndex,
        data: u32,
    },
    Disconnect {
        peer: PeerIndex,
        data: u32,
    },
    Receive {
        peer: PeerIndex,
        channel: u8,
        flags: u32,
        data: Vec<u8>,
    },
}

pub struct SimHost {
    pub host: CBox<Host>,
    pub address: ENetAddress,
    pub codec: Box<dyn Codec>,
    pub seen: Vec<Seen>,
}

struct InFlight {
    deliver_at: u64,
    order: u64,
    from: ENetAddress,
    to: ENetAddress,
    bytes: Vec<u8>,
}

/// The network as one host sees it during one service round: the
/// datagrams due for it (source and bytes, in arrival order), and an
/// outbox for what it sends (destination and bytes). Virtual time stands
/// still within a round.
pub struct SimTransport<'a> {
    pub now: u32,
    pub due: VecDeque<(ENetAddress, Vec<u8>)>,
    pub outbox: &'a mut Vec<(ENetAddress, Vec<u8>)>,
}

impl Transport for SimTransport<'_> {
    fn now(&mut self) -> u32 {
        self.now
    }

    fn receive<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed> {
        Ok(self
            .due
            .pop_front()
            .map(|(from, mut bytes)| handle(from.into(), &mut bytes)))
    }

    fn transmit(&mut self, to: &SocketAddr, bytes: &[u8], _grouping: Grouping) -> Transmitted {
        // Far beyond any simulation's traffic in one round: a send pass
        // past it would never have ended on its own.
        assert!(
            self.outbox.len() < 1_000_000,
            "a million datagrams in one round: a send pass that does not end"
        );
        self.outbox.push((enet_view(to), bytes.to_vec()));
        Transmitted::Sent(bytes.len())
    }

    fn flush(&mut self) -> Result<(), ServiceFailed> {
        Ok(())
    }

    fn wait(&mut self, _ms: u32) -> Result<bool, ServiceFailed> {
        // Rounds run with timeout 0, which never waits.
        Ok(true)
    }
}

/// Link behaviour; probabilities in [0, 1].
#[derive(Debug, Clone, Copy)]
pub struct Link {
    pub latency: u32,
    pub jitter: u32,
    pub loss: f64,
    pub duplicate: f64,
}

impl Default for Link {
    fn default() -> Self {
        Link {
            latency: 5,
            jitter: 0,
            loss: 0.0,
            duplicate: 0.0,
        }
    }
}

pub struct Sim {
    pub now: u32,
    ticks: u64,
    pub hosts: Vec<SimHost>,
    in_flight: Vec<InFlight>,
    order: u64,
    rng: StdRng,
    pub link: Link,
    /// Hosts whose traffic is cut (a "killed" process).
    pub down: Vec<bool>,
    /// Hosts the program does not service (a stalled process): their
    /// clock runs on and their datagrams wait for them.
    pub stalled: Vec<bool>,
    pub datagrams_sent: u64,
    /// Every datagram sent, when tracing is on.
    pub trace: Option<Vec<Vec<u8>>>,
    /// When and by whom (virtual time, sender's port) each traced
    /// datagram was sent.
    pub trace_sent: Vec<(u32, u16)>,
    /// Service rounds run (each services every host once).
    pub rounds: u64,
}

pub fn address_of(host: usize) -> ENetAddress {
    ENetAddress {
        host: u32::from_be_bytes([10, 0, 0, host as u8 + 1]).to_be(),
        port: 7000 + host as u16,
    }
}

impl Sim {
    pub fn new(seed: u64, start_time: u32) -> Self {
        Sim {
            now: start_time,
            ticks: 0,
            hosts: Vec::new(),
            in_flight: Vec::new(),
            order: 0,
            rng: StdRng::seed_from_u64(seed),
            link: Link::default(),
            down: Vec::new(),
            stalled: Vec::new(),
            datagrams_sent: 0,
            trace: None,
            trace_sent: Vec::new(),
            rounds: 0,
        }
    }

    /// Adds a host with `peers` slots; returns its index.
    pub fn add_host(&mut self, peers: usize, channel_limit: usize) -> usize {
        self.add_host_with(peers, channel_limit, 0, 0, Box::new(NoCodec))
    }

    pub fn add_host_with(
        &mut self,
        peers: usize,
        channel_limit: usize,
        incoming_bandwidth: u32,
        outgoing_bandwidth: u32,
        codec: Box<dyn Codec>,
    ) -> usize {
        let index = self.hosts.len();
        let address = address_of(index);
        let host = Host::create(HostSettings {
            address,
            socket: ENET_SOCKET_NULL,
            peer_count: peers,
            channel_limit,
            incoming_bandwidth,
            outgoing_bandwidth,
            random_seed: 0x1234_5678 + index as u32,
            now: self.now,
        })
        .expect("host");
        self.hosts.push(SimHost {
            host,
            address,
            codec,
            seen: Vec::new(),
        });
        self.down.push(false);
        self.stalled.push(false);
        index
    }

    pub fn host(&mut self, index: usize) -> &mut Host {
        &mut self.hosts[index].host
    }

    /// Slot number `slot` of host `host` (which must have it).
    pub fn slot(&self, host: usize, slot: usize) -> PeerIndex {
        self.hosts[host]
            .host
            .slot(slot)
            .expect("the host has that slot")
    }

    /// Every slot of host `host`, in order.
    pub fn slots(&self, host: usize) -> Vec<PeerIndex> {
        self.hosts[host].host.peer_indices().collect()
    }

    fn record(host: &mut SimHost, event: Event) {
        let seen = match event {
            Event::Connect { peer, data } => Seen::Connect { peer, data },
            Event::Disconnect { peer, data } => Seen::Disconnect { peer, data },
            Event::Receive {
                peer,
                channel_id,
                packet,
            } => {
                let seen = Seen::Receive {
                    peer,
                    channel: channel_id,
                    flags: packet.flags().bits(),
                    data: packet.data().to_vec(),
                };
                packet.release();
                seen
            }
        };
        host.seen.push(seen);
    }

    /// Runs host `index` the way a program calls
    /// `enet_host_service(host, &event, 0)` until it reports nothing more,
    /// over the engine's own service loop.
    fn service(&mut self, index: usize) {
        let now = self.now;
        let ticks = self.ticks;
        let link = self.link;
        let host_down = self.down[index];
        let mut outbox = Vec::new();
        // Everything due for this host, in arrival order.
        let address = self.hosts[index].address;
        let (mut due, waiting): (Vec<InFlight>, Vec<InFlight>) = self
            .in_flight
            .drain(..)
            .partition(|datagram| datagram.to == address && datagram.deliver_at <= ticks);
        self.in_flight = waiting;
        due.sort_by_key(|d| (d.deliver_at, d.order));
        if host_down {
            due.clear();
        }
        {
            let sim_host = &mut self.hosts[index];
            let mut transport = SimTransport {
                now,
                due: due.into_iter().map(|d| (d.from, d.bytes)).collect(),
                outbox: &mut outbox,
            };
            loop {
                let mut hooks = CodecOnly(sim_host.codec.as_mut());
                match sim_host
                    .host
                    .service(&mut transport, &mut hooks, true, 0)
                    .expect("service")
                {
                    Serviced::Event(event) => Self::record(sim_host, event),
                    Serviced::InterceptedEvent => unreachable!("no intercept"),
                    // A call handles at most 256 datagrams; the program
                    // calls again for the rest.
                    Serviced::Idle if transport.due.is_empty() => break,
                    Serviced::Idle => {}
                }
            }
        }
        let from = self.hosts[index].address;
        for (to, bytes) in outbox {
            self.datagrams_sent += 1;
            if let Some(trace) = self.trace.as_mut() {
                trace.push(bytes.clone());
                self.trace_sent.push((now, from.port));
            }
            if host_down || self.rng.gen_bool(link.loss) {
                continue;
            }
            let copies = if self.rng.gen_bool(link.duplicate) {
                2
            } else {
                1
            };
            for _ in 0..copies {
                let jitter = if link.jitter > 0 {
                    self.rng.gen_range(0..=link.jitter)
                } else {
                    0
                };
                self.order += 1;
                self.in_flight.push(InFlight {
                    deliver_at: ticks + u64::from(link.latency + jitter),
                    order: self.order,
                    from,
                    to,
                    bytes: bytes.clone(),
                });
            }
        }
    }

    /// One virtual millisecond: every host serviced once.
    pub fn step(&mut self) {
        self.rounds += 1;
        for index in 0..self.hosts.len() {
            if !self.stalled[index] {
                self.service(index);
            }
        }
        self.ticks += 1;
        self.now = self.now.wrapping_add(1);
    }

    /// Runs `ms` virtual milliseconds the way a program blocked in
    /// `enet_host_service` lives them: after each round, time jumps
    /// straight to the next moment anything is due, a datagram arriving or
    /// a host's [`Host::next_deadline`], instead of ticking every
    /// millisecond. With exact deadlines this sends the very datagrams, at
    /// the very times, that stepping does.
    pub fn run_jumping(&mut self, ms: u32) {
        let end = self.ticks + u64::from(ms);
        while self.ticks < end {
            self.step();
            let mut wait = end - self.ticks;
            for datagram in &self.in_flight {
                wait = wait.min(datagram.deliver_at.saturating_sub(self.ticks));
            }
            for (sim_host, &stalled) in self.hosts.iter_mut().zip(&self.stalled) {
                if stalled {
                    continue;
                }
                if let Some(ms) = sim_host.host.next_deadline(self.now) {
                    wait = wait.min(u64::from(ms));
                }
            }
            self.ticks += wait;
            self.now = self.now.wrapping_add(wait as u32);
        }
    }

    /// Steps until `done` holds or `limit_ms` passes; whether it held.
    pub fn run_until(&mut self, limit_ms: u32, mut done: impl FnMut(&Sim) -> bool) -> bool {
        for _ in 0..limit_ms {
            if done(self) {
                return true;
            }
            self.step();
        }
        done(self)
    }

    pub fn run_for(&mut self, ms: u32) {
        for _ in 0..ms {
            self.step();
        }
    }

    pub fn state(&self, host: usize, peer: PeerIndex) -> ENetPeerState {
        self.hosts[host].host.peer(peer).state
    }

    pub fn connects(&self, host: usize) -> usize {
        self.hosts[host]
            .seen
            .iter()
            .filter(|s| matches!(s, Seen::Connect { .. }))
            .count()
    }

    pub fn received(&self, host: usize) -> Vec<(u8, Vec<u8>)> {
        self.hosts[host]
            .seen
            .iter()
            .filter_map(|s| match s {
                Seen::Receive { channel, data, .. } => Some((*channel, data.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn disconnects(&self, host: usize) -> Vec<u32> {
        self.hosts[host]
            .seen
            .iter()
            .filter_map(|s| match s {
                Seen::Disconnect { data, .. } => Some(*data),
                _ => None,
            })
            .collect()
    }
}

/// The number each packet received on `channel` starts with (a big-endian
/// u32), in delivery order.
#[allow(dead_code)] // not every simulation test reads numbered packets
pub fn numbers_on(received: &[(u8, Vec<u8>)], channel: u8) -> Vec<u32> {
    received
        .iter()
        .filter(|(c, data)| *c == channel && data.len() >= 4)
        .map(|(_, data)| u32::from_be_bytes([data[0], data[1], data[2], data[3]]))
        .collect()
}

/// Connects host `client` to host `server`; returns the client's peer slot
/// and the server's, once both saw CONNECT.
pub fn connect(
    sim: &mut Sim,
    client: usize,
    server: usize,
    channels: usize,
    data: u32,
) -> (PeerIndex, PeerIndex) {
    let server_address = sim.hosts[server].address;
    let before_client = sim.connects(client);
    let before_server = sim.connects(server);
    let peer = sim
        .host(client)
        .connect(server_address, channels, data)
        .expect("free slot");
    assert!(
        sim.run_until(20_000, |s| s.connects(client) > before_client
            && s.connects(server) > before_server),
        "connection did not complete"
    );
    let server_peer = sim.hosts[server]
        .seen
        .iter()
        .rev()
        .find_map(|s| match s {
            Seen::Connect { peer, .. } => Some(*peer),
            _ => None,
        })
        .unwrap();
    (peer, server_peer)
}

/// Traffic of addresses that belong to no host of the simulation (spoofed
/// sources): datagrams injected from them, and the replies sent to them.
impl Sim {
    /// Sends `bytes` from `from` to host `to` now; it arrives after the
    /// link latency like any datagram (loss and duplication do not apply).
    pub fn inject(&mut self, from: ENetAddress, to: usize, bytes: Vec<u8>) {
        self.order += 1;
        self.in_flight.push(InFlight {
            deliver_at: self.ticks + u64::from(self.link.latency),
            order: self.order,
            from,
            to: self.hosts[to].address,
            bytes,
        });
    }

    /// Takes the datagrams in flight to addresses no host has and returns
    /// them as (destination, bytes).
    pub fn take_unrouted(&mut self) -> Vec<(ENetAddress, Vec<u8>)> {
        let hosts: Vec<ENetAddress> = self.hosts.iter().map(|h| h.address).collect();
        let routed =
            |to: &ENetAddress| hosts.iter().any(|h| h.host == to.host && h.port == to.port);
        let (kept, unrouted): (Vec<_>, Vec<_>) =
            self.in_flight.drain(..).partition(|d| routed(&d.to));
        self.in_flight = kept;
        unrouted.into_iter().map(|d| (d.to, d.bytes)).collect()
    }
}
