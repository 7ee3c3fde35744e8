//! `host.c` entry points and the `enet_host_service` driver: the socket,
//! the clock and the C callbacks on one side, the sans-IO engine
//! ([`crate::proto::Host`]) on the other.

use core::ffi::c_int;
use core::ops::{Deref, DerefMut};
use core::ptr;

use super::codec::CallbackCodec;
use crate::abi::*;
use crate::mem::{packet, CBox, PacketRef, PacketView};
use crate::net::batch::{Datagram, ReceiveBatch, SendBatch};
use crate::net::{clock, socket};
use crate::proto::{Event, EventKind, EventSlot, Host, HostSettings};
use crate::time::{time_difference, time_greater_equal};
use crate::wire::DropReason;

const WAIT_RECEIVE: u32 = ENetSocketWait::ENET_SOCKET_WAIT_RECEIVE as u32;
const WAIT_INTERRUPT: u32 = ENetSocketWait::ENET_SOCKET_WAIT_INTERRUPT as u32;
/// Datagrams handled per receive phase, as stock.
const RECEIVES_PER_CALL: usize = 256;

/// A host as `enet_host_create` makes it: the engine's host first, so the
/// `ENetHost *` C code holds (the engine host's first field) points at the
/// whole of this; then the socket batches the driver keeps between calls.
#[repr(C)]
pub(crate) struct DriverHost {
    host: Host,
    /// Datagrams read by one `recvmmsg` and not handled yet (an event can
    /// end a service call halfway through a batch).
    received: ReceiveBatch,
    /// Datagrams of the current send phase, sent with `sendmmsg`.
    outgoing: SendBatch,
}

impl Deref for DriverHost {
    type Target = Host;
    fn deref(&self) -> &Host {
        &self.host
    }
}

impl DerefMut for DriverHost {
    fn deref_mut(&mut self) -> &mut Host {
        &mut self.host
    }
}

/// The whole host behind an `ENetHost *` from C.
///
/// # Safety
/// `host` must be NULL or a pointer returned by `enet_host_create` that has
/// not been destroyed, and no other reference to that host may be live.
pub(crate) unsafe fn host_mut<'a>(host: *mut ENetHost) -> Option<&'a mut DriverHost> {
    // SAFETY: every `ENetHost *` we hand out points at `Host::public`, the
    // first field of the `#[repr(C)] Host` that is the first field of a
    // `#[repr(C)] DriverHost`, so it is the `DriverHost` pointer.
    unsafe { host.cast::<DriverHost>().as_mut() }
}

/// The host owning `peer` and the peer's slot in it.
///
/// # Safety
/// `peer` must be NULL or point into the peer array of a live host.
pub(crate) unsafe fn peer_host<'a>(peer: *mut ENetPeer) -> Option<(&'a mut DriverHost, usize)> {
    // SAFETY: a non-null peer of a live host can be read.
    let host_pointer = unsafe { peer.as_ref() }?.host;
    // SAFETY: `peer->host` of a live peer is its live host.
    let host = unsafe { host_mut(host_pointer) }?;
    let index = host.peer_index(peer)?;
    Some((host, index))
}

fn codec_of(host: &Host) -> CallbackCodec {
    CallbackCodec::new(host.public.checksum, host.public.compressor)
}

/// Writes an engine event into the program's `ENetEvent`. As stock, each
/// kind writes only its own fields: a receive leaves `data` as it was,
/// a connect or disconnect leaves `channelID`.
fn fill_event(host: &mut Host, event: Event, out: &mut ENetEvent) {
    out.peer = host.peer_pointer(event.peer);
    match event.kind {
        EventKind::Connect | EventKind::Disconnect => {
            out.r#type = if event.kind == EventKind::Connect {
                ENetEventType::ENET_EVENT_TYPE_CONNECT
            } else {
                ENetEventType::ENET_EVENT_TYPE_DISCONNECT
            };
            out.data = event.data;
        }
        EventKind::Receive => {
            out.r#type = ENetEventType::ENET_EVENT_TYPE_RECEIVE;
            out.channelID = event.channel_id;
            out.packet = event
                .packet
                .map_or(ptr::null_mut(), PacketRef::hand_to_program);
        }
    }
}

fn clear_event(event: &mut ENetEvent) {
    event.r#type = ENetEventType::ENET_EVENT_TYPE_NONE;
    event.peer = ptr::null_mut();
    event.packet = ptr::null_mut();
}

