//! The two sides of a measurement, over a loaded ENet library.
//!
//! The client sends data on channels 1..=C, numbering its messages; the
//! server counts what arrives and, every 100 ms, tells each peer on
//! channel 0 how many messages and bytes it has received from it so far
//! and the highest number it has seen. The client's figures are
//! therefore what was delivered, not what was sent, and a message
//! numbered below the highest that never arrived was lost on the way.
//! Messages also carry their send time, and the server echoes what it
//! needs to measure their latency back on channel 0 (see [`crate::latency`]).

use std::net::SocketAddrV4;
use std::ptr;
use std::time::{Duration, Instant};

use enet::abi::{ENetAddress, ENetEvent, ENetEventType, ENetHost, ENetPeer, ENetPeerState};
use enet::mem::PacketFlags;

use crate::latency::{self, Echo, Echoes, Estimator};
use crate::library::Library;
use crate::report::{Interval, Summary};

/// How the client's messages travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Reliable,
    Unreliable,
    Unsequenced,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Reliable => "reliable",
            Mode::Unreliable => "unreliable",
            Mode::Unsequenced => "unsequenced",
        }
    }

    /// The flags for `enet_packet_create`, which takes them as a `u32`.
    fn flags(self) -> u32 {
        let flags = match self {
            Mode::Reliable => PacketFlags::RELIABLE,
            Mode::Unreliable => PacketFlags::NONE,
            Mode::Unsequenced => PacketFlags::UNSEQUENCED,
        };
        flags.bits()
    }
}

/// What the client is asked to do.
#[derive(Debug, Clone)]
pub struct ClientPlan {
    pub server: SocketAddrV4,
    pub mode: Mode,
    pub size: usize,
    /// Messages per second over all peers.
    pub rate: u32,
    pub peers: usize,
    pub channels: usize,
    pub duration: Duration,
    /// How often to measure (the live line, the JSON intervals, the plot).
    pub interval: Duration,
    /// enet-rs's loss-recovery mode, if one was asked for.
    pub loss_recovery: Option<String>,
    /// enet-rs's network conditioner for the client's host, if asked for.
    pub netsim: Option<String>,
    /// Stamp messages with their send time, to measure their latency.
    pub latency: bool,
}

const REPORT_CHANNEL: u8 = 0;
const REPORT_EVERY: Duration = Duration::from_millis(100);
/// How often the server sends the latency echoes it has gathered (and
/// at once when a batch is full).
const ECHO_EVERY: Duration = Duration::from_millis(10);
const CONNECT_WAIT: Duration = Duration::from_secs(5);

fn enet_address(address: SocketAddrV4) -> ENetAddress {
    ENetAddress {
        host: u32::from_ne_bytes(address.ip().octets()),
        port: address.port(),
    }
}

/// A host of the loaded library, destroyed when dropped.
struct HostGuard<'a> {
    library: &'a Library,
    host: *mut ENetHost,
}

impl Drop for HostGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: a host this guard created, destroyed once.
        unsafe { (self.library.host_destroy)(self.host) };
    }
}

/// One `enet_host_service` call; the event if there was one.
fn service(
    library: &Library,
    host: *mut ENetHost,
    timeout_ms: u32,
) -> Result<Option<ENetEvent>, String> {
    // SAFETY: an all-zero event is a valid "none" event.
    let mut event: ENetEvent = unsafe { std::mem::zeroed() };
    // SAFETY: a live host and a writable event.
    match unsafe { (library.host_service)(host, &mut event, timeout_ms) } {
        0 => Ok(None),
        1.. => Ok(Some(event)),
        _ => Err("enet_host_service failed (the socket refused to work)".into()),
    }
}

