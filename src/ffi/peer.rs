//! `peer.c` entry points. The protocol engine behind them arrives with the
//! engine work; until then each returns its documented failure value.

use core::ffi::{c_int, c_void};
use core::ptr;

use crate::abi::{
    ENetAcknowledgement, ENetChannel, ENetIncomingCommand, ENetOutgoingCommand, ENetPacket,
    ENetPeer, ENetProtocol,
};

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_send(
    _peer: *mut ENetPeer,
    _channelID: u8,
    _packet: *mut ENetPacket,
) -> c_int {
    -1
}

/// # Safety
/// Pointers must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_receive(
    _peer: *mut ENetPeer,
    _channelID: *mut u8,
) -> *mut ENetPacket {
    ptr::null_mut()
}

/// # Safety
/// `peer` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_ping(_peer: *mut ENetPeer) {}

/// # Safety
/// `peer` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_ping_interval(_peer: *mut ENetPeer, _pingInterval: u32) {}

/// # Safety
/// `peer` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_timeout(
    _peer: *mut ENetPeer,
    _timeoutLimit: u32,
    _timeoutMinimum: u32,
    _timeoutMaximum: u32,
) {
}

/// # Safety
/// `peer` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_reset(_peer: *mut ENetPeer) {}

/// # Safety
/// `peer` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect(_peer: *mut ENetPeer, _data: u32) {}

/// # Safety
/// `peer` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect_now(_peer: *mut ENetPeer, _data: u32) {}

/// # Safety
/// `peer` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect_later(_peer: *mut ENetPeer, _data: u32) {}

/// # Safety
/// `peer` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_throttle_configure(
    _peer: *mut ENetPeer,
    _interval: u32,
    _acceleration: u32,
    _deceleration: u32,
) {
}

/// # Safety
/// `peer` must be NULL or valid.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_throttle(_peer: *mut ENetPeer, _rtt: u32) -> c_int {
    0
}

/// # Safety
/// `peer` must be NULL or valid.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_reset_queues(_peer: *mut ENetPeer) {}

/// # Safety
/// Pointers must be NULL or valid.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_setup_outgoing_command(
    _peer: *mut ENetPeer,
    _outgoingCommand: *mut ENetOutgoingCommand,
) {
}

/// # Safety
/// Pointers must be NULL or valid.
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

/// # Safety
/// Pointers must be NULL or valid.
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

/// # Safety
/// Pointers must be NULL or valid.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_queue_acknowledgement(
    _peer: *mut ENetPeer,
    _command: *const ENetProtocol,
    _sentTime: u16,
) -> *mut ENetAcknowledgement {
    ptr::null_mut()
}

/// # Safety
/// Pointers must be NULL or valid.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_dispatch_incoming_unreliable_commands(
    _peer: *mut ENetPeer,
    _channel: *mut ENetChannel,
    _queuedCommand: *mut ENetIncomingCommand,
) {
}

/// # Safety
/// Pointers must be NULL or valid.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_dispatch_incoming_reliable_commands(
    _peer: *mut ENetPeer,
    _channel: *mut ENetChannel,
    _queuedCommand: *mut ENetIncomingCommand,
) {
}

/// # Safety
/// `peer` must be NULL or valid.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_on_connect(_peer: *mut ENetPeer) {}

/// # Safety
/// `peer` must be NULL or valid.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_on_disconnect(_peer: *mut ENetPeer) {}
