//! Hosts, peers and events.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use enet::abi::{ENetHost, ENetPeerState};
use enet::config::Switches;
use enet::dtls::{ClientSetup, MaybeSecure, SecureLayer, ServerSetup, Status};
use enet::endpoint::{BoundSocket, HostBuilder, Housed};
use enet::mem::CBox;
use enet::net::host_socket::HostSocketOptions;
use enet::net::request_queue::RequestQueue;
use enet::net::transport::SocketTransport;
use enet::proto::host::endpoint::{enet_view, normalized};
use enet::proto::{
    self, ChannelId, Codec, DisconnectEffect, Hooks, PeerHandle, PeerIndex, Request, SendError,
    Serviced, WireCodec,
};

use crate::error::Error;
use crate::packet::Packet;
use crate::peer::Peer;
use crate::sender::Sender;

/// How a host is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostConfig {
    /// Peer slots, at most 4095 (default 32).
    pub peers: usize,
    /// Channels a peer may open at most, 1 to 255 (default 255).
    pub channel_limit: usize,
    /// Bytes per second this host takes in, 0 for no limit (the default);
    /// peers pace what they send to it.
    pub incoming_bandwidth: u32,
    /// Bytes per second this host sends, 0 for no limit (the default).
    pub outgoing_bandwidth: u32,
    /// A CRC-32 in every datagram, as `enet_crc32` (both ends must agree).
    pub checksum: bool,
    /// ENet's range coder on every datagram (both ends must agree).
    pub compress: bool,
    /// An IPv6 host takes no IPv4 peers (otherwise it is dual-stack).
    pub ipv6_only: bool,
    /// Share the port with other hosts that ask for it too
    /// (`SO_REUSEPORT`), one per thread, for a server spread over cores.
    pub reuse_port: bool,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            peers: 32,
            channel_limit: 255,
            incoming_bandwidth: 0,
            outgoing_bandwidth: 0,
            checksum: false,
            compress: false,
            ipv6_only: false,
            reuse_port: false,
        }
    }
}

/// Hosts are numbered from 1 as they are made, so a peer knows its own.
static NEXT_HOST_ID: AtomicU32 = AtomicU32::new(1);

/// What a host's network conditioner did ([`Host::netsim_stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetsimStats {
    /// What the host sent.
    pub outgoing: netsim::LinkStats,
    /// What the host received.
    pub incoming: netsim::LinkStats,
}

/// What a host reports.
#[derive(Debug)]
pub enum Event {
    /// A connection completed: a peer that connected to us (with the data
    /// it passed to its connect), or one we connected to.
    Connect { peer: Peer, data: u32 },
    /// A connection ended: the peer disconnected (with the data it passed)
    /// or stopped answering (data 0). Its handle is stale from now on.
    Disconnect { peer: Peer, data: u32 },
    /// A packet arrived on `channel`.
    Receive {
        peer: Peer,
        channel: u8,
        packet: Packet,
    },
}

/// How an encrypted client judges the server's certificate
/// ([`Host::encrypt_as_client`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerCheck<'a> {
    /// Any certificate is taken: the traffic is encrypted, but the server
    /// is not authenticated (anyone on the path could stand in for it).
    None,
    /// The certificate must be one of `certificates_pem` (PEM) or be
    /// signed by one of them, be valid now, and, with a `host_name` (a
    /// DNS name or an IP address), name that host.
    Trusted {
        certificates_pem: &'a str,
        host_name: Option<&'a str>,
    },
}

/// A peer's encryption ([`Host::encryption`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Encryption {
    /// The host is not encrypted, or the peer has no session yet.
    None,
    /// The DTLS handshake is under way.
    Handshaking,
    /// The peer's datagrams travel over an established DTLS session.
    Established,
    /// The handshake failed or the session ended, and why (a certificate
    /// refused, a time-out, an alert).
    Failed(String),
}

/// What is known of a connected peer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeerInfo {
    pub address: SocketAddr,
    /// Channels of the connection.
    pub channels: usize,
    /// The smoothed round-trip time.
    pub round_trip_time: Duration,
    /// Reliable packets lost, as a fraction (ENet's estimate).
    pub packet_loss: f32,
}

