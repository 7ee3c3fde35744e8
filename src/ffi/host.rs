//! `host.c` entry points and the `enet_host_service` driver: the socket,
//! the clock and the C callbacks on one side, the sans-IO engine
//! ([`crate::proto::Host`]) on the other.

use core::ffi::c_int;
use core::mem::ManuallyDrop;
use core::ptr;

use super::busy;
use super::codec::CallbackCodec;
use super::driver::{endpoint_of, guard_of, host_on_socket, CHost, DriverHost};
use crate::abi::*;
use crate::config::Switches;
use crate::dtls::{SecureLayer, SecureTransport};
use crate::endpoint::{BoundSocket, HostBuilder};
use crate::mem::program_code::ProgramCode;
use crate::mem::CBox;
use crate::net::clock;
use crate::net::request_queue::RequestQueue;
use crate::net::transport::SocketTransport;
use crate::proto::host::request::CallbackCall;
use crate::proto::{
    Codec, DisconnectEffect, Event, Hooks, Host, Intercept, PeerIndex, Request, ServiceFailed,
    Serviced,
};

/// The program's callbacks on a host, and the event it passed in.
struct ProgramHooks<'a> {
    /// The host's `ENetHost *`, to find the calls its callbacks made.
    host: *const ENetHost,
    codec: CallbackCodec,
    event: Option<&'a mut ENetEvent>,
    requests: Option<&'a RequestQueue>,
}

impl<'a> ProgramHooks<'a> {
    fn new(host: &ENetHost, event: Option<&'a mut ENetEvent>) -> Self {
        ProgramHooks {
            host,
            codec: CallbackCodec::new(host.checksum, host.compressor),
            event,
            requests: None,
        }
    }
}

impl Hooks for ProgramHooks<'_> {
    fn codec(&mut self, host: &ENetHost) -> &mut dyn Codec {
        self.codec = CallbackCodec::new(host.checksum, host.compressor);
        &mut self.codec
    }

    fn intercept(&mut self, host: &mut Host, datagram: &[u8]) -> Intercept {
        let Some(intercept) = host.public.intercept else {
            return Intercept::Pass;
        };
        // The callback reads the datagram where stock keeps it.
        host.public.packetData[0][..datagram.len()].copy_from_slice(datagram);
        let host_pointer: *mut ENetHost = &mut host.public;
        let event_pointer = self
            .event
            .as_deref_mut()
            .map_or(ptr::null_mut(), |event| event as *mut ENetEvent);
        let running = ProgramCode::enter();
        // SAFETY: the program's callback gets the live host and its own
        // event (or NULL), as stock passes them; no Rust reference into the
        // host is used until it returns.
        let answer = unsafe { intercept(host_pointer, event_pointer) };
        drop(running);
        match answer {
            1 => Intercept::Consumed,
            -1 => Intercept::Failed,
            _ => Intercept::Pass,
        }
    }

    fn intercepted_event(&self) -> bool {
        self.event
            .as_deref()
            .is_some_and(|event| event.r#type != ENetEventType::ENET_EVENT_TYPE_NONE)
    }

    #[inline(always)]
    fn take_requests(&mut self, into: &mut Vec<Request>) {
        if let Some(requests) = self.requests {
            requests.take(into);
        }
    }

    #[inline(always)]
    fn take_callback_calls(&mut self) -> Option<Vec<CallbackCall>> {
        busy::take_calls(self.host)
    }
}

/// The engine's socket transport and hooks for one call on `driver`,
/// beside the engine host itself and its encryption, if it has any.
fn split<'a>(
    driver: &'a mut DriverHost,
    event: Option<&'a mut ENetEvent>,
) -> (
    &'a mut Host,
    SocketTransport<'a>,
    ProgramHooks<'a>,
    Option<&'a mut SecureLayer>,
) {
    let DriverHost {
        host,
        io,
        requests,
        secure,
        ..
    } = driver;
    let requests = requests.as_deref();
    let transport = io.transport(host.public.socket, requests.map(RequestQueue::waker));
    let mut hooks = ProgramHooks::new(&host.public, event);
    hooks.requests = requests;
    (host, transport, hooks, secure.as_deref_mut())
}

