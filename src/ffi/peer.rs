//! `peer.c` entry points: each finds the peer's host and slot, then calls
//! the engine.

use core::ffi::{c_int, c_void};
use core::ptr;

use super::busy;
use super::driver::DriverHost;
use super::host::finish_disconnect;
use crate::abi::*;
use crate::mem::{CBox, PacketRef, PacketView};
use crate::proto::host::request::{CallbackCall, DisconnectWhen};
use crate::proto::{PeerIndex, Queued, Sequenced};
use crate::wire::command::{number, Command, CommandFlags, CommandHeader};
use crate::wire::command_size;

/// Queues `packet` to `peer` on `channelID`; 0, or -1 if the peer is not
/// connected, the channel does not exist, the packet is too large or the
/// peer is at its send limit (`enet_rs_peer_set_send_limit`).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `packet` NULL or live.
/// One thread at a time per host. From one of the peer's host's own
/// callbacks (intercept, checksum, compressor, packet free callback) the
/// send is queued and made once the callback returns: the call returns 0
/// for any packet (-1 for NULL), the packet is the library's from then on,
/// and a send that fails when it is made (the peer not connected, no such
/// channel, a packet too large, the peer at its send limit) frees a
/// packet no peer took.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_send(
    peer: *mut ENetPeer,
    channelID: u8,
    packet: *mut ENetPacket,
) -> c_int {
    guard!({
        let view = try_packet!(packet);
        // Queueing a send only counts references: no callback runs.
        try_peer!(quick let (host, index) = peer, busy (busy, slot) => {
            busy.defer(CallbackCall::Send {
                peer: slot,
                channel_id: channelID,
                packet: view.retain(),
            });
            0
        });
        // The closure inlined too, as `with_peer` and `PeerMut::send` are:
        // without it the send stays a call of its own.
        let sent = host.with_peer(
            index,
            #[inline(always)]
            |peer, terms| peer.send(channelID.into(), view, terms),
        );
        match sent {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// The next received packet, or NULL; its channel goes to `*channelID`.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `channelID` NULL or writable.
/// One thread at a time per host. From one of this host's own callbacks (intercept, checksum, compressor,
/// packet free callback) it returns NULL.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_receive(
    peer: *mut ENetPeer,
    channelID: *mut u8,
) -> *mut ENetPacket {
    guard!({
        try_peer!(let (host, index) = peer);
        let Some((channel, packet)) = host.with_peer(index, |peer, _| peer.receive()) else {
            return ptr::null_mut();
        };
        if let Some(out) = arg_mut!(channelID) {
            *out = channel;
        }
        packet.hand_to_program()
    })
}

/// Queues a ping (stock pings connected peers every 500 ms anyway).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of this host's own callbacks (intercept, checksum, compressor,
/// packet free callback) it does nothing.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_ping(peer: *mut ENetPeer) {
    guard!({
        try_peer!(let (host, index) = peer);
        host.with_peer(index, |peer, _| peer.ping());
    })
}

/// Sets the ping interval in ms (0 = the default, 500).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of this host's own callbacks (intercept, checksum, compressor,
/// packet free callback) it does nothing.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_ping_interval(peer: *mut ENetPeer, pingInterval: u32) {
    guard!({
        try_peer!(let (host, index) = peer);
        host.with_peer(index, |peer, _| peer.set_ping_interval(pingInterval));
    })
}

/// Sets the timeout limit, minimum and maximum (each 0 = its default).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of this host's own callbacks (intercept, checksum, compressor,
/// packet free callback) it does nothing.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_timeout(
    peer: *mut ENetPeer,
    timeoutLimit: u32,
    timeoutMinimum: u32,
    timeoutMaximum: u32,
) {
    guard!({
        try_peer!(let (host, index) = peer);
        host.with_peer(index, |peer, _| {
            peer.set_timeout(timeoutLimit, timeoutMinimum, timeoutMaximum)
        });
    })
}

