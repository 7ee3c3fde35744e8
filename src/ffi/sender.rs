//! Thread-safe sending (`enet/enet_rs.h`): an `ENetRsSender` lets any
//! thread queue sends, broadcasts and disconnects for a host while another
//! thread runs `enet_host_service`; the service thread applies them (see
//! `proto::host::request`). The queue itself, its lock and its wake-up are the
//! net layer's [`RequestQueue`].

use core::ffi::c_int;
use core::ptr;
use std::sync::Arc;

use crate::abi::*;
use crate::net::request_queue::RequestQueue;
use crate::proto::{PeerHandle, Request};

/// A handle other threads use to queue work for one host.
pub struct ENetRsSender {
    queue: Arc<RequestQueue>,
}

impl From<PeerHandle> for ENetRsPeerHandle {
    fn from(handle: PeerHandle) -> Self {
        ENetRsPeerHandle {
            index: handle.index,
            generation: handle.generation,
        }
    }
}

impl From<ENetRsPeerHandle> for PeerHandle {
    fn from(handle: ENetRsPeerHandle) -> Self {
        PeerHandle {
            index: handle.index,
            generation: handle.generation,
        }
    }
}

/// Turns thread-safe sending on for `host` (the first call) and returns a
/// sender for it, which any thread may use until
/// `enet_rs_sender_destroy`; call it on the thread that services the host
/// (or before that thread starts). NULL for a NULL host or if the system
/// refuses a waker (an eventfd, a pipe or a loopback socket).
///
/// # Safety
/// `host` must be NULL or a live host not in use by another thread.
/// From one of this host's own callbacks (intercept, checksum,
/// compressor, packet free callback) it returns NULL.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_host_sender(host: *mut ENetHost) -> *mut ENetRsSender {
    guard!(ptr::null_mut(), {
        try_host!(let host = host, else ptr::null_mut());
        if host.requests.is_none() {
            let Some(queue) = RequestQueue::new(host.generations()) else {
                return ptr::null_mut();
            };
            host.requests = Some(Arc::new(queue));
        }
        let queue = host.requests.as_ref().map(Arc::clone);
        match queue {
            Some(queue) => Box::into_raw(Box::new(ENetRsSender { queue })),
            None => ptr::null_mut(),
        }
    })
}

/// Gives a sender up (the host keeps applying what it queued). NULL is
/// ignored.
///
/// # Safety
/// `sender` must be NULL or from `enet_rs_host_sender`, not used after.
/// Any thread, at any time, also from a host's callbacks: a sender
/// touches only its host's request queue.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_sender_destroy(sender: *mut ENetRsSender) {
    guard!((), {
        drop(take_box!(sender));
    })
}

/// The handle other threads name `peer` by: its slot and the slot's
/// generation, which changes when the slot is reset, so a handle of a peer
/// that left never reaches a later peer in its slot. A free slot's handle
/// (generation 0) names no one. Call it where `peer` may be read (the
/// service thread, e.g. at its CONNECT event).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host not in use by another
/// thread.
/// From one of the peer's host's own callbacks (intercept, checksum,
/// compressor, packet free callback) it returns a handle naming no one.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_peer_handle(peer: *mut ENetPeer) -> ENetRsPeerHandle {
    guard!(ENetRsPeerHandle::default(), {
        try_peer!(let (host, index) = peer);
        host.peer_handle(index).into()
    })
}

/// The queue of a sender (senders are shared read-only) and `peer` as the
/// engine names it, if the handle still names its peer.
fn sender_for(
    sender: &ENetRsSender,
    peer: ENetRsPeerHandle,
) -> Option<(&RequestQueue, PeerHandle)> {
    let peer = PeerHandle::from(peer);
    sender
        .queue
        .is_current(peer)
        .then_some((&*sender.queue, peer))
}

/// Queues `request`; 0, or -1 (the packet, if any, back to the program)
/// when the host is gone.
fn queue(queue: &RequestQueue, request: Request) -> c_int {
    match queue.push(request) {
        Ok(()) => 0,
        Err(Request::Send { packet, .. } | Request::Broadcast { packet, .. }) => {
            let _ = packet.hand_to_program();
            -1
        }
        Err(Request::Disconnect { .. }) => -1,
    }
}

/// Queues `enet_peer_send(peer, channelID, packet)` for the host's service
/// thread, from any thread. 0 once queued: the packet is then the
/// library's (do not touch it, or queue it again), and it is freed if the
/// send cannot be made when the service thread comes to it (the peer left,
/// a channel out of range, the peer at its send limit: the limit is met
/// on the service thread, so such a packet is freed, not handed back). -1, the packet still the program's, for a
/// NULL argument, a destroyed host, or a handle whose peer has left.
///
/// # Safety
/// `sender` must be NULL or a live sender; `packet` NULL or a live packet
/// no other thread uses.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_sender_send(
    sender: *mut ENetRsSender,
    peer: ENetRsPeerHandle,
    channelID: u8,
    packet: *mut ENetPacket,
) -> c_int {
    guard!(-1, {
        let Some((requests, peer)) = arg_ref!(sender).and_then(|sender| sender_for(sender, peer))
        else {
            return -1;
        };
        let packet = try_packet!(packet).retain();
        queue(
            requests,
            Request::Send {
                peer,
                channel_id: channelID,
                packet,
            },
        )
    })
}

/// Queues `enet_host_broadcast(host, channelID, packet)`, from any thread.
/// 0 once queued (the packet is then the library's), -1 (still the
/// program's) for a NULL argument or a destroyed host.
///
/// # Safety
/// As `enet_rs_sender_send`.
/// Any thread, at any time, also from a host's callbacks: a sender
/// touches only its host's request queue.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_sender_broadcast(
    sender: *mut ENetRsSender,
    channelID: u8,
    packet: *mut ENetPacket,
) -> c_int {
    guard!(-1, {
        let Some(sender) = arg_ref!(sender) else {
            return -1;
        };
        let (requests, packet) = (&*sender.queue, try_packet!(packet).retain());
        queue(
            requests,
            Request::Broadcast {
                channel_id: channelID,
                packet,
            },
        )
    })
}

/// Queues `enet_peer_disconnect(peer, data)`, from any thread. 0 once
/// queued, -1 for a NULL sender, a destroyed host, or a handle whose peer
/// has left.
///
/// # Safety
/// `sender` must be NULL or a live sender.
/// Any thread, at any time, also from a host's callbacks: a sender
/// touches only its host's request queue.
#[no_mangle]
pub unsafe extern "C" fn enet_rs_sender_disconnect(
    sender: *mut ENetRsSender,
    peer: ENetRsPeerHandle,
    data: u32,
) -> c_int {
    guard!(-1, {
        let Some((requests, peer)) = arg_ref!(sender).and_then(|sender| sender_for(sender, peer))
        else {
            return -1;
        };
        queue(requests, Request::Disconnect { peer, data })
    })
}
