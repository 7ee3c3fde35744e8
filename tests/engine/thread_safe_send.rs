//! Thread-safe sending through the C API (`enet_rs_host_sender`): four
//! threads queue reliable packets for one peer while the server's own
//! thread services the host, and the client receives every packet once,
//! each thread's in the order it queued them. A handle of a peer that left
//! is refused, and nothing sent with it reaches the peer that took its
//! slot next. Real hosts over 127.0.0.1.

use core::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use ::enet::abi::*;
use ::enet::ffi::host::*;
use ::enet::ffi::packet::*;
use ::enet::ffi::peer::*;
use ::enet::ffi::sender::*;
use ::enet::mem::PacketFlags;

const SENDERS: u32 = 4;
const PER_SENDER: u32 = 500;

/// A host pointer that may cross threads: each host is used by one thread
/// at a time in these tests.
#[derive(Clone, Copy)]
struct HostPtr(*mut ENetHost);
// SAFETY: the tests hand each host to one thread at a time.
unsafe impl Send for HostPtr {}

/// A sender pointer; senders are meant for any thread.
#[derive(Clone, Copy)]
struct SenderPtr(*mut ENetRsSender);
// SAFETY: `ENetRsSender` is the thread-safe side of a host.
unsafe impl Send for SenderPtr {}

fn localhost(port: u16) -> ENetAddress {
    ENetAddress {
        host: u32::from_ne_bytes([127, 0, 0, 1]),
        port,
    }
}

fn server(peers: usize) -> *mut ENetHost {
    let address = localhost(0);
    // SAFETY: a valid address.
    let host = unsafe { enet_host_create(&address, peers, 2, 0, 0) };
    assert!(!host.is_null());
    host
}

fn client() -> *mut ENetHost {
    // SAFETY: NULL address is allowed.
    let host = unsafe { enet_host_create(ptr::null(), 1, 2, 0, 0) };
    assert!(!host.is_null());
    host
}

/// Services `host` once with `timeout`, returning the event.
fn service(host: *mut ENetHost, timeout: u32) -> Option<ENetEvent> {
    // SAFETY: an all-zero event is a valid "none" event.
    let mut event: ENetEvent = unsafe { core::mem::zeroed() };
    // SAFETY: a live host and a writable event.
    (unsafe { enet_host_service(host, &mut event, timeout) } > 0).then_some(event)
}

/// Services both until the client is connected; the server's new peer.
fn connect(server: *mut ENetHost, client: *mut ENetHost) -> *mut ENetPeer {
    // SAFETY: live hosts.
    let port = unsafe { (*server).address.port };
    // SAFETY: a live host and a valid address.
    assert!(!unsafe { enet_host_connect(client, &localhost(port), 2, 0) }.is_null());
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut server_peer: *mut ENetPeer = ptr::null_mut();
    let mut client_connected = false;
    while Instant::now() < deadline && (server_peer.is_null() || !client_connected) {
        if let Some(event) = service(server, 1) {
            if event.r#type == ENetEventType::ENET_EVENT_TYPE_CONNECT {
                server_peer = event.peer;
            }
        }
        if let Some(event) = service(client, 0) {
            client_connected |= event.r#type == ENetEventType::ENET_EVENT_TYPE_CONNECT;
        }
    }
    assert!(!server_peer.is_null() && client_connected, "no connection");
    server_peer
}

fn packet(bytes: &[u8]) -> *mut ENetPacket {
    // SAFETY: `bytes` is readable for its length.
    unsafe {
        enet_packet_create(
            bytes.as_ptr().cast(),
            bytes.len(),
            PacketFlags::RELIABLE.bits(),
        )
    }
}

/// The bytes of a received packet, which is then destroyed.
fn take(event: &ENetEvent) -> Vec<u8> {
    // SAFETY: a receive event's packet is live and the program's.
    unsafe {
        let packet = &*event.packet;
        let bytes = core::slice::from_raw_parts(packet.data, packet.dataLength).to_vec();
        enet_packet_destroy(event.packet);
        bytes
    }
}

