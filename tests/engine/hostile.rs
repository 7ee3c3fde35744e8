//! Hostile datagrams: nothing may crash the engine, deliver bytes nobody
//! sent, or break a good connection.

use enet::abi::ENetAddress;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, PeerIndex};
use enet::wire::command::{Command, CommandFlags, CommandHeader};
use enet::wire::DropReason;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::sim::forge::{fragment, Forger};
use crate::sim::{connect, Sim};

/// A server with two clients: the attacker forges datagrams as the first
/// (an attacker who sniffed that connection can speak for it), the second
/// is a bystander whose connection must keep working.
fn setup(seed: u64) -> (Sim, usize, usize, usize, PeerIndex) {
    let mut sim = Sim::new(seed, 50_000);
    let server = sim.add_host(2, 2);
    let victim = sim.add_host(1, 2);
    let bystander = sim.add_host(1, 2);
    let (victim_peer, _) = connect(&mut sim, victim, server, 2, 0);
    let (bystander_peer, _) = connect(&mut sim, bystander, server, 2, 0);
    assert_eq!(victim_peer, sim.slot(victim, 0));
    (sim, server, victim, bystander, bystander_peer)
}

fn still_works(sim: &mut Sim, server: usize, client: usize, client_peer: PeerIndex) {
    let before = sim.received(server).len();
    let packet = PacketRef::new_with_data(b"still alive", PacketFlags::RELIABLE).unwrap();
    sim.host(client)
        .with_peer(client_peer, |peer, terms| {
            peer.send(ChannelId::from(0), &packet, terms)
        })
        .expect("send");
    let _ = packet.hand_to_program();
    assert!(
        sim.run_until(5000, |s| s.received(server).len() > before),
        "connection broken"
    );
    assert_eq!(sim.received(server).last().unwrap().1, b"still alive");
}

#[test]
fn zero_length_fragments_deliver_nothing() {
    // Stock 1.3.17 delivers 100 uninitialised bytes for this.
    let (mut sim, server, victim, client, client_peer) = setup(31);
    let first = sim.slot(victim, 0);
    let forger = Forger::for_connection(&mut sim, victim, first);
    let datagram = forger.datagram(&[
        fragment(1, 1, 2, 0, 100, 0, &[]),
        fragment(1, 2, 2, 1, 100, 50, &[]),
    ]);
    assert_eq!(
        forger.inject(&mut sim, server, &datagram),
        Err(DropReason::CommandRejected)
    );
    sim.run_for(100);
    assert!(sim.received(server).is_empty());
    still_works(&mut sim, server, client, client_peer);
}

#[test]
fn fragments_that_leave_holes_or_overlap_are_refused() {
    let (mut sim, server, victim, client, client_peer) = setup(32);
    let first = sim.slot(victim, 0);
    let forger = Forger::for_connection(&mut sim, victim, first);
    // totalLength below fragmentCount.
    let tiny = forger.datagram(&[fragment(1, 1, 10, 0, 5, 0, &[1])]);
    assert_eq!(
        forger.inject(&mut sim, server, &tiny),
        Err(DropReason::CommandRejected)
    );
    // Two fragments of 10 bytes claiming a 100-byte packet.
    let holes = forger.datagram(&[
        fragment(1, 1, 2, 0, 100, 0, &[7; 10]),
        fragment(1, 2, 2, 1, 100, 90, &[7; 10]),
    ]);
    assert!(forger.inject(&mut sim, server, &holes).is_err());
    // Overlap: both fragments at offset 0.
    let overlap = forger.datagram(&[
        fragment(1, 1, 2, 0, 100, 0, &[7; 50]),
        fragment(1, 2, 2, 1, 100, 0, &[7; 50]),
    ]);
    assert!(forger.inject(&mut sim, server, &overlap).is_err());
    // Over the host's maximum packet size.
    let huge = forger.datagram(&[fragment(1, 1, 2, 0, 64 << 20, 0, &[7; 100])]);
    assert_eq!(
        forger.inject(&mut sim, server, &huge),
        Err(DropReason::CommandRejected)
    );
    sim.run_for(200);
    assert!(sim.received(server).is_empty());
    still_works(&mut sim, server, client, client_peer);
}