/// An ENet host: one UDP socket and its peers. It stays on the thread that
/// made it (the engine's state is shared with C-layout structures); other
/// threads send through a [`Sender`] ([`Host::sender`]). To spread a
/// server over cores, make one host per thread with
/// [`HostConfig::reuse_port`].
pub struct Host {
    /// This host's number, which its peers carry.
    id: u32,
    /// The engine with its socket, senders' queue and DTLS sessions, as
    /// the C library's hosts have them.
    pub(crate) endpoint: CBox<Housed<()>>,
    codec: WireCodec,
    local: SocketAddr,
    /// The handle each slot's connection was reported with.
    connections: Vec<Option<PeerHandle>>,
    /// The handle each slot's last connection was reported with, once it
    /// has ended: its encryption stays readable until the slot is reused.
    ended: Vec<Option<PeerHandle>>,
}

/// The engine's hooks for a call: the codec, and the senders' queue.
struct SafeHooks<'a> {
    codec: &'a mut WireCodec,
    requests: Option<&'a RequestQueue>,
}

impl Hooks for SafeHooks<'_> {
    fn codec(&mut self, _host: &ENetHost) -> &mut dyn Codec {
        self.codec
    }

    fn take_requests(&mut self, into: &mut Vec<Request>) {
        if let Some(requests) = self.requests {
            requests.take(into);
        }
    }
}

impl Host {
    /// A host bound to `address` (an IPv6 one, such as `[::]:7777`, is
    /// dual-stack unless [`HostConfig::ipv6_only`]).
    pub fn bind(address: SocketAddr, config: HostConfig) -> Result<Host, Error> {
        Host::open(Some(address), config)
    }

    /// A host for connecting out: dual-stack, on a port the system picks.
    pub fn client(config: HostConfig) -> Result<Host, Error> {
        Host::open(None, config)
    }

    /// A host as [`Host::bind`] and [`Host::client`] make it, with the
    /// `ENET_RS_*` switches the environment sets now.
    fn open(bind: Option<SocketAddr>, config: HostConfig) -> Result<Host, Error> {
        Host::open_with(bind, config, Switches::from_env())
    }

    fn open_with(
        bind: Option<SocketAddr>,
        config: HostConfig,
        switches: Switches,
    ) -> Result<Host, Error> {
        const MAXIMUM_PEERS: usize = enet::abi::ENET_PROTOCOL_MAXIMUM_PEER_ID as usize;
        if config.peers > MAXIMUM_PEERS {
            return Err(Error::TooManyPeers(config.peers));
        }
        let options = HostSocketOptions {
            bind,
            ipv6_only: config.ipv6_only,
            reuse_port: config.reuse_port,
        };
        let (socket, local) = BoundSocket::open(&options, enet_view)?;
        let endpoint = HostBuilder::new(config.peers)
            .channel_limit(config.channel_limit)
            .bandwidth(config.incoming_bandwidth, config.outgoing_bandwidth)
            .switches(switches)
            .build(socket)
            .ok_or(Error::TooManyPeers(config.peers))?;
        Ok(Host {
            id: NEXT_HOST_ID.fetch_add(1, Ordering::Relaxed),
            endpoint,
            codec: WireCodec::new(config.checksum, config.compress),
            local,
            connections: vec![None; config.peers],
            ended: vec![None; config.peers],
        })
    }

    /// A [`Sender`] other threads can queue work for this host with (every
    /// call gives one for the same queue). Fails only if the system
    /// refuses a waker for the host's thread.
    pub fn sender(&mut self) -> Result<Sender, Error> {
        let queue = self.endpoint.request_queue().ok_or(Error::NoSender)?;
        Ok(Sender::new(queue, self.id))
    }

