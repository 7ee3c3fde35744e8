//! Loss recovery on simulated links: each reliable command retransmitted
//! on its own deadline, early resends once later commands are
//! acknowledged, the congestion window, and stock's timeouts kept where
//! the default promises them.

use enet::mem::{PacketFlags, PacketRef};
use enet::proto::LossRecovery;
use enet::proto::{ChannelId, PeerIndex};
use enet::wire::command::{Command, CommandFlags, CommandHeader};
use enet::wire::{Datagram, DatagramBuilder, Envelope};

use crate::sim::{self, address_of, connect, numbers_on, Link, Sim};

fn send(sim: &mut Sim, host: usize, peer: PeerIndex, channel: u8, data: &[u8]) {
    let packet = PacketRef::new_with_data(data, PacketFlags::RELIABLE).unwrap();
    assert!(sim
        .host(host)
        .with_peer(peer, |view, terms| {
            view.send(ChannelId::from(channel), &packet, terms)
        })
        .is_ok());
    let _ = packet.hand_to_program();
}

/// A client and a server connected over `link`, both hosts set to
/// `recovery`; (sim, client, client's peer, server).
fn pair(
    seed: u64,
    start: u32,
    link: Link,
    recovery: LossRecovery,
) -> (Sim, usize, PeerIndex, usize) {
    let mut sim = Sim::new(seed, start);
    let server = sim.add_host(1, 4);
    let client = sim.add_host(1, 4);
    for host in [server, client] {
        sim.host(host).set_loss_recovery(recovery);
    }
    sim.link = link;
    let (client_peer, _) = connect(&mut sim, client, server, 4, 0);
    (sim, client, client_peer, server)
}

/// Virtual time from now until `done`, stepping 1 ms at a time.
fn time_until(sim: &mut Sim, limit: u32, done: impl Fn(&Sim) -> bool) -> Option<u32> {
    let start = sim.now;
    sim.run_until(limit, done)
        .then(|| sim.now.wrapping_sub(start))
}

/// When the client gives up on a server that fell silent while the client
/// kept sending a reliable message every 50 ms.
fn silent_peer_drop_time(recovery: LossRecovery, latency: u32, start: u32) -> u32 {
    let link = Link {
        latency,
        ..Link::default()
    };
    let (mut sim, client, peer, server) = pair(21, start, link, recovery);
    for i in 0..20u32 {
        send(&mut sim, client, peer, 0, &i.to_be_bytes());
        sim.run_for(50);
    }
    sim.down[server] = true;
    let silent_at = sim.now;
    let mut i = 0u32;
    while sim.disconnects(client).is_empty() {
        assert!(i < 2000, "never dropped");
        send(&mut sim, client, peer, (i % 4) as u8, &i.to_be_bytes());
        sim.run_until(50, |s| !s.disconnects(client).is_empty());
        i += 1;
    }
    sim.now.wrapping_sub(silent_at)
}

#[test]
fn the_default_drops_a_silent_peer_when_stock_does() {
    for (latency, start) in [(5, 1_000_000), (40, u32::MAX - 4000), (150, 7)] {
        let stock = silent_peer_drop_time(LossRecovery::STOCK, latency, start);
        let default = silent_peer_drop_time(LossRecovery::DEFAULT, latency, start);
        assert_eq!(
            default, stock,
            "latency {latency} ms: dropped after {default} ms, stock after {stock} ms"
        );
        // The stock rule still holds in fast mode: never before 5 s.
        let fast = silent_peer_drop_time(LossRecovery::FAST, latency, start);
        assert!(
            (5000..=31000).contains(&fast),
            "fast mode dropped after {fast} ms"
        );
    }
}

/// A command sent after one whose timeout already doubled is lost too:
/// how long until the later one reaches the server.
fn later_loss_delivery(recovery: LossRecovery) -> u32 {
    let link = Link {
        latency: 10,
        ..Link::default()
    };
    let (mut sim, client, peer, server) = pair(22, 50_000, link, recovery);
    sim.run_for(200);
    // The first command is lost twice: its timeout doubles.
    sim.down[server] = true;
    send(&mut sim, client, peer, 0, b"first");
    let resent = sim.hosts[client].host.peer_recovery_stats(peer).0;
    assert_eq!(resent.timeouts, 0);
    assert!(sim.run_until(2000, |s| s.hosts[client]
        .host
        .peer_recovery_stats(peer)
        .0
        .timeouts
        == 1));
    // The second, on another channel, is sent now and lost once.
    send(&mut sim, client, peer, 1, b"second");
    // Both copies in flight (10 ms away) are lost; the link then returns.
    sim.run_for(12);
    sim.down[server] = false;
    time_until(&mut sim, 10_000, |s| {
        s.received(server).iter().any(|(_, data)| data == b"second")
    })
    .expect("delivered")
}

