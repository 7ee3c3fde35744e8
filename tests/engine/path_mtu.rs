//! Path MTU discovery (`enet_rs_host_set_path_mtu_discovery`) on real
//! hosts over 127.0.0.1, through a path that black-holes datagrams larger
//! than 1280 bytes (the conditioner's `mtu=1280` on the sender): a bulk
//! transfer completes with discovery and stalls without it, and the probes
//! deliver nothing to the receiver.

use core::ptr;
use std::ffi::CString;
use std::time::{Duration, Instant};

use ::enet::abi::*;
use ::enet::ffi::enet_rs_netsim::*;
use ::enet::ffi::enet_rs_pmtu::*;
use ::enet::ffi::host::*;
use ::enet::ffi::packet::*;
use ::enet::ffi::peer::*;
use ::enet::mem::PacketFlags;

/// 2 MB in packets of 50 kB.
const PACKET: usize = 50_000;
const PACKETS: usize = 40;

fn localhost(port: u16) -> ENetAddress {
    ENetAddress {
        host: u32::from_ne_bytes([127, 0, 0, 1]),
        port,
    }
}

fn host(bind: bool) -> *mut ENetHost {
    let address = localhost(0);
    let address = if bind {
        &address as *const _
    } else {
        ptr::null()
    };
    // SAFETY: NULL or a valid address.
    let host = unsafe { enet_host_create(address, 1, 2, 0, 0) };
    assert!(!host.is_null());
    host
}

fn service(host: *mut ENetHost, timeout: u32) -> Option<ENetEvent> {
    // SAFETY: an all-zero event is a valid "none" event.
    let mut event: ENetEvent = unsafe { core::mem::zeroed() };
    // SAFETY: a live host and a writable event.
    (unsafe { enet_host_service(host, &mut event, timeout) } > 0).then_some(event)
}

/// The payload of packet `i`.
fn payload(i: usize) -> Vec<u8> {
    (0..PACKET)
        .map(|j| (i * 31 + j * 7 + j / 251) as u8)
        .collect()
}

/// A client and a server serviced in turn on this thread; the client
/// sends through a path of `mtu=1280`.
struct Transfer {
    server: *mut ENetHost,
    client: *mut ENetHost,
    peer: *mut ENetPeer,
    /// What the server was given, in order: channel and bytes.
    received: Vec<(u8, Vec<u8>)>,
    server_events: Vec<ENetEventType>,
}

impl Transfer {
    fn new(discovery: bool) -> Transfer {
        let server = host(true);
        let client = host(false);
        let spec = CString::new("mtu=1280").unwrap();
        // SAFETY: live hosts, a C string.
        unsafe {
            assert_eq!(enet_rs_host_set_netsim(client, spec.as_ptr()), 0);
            assert_eq!(
                enet_rs_host_set_path_mtu_discovery(client, i32::from(discovery)),
                0
            );
        }
        // SAFETY: a live host.
        let port = unsafe { (*server).address.port };
        // SAFETY: a live host and a valid address.
        let peer = unsafe { enet_host_connect(client, &localhost(port), 2, 0) };
        assert!(!peer.is_null());
        let mut transfer = Transfer {
            server,
            client,
            peer,
            received: Vec::new(),
            server_events: Vec::new(),
        };
        let connected = transfer.run(Duration::from_secs(5), |t| {
            // SAFETY: a live peer.
            unsafe { (*t.peer).state == ENetPeerState::ENET_PEER_STATE_CONNECTED }
        });
        assert!(connected, "no connection");
        transfer
    }

    /// Services both hosts until `done` or `limit`; whether `done` said so.
    fn run(&mut self, limit: Duration, done: impl Fn(&Transfer) -> bool) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            while let Some(event) = service(self.client, 0) {
                assert_ne!(
                    event.r#type,
                    ENetEventType::ENET_EVENT_TYPE_DISCONNECT,
                    "the client lost the server"
                );
            }
            while let Some(event) = service(self.server, 1) {
                self.server_events.push(event.r#type);
                if event.r#type == ENetEventType::ENET_EVENT_TYPE_RECEIVE {
                    // SAFETY: a receive event's packet is live and ours.
                    let bytes = unsafe {
                        let packet = &*event.packet;
                        let bytes =
                            core::slice::from_raw_parts(packet.data, packet.dataLength).to_vec();
                        enet_packet_destroy(event.packet);
                        bytes
                    };
                    self.received.push((event.channelID, bytes));
                }
            }
            if done(self) {
                return true;
            }
        }
        false
    }

    fn send_bulk(&mut self) {
        for i in 0..PACKETS {
            let bytes = payload(i);
            // SAFETY: readable bytes; the packet goes to a live peer.
            unsafe {
                let packet = enet_packet_create(
                    bytes.as_ptr().cast(),
                    bytes.len(),
                    PacketFlags::RELIABLE.bits(),
                );
                assert_eq!(enet_peer_send(self.peer, 1, packet), 0);
            }
        }
    }

    fn path_mtu(&self) -> u32 {
        // SAFETY: a live peer.
        unsafe { enet_rs_peer_get_path_mtu(self.peer) }
    }

    fn too_big(&self) -> u64 {
        let mut stats = ENetRsNetsimStats::default();
        // SAFETY: a live host and a writable struct.
        assert_eq!(
            unsafe { enet_rs_host_netsim_stats(self.client, &mut stats) },
            0
        );
        stats.outgoing.datagrams - stats.outgoing.released
    }
}