/// Runs the server on `port` until `stop()` says so (checked every 100 ms);
/// with `once`, also until every peer that connected has left. Prints
/// `PORT p` once listening.
pub fn serve(
    library: &Library,
    port: u16,
    once: bool,
    loss_recovery: Option<&str>,
    netsim: Option<&str>,
    json: bool,
    stop: impl Fn() -> bool,
) -> Result<(), String> {
    let address = ENetAddress { host: 0, port };
    // SAFETY: a valid address.
    let host = unsafe { (library.host_create)(&address, 256, 255, 0, 0) };
    if host.is_null() {
        return Err(format!(
            "cannot listen on UDP port {port}: it is in use or not allowed (pick another with --port)"
        ));
    }
    let guard = HostGuard { library, host };
    if let Some(mode) = loss_recovery {
        library.set_loss_recovery(host, mode)?;
    }
    if let Some(spec) = netsim {
        library.set_netsim(host, spec)?;
    }
    // SAFETY: a live host.
    let bound = unsafe { (*host).address.port };
    println!("PORT {bound}");
    println!(
        "enetperf server on UDP port {bound} ({} {})",
        library.name(),
        library.version()
    );
    let mut received: Vec<Received> = Vec::new();
    let mut echoes = Echoes::default();
    let mut last_echo = Instant::now();
    let mut connected = 0usize;
    let mut ever_connected = false;
    let mut last_report = Instant::now();
    let all_left = |connected: usize, ever: bool| once && ever && connected == 0;
    while !(stop() || all_left(connected, ever_connected)) {
        // Reports go out on time however busy the peers keep us.
        while last_report.elapsed() < REPORT_EVERY {
            if last_echo.elapsed() >= ECHO_EVERY {
                last_echo = Instant::now();
                send_echoes(library, guard.host, &mut echoes);
            }
            let Some(event) = service(library, guard.host, 10)? else {
                continue;
            };
            let delivered_us = latency::now_us();
            let index = slot_of(guard.host, event.peer);
            if received.len() <= index {
                received.resize(index + 1, Received::default());
            }
            match event.r#type {
                ENetEventType::ENET_EVENT_TYPE_CONNECT => {
                    connected += 1;
                    ever_connected = true;
                    received[index] = Received::default();
                    echoes.connected(index);
                }
                ENetEventType::ENET_EVENT_TYPE_DISCONNECT => {
                    connected = connected.saturating_sub(1)
                }
                ENetEventType::ENET_EVENT_TYPE_RECEIVE => {
                    // SAFETY: a received packet is ours until destroyed,
                    // its data readable for its length.
                    let data = unsafe {
                        std::slice::from_raw_parts((*event.packet).data, (*event.packet).dataLength)
                    };
                    received[index].count(data);
                    let batch_full = event.channelID != REPORT_CHANNEL
                        && echoes.delivered(index, event.channelID, data, delivered_us);
                    if batch_full {
                        send_echoes(library, guard.host, &mut echoes);
                    }
                    // SAFETY: as above.
                    unsafe { (library.packet_destroy)(event.packet) };
                }
                _ => {}
            }
        }
        if last_report.elapsed() >= REPORT_EVERY {
            last_report = Instant::now();
            for (index, peer_received) in received.iter().enumerate() {
                // SAFETY: `index` is below the host's peer count.
                let peer = unsafe { (*guard.host).peers.add(index) };
                // SAFETY: a peer of the live host.
                if unsafe { (*peer).state } != ENetPeerState::ENET_PEER_STATE_CONNECTED {
                    continue;
                }
                send(
                    library,
                    peer,
                    REPORT_CHANNEL,
                    &peer_received.encode(),
                    Mode::Reliable.flags(),
                );
            }
            // SAFETY: a live host.
            unsafe { (library.host_flush)(guard.host) };
        }
    }
    // What the host counted, if the library keeps counters.
    if let Some(stats) = library.host_stats(guard.host) {
        if json {
            println!("{}", crate::counters::json(&stats));
        } else {
            print!("{}", crate::counters::text(&stats));
        }
    }
    Ok(())
}

/// Sends each peer its latency echoes, stamped with the time they leave.
fn send_echoes(library: &Library, host: *mut ENetHost, echoes: &mut Echoes) {
    let mut sent = false;
    for (slot, entries) in echoes.take() {
        // SAFETY: a slot an event named, below the host's peer count.
        let peer = unsafe { (*host).peers.add(slot) };
        // SAFETY: a peer of the live host.
        if unsafe { (*peer).state } != ENetPeerState::ENET_PEER_STATE_CONNECTED {
            continue;
        }
        let echo = Echo::encode(latency::now_us(), &entries);
        sent |= send(library, peer, REPORT_CHANNEL, &echo, Mode::Reliable.flags());
    }
    if sent {
        // SAFETY: a live host. Flushed at once, so an echo leaves no
        // earlier than its stamp says.
        unsafe { (library.host_flush)(host) };
    }
}