/// Drops the connection at once, without telling the peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host. One thread at a time per
/// host. From one of the peer's host's own callbacks (intercept, checksum,
/// compressor, packet free callback) the reset is queued and made once the
/// callback returns.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_reset(peer: *mut ENetPeer) {
    guard!({
        try_peer!(let (host, index) = peer,
            busy (busy, slot) => busy.defer(CallbackCall::Reset { peer: slot }));
        host.reset_by_program(index);
    })
}

/// What a disconnect call leaves to do, done now.
fn disconnect(driver: &mut DriverHost, index: PeerIndex, data: u32, when: DisconnectWhen) {
    let effect = match when {
        DisconnectWhen::Asked => driver.disconnect(index, data),
        DisconnectWhen::Now => driver.disconnect_now(index, data),
        DisconnectWhen::Later => driver.disconnect_later(index, data),
    };
    finish_disconnect(driver, index, effect);
}

/// A disconnect call from the host's own callbacks, queued.
fn defer_disconnect(busy: busy::Busy, peer: PeerIndex, data: u32, when: DisconnectWhen) {
    busy.defer(CallbackCall::Disconnect { peer, data, when });
}

/// Asks the peer to disconnect; a DISCONNECT event follows its answer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host. One thread at a time per
/// host. From one of the peer's host's own callbacks (intercept, checksum,
/// compressor, packet free callback) the call is queued and made once the
/// callback returns.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect(peer: *mut ENetPeer, data: u32) {
    let when = DisconnectWhen::Asked;
    guard!({
        try_peer!(let (host, index) = peer,
            busy (busy, slot) => defer_disconnect(busy, slot, data, when));
        disconnect(host, index, data, when);
    })
}

/// Tells the peer (once, unreliably) and resets it at once; no event.
///
/// # Safety
/// As `enet_peer_disconnect` (from the host's own callbacks too: the call
/// is queued and made once the callback returns; one thread at a time per
/// host).
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect_now(peer: *mut ENetPeer, data: u32) {
    let when = DisconnectWhen::Now;
    guard!({
        try_peer!(let (host, index) = peer,
            busy (busy, slot) => defer_disconnect(busy, slot, data, when));
        disconnect(host, index, data, when);
    })
}

/// Disconnects once everything queued to the peer has been delivered.
///
/// # Safety
/// As `enet_peer_disconnect` (from the host's own callbacks too: the call
/// is queued and made once the callback returns; one thread at a time per
/// host).
#[no_mangle]
pub unsafe extern "C" fn enet_peer_disconnect_later(peer: *mut ENetPeer, data: u32) {
    let when = DisconnectWhen::Later;
    guard!({
        try_peer!(let (host, index) = peer,
            busy (busy, slot) => defer_disconnect(busy, slot, data, when));
        disconnect(host, index, data, when);
    })
}

/// Configures the packet throttle and tells the peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of this host's own callbacks (intercept, checksum, compressor,
/// packet free callback) it does nothing.
#[no_mangle]
pub unsafe extern "C" fn enet_peer_throttle_configure(
    peer: *mut ENetPeer,
    interval: u32,
    acceleration: u32,
    deceleration: u32,
) {
    guard!({
        try_peer!(let (host, index) = peer);
        host.with_peer(index, |peer, _| {
            peer.throttle_configure(interval, acceleration, deceleration)
        });
    })
}

/// Adapts the throttle to a round-trip sample: 1 opened, -1 closed, 0 kept.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of this host's own callbacks (intercept, checksum, compressor,
/// packet free callback) it returns 0.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_throttle(peer: *mut ENetPeer, rtt: u32) -> c_int {
    guard!(0, {
        try_peer!(let (host, index) = peer, else 0);
        host.with_peer(index, |peer, _| peer.throttle(rtt))
    })
}

/// Drops every queued command and packet of the peer.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of this host's own callbacks (intercept, checksum, compressor,
/// packet free callback) it does nothing.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_reset_queues(peer: *mut ENetPeer) {
    guard!({
        try_peer!(let (host, index) = peer);
        host.reset_queues(index);
    })
}