#[test]
fn four_threads_send_while_the_service_thread_runs() {
    let server = server(4);
    let client = client();
    let peer = connect(server, client);
    // SAFETY: the server is not serviced by another thread yet.
    let sender = unsafe { enet_rs_host_sender(server) };
    assert!(!sender.is_null());
    // SAFETY: as above.
    let handle = unsafe { enet_rs_peer_handle(peer) };
    assert_ne!(handle.generation, 0);

    let stop = Arc::new(AtomicBool::new(false));
    let service_thread = {
        let (server, stop) = (HostPtr(server), Arc::clone(&stop));
        thread::spawn(move || {
            let server = server;
            while !stop.load(Ordering::Relaxed) {
                // Long waits: only the senders' wakes get packets out fast.
                while service(server.0, 50).is_some() {}
            }
        })
    };
    let senders: Vec<_> = (0..SENDERS)
        .map(|thread_number| {
            let sender = SenderPtr(sender);
            thread::spawn(move || {
                let sender = sender;
                for sequence in 0..PER_SENDER {
                    let mut bytes = thread_number.to_be_bytes().to_vec();
                    bytes.extend_from_slice(&sequence.to_be_bytes());
                    // SAFETY: a live sender and a fresh packet of ours.
                    let queued =
                        unsafe { enet_rs_sender_send(sender.0, handle, 1, packet(&bytes)) };
                    assert_eq!(queued, 0);
                }
            })
        })
        .collect();

    let mut next = [0u32; SENDERS as usize];
    let mut received = 0;
    let deadline = Instant::now() + Duration::from_secs(20);
    while received < SENDERS * PER_SENDER && Instant::now() < deadline {
        if let Some(event) = service(client, 1) {
            if event.r#type == ENetEventType::ENET_EVENT_TYPE_RECEIVE {
                let bytes = take(&event);
                let thread_number = u32::from_be_bytes(bytes[..4].try_into().unwrap());
                let sequence = u32::from_be_bytes(bytes[4..].try_into().unwrap());
                assert_eq!(
                    sequence, next[thread_number as usize],
                    "thread {thread_number}"
                );
                next[thread_number as usize] += 1;
                received += 1;
            }
        }
    }
    for sender_thread in senders {
        sender_thread.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    service_thread.join().unwrap();
    assert_eq!(received, SENDERS * PER_SENDER);
    assert_eq!(next, [PER_SENDER; SENDERS as usize]);
    // SAFETY: no other thread uses them now.
    unsafe {
        enet_rs_sender_destroy(sender);
        enet_host_destroy(client);
        enet_host_destroy(server);
    }
}

#[test]
fn a_handle_of_a_peer_that_left_never_reaches_the_next_one_in_its_slot() {
    // One slot, so the second client takes the first one's.
    let server = server(1);
    let first = client();
    let peer = connect(server, first);
    // SAFETY: single-threaded use.
    let (sender, old) = unsafe { (enet_rs_host_sender(server), enet_rs_peer_handle(peer)) };
    // SAFETY: a live peer.
    unsafe { enet_peer_reset(peer) };
    let second = client();
    let same_slot = connect(server, second);
    assert_eq!(same_slot, peer, "the slot was reused");
    // SAFETY: live peer.
    let new = unsafe { enet_rs_peer_handle(same_slot) };
    assert_eq!(new.index, old.index);
    assert_ne!(new.generation, old.generation);

    // The stale handle is refused at once; the packet stays ours.
    let stale = packet(b"for the first client");
    // SAFETY: a live sender and packet.
    assert_eq!(unsafe { enet_rs_sender_send(sender, old, 0, stale) }, -1);
    // SAFETY: still ours after the refusal.
    unsafe { enet_packet_destroy(stale) };
    // SAFETY: a live sender.
    assert_eq!(unsafe { enet_rs_sender_disconnect(sender, old, 7) }, -1);
    // SAFETY: as above.
    assert_eq!(
        unsafe { enet_rs_sender_send(sender, new, 0, packet(b"hello")) },
        0
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut got = Vec::new();
    while got.is_empty() && Instant::now() < deadline {
        let _ = service(server, 1);
        if let Some(event) = service(second, 0) {
            if event.r#type == ENetEventType::ENET_EVENT_TYPE_RECEIVE {
                got = take(&event);
            }
        }
    }
    assert_eq!(got, b"hello");

    // A queued disconnect reaches the right peer; after it, the handle is
    // stale.
    // SAFETY: a live sender.
    assert_eq!(unsafe { enet_rs_sender_disconnect(sender, new, 9) }, 0);
    let deadline = Instant::now() + Duration::from_secs(5);
    let (mut data, mut server_done) = (None, false);
    while (data.is_none() || !server_done) && Instant::now() < deadline {
        if let Some(event) = service(server, 1) {
            server_done |= event.r#type == ENetEventType::ENET_EVENT_TYPE_DISCONNECT;
        }
        if let Some(event) = service(second, 0) {
            if event.r#type == ENetEventType::ENET_EVENT_TYPE_DISCONNECT {
                data = Some(event.data);
            }
        }
    }
    assert_eq!(data, Some(9));
    assert!(server_done);
    let late = packet(b"late");
    // SAFETY: a live sender; the refused packet stays ours.
    unsafe {
        assert_eq!(enet_rs_sender_send(sender, new, 0, late), -1);
        enet_packet_destroy(late);
    }

    // After the host is gone the sender refuses everything.
    // SAFETY: the hosts are not used after.
    unsafe {
        enet_host_destroy(server);
        enet_host_destroy(first);
        enet_host_destroy(second);
    }
    let orphan = packet(b"nobody");
    // SAFETY: the sender outlives its host; the packet stays ours.
    unsafe {
        assert_eq!(enet_rs_sender_broadcast(sender, 0, orphan), -1);
        enet_packet_destroy(orphan);
        enet_rs_sender_destroy(sender);
    }
}