/// What a phase of the service loop ended with.
enum Phase {
    Continue,
    Event,
    Failed,
}

/// Sends what the engine has for every peer that needs it.
fn send_phase(
    driver: &mut DriverHost,
    now: u32,
    check_timeouts: bool,
    event: Option<&mut ENetEvent>,
) -> Phase {
    let DriverHost { host, outgoing, .. } = driver;
    let socket = host.public.socket;
    let mut codec = codec_of(host);
    let mut transmit = |to: &ENetAddress, bytes: &[u8]| -> isize {
        outgoing.push(to, bytes);
        if outgoing.is_full() && outgoing.flush(socket).is_err() {
            return -1;
        }
        bytes.len() as isize
    };
    let mut slot = if event.is_some() {
        EventSlot::wanted()
    } else {
        EventSlot::unwanted()
    };
    let sent = host.send_outgoing(now, check_timeouts, &mut codec, &mut transmit, &mut slot);
    if outgoing.flush(socket).is_err() || sent.is_err() {
        return Phase::Failed;
    }
    match (slot.event, event) {
        (Some(happened), Some(out)) => {
            fill_event(host, happened, out);
            Phase::Event
        }
        _ => Phase::Continue,
    }
}

/// Reads and handles up to 256 datagrams, a `recvmmsg` batch at a time.
fn receive_phase(driver: &mut DriverHost, now: u32, mut event: Option<&mut ENetEvent>) -> Phase {
    let DriverHost { host, received, .. } = driver;
    let socket = host.public.socket;
    for _ in 0..RECEIVES_PER_CALL {
        if !received.has_pending() {
            match received.fill(socket) {
                Ok(0) => return Phase::Continue,
                Ok(_) => {}
                Err(_) => return Phase::Failed,
            }
        }
        // Oversized datagrams are skipped (stock 1.3.17 fails the call).
        let Some(Datagram::Received { from, bytes }) = received.pop() else {
            continue;
        };
        let length = bytes.len();
        host.public.receivedAddress = from;
        host.public.receivedDataLength = length;
        host.public.totalReceivedData = host.public.totalReceivedData.wrapping_add(length as u32);
        host.public.totalReceivedPackets = host.public.totalReceivedPackets.wrapping_add(1);
        host.public.receivedData = host.public.packetData[0].as_mut_ptr();

        if let Some(intercept) = host.public.intercept {
            // The callback reads the datagram where stock keeps it.
            host.public.packetData[0][..length].copy_from_slice(bytes);
            let host_pointer: *mut ENetHost = &mut host.public;
            let event_pointer = event
                .as_deref_mut()
                .map_or(ptr::null_mut(), |e| e as *mut ENetEvent);
            // SAFETY: the program's callback gets the live host and its own
            // event (or NULL), as stock passes them; no Rust reference into
            // the host is used until it returns.
            let verdict = unsafe { intercept(host_pointer, event_pointer) };
            match verdict {
                1 => {
                    if event
                        .as_deref()
                        .is_some_and(|e| e.r#type != ENetEventType::ENET_EVENT_TYPE_NONE)
                    {
                        return Phase::Event;
                    }
                    continue;
                }
                -1 => return Phase::Failed,
                _ => {}
            }
        }

        let mut codec = codec_of(host);
        let mut slot = if event.is_some() {
            EventSlot::wanted()
        } else {
            EventSlot::unwanted()
        };
        let result = host.receive_datagram(now, from, bytes, &mut codec, &mut slot);
        // A dropped datagram is no failure of the host.
        if let Some(out) = event.as_deref_mut() {
            if let Some(happened) = slot.event {
                fill_event(host, happened, out);
                return Phase::Event;
            }
            // Stock reports an event the intercept left in place once the
            // datagram got as far as its commands.
            if out.r#type != ENetEventType::ENET_EVENT_TYPE_NONE && reached_commands(&result) {
                return Phase::Event;
            }
        }
    }
    Phase::Continue
}

/// Whether a datagram passed the header, peer and checksum checks.
fn reached_commands(result: &Result<(), DropReason>) -> bool {
    match result {
        Ok(()) => true,
        Err(reason) => matches!(
            reason,
            DropReason::TruncatedCommand
                | DropReason::UnknownCommand
                | DropReason::PayloadOutOfBounds
                | DropReason::PayloadTooLarge
                | DropReason::NoPeerForCommand
                | DropReason::MissingSentTime
                | DropReason::CommandRejected
        ),
    }
}