/// 1 while the peer has commands queued, waiting to be sent or sent and
/// not yet acknowledged; 0 otherwise (and for NULL). ENet 1.3.18's
/// addition, exported for programs built against its headers.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of this host's own callbacks (intercept, checksum, compressor,
/// packet free callback) it returns 0.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_has_outgoing_commands(peer: *mut ENetPeer) -> c_int {
    guard!(0, {
        try_peer!(let (host, index) = peer, else 0);
        c_int::from(host.has_outgoing_commands(index))
    })
}

/// A command as the wire layer reads it, from the `ENetProtocol` a program
/// built: body fields in network order as stock expects; the payload
/// length fields are ignored (the payload comes from the packet).
fn with_parsed<R>(
    command: &ENetProtocol,
    use_it: impl FnOnce(&CommandHeader, &Command<'_>) -> R,
) -> Option<R> {
    // SAFETY: `ENetProtocol` is 48 packed bytes with no padding; any bit
    // pattern is a valid byte array.
    let mut bytes: [u8; 48] = unsafe { core::mem::transmute(*command) };
    let payload_length = match bytes[0] & number::MASK {
        number::SEND_RELIABLE => Some(4..6),
        number::SEND_UNRELIABLE
        | number::SEND_UNSEQUENCED
        | number::SEND_FRAGMENT
        | number::SEND_UNRELIABLE_FRAGMENT => Some(6..8),
        _ => None,
    };
    if let Some(field) = payload_length {
        bytes[field].fill(0);
    }
    let size = command_size(bytes[0]);
    let (header, parsed, _) = Command::parse(&bytes[..size]).ok()?;
    Some(use_it(&header, &parsed))
}

/// `command`'s header sequence number as stock's internals hold it: host
/// byte order (the receive path converts it in place before handlers run).
fn host_order_sequence(command: &ENetProtocol) -> u16 {
    // SAFETY: every member of the packed union starts with the 4-byte
    // command header; reading it is reading plain bytes.
    unsafe { command.header.reliableSequenceNumber }
}

/// `command`'s command byte and channel.
fn header_fields(command: &ENetProtocol) -> (u8, u8) {
    // SAFETY: as in `host_order_sequence`: the common header's plain bytes.
    unsafe { (command.header.command, command.header.channelID) }
}

/// `command`'s unreliable sequence number, in host order (meaningful for
/// a SEND_UNRELIABLE only).
fn unreliable_sequence(command: &ENetProtocol) -> u16 {
    // SAFETY: `ENetProtocol` is 48 packed bytes of integers, so any member
    // read is a read of plain bytes inside it.
    u16::from_be(unsafe { command.sendUnreliable.unreliableSequenceNumber })
}

/// Internal in stock: queues a command the caller allocated (with
/// `enet_malloc`), taking ownership of it and of one reference to its
/// packet. The command is converted into the engine's queue; the object
/// stays valid, with its sequence numbers filled in, until the next such
/// call on the peer or the peer's reset.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `outgoingCommand` NULL or
/// a command from `enet_malloc` whose `packet` (if any) is live and
/// already counts this command's reference.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it frees the
/// command and queues nothing.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_setup_outgoing_command(
    peer: *mut ENetPeer,
    outgoingCommand: *mut ENetOutgoingCommand,
) {
    guard!({
        // SAFETY: this function's `# Safety`: `outgoingCommand` is NULL or
        // an `ENetOutgoingCommand` from `enet_malloc` (what `CBox` frees),
        // handed to us; it is taken back once, here. (A one-off: the only
        // export that takes a command's memory.)
        let Some(mut owned) = (unsafe { CBox::from_raw(outgoingCommand) }) else {
            return;
        };
        try_peer!(let (host, index) = peer);
        // SAFETY: this function's `# Safety`: the command's `packet` is
        // NULL or live and already counts the command's reference, which
        // comes to us with the command; nothing else gives it back.
        let packet = unsafe { PacketRef::adopt_raw(owned.packet) };
        let (offset, length) = (owned.fragmentOffset, owned.fragmentLength);
        let mut packet = packet;
        let sequenced = with_parsed(&owned.command, |header, command| {
            host.queue_command(index, header, command, packet.take(), offset, length)
        });
        if let Some(unused) = packet {
            unused.release(); // not a command we could queue
        }
        if let Some(sequenced) = sequenced.flatten() {
            fill_outgoing_receipt(&mut owned, sequenced);
        }
        host.receipts_mut(index).outgoing = Some(owned);
    })
}