/// Writes an engine event into the program's `ENetEvent`. As stock, each
/// kind writes only its own fields: a receive leaves `data` as it was,
/// a connect or disconnect leaves `channelID`. Always in line, in the few
/// places that report events, as it was while it was smaller.
#[inline(always)]
fn fill_event(host: &mut Host, event: Event, out: &mut ENetEvent) {
    out.peer = host.peer_pointer(event.peer());
    match event {
        Event::Connect { data, .. } => {
            out.r#type = ENetEventType::ENET_EVENT_TYPE_CONNECT;
            out.data = data;
        }
        Event::Disconnect { peer, data } => {
            super::enet_rs_reasons::fill_disconnect(host, peer, data, out)
        }
        Event::Receive {
            channel_id, packet, ..
        } => {
            out.r#type = ENetEventType::ENET_EVENT_TYPE_RECEIVE;
            out.channelID = channel_id;
            out.packet = packet.hand_to_program();
        }
    }
}

fn clear_event(event: &mut ENetEvent) {
    event.r#type = ENetEventType::ENET_EVENT_TYPE_NONE;
    event.peer = ptr::null_mut();
    event.packet = ptr::null_mut();
}

/// `enet_host_service` over the engine's service loop.
fn service(driver: &mut DriverHost, mut event: Option<&mut ENetEvent>, timeout: u32) -> c_int {
    if let Some(out) = event.as_deref_mut() {
        clear_event(out);
        // A queued event is reported first, as the engine's service would
        // report it, but without setting up the transport and the program's
        // hooks for a call that needs neither.
        if let Some(happened) = driver.host.dispatch() {
            fill_event(&mut driver.host, happened, out);
            return 1;
        }
    }
    let want_event = event.is_some();
    let (host, mut transport, mut hooks, secure) = split(driver, event);
    // A plain host runs over the socket itself, untouched by encryption.
    let serviced = match secure {
        None => host.service(&mut transport, &mut hooks, want_event, timeout),
        Some(layer) => service_encrypted(host, transport, layer, &mut hooks, want_event, timeout),
    };
    match serviced {
        Err(ServiceFailed) => -1,
        Ok(Serviced::Idle) => 0,
        Ok(Serviced::InterceptedEvent) => 1,
        Ok(Serviced::Event(happened)) => {
            if let Some(out) = hooks.event {
                fill_event(host, happened, out);
            }
            1
        }
    }
}

/// The engine's service loop over the encryption layer. Out of line, so
/// that its instance of the loop (as large as the plain one) stays out of
/// `enet_host_service` and of the pages a plain host keeps resident.
#[inline(never)]
fn service_encrypted(
    host: &mut Host,
    transport: SocketTransport<'_>,
    layer: &mut SecureLayer,
    hooks: &mut ProgramHooks<'_>,
    want_event: bool,
    timeout: u32,
) -> Result<Serviced, ServiceFailed> {
    host.service(
        &mut SecureTransport::new(transport, layer),
        hooks,
        want_event,
        timeout,
    )
}

/// Creates a host bound to `address` (any address if NULL) with
/// `peerCount` peer slots; NULL on failure or more than 4095 peers.
///
/// # Safety
/// `address` must be NULL or point to a valid `ENetAddress`.
/// Any thread; it touches no host, so a host's callbacks may call it.
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
        let address = arg_ref!(address).copied();
        let switches = Switches::from_env();
        let dual_stack = switches.dual_stack;
        let builder = HostBuilder::new(peerCount)
            .channel_limit(channelLimit)
            .bandwidth(incomingBandwidth, outgoingBandwidth)
            .switches(switches);
        if dual_stack && address.is_none_or(|address| address.host == ENET_HOST_ANY) {
            return super::enet_rs_net::dual_stack_host(address, builder);
        }
        match BoundSocket::stock(address.as_ref()) {
            Some(socket) => host_on_socket(builder, socket),
            None => ptr::null_mut(),
        }
    })
}