fn dispatch_phase(host: &mut Host, event: &mut ENetEvent) -> bool {
    match host.dispatch() {
        Some(happened) => {
            fill_event(host, happened, event);
            true
        }
        None => false,
    }
}

/// `enet_host_service`: dispatch, send, receive, send, dispatch, then wait
/// on the socket until something arrives, the engine's next deadline, or
/// `timeout` ms have passed.
fn service(host: &mut DriverHost, mut event: Option<&mut ENetEvent>, timeout: u32) -> c_int {
    if let Some(out) = event.as_deref_mut() {
        clear_event(out);
        if dispatch_phase(host, out) {
            return 1;
        }
    }
    let mut now = clock::now();
    host.public.serviceTime = now;
    let deadline = now.wrapping_add(timeout);
    loop {
        if time_difference(now, host.public.bandwidthThrottleEpoch)
            >= ENET_HOST_BANDWIDTH_THROTTLE_INTERVAL
        {
            host.bandwidth_throttle(now);
        }
        match send_phase(host, now, true, event.as_deref_mut()) {
            Phase::Event => return 1,
            Phase::Failed => return -1,
            Phase::Continue => {}
        }
        match receive_phase(host, now, event.as_deref_mut()) {
            Phase::Event => return 1,
            Phase::Failed => return -1,
            Phase::Continue => {}
        }
        match send_phase(host, now, true, event.as_deref_mut()) {
            Phase::Event => return 1,
            Phase::Failed => return -1,
            Phase::Continue => {}
        }
        if let Some(out) = event.as_deref_mut() {
            if dispatch_phase(host, out) {
                return 1;
            }
        }
        if time_greater_equal(host.public.serviceTime, deadline) {
            return 0;
        }
        // Wait for a datagram, the caller's deadline, or the engine's.
        loop {
            now = clock::now();
            host.public.serviceTime = now;
            if time_greater_equal(now, deadline) {
                return 0;
            }
            let caller_wait = time_difference(deadline, now);
            let engine_wait = host.next_deadline(now).unwrap_or(u32::MAX);
            let wait = caller_wait.min(engine_wait.max(1));
            match socket::wait(host.public.socket, WAIT_RECEIVE | WAIT_INTERRUPT, wait) {
                Err(_) => return -1,
                Ok(condition) if condition & WAIT_INTERRUPT != 0 => continue,
                Ok(_) => break,
            }
        }
        now = clock::now();
        host.public.serviceTime = now;
    }
}

/// Creates a host bound to `address` (any address if NULL) with
/// `peerCount` peer slots; NULL on failure or more than 4095 peers.
///
/// # Safety
/// `address` must be NULL or point to a valid `ENetAddress`.
#[no_mangle]
pub unsafe extern "C" fn enet_host_create(
    address: *const ENetAddress,
    peerCount: usize,
    channelLimit: usize,
    incomingBandwidth: u32,
    outgoingBandwidth: u32,
) -> *mut ENetHost {
    guard!(ptr::null_mut(), {
        if peerCount > ENET_PROTOCOL_MAXIMUM_PEER_ID as usize {
            return ptr::null_mut();
        }
        // SAFETY: the caller passes NULL or a valid address.
        let address = unsafe { address.as_ref() }.copied();
        let Ok(sock) = socket::create(ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as c_int) else {
            return ptr::null_mut();
        };
        if address.is_some() && socket::bind(sock, address.as_ref()).is_err() {
            socket::destroy(sock);
            return ptr::null_mut();
        }
        for (option, value) in [
            (ENetSocketOption::ENET_SOCKOPT_NONBLOCK, 1),
            (ENetSocketOption::ENET_SOCKOPT_BROADCAST, 1),
            (
                ENetSocketOption::ENET_SOCKOPT_RCVBUF,
                ENET_HOST_RECEIVE_BUFFER_SIZE as c_int,
            ),
            (
                ENetSocketOption::ENET_SOCKOPT_SNDBUF,
                ENET_HOST_SEND_BUFFER_SIZE as c_int,
            ),
        ] {
            let _ = socket::set_option(sock, option as c_int, value);
        }
        let bound = match address {
            Some(requested) => socket::local_address(sock).unwrap_or(requested),
            None => ENetAddress::default(),
        };
        let settings = HostSettings {
            address: bound,
            socket: sock,
            peer_count: peerCount,
            channel_limit: channelLimit,
            incoming_bandwidth: incomingBandwidth,
            outgoing_bandwidth: outgoingBandwidth,
            random_seed: random_seed(),
            now: clock::now(),
        };
        let driver = Host::new(settings).and_then(|host| {
            CBox::new(DriverHost {
                host,
                received: ReceiveBatch::default(),
                outgoing: SendBatch::default(),
            })
        });
        match driver {
            Some(mut driver) => {
                driver
                    .host
                    .set_reassembly_budget(reassembly_budget_from_env());
                driver.host.attach();
                driver.into_raw().cast::<ENetHost>()
            }
            None => {
                socket::destroy(sock);
                ptr::null_mut()
            }
        }
    })
}