fn fill_outgoing_receipt(receipt: &mut ENetOutgoingCommand, sequenced: Sequenced) {
    receipt.outgoingCommandList = ENetListNode::NULL;
    receipt.reliableSequenceNumber = sequenced.reliable_sequence_number;
    receipt.unreliableSequenceNumber = sequenced.unreliable_sequence_number;
    receipt.sentTime = 0;
    receipt.roundTripTimeout = 0;
    receipt.roundTripTimeoutLimit = 0;
    receipt.sendAttempts = 0;
    // SAFETY: writing plain fields of the packed command header and body;
    // the bytes are network order as on the wire.
    unsafe {
        receipt.command.header.reliableSequenceNumber = sequenced.reliable_sequence_number.to_be();
        match receipt.command.header.command & number::MASK {
            number::SEND_UNRELIABLE => {
                receipt.command.sendUnreliable.unreliableSequenceNumber =
                    sequenced.unreliable_sequence_number.to_be()
            }
            number::SEND_UNSEQUENCED => {
                receipt.command.sendUnsequenced.unsequencedGroup =
                    sequenced.unsequenced_group.to_be()
            }
            _ => {}
        }
    }
}

/// Internal in stock: queues `command` (with `length` bytes of `packet`
/// from `offset` as payload) to be sent. Returns the queued command, valid
/// until the next such call on the peer or its reset; NULL if it cannot be
/// queued.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `command` NULL or valid;
/// `packet` NULL or live.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns NULL.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_queue_outgoing_command(
    peer: *mut ENetPeer,
    command: *const ENetProtocol,
    packet: *mut ENetPacket,
    offset: u32,
    length: u16,
) -> *mut ENetOutgoingCommand {
    guard!({
        let Some(command) = arg_ref!(command) else {
            return ptr::null_mut();
        };
        let payload = if packet.is_null() {
            None
        } else {
            Some(try_packet!(packet))
        };
        try_peer!(let (host, index) = peer);
        let sequenced = with_parsed(command, |header, parsed| {
            // The command takes its own reference.
            let reference = payload.map(PacketView::retain);
            host.queue_command(index, header, parsed, reference, offset, length)
        });
        let Some(sequenced) = sequenced.flatten() else {
            return ptr::null_mut();
        };
        let Some(mut receipt) = CBox::new(ENetOutgoingCommand {
            outgoingCommandList: ENetListNode::NULL,
            reliableSequenceNumber: 0,
            unreliableSequenceNumber: 0,
            sentTime: 0,
            roundTripTimeout: 0,
            roundTripTimeoutLimit: 0,
            fragmentOffset: offset,
            fragmentLength: length,
            sendAttempts: 0,
            command: *command,
            packet,
        }) else {
            return ptr::null_mut();
        };
        fill_outgoing_receipt(&mut receipt, sequenced);
        let pointer = receipt.as_ptr();
        host.receipts_mut(index).outgoing = Some(receipt);
        pointer
    })
}