#[test]
fn a_later_loss_is_resent_on_its_own_deadline_not_behind_the_oldest() {
    let stock = later_loss_delivery(LossRecovery::STOCK);
    // A copy while the command stays in flight (the default), or the
    // command itself with a fresh timeout (fast mode).
    for recovery in [LossRecovery::DEFAULT, LossRecovery::FAST] {
        let own_deadline = later_loss_delivery(recovery);
        assert!(
            own_deadline < stock,
            "{recovery:?}: own deadline: {own_deadline} ms, behind the oldest: {stock} ms"
        );
    }
}

#[test]
fn acknowledgements_of_later_commands_resend_a_lost_one_before_its_timeout() {
    let link = Link {
        latency: 30,
        ..Link::default()
    };
    let mut delivered = Vec::new();
    for recovery in [LossRecovery::STOCK, LossRecovery::DEFAULT] {
        let (mut sim, client, peer, server) = pair(23, 9_000, link, recovery);
        sim.run_for(300);
        // One datagram lost; three more follow, 5 ms apart, on the same
        // channel, so the lost one holds them all back.
        sim.down[server] = true;
        send(&mut sim, client, peer, 0, b"lost");
        sim.run_for(31);
        sim.down[server] = false;
        for i in 0..3u8 {
            send(&mut sim, client, peer, 0, &[i]);
            sim.run_for(5);
        }
        let time =
            time_until(&mut sim, 10_000, |s| s.received(server).len() == 4).expect("all delivered");
        let received: Vec<Vec<u8>> = sim.received(server).into_iter().map(|(_, d)| d).collect();
        assert_eq!(received, [b"lost".to_vec(), vec![0], vec![1], vec![2]]);
        let stats = sim.hosts[client].host.peer_recovery_stats(peer).0;
        delivered.push((time, stats.fast_retransmits));
    }
    let [(stock_time, stock_fast), (default_time, default_fast)] = delivered[..] else {
        unreachable!()
    };
    assert_eq!(stock_fast, 0);
    assert_eq!(default_fast, 1, "one early resend");
    assert!(
        default_time < stock_time,
        "early resend: {default_time} ms, timeout: {stock_time} ms"
    );
}

/// Virtual ms to move `bytes` reliably over a 20 ms path, and the largest
/// congestion window seen.
fn bulk(recovery: LossRecovery, loss: f64, bytes: usize) -> (u32, u32) {
    let link = Link {
        latency: 20,
        loss,
        ..Link::default()
    };
    let (mut sim, client, peer, server) = pair(24, u32::MAX - 10_000, link, recovery);
    let chunk = vec![0x5Au8; 1000];
    let messages = bytes / chunk.len();
    for i in 0..messages {
        let mut data = chunk.clone();
        data[..4].copy_from_slice(&(i as u32).to_be_bytes());
        send(&mut sim, client, peer, 0, &data);
    }
    let mut largest_window = 0;
    let start = sim.now;
    let done = sim.run_until(600_000, |s| {
        largest_window = largest_window.max(s.hosts[client].host.peer_recovery_stats(peer).1);
        s.received(server).len() == messages
    });
    assert!(done, "only {} of {messages}", sim.received(server).len());
    let order: Vec<u32> = sim
        .received(server)
        .iter()
        .map(|(_, d)| u32::from_be_bytes(d[..4].try_into().unwrap()))
        .collect();
    assert!(order.iter().copied().eq(0..messages as u32), "out of order");
    (sim.now.wrapping_sub(start), largest_window)
}

#[test]
fn the_congestion_window_opens_past_stock_on_a_long_path_and_backs_off_on_loss() {
    let bytes = 2_000_000;
    let (stock_ms, stock_window) = bulk(LossRecovery::STOCK, 0.0, bytes);
    assert_eq!(stock_window, 0, "no congestion window in stock mode");
    let (fast_ms, fast_window) = bulk(LossRecovery::FAST, 0.0, bytes);
    assert!(
        fast_window > 4 * 65536,
        "the window only reached {fast_window} bytes"
    );
    assert!(
        fast_ms * 3 < stock_ms,
        "{bytes} bytes in {fast_ms} ms with the window, {stock_ms} ms without"
    );
    // With loss, everything still arrives once and in order.
    let (lossy_ms, _) = bulk(LossRecovery::FAST, 0.02, bytes);
    assert!(lossy_ms > fast_ms);
}