/// The slot of `peer` in `host`'s peer array (a peer an event named).
fn slot_of(host: *mut ENetHost, peer: *mut ENetPeer) -> usize {
    // SAFETY: events name peers of the host they came from, so both
    // pointers are into its one peer array.
    unsafe { peer.offset_from((*host).peers) as usize }
}

/// Queues `data` to `peer`; false if the library refused it.
fn send(library: &Library, peer: *mut ENetPeer, channel: u8, data: &[u8], flags: u32) -> bool {
    // SAFETY: `data` is readable for its length and is copied.
    let packet = unsafe { (library.packet_create)(data.as_ptr().cast(), data.len(), flags) };
    if packet.is_null() {
        return false;
    }
    // SAFETY: a live peer and a fresh packet; a refused one stays ours.
    if unsafe { (library.peer_send)(peer, channel, packet) } != 0 {
        // SAFETY: as above.
        unsafe { (library.packet_destroy)(packet) };
        return false;
    }
    true
}

/// Runs the client's plan, calling `progress` once an interval.
pub fn run_client(
    library: &Library,
    plan: &ClientPlan,
    mut progress: impl FnMut(&Interval),
) -> Result<Summary, String> {
    // SAFETY: NULL address is allowed.
    let host = unsafe { (library.host_create)(ptr::null(), plan.peers, plan.channels + 1, 0, 0) };
    if host.is_null() {
        return Err("cannot create the client host".into());
    }
    let guard = HostGuard { library, host };
    if let Some(mode) = &plan.loss_recovery {
        library.set_loss_recovery(host, mode)?;
    }
    if let Some(spec) = &plan.netsim {
        library.set_netsim(host, spec)?;
    }
    let address = enet_address(plan.server);
    let mut peers = Vec::with_capacity(plan.peers);
    for _ in 0..plan.peers {
        // SAFETY: a live host and a valid address.
        let peer = unsafe { (library.host_connect)(host, &address, plan.channels + 1, 0) };
        if peer.is_null() {
            return Err("no free peer slot".into());
        }
        peers.push(peer);
    }
    let state = |peer: *mut ENetPeer| {
        // SAFETY: peers of the live host.
        unsafe { (*peer).state }
    };
    let started = Instant::now();
    while peers
        .iter()
        .any(|&peer| state(peer) != ENetPeerState::ENET_PEER_STATE_CONNECTED)
    {
        if started.elapsed() > CONNECT_WAIT {
            return Err(format!(
                "no answer from {} within {} s (is `enetperf server` running there, and the port open?)",
                plan.server,
                CONNECT_WAIT.as_secs()
            ));
        }
        service(library, host, 10)?;
    }

    let mut delivered = Delivered {
        per_peer: vec![Received::default(); peers.len()],
        reported_at: Instant::now(),
    };
    let mut payload = vec![0x5Au8; plan.size.max(16)];
    // Bytes 8..16 hold the send time; zero says none.
    payload[8..16].fill(0);
    payload.truncate(plan.size);
    let mut estimator = Estimator::new(plan.mode == Mode::Reliable);
    let per_ms = f64::from(plan.rate) / 1000.0;
    let mut budget = 0.0f64;
    let mut sent = 0u64;
    let mut sequence = 0u64;
    let mut intervals = Vec::new();
    let begin = Instant::now();
    let mut mark = Mark {
        messages: 0,
        bytes: 0,
        sent_through: 0,
        reported_at: begin,
        measured_at: begin,
        resent: 0,
        counters: vec![LossCounters::default(); peers.len()],
    };
    let mut next_tick = begin;
    let handle_events = |delivered: &mut Delivered,
                         estimator: &mut Estimator|
     -> Result<(), String> {
        while let Some(event) = service(library, guard.host, 0)? {
            let arrived_us = latency::now_us();
            if event.r#type == ENetEventType::ENET_EVENT_TYPE_RECEIVE {
                // SAFETY: a received packet is ours until destroyed.
                let (data, length) = unsafe { ((*event.packet).data, (*event.packet).dataLength) };
                // SAFETY: as above, readable for its length.
                let bytes = unsafe { std::slice::from_raw_parts(data, length) };
                // The client's host has one slot per peer.
                let slot = delivered.per_peer.get_mut(slot_of(guard.host, event.peer));
                if let (Some(slot), Some(report)) = (slot, Received::decode(bytes)) {
                    *slot = report;
                    delivered.reported_at = Instant::now();
                } else if let Some(echo) = Echo::decode(bytes) {
                    estimator.echo(echo, arrived_us);
                }
                // SAFETY: as above.
                unsafe { (library.packet_destroy)(event.packet) };
            }
        }
        Ok(())
    };
    while begin.elapsed() < plan.duration {
        let now = Instant::now();
        if now >= next_tick {
            next_tick += Duration::from_millis(1);
            budget += per_ms;
            while budget >= 1.0 {
                budget -= 1.0;
                let peer = peers[(sequence % peers.len() as u64) as usize];
                let channel = 1 + (sequence / peers.len() as u64 % plan.channels as u64) as u8;
                let stamp = sequence.to_be_bytes();
                let stamped = payload.len().min(8);
                payload[..stamped].copy_from_slice(&stamp[..stamped]);
                if plan.latency {
                    latency::stamp(&mut payload, latency::now_us());
                }
                if send(library, peer, channel, &payload, plan.mode.flags()) {
                    sent += 1;
                }
                sequence += 1;
            }
        }
        handle_events(&mut delivered, &mut estimator)?;
        if mark.measured_at.elapsed() >= plan.interval {
            let interval = measure(
                library,
                &peers,
                &delivered,
                &mut mark,
                sent,
                begin,
                &mut estimator,
            );
            progress(&interval);
            intervals.push(interval);
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    // The sending time's last part, if it is most of an interval.
    if mark.measured_at.elapsed() >= plan.interval / 2 {
        let interval = measure(
            library,
            &peers,
            &delivered,
            &mut mark,
            sent,
            begin,
            &mut estimator,
        );
        progress(&interval);
        intervals.push(interval);
    }
    // The last reports: what was still on its way.
    let settle = Instant::now();
    while settle.elapsed() < Duration::from_millis(1500) {
        handle_events(&mut delivered, &mut estimator)?;
        std::thread::sleep(Duration::from_millis(2));
    }
    for &peer in &peers {
        // SAFETY: a live peer.
        unsafe { (library.peer_disconnect)(peer, 0) };
    }
    let farewell = Instant::now();
    while farewell.elapsed() < Duration::from_millis(500) {
        service(library, host, 10)?;
    }
    let (messages, bytes, _) = delivered.totals();
    if plan.netsim.is_some() {
        if let Some(stats) = library.netsim_stats(host) {
            let line = |d: &enet::abi::ENetRsNetsimDirection| {
                format!(
                    "{} datagrams, {} dropped, {} delayed, {} duplicated, {} reordered, {} corrupted, {} rate-dropped",
                    d.datagrams, d.dropped, d.delayed, d.duplicated, d.reordered, d.corrupted, d.rateDropped
                )
            };
            eprintln!("network conditioner, sent: {}", line(&stats.outgoing));
            eprintln!("network conditioner, received: {}", line(&stats.incoming));
        }
    }
    let mut summary = Summary::new(plan, library, sent, messages, bytes, intervals);
    (summary.latency_samples, summary.latency) = estimator.total();
    Ok(summary)
}

/// What the server has said it received, and when its latest report
/// arrived: delivery rates are measured between report arrivals, so an
/// interval is not credited with a report more or less than its
/// neighbours (the server reports every 100 ms).
struct Delivered {
    /// The latest report of each peer.
    per_peer: Vec<Received>,
    reported_at: Instant,
}

impl Delivered {
    /// Messages and bytes delivered, and how many messages were sent up
    /// to the newest stamp each peer's server side has seen.
    fn totals(&self) -> (u64, u64, u64) {
        let peer_count = self.per_peer.len();
        self.per_peer
            .iter()
            .enumerate()
            .fold((0, 0, 0), |sum, (slot, peer)| {
                (
                    sum.0 + peer.messages,
                    sum.1 + peer.bytes,
                    sum.2 + peer.sent_through(slot, peer_count),
                )
            })
    }
}

/// What the server has received from one peer, and its report of it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Received {
    messages: u64,
    bytes: u64,
    /// One past the highest sequence number stamped in a message (0: none
    /// seen). Messages of 8 bytes or more carry their number in their
    /// first 8 bytes.
    stamps_through: u64,
}