    /// The address the socket is bound to.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.local)
    }

    /// Starts connecting to `address` with `channels` channels (1 to
    /// 255); `data` reaches the other side's connect event. The
    /// [`Event::Connect`] for the returned peer says when it is done.
    pub fn connect(
        &mut self,
        address: SocketAddr,
        channels: usize,
        data: u32,
    ) -> Result<Peer, Error> {
        let address = normalized(address);
        if !self.endpoint.family().reaches(&address) {
            return Err(Error::AddressFamily);
        }
        let index = self
            .endpoint
            .connect_endpoint(address, channels, data)
            .ok_or(Error::NoFreeSlot)?;
        let handle = self.endpoint.peer_handle(index);
        self.connections[index.get()] = Some(handle);
        self.ended[index.get()] = None;
        Ok(self.peer(handle))
    }

    /// Sends what is queued, receives, and returns the first event, waiting
    /// up to `timeout` for one (`Duration::ZERO` never waits).
    pub fn service(&mut self, timeout: Duration) -> Result<Option<Event>, Error> {
        let timeout = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        let serviced = self
            .with_engine(|engine, transport, hooks| engine.service(transport, hooks, true, timeout))
            .map_err(|_| Error::Service)?;
        Ok(match serviced {
            Serviced::Event(event) => Some(self.event(event)),
            Serviced::Idle | Serviced::InterceptedEvent => None,
        })
    }

    /// Sends what is queued now, without receiving or waiting.
    pub fn flush(&mut self) -> Result<(), Error> {
        self.with_engine(|engine, transport, hooks| engine.flush(transport, hooks))
            .map_err(|_| Error::Service)
    }

    /// Runs `call` on the engine with this host's transport (woken by its
    /// senders, through its DTLS sessions if it encrypts) and hooks (its
    /// codec, and what its senders queued).
    fn with_engine<R>(
        &mut self,
        call: impl FnOnce(
            &mut proto::Host,
            &mut MaybeSecure<'_, SocketTransport<'_>>,
            &mut SafeHooks<'_>,
        ) -> R,
    ) -> R {
        let codec = &mut self.codec;
        self.endpoint.run(|engine, transport, requests| {
            let mut hooks = SafeHooks { codec, requests };
            call(engine, transport, &mut hooks)
        })
    }

    /// Gives this host a network conditioner as `spec` describes it (the
    /// text `ENET_RS_NETSIM` takes, e.g. `"loss=5%,lag=40ms"` or
    /// `"preset:mobile"`; see the library's docs/netsim.md), in place of
    /// the one it had; `""` turns it off. What the old one held is dropped.
    /// A spec that cannot be read is refused and the host keeps what it
    /// had. A host also takes `ENET_RS_NETSIM` when it is made.
    pub fn set_netsim(&mut self, spec: &str) -> Result<(), Error> {
        let conditioner = enet::net::netsim::Conditioner::from_spec(spec)
            .map_err(|error| Error::Netsim(error.to_string()))?;
        self.endpoint.set_netsim(conditioner.map(Box::new));
        Ok(())
    }

    /// What the network conditioner did in each direction, if the host
    /// has one.
    pub fn netsim_stats(&mut self) -> Option<NetsimStats> {
        let [outgoing, incoming] = self.endpoint.netsim()?.stats();
        Some(NetsimStats { outgoing, incoming })
    }

    /// Makes this host accept encrypted connections: every datagram to
    /// and from a client travels over a DTLS 1.2 session with its address
    /// (the ENet datagrams inside unchanged), and the host presents the
    /// first certificate of `certificate_chain_pem`, whose ECDSA P-256 or
    /// P-384 key is `private_key_pem` (PKCS#8 or SEC1). A new address must
    /// answer a cookie before the host keeps anything for it; plaintext
    /// datagrams are dropped from now on. Call it before any peer
    /// connects.
    pub fn encrypt_as_server(
        &mut self,
        certificate_chain_pem: &str,
        private_key_pem: &str,
    ) -> Result<(), Error> {
        let setup = ServerSetup::from_pem(certificate_chain_pem, private_key_pem)
            .map_err(|error| Error::Encryption(error.to_string()))?;
        self.secure_layer()?.set_server(setup);
        Ok(())
    }

    /// Makes this host connect out encrypted: [`Host::connect`] starts a
    /// DTLS 1.2 handshake with the address, then ENet's connect inside it.
    /// `check` says how the server's certificate is judged; a refused
    /// certificate or a handshake that times out ends in the peer's
    /// [`Event::Disconnect`], and [`Host::encryption`] says why. Call it
    /// before any peer connects.
    pub fn encrypt_as_client(&mut self, check: ServerCheck<'_>) -> Result<(), Error> {
        let setup = match check {
            ServerCheck::None => ClientSetup::new(false, "", None),
            ServerCheck::Trusted {
                certificates_pem,
                host_name,
            } => ClientSetup::new(true, certificates_pem, host_name),
        };
        let setup = setup.map_err(|error| Error::Encryption(error.to_string()))?;
        self.secure_layer()?.set_client(setup);
        Ok(())
    }

    /// The host's DTLS layer, made on first use, which must come before
    /// any peer connects (a host never turns encrypted under a
    /// connection).
    fn secure_layer(&mut self) -> Result<&mut SecureLayer, Error> {
        self.endpoint.secure_layer().ok_or(Error::HasPeers)
    }

    /// `peer`'s encryption; it stays readable after the peer's
    /// [`Event::Disconnect`] (to learn why a handshake failed) until its
    /// slot is taken again.
    pub fn encryption(&self, peer: Peer) -> Result<Encryption, Error> {
        let index = match self.index(peer) {
            Ok(index) => index,
            Err(Error::PeerGone) if self.ended.get(peer.slot()) == Some(&Some(peer.handle)) => {
                self.endpoint.slot(peer.slot()).ok_or(Error::PeerGone)?
            }
            Err(error) => return Err(error),
        };
        let Some(layer) = self.endpoint.secure() else {
            return Ok(Encryption::None);
        };
        let connecting =
            self.endpoint.peer(index).state == ENetPeerState::ENET_PEER_STATE_CONNECTING;
        Ok(
            match layer.peer_status(&self.endpoint.peer_endpoint(index), connecting) {
                Status::None => Encryption::None,
                Status::Handshaking => Encryption::Handshaking,
                Status::Established => Encryption::Established,
                Status::Failed(why) => Encryption::Failed(why),
            },
        )
    }

    /// How many DTLS sessions the host keeps now, handshaking or
    /// established (0 for a plain host); addresses that sent hellos
    /// without answering a cookie have none.
    pub fn encrypted_sessions(&self) -> usize {
        self.endpoint
            .secure()
            .map_or(0, |layer| layer.session_count())
    }

    /// Queues `packet` for `peer` on `channel`; it leaves at the next
    /// [`Host::service`] or [`Host::flush`].
    pub fn send(&mut self, peer: Peer, channel: u8, packet: Packet) -> Result<(), Error> {
        let index = self.index(peer)?;
        // Inlined whole, as `enet_peer_send`'s: every message passes here.
        let result = self.endpoint.with_peer(
            index,
            #[inline(always)]
            |peer, terms| peer.send(ChannelId::from(channel), packet.engine().view(), terms),
        );
        result.map_err(|error| match error {
            SendError::NotConnected => Error::NotConnected,
            SendError::BadChannel => Error::BadChannel {
                channel,
                channels: self.endpoint.peer(index).channelCount,
            },
            SendError::TooLarge | SendError::TooManyFragments => Error::TooLarge(packet.len()),
        })
    }

    /// Queues `packet` for every connected peer on `channel`.
    pub fn broadcast(&mut self, channel: u8, packet: Packet) {
        self.endpoint.broadcast(channel, packet.engine().view());
    }

    /// Disconnects `peer` gracefully: what is queued goes first, and an
    /// [`Event::Disconnect`] follows once the peer has acknowledged.
    pub fn disconnect(&mut self, peer: Peer, data: u32) -> Result<(), Error> {
        let index = self.index(peer)?;
        let effect = self.endpoint.disconnect(index, data);
        self.finish_disconnect(index, effect)
    }

    /// Disconnects `peer` at once: it is told (once, unreliably), no event
    /// follows, and its handle is stale at once.
    pub fn disconnect_now(&mut self, peer: Peer, data: u32) -> Result<(), Error> {
        let index = self.index(peer)?;
        let effect = self.endpoint.disconnect_now(index, data);
        self.finish_disconnect(index, effect)
    }

    /// What is known of `peer`.
    pub fn peer_info(&self, peer: Peer) -> Result<PeerInfo, Error> {
        let index = self.index(peer)?;
        let public = self.endpoint.peer(index);
        Ok(PeerInfo {
            address: self.endpoint.peer_endpoint(index),
            channels: public.channelCount,
            round_trip_time: Duration::from_millis(u64::from(public.roundTripTime)),
            packet_loss: public.packetLoss as f32 / enet::abi::ENET_PEER_PACKET_LOSS_SCALE as f32,
        })
    }

    /// Whether `peer` is connected now.
    pub fn is_connected(&self, peer: Peer) -> bool {
        self.index(peer).is_ok_and(|index| {
            self.endpoint.peer(index).state == ENetPeerState::ENET_PEER_STATE_CONNECTED
        })
    }

    /// This host's peer of `handle`.
    fn peer(&self, handle: PeerHandle) -> Peer {
        Peer {
            handle,
            host: self.id,
        }
    }

    /// The slot `peer` names, if it is this host's and still names that
    /// connection.
    pub(crate) fn index(&self, peer: Peer) -> Result<PeerIndex, Error> {
        if peer.host != self.id {
            return Err(Error::ForeignPeer);
        }
        let index = peer.slot();
        let ours = self.connections.get(index) == Some(&Some(peer.handle));
        match self.endpoint.handle_index(peer.handle) {
            Some(index) if ours => Ok(index),
            _ => Err(Error::PeerGone),
        }
    }

    /// Does what a disconnect of slot `index` left to do (a peer not yet
    /// connected is told once and reset, as ENet does); a slot reset
    /// without an event has its handle go stale.
    fn finish_disconnect(
        &mut self,
        index: PeerIndex,
        effect: DisconnectEffect,
    ) -> Result<(), Error> {
        let finished = self.with_engine(|engine, transport, hooks| {
            engine.finish_disconnect(index, effect, transport, hooks)
        });
        if effect.resets() {
            self.ended[index.get()] = self.connections[index.get()].take();
        }
        finished.map_err(|_| Error::Service)
    }

    /// An engine event as this API reports it.
    fn event(&mut self, event: proto::Event) -> Event {
        let index = event.peer();
        let known = self.connections[index.get()];
        match event {
            proto::Event::Connect { data, .. } => {
                let handle = self.endpoint.peer_handle(index);
                self.connections[index.get()] = Some(handle);
                self.ended[index.get()] = None;
                Event::Connect {
                    peer: self.peer(handle),
                    data,
                }
            }
            proto::Event::Disconnect { data, .. } => {
                self.connections[index.get()] = None;
                self.ended[index.get()] = known;
                let handle = known.unwrap_or(PeerHandle {
                    index: index.as_u32(),
                    generation: 0,
                });
                Event::Disconnect {
                    peer: self.peer(handle),
                    data,
                }
            }
            proto::Event::Receive {
                channel_id, packet, ..
            } => Event::Receive {
                peer: self.peer(known.unwrap_or_else(|| self.endpoint.peer_handle(index))),
                channel: channel_id,
                packet: Packet::from_engine(packet),
            },
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        // Senders are refused from now on (what they queued is dropped),
        // the socket closes and peers' queued packets go back.
        self.endpoint.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use enet::proto::LossRecovery;

    /// Switches as the environment would set them to `pairs` (the real
    /// environment is left alone: tests run side by side).
    fn switches(pairs: &[(&str, &str)]) -> Switches {
        let (switches, malformed) = Switches::parse(|name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        });
        assert!(malformed.is_empty(), "{malformed:?}");
        switches
    }

    fn loopback() -> Option<SocketAddr> {
        Some("127.0.0.1:0".parse().unwrap())
    }

    #[test]
    fn a_host_takes_the_loss_recovery_and_reassembly_budget_switches() {
        let host = Host::open_with(
            loopback(),
            HostConfig::default(),
            switches(&[
                ("ENET_RS_LOSS_RECOVERY", "stock"),
                ("ENET_RS_REASSEMBLY_BUDGET", "100000"),
            ]),
        )
        .unwrap();
        assert_eq!(host.endpoint.loss_recovery(), LossRecovery::STOCK);
        assert_eq!(host.endpoint.reassembly_limit(), 100_000);

        let plain = Host::open_with(loopback(), HostConfig::default(), switches(&[])).unwrap();
        assert_eq!(plain.endpoint.loss_recovery(), LossRecovery::DEFAULT);
        assert_ne!(plain.endpoint.reassembly_limit(), 100_000);
    }

    #[test]
    fn a_host_takes_the_netsim_switch() {
        let mut host = Host::open_with(
            loopback(),
            HostConfig::default(),
            switches(&[("ENET_RS_NETSIM", "loss=50%,seed=3")]),
        )
        .unwrap();
        assert!(host.netsim_stats().is_some());
        let mut plain = Host::open_with(loopback(), HostConfig::default(), switches(&[])).unwrap();
        assert!(plain.netsim_stats().is_none());
    }
}