#[test]
fn a_transfer_longer_than_the_idle_release_keeps_its_window_to_the_end() {
    // Queued at once, 3 MB over a 150 ms path take over a second (the
    // window doubles each 300 ms round trip), longer than a peer goes
    // without payloads before its queues (and the window with them) are
    // given back. The sender was busy all along, so the last
    // acknowledgement must find its window still open.
    let link = Link {
        latency: 150,
        ..Link::default()
    };
    let (mut sim, client, peer, server) = pair(26, u32::MAX - 10_000, link, LossRecovery::FAST);
    let messages = 3000;
    for i in 0..messages {
        send(&mut sim, client, peer, 0, &[i as u8; 1000]);
    }
    let start = sim.now;
    assert!(sim.run_until(600_000, |s| s.received(server).len() == messages));
    assert!(
        sim.now.wrapping_sub(start) > 1000,
        "the transfer took only {} ms",
        sim.now.wrapping_sub(start)
    );
    // Every acknowledgement back (a round trip), then the window.
    sim.run_for(400);
    let window = sim.hosts[client].host.peer_recovery_stats(peer).1;
    assert!(window > 4 * 65536, "the window is {window} bytes");
}

#[test]
fn every_mode_delivers_exactly_once_in_order_on_a_hostile_link() {
    for recovery in [
        LossRecovery::STOCK,
        LossRecovery::DEFAULT,
        LossRecovery::FAST,
    ] {
        let link = Link {
            latency: 15,
            jitter: 25,
            loss: 0.15,
            duplicate: 0.05,
        };
        let (mut sim, client, peer, server) = pair(25, u32::MAX - 2000, link, recovery);
        let count = 400u32;
        for i in 0..count {
            send(&mut sim, client, peer, (i % 3) as u8, &i.to_be_bytes());
            if i % 4 == 0 {
                sim.step();
            }
        }
        assert!(
            sim.run_until(300_000, |s| s.received(server).len() >= count as usize),
            "{recovery:?}: only {} delivered",
            sim.received(server).len()
        );
        sim.run_for(3000);
        let received = sim.received(server);
        assert_eq!(received.len(), count as usize, "{recovery:?}: duplicates");
        for channel in 0..3u8 {
            let values = numbers_on(&received, channel);
            let expected: Vec<u32> = (0..count).filter(|i| i % 3 == u32::from(channel)).collect();
            assert_eq!(values, expected, "{recovery:?}: channel {channel}");
        }
        assert!(sim.disconnects(client).is_empty(), "{recovery:?}: dropped");
    }
}

/// 1200 small reliable messages and a 100 KB one, queued at once, over a
/// link with 20 % loss and 30 ms of jitter: whether the client stayed
/// connected until all arrived.
fn burst_over_a_bad_link(seed: u64, recovery: LossRecovery) -> bool {
    let mut sim = Sim::new(seed, 1_000_000);
    let server = sim.add_host(2, 4);
    let client = sim.add_host(1, 4);
    sim.host(server).set_loss_recovery(recovery);
    sim.host(client).set_loss_recovery(recovery);
    let (client_peer, _) = connect(&mut sim, client, server, 4, 0);
    sim.link = Link {
        latency: 20,
        jitter: 30,
        loss: 0.2,
        duplicate: 0.05,
    };
    for i in 0..300u32 {
        for channel in 0..4u8 {
            send(&mut sim, client, client_peer, channel, &i.to_be_bytes());
        }
    }
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    send(&mut sim, client, client_peer, 2, &big);
    let ok = sim.run_until(300_000, |s| {
        s.received(server).len() >= 1201 || !s.disconnects(client).is_empty()
    });
    ok && sim.disconnects(client).is_empty()
}

#[test]
fn fast_recovery_never_gives_up_on_a_live_peer_and_the_default_no_more_than_stock() {
    let drops = |recovery| {
        (0..12)
            .filter(|&seed| !burst_over_a_bad_link(seed, recovery))
            .count()
    };
    let stock = drops(LossRecovery::STOCK);
    let default = drops(LossRecovery::DEFAULT);
    let fast = drops(LossRecovery::FAST);
    assert_eq!(fast, 0, "fast mode dropped a live peer");
    assert!(default <= stock, "default dropped {default}, stock {stock}");
}

