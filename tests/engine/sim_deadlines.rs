//! `Host::next_deadline` is what `enet_host_service` sleeps until. If it
//! were ever late, a real program would retransmit, ping or time out late;
//! if early, it would only wake for nothing. Here one lossy session is run
//! twice from the same seed: once serviced every virtual millisecond, once
//! jumping straight from deadline to deadline (and to datagram arrivals),
//! as a blocked program lives it. Both must send the same datagrams at the
//! same times and report the same events. Time starts just below the
//! 32-bit wrap of ENet's clock, so the session crosses it.

use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, PeerIndex};

use crate::sim::{Link, Seen, Sim};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Clock {
    EveryMillisecond,
    DeadlineToDeadline,
}

fn advance(sim: &mut Sim, ms: u32, clock: Clock) {
    match clock {
        Clock::EveryMillisecond => sim.run_for(ms),
        Clock::DeadlineToDeadline => sim.run_jumping(ms),
    }
}

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, channel: u8, data: &[u8], flags: PacketFlags) {
    let packet = PacketRef::new_with_data(data, flags).unwrap();
    sim.host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(channel), &packet, terms)
        })
        .expect("send");
}

struct Outcome {
    trace: Vec<Vec<u8>>,
    sent: Vec<(u32, u16)>,
    seen: Vec<Vec<Seen>>,
    rounds: u64,
    elapsed: u64,
}

fn session(seed: u64, link: Link, clock: Clock) -> Outcome {
    let start = 0xFFFF_FFFFu32 - 9_000;
    let mut sim = Sim::new(seed, start);
    sim.link = link;
    sim.trace = Some(Vec::new());
    let server = sim.add_host(2, 2);
    let client = sim.add_host(1, 2);
    let address = sim.hosts[server].address;
    let peer = sim.host(client).connect(address, 2, 42).expect("slot");
    advance(&mut sim, 3_000, clock);
    for round in 0..12u32 {
        for i in 0..6u32 {
            let n = round * 6 + i;
            let len = if n % 17 == 0 {
                5_000
            } else {
                20 + (n as usize * 37) % 900
            };
            let data: Vec<u8> = (0..len).map(|b| (b as u32 ^ n) as u8).collect();
            let flags = if n % 3 == 0 {
                PacketFlags::NONE
            } else {
                PacketFlags::RELIABLE
            };
            send(&mut sim, client, peer, (n % 2) as u8, &data, flags);
        }
        advance(&mut sim, 37, clock);
    }
    advance(&mut sim, 12_000, clock);
    let _ = sim.host(client).disconnect(peer, 7);
    advance(&mut sim, 6_000, clock);
    Outcome {
        trace: sim.trace.take().unwrap(),
        sent: std::mem::take(&mut sim.trace_sent),
        seen: sim.hosts.iter().map(|h| h.seen.clone()).collect(),
        rounds: sim.rounds,
        elapsed: u64::from(sim.now.wrapping_sub(start)),
    }
}

fn compare(seed: u64, link: Link) {
    let stepped = session(seed, link, Clock::EveryMillisecond);
    let jumped = session(seed, link, Clock::DeadlineToDeadline);
    assert_eq!(stepped.elapsed, jumped.elapsed);
    assert!(
        stepped.seen[0]
            .iter()
            .any(|s| matches!(s, Seen::Receive { .. })),
        "the session delivered nothing"
    );
    assert!(
        stepped.seen[0]
            .iter()
            .any(|s| matches!(s, Seen::Disconnect { data: 7, .. })),
        "the disconnect did not arrive"
    );
    assert_eq!(
        stepped.sent.len(),
        jumped.sent.len(),
        "datagram counts differ"
    );
    for (index, (a, b)) in stepped.sent.iter().zip(&jumped.sent).enumerate() {
        assert_eq!(
            a, b,
            "datagram {index} sent at a different time or by another host"
        );
    }
    assert!(stepped.trace == jumped.trace, "datagram bytes differ");
    assert_eq!(stepped.seen, jumped.seen, "events differ");
    // Jumping really skipped the idle milliseconds.
    assert!(
        jumped.rounds * 3 < stepped.rounds,
        "{} rounds jumping vs {} stepping",
        jumped.rounds,
        stepped.rounds
    );
}

#[test]
fn deadlines_are_never_late_on_a_clean_link() {
    compare(
        81,
        Link {
            latency: 15,
            jitter: 0,
            loss: 0.0,
            duplicate: 0.0,
        },
    );
}

#[test]
fn deadlines_are_never_late_under_loss_duplication_and_jitter() {
    for seed in [82, 83, 84] {
        compare(
            seed,
            Link {
                latency: 20,
                jitter: 15,
                loss: 0.1,
                duplicate: 0.05,
            },
        );
    }
}