/// Destroys a host: resets every peer, releases every queued packet,
/// destroys the compressor's context and closes the socket.
///
/// # Safety
/// `host` must be NULL or a live host, not used afterwards. One thread at
/// a time per host. From one of this host's own callbacks (intercept,
/// checksum, compressor, packet free callback) it does nothing: destroy
/// the host once `enet_host_service` has returned; nor while another
/// thread is inside the host. Calls made on the host from the free
/// callbacks its destruction runs are refused, or dropped (a packet handed
/// to a dropped send is freed).
#[no_mangle]
pub unsafe extern "C" fn enet_host_destroy(host: *mut ENetHost) {
    guard!({
        if host.is_null() {
            return;
        }
        // SAFETY: the contract of `try_host!`: a live host from
        // `enet_host_create`.
        let guard = unsafe { guard_of(host) };
        let busy::HostLookup::Idle = guard.lookup() else {
            return;
        };
        {
            // Calls the free callbacks below make on the host find it
            // busy, as they would during a service call.
            let _dying = busy::Entered::<DriverHost, _>::enter_dying(guard);
            // SAFETY: as `try_host!`: live, idle until marked busy just
            // above, and this thread's alone; the reference is the last
            // one made, and ends before the memory goes.
            let endpoint = unsafe { endpoint_of(host) };
            endpoint.close();
            super::codec::destroy_context(&endpoint.host.public.compressor);
            // SAFETY: the endpoint is live and dropped once, here; nothing
            // reads it afterwards (the allocation is freed below without
            // dropping its contents again).
            unsafe { ptr::drop_in_place(endpoint) };
        }
        busy::unregister(guard);
        // SAFETY: a live host was made by `CBox::into_raw` in
        // `enet_host_create` and is given back once, here; its endpoint is
        // dropped already, and its guard has nothing to drop (its queue of
        // calls was emptied when the host stopped being busy), so only the
        // memory goes.
        drop(unsafe { CBox::from_raw(host.cast::<ManuallyDrop<CHost>>()) });
    })
}

