//! Datagrams forged as an attacker who sniffed a connection would forge
//! them, handed straight to a host of the simulation.

use enet::abi::ENetAddress;
use enet::proto::{EventSlot, NoCodec, PeerIndex};
use enet::wire::command::{Command, CommandFlags, CommandHeader, Fragment};
use enet::wire::{DatagramBuilder, DropReason, Envelope};

use super::Sim;

pub struct Forger {
    pub from: ENetAddress,
    pub peer_id: u16,
    pub session: u8,
}

impl Forger {
    /// The identity of `client`'s connection (its peer `client_peer`).
    pub fn for_connection(sim: &mut Sim, client: usize, client_peer: PeerIndex) -> Forger {
        let from = sim.hosts[client].address;
        let peer = sim.host(client).peer(client_peer);
        Forger {
            from,
            peer_id: peer.outgoingPeerID,
            session: peer.outgoingSessionID,
        }
    }

    pub fn datagram(&self, commands: &[(CommandHeader, Command<'_>)]) -> Vec<u8> {
        let mut builder = DatagramBuilder::new(4096);
        for (header, command) in commands {
            builder.push(header, command).expect("fits");
        }
        builder.finish(Envelope::plain(self.peer_id, self.session, 0))
    }

    /// Hands `bytes` to host `server` now, as if received from the client.
    pub fn inject(&self, sim: &mut Sim, server: usize, bytes: &[u8]) -> Result<(), DropReason> {
        let now = sim.now;
        let mut events = EventSlot::wanted();
        sim.host(server)
            .receive_datagram(now, self.from.into(), bytes, &mut NoCodec, &mut events)
    }
}

/// A reliable SEND_FRAGMENT on channel 0.
pub fn fragment(
    start: u16,
    sequence: u16,
    count: u32,
    number: u32,
    total: u32,
    offset: u32,
    data: &[u8],
) -> (CommandHeader, Command<'_>) {
    fragment_on(0, true, start, sequence, count, number, total, offset, data)
}

/// A SEND_FRAGMENT (reliable) or SEND_UNRELIABLE_FRAGMENT on `channel`.
/// For an unreliable one, `start` is the unreliable sequence number of the
/// first fragment and `sequence` the reliable number it follows.
#[allow(clippy::too_many_arguments)]
pub fn fragment_on(
    channel: u8,
    reliable: bool,
    start: u16,
    sequence: u16,
    count: u32,
    number: u32,
    total: u32,
    offset: u32,
    data: &[u8],
) -> (CommandHeader, Command<'_>) {
    let fragment = Fragment {
        start_sequence_number: start,
        fragment_count: count,
        fragment_number: number,
        total_length: total,
        fragment_offset: offset,
        data,
    };
    let (flags, command) = if reliable {
        (CommandFlags::ACKNOWLEDGE, Command::SendFragment(fragment))
    } else {
        (
            CommandFlags::NONE,
            Command::SendUnreliableFragment(fragment),
        )
    };
    (
        CommandHeader {
            flags,
            channel_id: channel,
            reliable_sequence_number: sequence,
        },
        command,
    )
}