/// A 60 Hz stream of small reliable messages (a game's state updates) for
/// `seconds` over a 20 ms path losing `loss` of the datagrams each way:
/// the client's retransmitted commands, and the datagrams the server sent.
fn state_stream(recovery: LossRecovery, loss: f64, seconds: u32) -> (u64, usize) {
    let link = Link {
        latency: 20,
        ..Link::default()
    };
    let (mut sim, client, peer, server) = pair(26, 3_000_000, link, recovery);
    sim.run_for(500);
    sim.link.loss = loss;
    sim.trace = Some(Vec::new());
    let server_port = sim::address_of(server).port;
    let messages = seconds * 60;
    for i in 0..messages {
        send(&mut sim, client, peer, 0, &i.to_be_bytes());
        sim.run_for(if i % 3 == 2 { 16 } else { 17 });
    }
    assert!(sim.run_until(30_000, |s| s.received(server).len() == messages as usize));
    assert!(numbers_on(&sim.received(server), 0)
        .into_iter()
        .eq(0..messages));
    let resent = sim.hosts[client]
        .host
        .peer_recovery_stats(peer)
        .0
        .retransmitted_commands;
    let server_datagrams = sim
        .trace_sent
        .iter()
        .filter(|(_, port)| *port == server_port)
        .count();
    (resent, server_datagrams)
}

#[test]
fn repeated_acknowledgements_go_in_a_datagram_of_their_own_and_spare_resends() {
    let once = LossRecovery {
        repeat_acknowledgements: false,
        ..LossRecovery::FAST
    };
    // Loss-free, the acknowledgement of each of the 300 messages goes
    // once more in a datagram of its own (the server's pings are not
    // acknowledgements).
    let (_, single) = state_stream(once, 0.0, 5);
    let (resent, doubled) = state_stream(LossRecovery::FAST, 0.0, 5);
    assert_eq!(resent, 0);
    assert!(
        (300..=305).contains(&(doubled - single)),
        "{doubled} datagrams with repeats, {single} without"
    );
    // At 10 % loss each way, a lost acknowledgement no longer costs a
    // resend unless its repeat is lost too: about half the resends.
    let (resent_once, _) = state_stream(once, 0.1, 30);
    let (resent_twice, _) = state_stream(LossRecovery::FAST, 0.1, 30);
    assert!(
        resent_twice * 10 < resent_once * 7,
        "{resent_twice} resends with repeated acknowledgements, {resent_once} without"
    );
}

/// One message lost `losses` times in a row (the server is cut off until
/// the client has sent it that many times): ms from its send to delivery.
fn repeated_loss_delivery(recovery: LossRecovery, losses: u64) -> u32 {
    let link = Link {
        latency: 20,
        ..Link::default()
    };
    let (mut sim, client, peer, server) = pair(27, 70_000, link, recovery);
    sim.run_for(500);
    sim.down[server] = true;
    let start = sim.now;
    send(&mut sim, client, peer, 0, b"lost");
    let stats = |s: &Sim| s.hosts[client].host.peer_recovery_stats(peer).0;
    assert!(sim.run_until(10_000, |s| stats(s).timeouts == losses - 1));
    // The last loss is the copy just sent, still on its way.
    sim.run_for(21);
    sim.down[server] = false;
    assert!(sim.run_until(10_000, |s| !s.received(server).is_empty()));
    sim.now.wrapping_sub(start)
}

#[test]
fn a_thin_stream_keeps_its_timeout_through_repeated_losses() {
    let backing_off = LossRecovery {
        thin_stream_commands: 0,
        ..LossRecovery::FAST
    };
    let thin = repeated_loss_delivery(LossRecovery::FAST, 3);
    let backed_off = repeated_loss_delivery(backing_off, 3);
    // Timeouts t, t, t against t, 1.5 t, 2.25 t: the third resend is
    // 0.75 t sooner.
    assert!(
        thin + 20 < backed_off,
        "thin stream: {thin} ms, backing off: {backed_off} ms"
    );
}

/// Reliable commands resent while 15,000 small messages, five a
/// millisecond, cross a 10 ms path losing 5 % of the datagrams each way.
fn dense_stream_resends(recovery: LossRecovery) -> u64 {
    let link = Link {
        latency: 10,
        ..Link::default()
    };
    let (mut sim, client, peer, server) = pair(28, 100_000, link, recovery);
    sim.link.loss = 0.05;
    for i in 0..15_000u32 {
        send(&mut sim, client, peer, 0, &i.to_be_bytes());
        if i % 5 == 4 {
            sim.step();
        }
    }
    assert!(sim.run_until(20_000, |s| s.received(server).len() == 15_000));
    sim.hosts[client]
        .host
        .peer_recovery_stats(peer)
        .0
        .retransmitted_commands
}