/// Starts connecting to `address`; the peer, or NULL if no slot is free.
///
/// # Safety
/// `host` must be NULL or live; `address` NULL or valid. One thread at a
/// time per host. From one of this host's own callbacks (intercept,
/// checksum, compressor, packet free callback) it returns NULL.
#[no_mangle]
pub unsafe extern "C" fn enet_host_connect(
    host: *mut ENetHost,
    address: *const ENetAddress,
    channelCount: usize,
    data: u32,
) -> *mut ENetPeer {
    guard!({
        let Some(address) = arg_ref!(address) else {
            return ptr::null_mut();
        };
        try_host!(let host = host);
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
/// `host` must be NULL or live; `event` NULL or writable. One thread at a
/// time per host. From one of this host's own callbacks (intercept,
/// checksum, compressor, packet free callback) it returns -1.
#[no_mangle]
pub unsafe extern "C" fn enet_host_check_events(
    host: *mut ENetHost,
    event: *mut ENetEvent,
) -> c_int {
    guard!({
        let Some(event) = arg_mut!(event) else {
            return -1;
        };
        try_host!(let host = host);
        clear_event(event);
        match host.dispatch() {
            Some(happened) => {
                fill_event(host, happened, event);
                1
            }
            None => 0,
        }
    })
}

/// Sends and receives for up to `timeout` ms; 1 with an event, 0 without,
/// -1 on a socket failure.
///
/// # Safety
/// `host` must be NULL or live; `event` NULL or writable. One thread at a
/// time per host. From one of this host's own callbacks (intercept,
/// checksum, compressor, packet free callback) it returns -1 and does
/// nothing. The calls those callbacks may make on the host are
/// `enet_peer_send`, `enet_host_broadcast`, `enet_peer_disconnect`,
/// `_now`, `_later` and `enet_peer_reset`, which take effect once the
/// callback returns, and `enet_packet_*`; every other call on the host
/// returns its failure value (or does nothing).
#[no_mangle]
pub unsafe extern "C" fn enet_host_service(
    host: *mut ENetHost,
    event: *mut ENetEvent,
    timeout: u32,
) -> c_int {
    guard!({
        let event = arg_mut!(event);
        try_host!(let host = host);
        service(host, event, timeout)
    })
}

/// Sends everything queued now, without waiting or receiving.
pub(crate) fn flush(driver: &mut DriverHost) {
    let (host, mut transport, mut hooks, secure) = split(driver, None);
    let _ = match secure {
        None => host.flush(&mut transport, &mut hooks),
        Some(layer) => host.flush(&mut SecureTransport::new(transport, layer), &mut hooks),
    };
}

/// Does what a disconnect call left to do (flush, reset), through the
/// driver's transport; as stock, a failed send is not reported.
pub(crate) fn finish_disconnect(
    driver: &mut DriverHost,
    index: PeerIndex,
    effect: DisconnectEffect,
) {
    let (host, mut transport, mut hooks, secure) = split(driver, None);
    let _ = match secure {
        None => host.finish_disconnect(index, effect, &mut transport, &mut hooks),
        Some(layer) => host.finish_disconnect(
            index,
            effect,
            &mut SecureTransport::new(transport, layer),
            &mut hooks,
        ),
    };
}

/// Applies the calls the program made on `driver` from its callbacks, with
/// the driver's transport (the end of an entry point's stay in the host,
/// see `busy.rs`); as stock, a failed send is not reported.
pub(crate) fn apply_callback_calls(driver: &mut DriverHost) {
    let (host, mut transport, mut hooks, secure) = split(driver, None);
    let _ = match secure {
        None => host.apply_callback_calls(&mut transport, &mut hooks),
        Some(layer) => {
            host.apply_callback_calls(&mut SecureTransport::new(transport, layer), &mut hooks)
        }
    };
}

/// Sends everything queued now.
///
/// # Safety
/// `host` must be NULL or live. One thread at a time per host. From one of
/// this host's own callbacks (intercept, checksum, compressor, packet free
/// callback) it does nothing: what they queue is sent by the service call
/// they run in.
#[no_mangle]
pub unsafe extern "C" fn enet_host_flush(host: *mut ENetHost) {
    guard!({
        try_host!(let host = host);
        flush(host);
    })
}

/// Queues `packet` to every connected peer on `channelID` (skipping a peer
/// that refuses it, as one at its send limit does); a packet no peer took
/// is destroyed.
///
/// # Safety
/// `host` must be NULL or live; `packet` NULL or a live packet. One thread
/// at a time per host. From one of this host's own callbacks (intercept,
/// checksum, compressor, packet free callback) the broadcast is queued and
/// made once the callback returns; the packet is the library's from the
/// call on, as after a direct call.
#[no_mangle]
pub unsafe extern "C" fn enet_host_broadcast(
    host: *mut ENetHost,
    channelID: u8,
    packet: *mut ENetPacket,
) {
    guard!({
        let view = try_packet!(packet);
        let no_peer_took_it = {
            try_host!(let host = host, busy busy => busy.defer(CallbackCall::Broadcast {
                channel_id: channelID,
                packet: view.retain(),
            }));
            !host.broadcast(channelID, view)
        };
        if no_peer_took_it {
            // The host is no longer borrowed: a free callback may call it.
            // Stock frees the packet here.
            view.retain().release();
        }
    })
}

/// Installs `compressor` (NULL turns compression off), destroying the
/// previous compressor's context.
///
/// # Safety
/// `host` must be NULL or live; `compressor` NULL or valid. One thread at
/// a time per host. From one of this host's own callbacks (intercept,
/// checksum, compressor, packet free callback) it does nothing.
#[no_mangle]
pub unsafe extern "C" fn enet_host_compress(
    host: *mut ENetHost,
    compressor: *const ENetCompressor,
) {
    guard!({
        let compressor = arg_ref!(compressor).copied();
        try_host!(let host = host);
        super::codec::destroy_context(&host.public.compressor);
        match compressor {
            Some(compressor) => host.public.compressor = compressor,
            None => host.public.compressor.context = ptr::null_mut(),
        }
    })
}

/// Compresses datagrams with ENet's range coder; 0, or -1 on failure.
///
/// # Safety
/// `host` must be NULL or live. One thread at a time per host. From one of
/// this host's own callbacks (intercept, checksum, compressor, packet free
/// callback) it returns -1 and changes nothing.
#[no_mangle]
pub unsafe extern "C" fn enet_host_compress_with_range_coder(host: *mut ENetHost) -> c_int {
    guard!({
        try_host!(let host = host);
        let context = super::range_coder::enet_range_coder_create();
        if context.is_null() {
            return -1;
        }
        super::codec::destroy_context(&host.public.compressor);
        host.public.compressor = ENetCompressor {
            context,
            compress: Some(super::range_coder::enet_range_coder_compress),
            decompress: Some(super::range_coder::enet_range_coder_decompress),
            destroy: Some(super::range_coder::enet_range_coder_destroy),
        };
        0
    })
}

/// Limits the channels a connecting peer may open (0 = the maximum).
///
/// # Safety
/// `host` must be NULL or live. One thread at a time per host. From one of
/// this host's own callbacks (intercept, checksum, compressor, packet free
/// callback) it does nothing.
#[no_mangle]
pub unsafe extern "C" fn enet_host_channel_limit(host: *mut ENetHost, channelLimit: usize) {
    guard!({
        try_host!(let host = host);
        host.set_channel_limit(channelLimit);
    })
}

/// Sets the host's bandwidth in bytes per second (0 = unlimited).
///
/// # Safety
/// `host` must be NULL or live. One thread at a time per host. From one of
/// this host's own callbacks (intercept, checksum, compressor, packet free
/// callback) it does nothing.
#[no_mangle]
pub unsafe extern "C" fn enet_host_bandwidth_limit(
    host: *mut ENetHost,
    incomingBandwidth: u32,
    outgoingBandwidth: u32,
) {
    guard!({
        try_host!(let host = host);
        host.set_bandwidth_limit(incomingBandwidth, outgoingBandwidth);
    })
}

/// Runs the bandwidth throttle now (`enet_host_service` does it each second).
///
/// # Safety
/// `host` must be NULL or live. One thread at a time per host. From one of
/// this host's own callbacks (intercept, checksum, compressor, packet free
/// callback) it does nothing.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_host_bandwidth_throttle(host: *mut ENetHost) {
    guard!({
        try_host!(let host = host);
        host.bandwidth_throttle(clock::now());
    })
}

/// A seed for a new host's `randomSeed`: the time, as stock on Unix.
/// cbindgen:prefix=extern
#[no_mangle]
pub extern "C" fn enet_host_random_seed() -> u32 {
    guard!({
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs() as u32)
    })
}

/// The host's next pseudo-random number (ENet 1.3.18's addition): its
/// counter, `randomSeed`, stepped by one and mixed by murmur3's finaliser,
/// the generator its connect ids come from too. The mix is one-to-one, so
/// a host's numbers repeat only after 2^32 draws (1.3.18's Mulberry32 is
/// not one-to-one and can repeat much sooner). 0 for a NULL host.
///
/// # Safety
/// `host` must be NULL or live. One thread at a time per host. From one of
/// this host's own callbacks (intercept, checksum, compressor, packet free
/// callback) it returns 0.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_host_random(host: *mut ENetHost) -> u32 {
    guard!({
        try_host!(let host = host);
        host.random()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::socket;
    use std::cell::Cell;
    use std::net::UdpSocket;

    thread_local! {
        /// What the intercept saw of its own host: service, check_events,
        /// connect, and the state of the peer it reset.
        static SEEN: Cell<Option<(c_int, c_int, bool)>> = const { Cell::new(None) };
        static DANGLING: Cell<*mut ENetPeer> = const { Cell::new(ptr::null_mut()) };
    }

    unsafe extern "C" fn calls_back(host: *mut ENetHost, _event: *mut ENetEvent) -> c_int {
        // SAFETY: an ENetEvent is integers and pointers, for which zero bytes are valid.
        let mut event: ENetEvent = unsafe { core::mem::zeroed() };
        let nowhere = ENetAddress {
            host: u32::from_ne_bytes([127, 0, 0, 1]),
            port: 9,
        };
        // SAFETY: the host the intercept was given, and valid arguments.
        unsafe {
            let serviced = enet_host_service(host, &mut event, 0);
            let checked = enet_host_check_events(host, &mut event);
            let connected = enet_host_connect(host, &nowhere, 1, 0).is_null();
            enet_host_flush(host);
            enet_host_destroy(host); // ignored
            super::super::peer::enet_peer_reset(DANGLING.get());
            SEEN.set(Some((serviced, checked, connected)));
        }
        1
    }

    #[test]
    fn an_intercept_cannot_service_its_own_host_but_can_reset_its_peer() {
        let loopback = ENetAddress {
            host: u32::from_ne_bytes([127, 0, 0, 1]),
            port: 0,
        };
        // SAFETY: valid arguments; the host is destroyed at the end.
        unsafe {
            let host = enet_host_create(&loopback, 2, 1, 0, 0);
            assert!(!host.is_null());
            let bound = socket::local_address((*host).socket).expect("bound");
            let nowhere = ENetAddress {
                host: loopback.host,
                port: 9,
            };
            let dangling = enet_host_connect(host, &nowhere, 1, 0);
            assert!(!dangling.is_null());
            DANGLING.set(dangling);
            (*host).intercept = Some(calls_back);
            let sender = UdpSocket::bind("127.0.0.1:0").expect("socket");
            sender
                .send_to(b"not enet", ("127.0.0.1", bound.port))
                .expect("sent");
            let mut event: ENetEvent = core::mem::zeroed();
            for _ in 0..100 {
                enet_host_service(host, &mut event, 10);
                if SEEN.get().is_some() {
                    break;
                }
            }
            assert_eq!(SEEN.get(), Some((-1, -1, true)));
            // The reset was queued and made once the intercept returned.
            assert_eq!(
                (*dangling).state,
                ENetPeerState::ENET_PEER_STATE_DISCONNECTED
            );
            enet_host_destroy(host);
        }
    }
}