impl Received {
    const REPORT_BYTES: usize = 24;

    fn count(&mut self, message: &[u8]) {
        self.messages += 1;
        self.bytes += message.len() as u64;
        if let Some(stamp) = message.first_chunk::<8>() {
            let through = u64::from_be_bytes(*stamp).saturating_add(1);
            self.stamps_through = self.stamps_through.max(through);
        }
    }

    fn encode(&self) -> [u8; Self::REPORT_BYTES] {
        let mut report = [0u8; Self::REPORT_BYTES];
        report[..8].copy_from_slice(&self.messages.to_be_bytes());
        report[8..16].copy_from_slice(&self.bytes.to_be_bytes());
        report[16..].copy_from_slice(&self.stamps_through.to_be_bytes());
        report
    }

    fn decode(report: &[u8]) -> Option<Received> {
        let report: &[u8; Self::REPORT_BYTES] = report.try_into().ok()?;
        let field = |at: usize| u64::from_be_bytes(report[at..at + 8].try_into().unwrap());
        Some(Received {
            messages: field(0),
            bytes: field(8),
            stamps_through: field(16),
        })
    }

    /// How many messages the client sent to the peer in `slot` with a
    /// number below `stamps_through`: numbers go round the peers in turn,
    /// so the peer in slot k sends k, k + n, k + 2n, ...
    fn sent_through(&self, slot: usize, peer_count: usize) -> u64 {
        let (slot, peer_count) = (slot as u64, peer_count as u64);
        if self.stamps_through > slot {
            (self.stamps_through - slot - 1) / peer_count + 1
        } else {
            0
        }
    }
}

