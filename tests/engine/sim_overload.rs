//! A receiver overrun by an unreliable flood: the reliable command whose
//! datagram it lost must still get through once it is resent, however
//! full of held messages its waiting-data budget is, and so must a
//! reliable message queued after the flood.

use enet::abi::ENetIncomingCommand;
use enet::mem::{PacketFlags, PacketRef};
use enet::proto::{ChannelId, PeerIndex};

use crate::sim::{connect, numbers_on, Sim};

/// The tags of the two reliable messages (the flood counts from 0).
const FIRST: u32 = 0xFFFF_FFF0;
const END: u32 = 0xFFFF_FFFF;

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, tag: u32, flags: PacketFlags) {
    let mut data = [0x5A; 64];
    data[..4].copy_from_slice(&tag.to_be_bytes());
    let packet = PacketRef::new_with_data(&data, flags).unwrap();
    let accepted = sim
        .host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(0), &packet, terms)
        })
        .is_ok();
    assert!(accepted, "the peer refused message {tag:#x}");
    // Leave the packet to the queue, as a program does after enet_peer_send.
    let _ = packet.hand_to_program();
}

/// `lost` reliable messages whose datagrams the receiver's socket drops
/// (as an overrun socket drops the ones stock's sender makes of every
/// 65536th unreliable message), then a flood of unreliable ones sent after
/// them, held until the lost ones arrive: more than the budget holds. Then
/// the END message. Everything the budget let in, and END, must arrive.
fn flood_after_lost_reliable_messages(lost: u32) {
    let mut sim = Sim::new(52, 0);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, server_peer) = connect(&mut sim, client, server, 1, 0);
    // Room for about 200 held 64-byte messages.
    let held_cost = core::mem::size_of::<ENetIncomingCommand>() + 64;
    sim.host(server).public.maximumWaitingData = held_cost * 200;

    for tag in 0..lost {
        send(
            &mut sim,
            client,
            client_peer,
            FIRST + tag,
            PacketFlags::RELIABLE,
        );
    }
    sim.link.loss = 1.0;
    sim.step();
    sim.link.loss = 0.0;
    let flood = 1000;
    for tag in 0..flood {
        send(&mut sim, client, client_peer, tag, PacketFlags::NONE);
    }
    send(&mut sim, client, client_peer, END, PacketFlags::RELIABLE);

    let end_arrived = sim.run_until(10_000, |s| {
        numbers_on(&s.received(server), 0).contains(&END)
    });
    let numbers = numbers_on(&sim.received(server), 0);
    assert!(
        end_arrived,
        "END not delivered within 10 s; delivered {} messages",
        numbers.len()
    );
    assert!(sim.disconnects(server).is_empty() && sim.disconnects(client).is_empty());
    let resent: Vec<u32> = (0..lost).map(|tag| FIRST + tag).collect();
    assert_eq!(
        numbers[..lost as usize],
        resent[..],
        "the resent ones come first"
    );
    assert_eq!(numbers.last(), Some(&END));
    // The messages held within the budget are released in order.
    let released = &numbers[lost as usize..numbers.len() - 1];
    assert!(released.len() >= 150, "released {}", released.len());
    assert!(released.windows(2).all(|pair| pair[0] < pair[1]));
    // Once the program took them, nothing waits any more.
    assert_eq!(sim.host(server).peer(server_peer).totalWaitingData, 0);
}

#[test]
fn a_lost_reliable_command_gets_through_a_budget_full_of_messages_held_for_it() {
    flood_after_lost_reliable_messages(1);
}

#[test]
fn lost_reliable_commands_get_through_a_budget_full_of_messages_held_behind_them() {
    // The flood waits for the second; the first releases nothing itself.
    flood_after_lost_reliable_messages(2);
}

/// A reliable message lost, the unreliable ones sent after it, a second
/// reliable message and more unreliable ones: everything after the lost
/// one waits for its resend, which then releases it all in the order it
/// was sent. (Releasing both reliable messages first would leave the
/// unreliable ones between them under a passed number, to be dropped: a
/// flooded receiver whose socket lost one of the flood's reliable
/// commands lost the next 65535 messages with it.)
#[test]
fn messages_held_behind_a_resent_reliable_one_keep_their_place_before_the_next() {
    let mut sim = Sim::new(53, 0);
    let server = sim.add_host(1, 1);
    let client = sim.add_host(1, 1);
    let (client_peer, _) = connect(&mut sim, client, server, 1, 0);

    send(&mut sim, client, client_peer, FIRST, PacketFlags::RELIABLE);
    sim.link.loss = 1.0;
    sim.step();
    sim.link.loss = 0.0;
    let mut sent = vec![FIRST];
    for tag in 0..50 {
        send(&mut sim, client, client_peer, tag, PacketFlags::NONE);
        sent.push(tag);
    }
    send(
        &mut sim,
        client,
        client_peer,
        FIRST + 1,
        PacketFlags::RELIABLE,
    );
    sent.push(FIRST + 1);
    for tag in 100..150 {
        send(&mut sim, client, client_peer, tag, PacketFlags::NONE);
        sent.push(tag);
    }
    send(&mut sim, client, client_peer, END, PacketFlags::RELIABLE);
    sent.push(END);

    let end_arrived = sim.run_until(10_000, |s| {
        numbers_on(&s.received(server), 0).contains(&END)
    });
    assert!(end_arrived, "END not delivered within 10 s");
    assert_eq!(numbers_on(&sim.received(server), 0), sent);
}