#[test]
fn datagrams_from_the_wrong_place_are_dropped() {
    let (mut sim, server, victim, client, client_peer) = setup(33);
    let first = sim.slot(victim, 0);
    let forger = Forger::for_connection(&mut sim, victim, first);
    let ping = [(
        CommandHeader {
            flags: CommandFlags::ACKNOWLEDGE,
            channel_id: 0xFF,
            reliable_sequence_number: 9,
        },
        Command::Ping,
    )];
    let wrong_session = Forger {
        session: (forger.session + 1) % 4,
        ..forger
    };
    assert_eq!(
        wrong_session.inject(&mut sim, server, &wrong_session.datagram(&ping)),
        Err(DropReason::SessionMismatch)
    );
    let first = sim.slot(victim, 0);
    let forger = Forger::for_connection(&mut sim, victim, first);
    let elsewhere = Forger {
        from: ENetAddress {
            host: 0x0100_007F,
            port: 1,
        },
        ..forger
    };
    assert_eq!(
        elsewhere.inject(&mut sim, server, &elsewhere.datagram(&ping)),
        Err(DropReason::AddressMismatch)
    );
    let first = sim.slot(victim, 0);
    let forger = Forger::for_connection(&mut sim, victim, first);
    let no_peer = Forger {
        peer_id: 77,
        ..forger
    };
    assert_eq!(
        no_peer.inject(&mut sim, server, &no_peer.datagram(&ping)),
        Err(DropReason::BadPeerId)
    );
    still_works(&mut sim, server, client, client_peer);
}

#[test]
fn random_and_mutated_datagrams_never_break_the_host() {
    let (mut sim, server, victim, client, client_peer) = setup(34);
    let first = sim.slot(victim, 0);
    let forger = Forger::for_connection(&mut sim, victim, first);
    let mut rng = StdRng::seed_from_u64(35);
    let good = forger.datagram(&[fragment(40, 40, 3, 1, 3000, 1372, &[5; 1372])]);
    for round in 0..50_000u32 {
        let bytes: Vec<u8> = if round % 2 == 0 {
            let mut mutated = good.clone();
            for _ in 0..rng.gen_range(1..6) {
                let at = rng.gen_range(0..mutated.len());
                mutated[at] = rng.gen();
            }
            mutated.truncate(rng.gen_range(2..=mutated.len()));
            mutated
        } else {
            let mut bytes = vec![0u8; rng.gen_range(0..200)];
            rng.fill(&mut bytes[..]);
            // Aim at the real peer half the time so the body gets parsed.
            if bytes.len() >= 2 && rng.gen_bool(0.5) {
                let word =
                    forger.peer_id | (u16::from(forger.session) << 12) | (bytes[0] as u16 & 0x8000);
                bytes[..2].copy_from_slice(&word.to_be_bytes());
            }
            bytes
        };
        let _ = forger.inject(&mut sim, server, &bytes);
        if round % 1000 == 0 {
            sim.step();
        }
    }
    // Whatever was accepted is bounded by the waiting-data limit.
    let victim_address = sim.hosts[victim].address;
    let victim_slot = sim
        .slots(server)
        .into_iter()
        .find(|&i| sim.host(server).peer(i).address == victim_address);
    let waiting = victim_slot.map_or(0, |i| sim.host(server).peer(i).totalWaitingData);
    assert!(waiting <= sim.host(server).public.maximumWaitingData + 65536);
    still_works(&mut sim, server, client, client_peer);
}

#[test]
fn empty_commands_held_out_of_order_are_bounded() {
    // Zero-length unreliable packets for a reliable number not reached yet
    // are held until it arrives; stock counts only their bytes (none), so
    // they could pin memory without limit. Each costs here.
    let (mut sim, server, victim, _, _) = setup(36);
    let first = sim.slot(victim, 0);
    let forger = Forger::for_connection(&mut sim, victim, first);
    let victim_address = sim.hosts[victim].address;
    let slot = sim
        .slots(server)
        .into_iter()
        .find(|&i| sim.host(server).peer(i).address == victim_address)
        .unwrap();
    // Room for about 100 of them: each costs an ENetIncomingCommand's size
    // (96 bytes on 64-bit targets, 76 on 32-bit ones).
    let held_cost = core::mem::size_of::<enet::abi::ENetIncomingCommand>();
    sim.host(server).public.maximumWaitingData = held_cost * 100;
    let mut accepted = 0;
    for unreliable in 1..=1000u16 {
        let datagram = forger.datagram(&[(
            CommandHeader {
                flags: CommandFlags::NONE,
                channel_id: 0,
                reliable_sequence_number: 5, // ahead: held
            },
            Command::SendUnreliable {
                unreliable_sequence_number: unreliable,
                data: &[],
            },
        )]);
        if forger.inject(&mut sim, server, &datagram).is_ok() {
            accepted += 1;
        }
    }
    assert!(
        (90..=110).contains(&accepted),
        "held {accepted} empty commands"
    );
    // The public counter still counts bytes only, as stock's.
    assert_eq!(sim.host(server).peer(slot).totalWaitingData, 0);
}
