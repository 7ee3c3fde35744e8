//! A receive phase that has taken a quarter window of a large reliable
//! message's fragments sends their acknowledgements before it reads on,
//! so the sender, bound by that window, refills it while the receiver
//! works; a phase of whole messages sends its acknowledgements once, at
//! its end, as stock's does.

use std::collections::VecDeque;
use std::net::SocketAddr;

use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{
    ChannelId, CodecOnly, Grouping, ServiceFailed, Serviced, Transmitted, Transport,
};

use crate::sim::{address_of, connect, Sim, SimTransport};

/// What the receiver's transport saw, in order.
#[derive(Debug, PartialEq)]
enum Step {
    Received,
    Sent,
}

/// The simulator's transport, logging each receive and each send.
struct Logging<'a> {
    inner: SimTransport<'a>,
    log: Vec<Step>,
}

impl Transport for Logging<'_> {
    fn now(&mut self) -> u32 {
        self.inner.now()
    }

    fn receive<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed> {
        let log = &mut self.log;
        self.inner.receive(|from, bytes| {
            log.push(Step::Received);
            handle(from, bytes)
        })
    }

    fn transmit(&mut self, to: &SocketAddr, bytes: &[u8], grouping: Grouping) -> Transmitted {
        self.log.push(Step::Sent);
        self.inner.transmit(to, bytes, grouping)
    }

    fn flush(&mut self) -> Result<(), ServiceFailed> {
        self.inner.flush()
    }

    fn wait(&mut self, ms: u32) -> Result<bool, ServiceFailed> {
        self.inner.wait(ms)
    }
}

/// The client sends `count` reliable messages of `size` bytes in one send
/// pass; the server then takes all of its datagrams in one receive phase.
/// The log of the server's transport, and how many datagrams it took.
fn receive_in_one_phase(size: usize, count: usize) -> (Vec<Step>, usize) {
    let mut sim = Sim::new(7, 0);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);
    sim.run_for(50);

    for _ in 0..count {
        let packet = PacketRef::new_with_data(&vec![0x5A; size], PacketFlags::RELIABLE).unwrap();
        let accepted = sim
            .host(client)
            .with_peer(client_peer, |view, terms| {
                view.send(ChannelId::from(0), &packet, terms)
            })
            .is_ok();
        assert!(accepted);
        let _ = packet.hand_to_program();
    }
    // Only the client runs: its datagrams are traced, none delivered yet.
    sim.trace = Some(Vec::new());
    sim.stalled[server] = true;
    sim.step();
    let from = address_of(client);
    let due: VecDeque<_> = sim
        .trace
        .take()
        .unwrap()
        .into_iter()
        .zip(&sim.trace_sent)
        .filter(|(_, (_, port))| *port == from.port)
        .map(|(bytes, _)| (from, bytes))
        .collect();
    let datagrams = due.len();

    let now = sim.now;
    let sim_host = &mut sim.hosts[server];
    let mut outbox = Vec::new();
    let mut transport = Logging {
        inner: SimTransport {
            now,
            due,
            outbox: &mut outbox,
        },
        log: Vec::new(),
    };
    let mut hooks = CodecOnly(sim_host.codec.as_mut());
    // As a program calls enet_host_service until it reports nothing.
    loop {
        match sim_host.host.service(&mut transport, &mut hooks, true, 0) {
            Ok(Serviced::Idle) if transport.inner.due.is_empty() => break,
            Ok(_) => {}
            Err(ServiceFailed) => panic!("service failed"),
        }
    }
    (transport.log, datagrams)
}

/// Positions (counted in datagrams received before it) of each send.
fn sends_after(log: &[Step]) -> Vec<usize> {
    let mut received = 0;
    let mut sends = Vec::new();
    for step in log {
        match step {
            Step::Received => received += 1,
            Step::Sent => sends.push(received),
        }
    }
    sends
}

#[test]
fn a_large_message_is_acknowledged_a_quarter_window_at_a_time() {
    // 48 KiB: about 36 fragments, all in the sender's first window.
    let (log, datagrams) = receive_in_one_phase(48 * 1024, 1);
    assert!(datagrams >= 30, "{datagrams} datagrams");
    let sends = sends_after(&log);
    // 16 KiB of fragments is 12 datagrams of the default MTU's.
    let first = sends[0];
    assert!(
        (12..=13).contains(&first),
        "first acknowledgements after {first} of {datagrams} datagrams: {sends:?}"
    );
    assert!(
        sends.iter().filter(|&&at| at < datagrams).count() >= 2,
        "acknowledgements sent while reading on: {sends:?}"
    );
}

#[test]
fn whole_messages_are_acknowledged_after_the_receive_phase() {
    // 36 reliable messages of 1000 bytes: one a datagram, 36 KiB in all.
    let (log, datagrams) = receive_in_one_phase(1000, 36);
    assert!(datagrams >= 30, "{datagrams} datagrams");
    let sends = sends_after(&log);
    assert!(!sends.is_empty());
    assert!(
        sends.iter().all(|&at| at == datagrams),
        "sent before the receive phase ended: {sends:?} of {datagrams}"
    );
}

#[test]
fn nothing_is_acknowledged_early_while_a_packet_waits_for_the_program() {
    // The first 48 KiB message completes at its last fragment and waits
    // for dispatch; the second's fragments read after it must not be
    // acknowledged before the phase ends (a reply to them could reset
    // the peer's queues before the program has the first).
    let (_, first_length) = receive_in_one_phase(48 * 1024, 1);
    let (log, datagrams) = receive_in_one_phase(48 * 1024, 2);
    assert!(datagrams > first_length + 8, "{datagrams} datagrams");
    let sends = sends_after(&log);
    assert!(sends.iter().any(|&at| at < first_length), "{sends:?}");
    assert!(
        sends.iter().all(|&at| at < first_length || at == datagrams),
        "acknowledged while the first message waited: {sends:?}, it completed at {first_length}"
    );
}
