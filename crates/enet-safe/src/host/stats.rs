//! A host's counters and a peer's ([`Host::stats`], [`Host::counters`]):
//! what the C library's `enet_rs_host_get_stats` and
//! `enet_rs_peer_get_counters` report.

use std::time::Duration;

use enet::abi::ENET_PEER_PACKET_LOSS_SCALE;
use enet::endpoint::HostStats;

use super::Host;
use crate::error::Error;
use crate::peer::Peer;

/// What a peer has queued and in flight, and how its link fares
/// ([`Host::counters`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeerCounters {
    /// Commands queued to send (acknowledgements not counted), and the
    /// payload bytes they carry.
    pub queued_commands: u64,
    pub queued_bytes: u64,
    /// Reliable commands sent and not yet acknowledged, and their bytes.
    pub in_flight_commands: u64,
    pub in_flight_bytes: u64,
    /// Reliable commands sent again, and their payload bytes.
    pub resends: u64,
    pub resent_bytes: u64,
    /// The smoothed round-trip time and its variance.
    pub round_trip_time: Duration,
    pub round_trip_time_variance: Duration,
    /// Reliable packets lost, as a fraction, and its variance (ENet's
    /// estimates).
    pub packet_loss: f32,
    pub packet_loss_variance: f32,
}

impl Host {
    /// What the host counted since it was made: datagrams and bytes in
    /// and out, dropped datagrams by why ([`HostStats::dropped_for`]),
    /// connects accepted, refused and evicted, reassembly evictions,
    /// encrypted sessions and the network conditioner's drops. Reading
    /// costs nothing while the host runs.
    pub fn stats(&self) -> HostStats {
        self.endpoint.stats()
    }

    /// What `peer` has queued and in flight, its resends, round trip and
    /// loss.
    pub fn counters(&self, peer: Peer) -> Result<PeerCounters, Error> {
        let index = self.index(peer)?;
        let counters = self.endpoint.peer_counters(index);
        let public = self.endpoint.peer(index);
        let scale = ENET_PEER_PACKET_LOSS_SCALE as f32;
        Ok(PeerCounters {
            queued_commands: counters.queued_commands,
            queued_bytes: counters.queued_bytes,
            in_flight_commands: counters.in_flight_commands,
            in_flight_bytes: counters.in_flight_bytes,
            resends: counters.recovery.retransmitted_commands,
            resent_bytes: counters.recovery.retransmitted_bytes,
            round_trip_time: Duration::from_millis(u64::from(public.roundTripTime)),
            round_trip_time_variance: Duration::from_millis(u64::from(
                public.roundTripTimeVariance,
            )),
            packet_loss: public.packetLoss as f32 / scale,
            packet_loss_variance: public.packetLossVariance as f32 / scale,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Event, HostConfig};
    use crate::packet::{Delivery, Packet};
    use enet::endpoint::DatagramDrop;
    use enet::wire::DropReason;
    use std::net::UdpSocket;
    use std::time::Instant;

    /// Services both hosts until `done`, shown each of the server's
    /// events, says so (at most 5 s).
    fn pump(
        server: &mut Host,
        client: &mut Host,
        mut done: impl FnMut(&Host, Option<Event>) -> bool,
    ) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            let event = server.service(Duration::from_millis(1)).unwrap();
            if done(server, event) {
                return;
            }
            let _ = client.service(Duration::from_millis(1)).unwrap();
        }
        panic!("timed out");
    }

    #[test]
    fn a_host_counts_its_traffic_and_what_it_dropped() {
        let loopback = "127.0.0.1:0".parse().unwrap();
        let mut server = Host::bind(loopback, HostConfig::default()).unwrap();
        let mut client = Host::client(HostConfig::default()).unwrap();
        let address = server.local_addr().unwrap();
        let to_server = client.connect(address, 1, 0).unwrap();
        let mut from_client = None;
        pump(&mut server, &mut client, |_, event| {
            if let Some(Event::Connect { peer, .. }) = event {
                from_client = Some(peer);
            }
            from_client.is_some()
        });
        let from_client = from_client.unwrap();
        assert_eq!(server.stats().engine.connects_accepted, 1);
        assert_eq!(server.stats().engine.connects_refused, 0);

        // Three messages queued: the client's counters see them waiting.
        for _ in 0..3 {
            let packet = Packet::new(&[7; 100], Delivery::Reliable);
            client.send(to_server, 0, packet).unwrap();
        }
        let queued = client.counters(to_server).unwrap();
        assert_eq!((queued.queued_commands, queued.queued_bytes), (3, 300));
        let mut received = 0;
        pump(&mut server, &mut client, |_, event| {
            received += usize::from(matches!(event, Some(Event::Receive { .. })));
            received == 3
        });
        let before = server.stats();
        assert!(before.engine.datagrams_in >= 2, "{before:?}");
        assert!(before.engine.bytes_in > 300, "{before:?}");
        assert!(before.engine.datagrams_out >= 1, "{before:?}");
        assert_eq!(before.dropped_total(), 0, "{before:?}");
        let server_side = server.counters(from_client).unwrap();
        assert_eq!(server_side.queued_bytes, 0);
        assert_eq!(server_side.resends, 0);

        // A datagram with a peer id the server has no slot for, one too
        // short for a header, and one longer than any ENet datagram.
        let raw = UdpSocket::bind("127.0.0.1:0").unwrap();
        raw.send_to(&[0x0F, 0xFE, 0, 0], address).unwrap();
        raw.send_to(&[0x80], address).unwrap();
        raw.send_to(&[0; 5000], address).unwrap();
        pump(&mut server, &mut client, |server, _| {
            server.stats().dropped_total() == 3
        });
        let after = server.stats();
        for why in [
            DatagramDrop::Protocol(DropReason::BadPeerId),
            DatagramDrop::Protocol(DropReason::Truncated),
            DatagramDrop::Oversized,
        ] {
            assert_eq!(after.dropped_for(why), 1, "{}", why.name());
        }
        // The two the engine saw count as received; the oversized one
        // never reached it.
        assert!(after.engine.datagrams_in >= before.engine.datagrams_in + 2);
        assert_eq!((after.dtls_sessions, after.netsim_dropped), (0, 0));
        assert!(matches!(
            server.counters(to_server),
            Err(Error::ForeignPeer)
        ));
    }
}