/// Where the previous interval ended.
struct Mark {
    messages: u64,
    bytes: u64,
    sent_through: u64,
    reported_at: Instant,
    measured_at: Instant,
    /// Retransmissions counted so far (enet-rs only).
    resent: u64,
    /// Each peer's loss counters as last read.
    counters: Vec<LossCounters>,
}

/// A peer's `packetsSent` (datagrams) and `packetsLost` (commands that
/// timed out and went again): ENet folds their ratio into its loss
/// estimate every 10 s and then zeroes both, so enetperf samples them
/// every interval to see the loss as it happens.
#[derive(Debug, Clone, Copy, Default)]
struct LossCounters {
    sent: u32,
    lost: u32,
    /// When ENet last folded and zeroed them (`packetLossEpoch`).
    epoch: u32,
}

impl LossCounters {
    /// What was counted since `before`; after ENet zeroed the counters,
    /// what they hold now (the counts between the last reading and the
    /// reset are not seen).
    fn since(self, before: &LossCounters) -> (u64, u64) {
        let reset =
            self.epoch != before.epoch || self.sent < before.sent || self.lost < before.lost;
        if reset {
            (u64::from(self.sent), u64::from(self.lost))
        } else {
            (
                u64::from(self.sent - before.sent),
                u64::from(self.lost - before.lost),
            )
        }
    }
}