/// Internal in stock: takes a received SEND_RELIABLE, SEND_UNRELIABLE or
/// SEND_UNSEQUENCED (header sequence number in host order, as stock's
/// receive path passes it) as if it had arrived. Returns an object
/// describing it (also for a duplicate, which stock answers with a dummy),
/// valid until the next such call on the peer or its reset; NULL on error
/// and for fragment starts, which the engine builds from fragments itself.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `command` NULL or valid;
/// `data` NULL or readable for `dataLength` bytes.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns NULL.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_queue_incoming_command(
    peer: *mut ENetPeer,
    command: *const ENetProtocol,
    data: *const c_void,
    dataLength: usize,
    _flags: u32,
    fragmentCount: u32,
) -> *mut ENetIncomingCommand {
    guard!({
        let Some(command) = arg_ref!(command) else {
            return ptr::null_mut();
        };
        try_peer!(let (host, index) = peer);
        if fragmentCount > 0 {
            return ptr::null_mut();
        }
        let zeroes;
        let payload: &[u8] = if data.is_null() {
            zeroes = vec![0u8; dataLength];
            &zeroes
        } else {
            arg_bytes!(data, dataLength)
        };
        let (command_byte, channel_id) = header_fields(command);
        let unreliable = unreliable_sequence(command);
        let sequence = host_order_sequence(command);
        let outcome = host.inject_incoming(
            index,
            command_byte & number::MASK,
            channel_id,
            sequence,
            unreliable,
            payload,
        );
        if outcome == Queued::Error {
            return ptr::null_mut();
        }
        let Some(receipt) = CBox::new(ENetIncomingCommand {
            incomingCommandList: ENetListNode::NULL,
            reliableSequenceNumber: sequence,
            unreliableSequenceNumber: unreliable,
            command: *command,
            fragmentCount: 0,
            fragmentsRemaining: 0,
            fragments: ptr::null_mut(),
            packet: ptr::null_mut(),
        }) else {
            return ptr::null_mut();
        };
        let pointer = receipt.as_ptr();
        host.receipts_mut(index).incoming = Some(receipt);
        pointer
    })
}

/// Internal in stock: owes the peer an acknowledgement of `command`
/// (header sequence number in host order). Returns the acknowledgement,
/// valid until the next such call on the peer or its reset; NULL where
/// stock's window rule withholds it.
///
/// # Safety
/// `peer` must be NULL or a peer of a live host; `command` NULL or valid.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it returns NULL.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_queue_acknowledgement(
    peer: *mut ENetPeer,
    command: *const ENetProtocol,
    sentTime: u16,
) -> *mut ENetAcknowledgement {
    guard!({
        let Some(command) = arg_ref!(command) else {
            return ptr::null_mut();
        };
        try_peer!(let (host, index) = peer);
        let (command_byte, channel_id) = header_fields(command);
        let header = CommandHeader {
            flags: CommandFlags::from_bits(command_byte),
            channel_id,
            reliable_sequence_number: host_order_sequence(command),
        };
        if !host.acknowledge(index, &header, command_byte & number::MASK, sentTime) {
            return ptr::null_mut();
        }
        let Some(receipt) = CBox::new(ENetAcknowledgement {
            acknowledgementList: ENetListNode::NULL,
            sentTime: u32::from(sentTime),
            command: *command,
        }) else {
            return ptr::null_mut();
        };
        let pointer = receipt.as_ptr();
        host.receipts_mut(index).acknowledgement = Some(receipt);
        pointer
    })
}

/// Internal in stock: moves completed unreliable commands to the peer's
/// dispatch queue. The engine does that as each command arrives, so there
/// is never anything left to move here.
///
/// # Safety
/// Any pointers, from any thread, also from a host's callbacks.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_dispatch_incoming_unreliable_commands(
    _peer: *mut ENetPeer,
    _channel: *mut ENetChannel,
    _queuedCommand: *mut ENetIncomingCommand,
) {
}

/// Internal in stock: moves in-sequence reliable commands to the peer's
/// dispatch queue. The engine does that as each command arrives, so there
/// is never anything left to move here.
///
/// # Safety
/// Any pointers, from any thread, also from a host's callbacks.
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
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it does nothing.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_on_connect(peer: *mut ENetPeer) {
    guard!({
        try_peer!(let (host, index) = peer);
        host.on_connect(index);
    })
}

/// Stops counting the peer as connected (internal in stock).
///
/// # Safety
/// `peer` must be NULL or a peer of a live host.
/// One thread at a time per host. From one of this host's own callbacks
/// (intercept, checksum, compressor, packet free callback) it does nothing.
/// cbindgen:prefix=extern
#[no_mangle]
pub unsafe extern "C" fn enet_peer_on_disconnect(peer: *mut ENetPeer) {
    guard!({
        try_peer!(let (host, index) = peer);
        host.on_disconnect(index);
    })
}