impl Drop for Transfer {
    fn drop(&mut self) {
        // SAFETY: live hosts, destroyed once.
        unsafe {
            enet_host_destroy(self.client);
            enet_host_destroy(self.server);
        }
    }
}

#[test]
fn a_bulk_transfer_completes_through_a_1280_byte_black_hole_with_discovery() {
    let mut transfer = Transfer::new(true);
    // Until a probe is answered the peer sends at the base size.
    assert_eq!(transfer.path_mtu(), 1200);
    let started = Instant::now();
    transfer.send_bulk();
    let done = transfer.run(Duration::from_secs(30), |t| t.received.len() == PACKETS);
    let took = started.elapsed();
    assert!(
        done,
        "{} of {PACKETS} packets arrived",
        transfer.received.len()
    );
    for (i, (channel, bytes)) in transfer.received.iter().enumerate() {
        assert_eq!(*channel, 1);
        assert!(*bytes == payload(i), "packet {i} arrived damaged");
    }
    // The search settles below the path's 1252 bytes of UDP payload; let
    // it finish its probes, which must deliver nothing.
    transfer.run(Duration::from_secs(3), |t| t.path_mtu() > 1252 - 32);
    let found = transfer.path_mtu();
    assert!((1252 - 32..=1252).contains(&found), "path size {found}");
    assert!(
        transfer.too_big() > 0,
        "probes larger than the path vanished"
    );
    assert_eq!(transfer.received.len(), PACKETS, "a probe was delivered");
    assert!(
        transfer
            .server_events
            .iter()
            .all(|&event| event != ENetEventType::ENET_EVENT_TYPE_DISCONNECT),
        "the server lost the client"
    );
    // SAFETY: a live peer.
    assert_eq!(
        unsafe { (*transfer.peer).mtu },
        1400,
        "the MTU stays as negotiated"
    );
    eprintln!("2 MB through a 1280-byte black hole with discovery: {took:?}, path size {found}");
}

#[test]
fn without_discovery_the_same_transfer_stalls() {
    let mut transfer = Transfer::new(false);
    assert_eq!(transfer.path_mtu(), 1400);
    transfer.send_bulk();
    let done = transfer.run(Duration::from_secs(5), |t| t.received.len() == PACKETS);
    assert!(!done);
    assert_eq!(transfer.received.len(), 0, "no fragment fits the path");
    assert!(transfer.too_big() > 0);
}

#[test]
fn a_path_that_shrinks_under_a_connection_is_noticed_and_small_commands_get_through() {
    let mut transfer = Transfer::new(true);
    // First a path that carries the MTU: one probe takes the peer there.
    let open = CString::new("mtu=1500").unwrap();
    // SAFETY: a live host and a C string.
    assert_eq!(
        unsafe { enet_rs_host_set_netsim(transfer.client, open.as_ptr()) },
        0
    );
    assert!(transfer.run(Duration::from_secs(5), |t| t.path_mtu() == 1400));
    // Then the path shrinks to 1280 bytes. Small reliable messages, packed
    // into full datagrams, vanish until the black hole is noticed; then
    // their resends leave in datagrams of the base size.
    let shrunk = CString::new("mtu=1280").unwrap();
    // SAFETY: a live host and a C string.
    assert_eq!(
        unsafe { enet_rs_host_set_netsim(transfer.client, shrunk.as_ptr()) },
        0
    );
    let message = [7u8; 100];
    for _ in 0..200 {
        // SAFETY: readable bytes; the packet goes to a live peer.
        unsafe {
            let packet = enet_packet_create(
                message.as_ptr().cast(),
                message.len(),
                PacketFlags::RELIABLE.bits(),
            );
            assert_eq!(enet_peer_send(transfer.peer, 1, packet), 0);
        }
    }
    let started = Instant::now();
    let done = transfer.run(Duration::from_secs(20), |t| t.received.len() == 200);
    assert!(done, "{} of 200 arrived", transfer.received.len());
    assert!(transfer.too_big() > 0, "full datagrams vanished first");
    assert!(transfer
        .received
        .iter()
        .all(|(channel, bytes)| *channel == 1 && *bytes == message));
    let lowered = transfer.path_mtu();
    assert!(lowered <= 1252, "path size {lowered}");
    eprintln!(
        "a path shrunk to 1280 bytes: 200 messages through in {:?}",
        started.elapsed()
    );
}
