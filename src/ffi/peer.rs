//! `peer.c` entry points: each finds the peer's host and slot, then calls
//! the engine.

use core::ffi::{c_int, c_void};
use core::ptr;

use super::host::{flush, peer_host};
use crate::abi::*;
use crate::mem::PacketRef;

/// Queues `packet` to `peer` on `channelID`; 0, or -1 if the peer is not
/// connected, the channel does not exist or the packet is too large.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `packet` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_send(
    peer: *mut ENetPeer,
    channelID: u8,
    packet: *mut ENetPacket,
) -> c_int {
    guard!(-1, {
        // SAFETY: caller contract.
        let (Some((host, index)), Some(view)) = (unsafe { peer_host(peer) }, unsafe {
            PacketRef::borrow_raw(packet)
        }) else {
            return -1;
        };
        match host.send(index, channelID, &view) {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// The next received packet, or NULL; its channel goes to `*channelID`.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `channelID` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_receive(
    peer: *mut ENetPeer,
    channelID: *mut u8,
) -> *mut ENetPacket {
    guard!(ptr::null_mut(), {
        // SAFETY: caller contract.
        let Some((host, index)) = (unsafe { peer_host(peer) }) else {
            return ptr::null_mut();
        };
        let Some((channel, packet)) = host.receive(index) else {
            return ptr::null_mut();
        };
        // SAFETY: caller contract.
        if let Some(out) = unsafe { channelID.as_mut() } {
            *out = channel;
        }
        packet.hand_to_program()
    })
}

/// Runs `action` on the peer's host and slot; nothing for a NULL or
/// foreign peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
unsafe fn with_peer(peer: *mut ENetPeer, action: impl FnOnce(&mut crate::proto::Host, usize)) {
    guard!((), {
        // SAFETY: caller contract.
        if let Some((host, index)) = unsafe { peer_host(peer) } {
            action(host, index);
        }
    })
}

/// Queues a ping (stock pings connected peers every 500 ms anyway).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_ping(peer: *mut ENetPeer) {
    // SAFETY: caller contract.
    unsafe { with_peer(peer, |host, index| host.ping(index)) }
}

/// Sets the ping interval in ms (0 = the default, 500).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_ping_interval(peer: *mut ENetPeer, pingInterval: u32) {
    // SAFETY: caller contract.
    unsafe {
        with_peer(peer, |host, index| {
            host.set_ping_interval(index, pingInterval)
        })
    }
}

/// Sets the timeout limit, minimum and maximum (each 0 = its default).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_timeout(
    peer: *mut ENetPeer,
    timeoutLimit: u32,
    timeoutMinimum: u32,
    timeoutMaximum: u32,
) {
    // SAFETY: caller contract.
    unsafe {
        with_peer(peer, |host, index| {
            host.set_timeout(index, timeoutLimit, timeoutMinimum, timeoutMaximum)
        })
    }
}

/// Drops the connection at once, without telling the peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_reset(peer: *mut ENetPeer) {
    // SAFETY: caller contract.
    unsafe { with_peer(peer, |host, index| host.reset_peer(index)) }
}

/// Asks the peer to disconnect; a DISCONNECT event follows its answer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect(peer: *mut ENetPeer, data: u32) {
    // SAFETY: caller contract.
    unsafe {
        with_peer(peer, |host, index| {
            if host.disconnect(index, data) {
                flush(host);
                host.reset_peer(index);
            }
        })
    }
}

/// Tells the peer (once, unreliably) and resets it at once; no event.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect_now(peer: *mut ENetPeer, data: u32) {
    // SAFETY: caller contract.
    unsafe {
        with_peer(peer, |host, index| {
            if host.peer(index).state == ENetPeerState::ENET_PEER_STATE_DISCONNECTED {
                return;
            }
            if host.disconnect_now(index, data) {
                flush(host);
            }
            host.reset_peer(index);
        })
    }
}

/// Disconnects once everything queued to the peer has been delivered.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect_later(peer: *mut ENetPeer, data: u32) {
    // SAFETY: caller contract.
    unsafe {
        with_peer(peer, |host, index| {
            if host.disconnect_later(index, data) {
                flush(host);
                host.reset_peer(index);
            }
        })
    }
}

/// Configures the packet throttle and tells the peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_throttle_configure(
    peer: *mut ENetPeer,
    interval: u32,
    acceleration: u32,
    deceleration: u32,
) {
    // SAFETY: caller contract.
    unsafe {
        with_peer(peer, |host, index| {
            host.throttle_configure(index, interval, acceleration, deceleration)
        })
    }
}

/// Adapts the throttle to a round-trip sample: 1 opened, -1 closed, 0 kept.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_throttle(peer: *mut ENetPeer, rtt: u32) -> c_int {
    guard!(0, {
        // SAFETY: caller contract.
        match unsafe { peer_host(peer) } {
            Some((host, index)) => host.throttle(index, rtt),
            None => 0,
        }
    })
}

/// Drops every queued command and packet of the peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_reset_queues(peer: *mut ENetPeer) {
    // SAFETY: caller contract.
    unsafe { with_peer(peer, |host, index| host.reset_queues(index)) }
}

/// Internal in stock; the engine keeps its own command queues, so there is
/// no `ENetOutgoingCommand` to set up. Does nothing.
///
/// # Safety
/// Any pointers.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_setup_outgoing_command(
    _peer: *mut ENetPeer,
    _outgoingCommand: *mut ENetOutgoingCommand,
) {
}

/// Internal in stock; not available (NULL): the engine keeps its own queues.
///
/// # Safety
/// Any pointers.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_queue_outgoing_command(
    _peer: *mut ENetPeer,
    _command: *const ENetProtocol,
    _packet: *mut ENetPacket,
    _offset: u32,
    _length: u16,
) -> *mut ENetOutgoingCommand {
    ptr::null_mut()
}

/// Internal in stock; not available (NULL): the engine keeps its own queues.
///
/// # Safety
/// Any pointers.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_queue_incoming_command(
    _peer: *mut ENetPeer,
    _command: *const ENetProtocol,
    _data: *const c_void,
    _dataLength: usize,
    _flags: u32,
    _fragmentCount: u32,
) -> *mut ENetIncomingCommand {
    ptr::null_mut()
}

/// Internal in stock; not available (NULL): the engine keeps its own queues.
///
/// # Safety
/// Any pointers.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_queue_acknowledgement(
    _peer: *mut ENetPeer,
    _command: *const ENetProtocol,
    _sentTime: u16,
) -> *mut ENetAcknowledgement {
    ptr::null_mut()
}

/// Internal in stock; the engine dispatches as commands arrive. Does nothing.
///
/// # Safety
/// Any pointers.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_dispatch_incoming_unreliable_commands(
    _peer: *mut ENetPeer,
    _channel: *mut ENetChannel,
    _queuedCommand: *mut ENetIncomingCommand,
) {
}

/// Internal in stock; the engine dispatches as commands arrive. Does nothing.
///
/// # Safety
/// Any pointers.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_dispatch_incoming_reliable_commands(
    _peer: *mut ENetPeer,
    _channel: *mut ENetChannel,
    _queuedCommand: *mut ENetIncomingCommand,
) {
}

/// Counts the peer as connected in its host's totals (internal in stock).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_on_connect(peer: *mut ENetPeer) {
    // SAFETY: caller contract.
    unsafe { with_peer(peer, |host, index| host.on_connect(index)) }
}

/// Stops counting the peer as connected (internal in stock).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_on_disconnect(peer: *mut ENetPeer) {
    // SAFETY: caller contract.
    unsafe { with_peer(peer, |host, index| host.on_disconnect(index)) }
}
