//! The two sides of a measurement, over a loaded ENet library.
//!
//! The client sends data on channels 1..=C; the server counts what
//! arrives and, every 100 ms, tells each peer on channel 0 how many
//! messages and bytes it has received from it so far. The client's
//! figures are therefore what was delivered, not what was sent.

use std::net::SocketAddrV4;
use std::ptr;
use std::time::{Duration, Instant};

use enet::abi::{
    ENetAddress, ENetEvent, ENetEventType, ENetHost, ENetPacketFlag, ENetPeer, ENetPeerState,
};

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

    fn flags(self) -> u32 {
        match self {
            Mode::Reliable => ENetPacketFlag::ENET_PACKET_FLAG_RELIABLE as u32,
            Mode::Unreliable => 0,
            Mode::Unsequenced => ENetPacketFlag::ENET_PACKET_FLAG_UNSEQUENCED as u32,
        }
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
}

const REPORT_CHANNEL: u8 = 0;
const REPORT_EVERY: Duration = Duration::from_millis(100);
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
    // SAFETY: a live host.
    let bound = unsafe { (*host).address.port };
    println!("PORT {bound}");
    println!(
        "enetperf server on UDP port {bound} ({} {})",
        library.name(),
        library.version()
    );
    let mut received: Vec<(u64, u64)> = Vec::new();
    let mut connected = 0usize;
    let mut ever_connected = false;
    let mut last_report = Instant::now();
    let all_left = |connected: usize, ever: bool| once && ever && connected == 0;
    while !(stop() || all_left(connected, ever_connected)) {
        // Reports go out on time however busy the peers keep us.
        while last_report.elapsed() < REPORT_EVERY {
            let Some(event) = service(library, guard.host, 10)? else {
                continue;
            };
            let index = slot_of(guard.host, event.peer);
            if received.len() <= index {
                received.resize(index + 1, (0, 0));
            }
            match event.r#type {
                ENetEventType::ENET_EVENT_TYPE_CONNECT => {
                    connected += 1;
                    ever_connected = true;
                    received[index] = (0, 0);
                }
                ENetEventType::ENET_EVENT_TYPE_DISCONNECT => {
                    connected = connected.saturating_sub(1)
                }
                ENetEventType::ENET_EVENT_TYPE_RECEIVE => {
                    // SAFETY: a received packet is ours until destroyed.
                    let length = unsafe { (*event.packet).dataLength } as u64;
                    received[index].0 += 1;
                    received[index].1 += length;
                    // SAFETY: as above.
                    unsafe { (library.packet_destroy)(event.packet) };
                }
                _ => {}
            }
        }
        if last_report.elapsed() >= REPORT_EVERY {
            last_report = Instant::now();
            for (index, &(messages, bytes)) in received.iter().enumerate() {
                // SAFETY: `index` is below the host's peer count.
                let peer = unsafe { (*guard.host).peers.add(index) };
                // SAFETY: a peer of the live host.
                if unsafe { (*peer).state } != ENetPeerState::ENET_PEER_STATE_CONNECTED {
                    continue;
                }
                let mut report = [0u8; 16];
                report[..8].copy_from_slice(&messages.to_be_bytes());
                report[8..].copy_from_slice(&bytes.to_be_bytes());
                send(
                    library,
                    peer,
                    REPORT_CHANNEL,
                    &report,
                    Mode::Reliable.flags(),
                );
            }
            // SAFETY: a live host.
            unsafe { (library.host_flush)(guard.host) };
        }
    }
    Ok(())
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

/// Runs the client's plan, calling `progress` once a second.
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

    // Delivered so far, per peer, as the server last said.
    let mut delivered = vec![(0u64, 0u64); peers.len()];
    let mut payload = vec![0x5Au8; plan.size.max(8)];
    payload.truncate(plan.size);
    let per_ms = f64::from(plan.rate) / 1000.0;
    let mut budget = 0.0f64;
    let mut sent = 0u64;
    let mut sequence = 0u64;
    let mut intervals = Vec::new();
    let mut last = (0u64, 0u64, Instant::now(), 0u64);
    let begin = Instant::now();
    let mut next_tick = begin;
    let handle_events = |delivered: &mut Vec<(u64, u64)>| -> Result<(), String> {
        while let Some(event) = service(library, guard.host, 0)? {
            if event.r#type == ENetEventType::ENET_EVENT_TYPE_RECEIVE {
                // SAFETY: a received packet is ours until destroyed.
                let (data, length) = unsafe { ((*event.packet).data, (*event.packet).dataLength) };
                if length == 16 {
                    // SAFETY: 16 readable bytes.
                    let bytes = unsafe { std::slice::from_raw_parts(data, 16) };
                    // The client's host has one slot per peer.
                    if let Some(slot) = delivered.get_mut(slot_of(guard.host, event.peer)) {
                        *slot = (
                            u64::from_be_bytes(bytes[..8].try_into().unwrap()),
                            u64::from_be_bytes(bytes[8..].try_into().unwrap()),
                        );
                    }
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
                if send(library, peer, channel, &payload, plan.mode.flags()) {
                    sent += 1;
                }
                sequence += 1;
            }
        }
        handle_events(&mut delivered)?;
        if last.2.elapsed() >= Duration::from_secs(1) {
            let interval = measure(library, &peers, &delivered, &mut last, sent, begin);
            progress(&interval);
            intervals.push(interval);
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    // The last reports: what was still on its way.
    let settle = Instant::now();
    while settle.elapsed() < Duration::from_millis(1500) {
        handle_events(&mut delivered)?;
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
    let messages: u64 = delivered.iter().map(|d| d.0).sum();
    let bytes: u64 = delivered.iter().map(|d| d.1).sum();
    Ok(Summary::new(
        plan, library, sent, messages, bytes, intervals,
    ))
}

/// One second's figures since `last` (updated).
fn measure(
    library: &Library,
    peers: &[*mut ENetPeer],
    delivered: &[(u64, u64)],
    last: &mut (u64, u64, Instant, u64),
    sent: u64,
    begin: Instant,
) -> Interval {
    let messages: u64 = delivered.iter().map(|d| d.0).sum();
    let bytes: u64 = delivered.iter().map(|d| d.1).sum();
    let seconds = last.2.elapsed().as_secs_f64();
    let count = peers.len() as f64;
    let (mut rtt, mut loss, mut throttle, mut resent) = (0.0, 0.0, 0.0, None::<u64>);
    for &peer in peers {
        // SAFETY: peers of the live host; plain fields are read.
        let (round_trip, packet_loss, packet_throttle) = unsafe {
            (
                (*peer).roundTripTime,
                (*peer).packetLoss,
                (*peer).packetThrottle,
            )
        };
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
    let retransmissions = resent.map(|total| total.saturating_sub(last.3));
    let interval = Interval {
        seconds: begin.elapsed().as_secs_f64(),
        messages_per_s: (messages - last.0) as f64 / seconds,
        megabytes_per_s: (bytes - last.1) as f64 / seconds / 1e6,
        sent,
        rtt_ms: rtt,
        loss_percent: loss,
        throttle_percent: throttle,
        retransmissions,
    };
    *last = (messages, bytes, Instant::now(), resent.unwrap_or(0));
    interval
}