/// `ENET_RS_REASSEMBLY_BUDGET`: a fixed host-wide limit, in bytes, on
/// what incomplete fragment reassemblies may hold. Unset or unreadable
/// leaves the default.
fn reassembly_budget_from_env() -> Option<usize> {
    std::env::var("ENET_RS_REASSEMBLY_BUDGET")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// A seed for connect ids: the time mixed with per-process entropy.
fn random_seed() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(clock::now());
    hasher.finish() as u32
}

/// Destroys a host: resets every peer, releases every queued packet,
/// destroys the compressor's context and closes the socket.
///
/// # Safety
/// `host` must be NULL or a live host, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn enet_host_destroy(host: *mut ENetHost) {
    guard!((), {
        if host.is_null() {
            return;
        }
        // SAFETY: a live host was created by `CBox::into_raw` in
        // `enet_host_create`; we take back its ownership once.
        let Some(mut host) = (unsafe { CBox::from_raw(host.cast::<DriverHost>()) }) else {
            return;
        };
        socket::destroy(host.public.socket);
        host.shut_down();
        let compressor = host.public.compressor;
        if let (false, Some(destroy)) = (compressor.context.is_null(), compressor.destroy) {
            // SAFETY: the program's compressor frees its own context.
            unsafe { destroy(compressor.context) };
        }
        drop(host);
    })
}

/// Starts connecting to `address`; the peer, or NULL if no slot is free.
///
/// # Safety
/// `host` must be NULL or live; `address` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_host_connect(
    host: *mut ENetHost,
    address: *const ENetAddress,
    channelCount: usize,
    data: u32,
) -> *mut ENetPeer {
    guard!(ptr::null_mut(), {
        // SAFETY: caller contract.
        let (Some(host), Some(address)) = (unsafe { host_mut(host) }, unsafe { address.as_ref() })
        else {
            return ptr::null_mut();
        };
        match host.connect(*address, channelCount, data) {
            Some(index) => host.peer_pointer(index),
            None => ptr::null_mut(),
        }
    })
}

/// Reports a queued event without touching the network: 1, 0, or -1 for a
/// NULL event.
///
/// # Safety
/// `host` must be NULL or live; `event` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn enet_host_check_events(
    host: *mut ENetHost,
    event: *mut ENetEvent,
) -> c_int {
    guard!(-1, {
        // SAFETY: caller contract.
        let (Some(host), Some(event)) = (unsafe { host_mut(host) }, unsafe { event.as_mut() })
        else {
            return -1;
        };
        clear_event(event);
        c_int::from(dispatch_phase(host, event))
    })
}

/// Sends and receives for up to `timeout` ms; 1 with an event, 0 without,
/// -1 on a socket failure.
///
/// # Safety
/// `host` must be NULL or live; `event` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn enet_host_service(
    host: *mut ENetHost,
    event: *mut ENetEvent,
    timeout: u32,
) -> c_int {
    guard!(-1, {
        // SAFETY: caller contract.
        let Some(host) = (unsafe { host_mut(host) }) else {
            return -1;
        };
        // SAFETY: caller contract.
        let event = unsafe { event.as_mut() };
        service(host, event, timeout)
    })
}

/// Sends everything queued now, without waiting or receiving.
pub(crate) fn flush(host: &mut DriverHost) {
    let now = clock::now();
    host.public.serviceTime = now;
    let _ = send_phase(host, now, false, None);
}

/// Sends everything queued now.
///
/// # Safety
/// `host` must be NULL or live.
#[no_mangle]
pub unsafe extern "C" fn enet_host_flush(host: *mut ENetHost) {
    guard!((), {
        // SAFETY: caller contract.
        if let Some(host) = unsafe { host_mut(host) } {
            flush(host);
        }
    })
}