#[test]
fn a_busy_stream_under_loss_draws_no_storm_of_copies() {
    // An acknowledgement of an earlier transmission that arrives after a
    // retransmission moved the command to the back of the queue once
    // counted as passing over everything in flight: the default sent six
    // times stock's resends here. A copy per loss beside stock's own
    // resend is the design, so at most twice.
    let stock = dense_stream_resends(LossRecovery::STOCK);
    let default = dense_stream_resends(LossRecovery::DEFAULT);
    let fast = dense_stream_resends(LossRecovery::FAST);
    assert!(stock > 0);
    assert!(
        default <= 2 * stock,
        "default {default} resends, stock {stock}"
    );
    assert!(fast <= stock, "fast {fast} resends, stock {stock}");
}

/// Acknowledgements, from the server's side of the connection, of every
/// reliable send on channel 0 in `datagrams` (the client's) but the one
/// numbered `spared`; with `spared` still `None`, the first such send met
/// becomes the spared one.
fn acknowledge_all_but(
    datagrams: &[Vec<u8>],
    spared: &mut Option<u16>,
    peer_id: u16,
    session: u8,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for bytes in datagrams {
        let Ok(datagram) = Datagram::parse(bytes, false) else {
            continue;
        };
        let sent_time = datagram.header().sent_time.unwrap_or(0);
        let mut builder = DatagramBuilder::new(1400);
        for item in datagram.commands() {
            let Ok((header, Command::SendReliable { .. })) = item else {
                continue;
            };
            if header.channel_id != 0
                || *spared.get_or_insert(header.reliable_sequence_number)
                    == header.reliable_sequence_number
            {
                continue;
            }
            let acknowledgement = CommandHeader {
                flags: CommandFlags::NONE,
                channel_id: 0,
                reliable_sequence_number: header.reliable_sequence_number,
            };
            let command = Command::Acknowledge {
                received_reliable_sequence_number: header.reliable_sequence_number,
                received_sent_time: sent_time,
            };
            builder.push(&acknowledgement, &command).expect("room");
        }
        if !builder.is_empty() {
            out.push(builder.finish(Envelope::plain(peer_id, session, 0)));
        }
    }
    out
}

/// A peer that acknowledges every reliable command but the first makes
/// the default mode copy that one again and again (each three later
/// acknowledgements pass over it), far past the thirty or so copies after
/// which a doubled copy delay would wrap to 0. The sender keeps more than
/// a datagram's worth to send, so a send pass goes round while anything is
/// due: every pass must still end, and the copies due on their own
/// deadline must keep backing off instead of going out every millisecond.
#[test]
fn a_peer_that_never_acknowledges_one_command_cannot_make_a_send_pass_endless() {
    let (mut sim, client, peer, server) = pair(31, 5_000, Link::default(), LossRecovery::DEFAULT);
    sim.run_for(200);
    // What the client's peer calls itself in the server's datagrams.
    let (peer_id, session) = {
        let own = sim.host(client).peer(peer);
        (own.incomingPeerID, own.incomingSessionID)
    };
    sim.down[server] = true;
    sim.trace = Some(Vec::new());
    let mut spared = None;
    let mut most_in_a_round = 0;
    for step in 0..3000u32 {
        for half in 0..2 {
            let mut message = vec![0x5A; 1000];
            message[..4].copy_from_slice(&(step * 2 + half).to_be_bytes());
            send(&mut sim, client, peer, 0, &message);
        }
        let before = sim.datagrams_sent;
        sim.step();
        most_in_a_round = most_in_a_round.max(sim.datagrams_sent - before);
        let sent = std::mem::take(sim.trace.as_mut().expect("tracing"));
        for acknowledgements in acknowledge_all_but(&sent, &mut spared, peer_id, session) {
            sim.inject(address_of(server), client, acknowledgements);
        }
    }
    assert!(spared.is_some(), "the first message went out");
    let stats = sim.hosts[client].host.peer_recovery_stats(peer).0;
    assert!(
        stats.fast_retransmits > 64,
        "the spared command was copied early {} times",
        stats.fast_retransmits
    );
    assert!(
        stats.timeouts < 300,
        "{} resends on deadlines in 3 s",
        stats.timeouts
    );
    assert!(
        most_in_a_round < 64,
        "{most_in_a_round} datagrams in one round"
    );
}