/// The figures of the interval since `mark` (moved to now).
fn measure(
    library: &Library,
    peers: &[*mut ENetPeer],
    delivered: &Delivered,
    mark: &mut Mark,
    sent: u64,
    begin: Instant,
    estimator: &mut Estimator,
) -> Interval {
    let (messages, bytes, sent_through) = delivered.totals();
    let reported_over = delivered
        .reported_at
        .saturating_duration_since(mark.reported_at)
        .as_secs_f64();
    // No report in the interval: nothing is known to have arrived.
    let per_second = |count: u64| {
        if reported_over > 0.0 {
            count as f64 / reported_over
        } else {
            0.0
        }
    };
    let count = peers.len() as f64;
    let (mut rtt, mut loss, mut throttle, mut resent) = (0.0, 0.0, 0.0, None::<u64>);
    let mut counters = Vec::with_capacity(peers.len());
    for &peer in peers {
        // SAFETY: peers of the live host; plain fields are read.
        let (round_trip, packet_loss, packet_throttle) = unsafe {
            (
                (*peer).roundTripTime,
                (*peer).packetLoss,
                (*peer).packetThrottle,
            )
        };
        // SAFETY: as above.
        counters.push(unsafe {
            LossCounters {
                sent: (*peer).packetsSent,
                lost: (*peer).packetsLost,
                epoch: (*peer).packetLossEpoch,
            }
        });
        rtt += f64::from(round_trip) / count;
        loss += f64::from(packet_loss) / 65536.0 * 100.0 / count;
        throttle += f64::from(packet_throttle) / 32.0 * 100.0 / count;
        if let Some(stats) = library.peer_stats {
            // SAFETY: an all-zero stats struct is valid, and the function
            // writes it for a live peer.
            let mut out: enet::abi::ENetRsPeerStats = unsafe { std::mem::zeroed() };
            // SAFETY: as above.
            if unsafe { stats(peer, &mut out) } == 0 {
                *resent.get_or_insert(0) += out.retransmittedCommands;
            }
        }
    }
    let retransmissions = resent.map(|total| total.saturating_sub(mark.resent));
    let (mut sent_since, mut lost_since) = (0u64, 0u64);
    for (now, before) in counters.iter().zip(&mark.counters) {
        let (sent, lost) = now.since(before);
        sent_since += sent;
        lost_since += lost;
    }
    let interval = Interval {
        seconds: begin.elapsed().as_secs_f64(),
        messages_per_s: per_second(messages - mark.messages),
        megabytes_per_s: per_second(bytes - mark.bytes) / 1e6,
        sent,
        rtt_ms: rtt,
        loss_percent: loss,
        throttle_percent: throttle,
        retransmissions,
        sampled_loss_percent: if sent_since > 0 {
            lost_since as f64 * 100.0 / sent_since as f64
        } else {
            0.0
        },
        undelivered_percent: {
            let offered = sent_through.saturating_sub(mark.sent_through);
            let arrived = messages - mark.messages;
            if offered > arrived {
                (offered - arrived) as f64 * 100.0 / offered as f64
            } else {
                0.0
            }
        },
        latency: estimator.interval(),
    };
    *mark = Mark {
        messages,
        bytes,
        sent_through,
        reported_at: delivered.reported_at,
        measured_at: Instant::now(),
        resent: resent.unwrap_or(mark.resent),
        counters,
    };
    interval
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_carries_counts_and_the_newest_stamp() {
        let mut received = Received::default();
        received.count(&7u64.to_be_bytes());
        received.count(&[0, 0, 0, 0, 0, 0, 0, 3, 0xAA]);
        received.count(&[1, 2]); // too short to carry a number
        assert_eq!(
            received,
            Received {
                messages: 3,
                bytes: 19,
                stamps_through: 8
            }
        );
        assert_eq!(Received::decode(&received.encode()), Some(received));
        assert_eq!(Received::decode(&[0; 16]), None);
    }

    #[test]
    fn loss_counters_count_from_zero_after_enet_zeroes_them() {
        let before = LossCounters {
            sent: 900,
            lost: 40,
            epoch: 10_000,
        };
        let later = LossCounters {
            sent: 1000,
            lost: 50,
            epoch: 10_000,
        };
        assert_eq!(later.since(&before), (100, 10));
        // Zeroed and counted past the old reading within one interval:
        // only the epoch tells.
        let after_reset = LossCounters {
            sent: 1200,
            lost: 45,
            epoch: 20_000,
        };
        assert_eq!(after_reset.since(&later), (1200, 45));
        // A stamp at the top of the range does not overflow.
        let mut received = Received::default();
        received.count(&u64::MAX.to_be_bytes());
        assert_eq!(received.stamps_through, u64::MAX);
    }

    #[test]
    fn messages_sent_through_a_stamp_are_counted_per_peer() {
        // Three peers: slot 1 sends 1, 4, 7, 10, ...
        let through = |stamps_through| Received {
            stamps_through,
            ..Received::default()
        };
        assert_eq!(through(0).sent_through(1, 3), 0);
        assert_eq!(through(1).sent_through(1, 3), 0);
        assert_eq!(through(2).sent_through(1, 3), 1);
        assert_eq!(through(8).sent_through(1, 3), 3);
        assert_eq!(through(11).sent_through(1, 3), 4);
        assert_eq!(through(5).sent_through(0, 1), 5);
    }
}