/// Queues `packet` to every connected peer on `channelID`; a packet no
/// peer took is destroyed.
///
/// # Safety
/// `host` must be NULL or live; `packet` NULL or a live packet.
#[no_mangle]
pub unsafe extern "C" fn enet_host_broadcast(
    host: *mut ENetHost,
    channelID: u8,
    packet: *mut ENetPacket,
) {
    guard!((), {
        // SAFETY: caller contract.
        let Some(host) = (unsafe { host_mut(host) }) else {
            return;
        };
        // SAFETY: a live packet of the program's.
        let Some(view) = (unsafe { PacketView::from_raw(packet) }) else {
            return;
        };
        for index in host.connected_peers() {
            let _ = host.send(index, channelID, view);
        }
        if view.reference_count() == 0 {
            // SAFETY: no peer took the packet; it is the program's to free,
            // and stock frees it here.
            unsafe { packet::destroy(packet) };
        }
    })
}

/// Installs `compressor` (NULL turns compression off), destroying the
/// previous compressor's context.
///
/// # Safety
/// `host` must be NULL or live; `compressor` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_host_compress(
    host: *mut ENetHost,
    compressor: *const ENetCompressor,
) {
    guard!((), {
        // SAFETY: caller contract.
        let Some(host) = (unsafe { host_mut(host) }) else {
            return;
        };
        let current = host.public.compressor;
        if let (false, Some(destroy)) = (current.context.is_null(), current.destroy) {
            // SAFETY: the previous compressor frees its own context.
            unsafe { destroy(current.context) };
        }
        // SAFETY: caller contract.
        match unsafe { compressor.as_ref() } {
            Some(compressor) => host.public.compressor = *compressor,
            None => host.public.compressor.context = ptr::null_mut(),
        }
    })
}

/// Compresses datagrams with ENet's range coder; 0, or -1 on failure.
///
/// # Safety
/// `host` must be NULL or live.
#[no_mangle]
pub unsafe extern "C" fn enet_host_compress_with_range_coder(host: *mut ENetHost) -> c_int {
    guard!(-1, {
        if host.is_null() {
            return -1;
        }
        let context = super::range_coder::enet_range_coder_create();
        if context.is_null() {
            return -1;
        }
        let compressor = ENetCompressor {
            context,
            compress: Some(super::range_coder::enet_range_coder_compress),
            decompress: Some(super::range_coder::enet_range_coder_decompress),
            destroy: Some(super::range_coder::enet_range_coder_destroy),
        };
        // SAFETY: `host` is live (caller contract); `compressor` is valid.
        unsafe { enet_host_compress(host, &compressor) };
        0
    })
}

/// Limits the channels a connecting peer may open (0 = the maximum).
///
/// # Safety
/// `host` must be NULL or live.
#[no_mangle]
pub unsafe extern "C" fn enet_host_channel_limit(host: *mut ENetHost, channelLimit: usize) {
    guard!((), {
        // SAFETY: caller contract.
        if let Some(host) = unsafe { host_mut(host) } {
            host.set_channel_limit(channelLimit);
        }
    })
}

/// Sets the host's bandwidth in bytes per second (0 = unlimited).
///
/// # Safety
/// `host` must be NULL or live.
#[no_mangle]
pub unsafe extern "C" fn enet_host_bandwidth_limit(
    host: *mut ENetHost,
    incomingBandwidth: u32,
    outgoingBandwidth: u32,
) {
    guard!((), {
        // SAFETY: caller contract.
        if let Some(host) = unsafe { host_mut(host) } {
            host.set_bandwidth_limit(incomingBandwidth, outgoingBandwidth);
        }
    })
}

/// Runs the bandwidth throttle now (`enet_host_service` does it each second).
///
/// # Safety
/// `host` must be NULL or live.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_host_bandwidth_throttle(host: *mut ENetHost) {
    guard!((), {
        // SAFETY: caller contract.
        if let Some(host) = unsafe { host_mut(host) } {
            host.bandwidth_throttle(clock::now());
        }
    })
}

/// A seed for a new host's `randomSeed`: the time, as stock on Unix.
/// cbindgen:prefix=extern
#[no_mangle]
pub extern "C" fn enet_host_random_seed() -> u32 {
    guard!(0, {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs() as u32)
    })
}
