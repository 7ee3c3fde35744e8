//! Structurally valid datagrams with fuzzed fields, as a peer (or an
//! impostor) would send them: commands decoded from the input, packed by
//! the wire builder, with the sender's checksum and compression.

use enet::wire::checksum::enet_crc32;
use enet::wire::command::number;
use enet::wire::{
    Command, CommandFlags, CommandHeader, ConnectFields, ConnectId, DatagramBuilder, Envelope,
    Fragment,
};

use crate::input::{counting_bytes, Input};
use enet::proto::WireCodec;

/// Addressing of a datagram: what the receiver looks its peer up by.
pub struct Addressing {
    pub peer_id: u16,
    pub session_id: u8,
    pub sent_time: u16,
    pub connect_id: ConnectId,
}

/// One command with owned payload.
pub struct Owned {
    pub header: CommandHeader,
    pub number: u8,
    pub fields: [u32; 12],
    pub payload: Vec<u8>,
}

impl Owned {
    pub fn command(&self) -> Command<'_> {
        let f = &self.fields;
        let data = &self.payload[..];
        let connect = ConnectFields {
            outgoing_peer_id: f[0] as u16,
            incoming_session_id: f[1] as u8,
            outgoing_session_id: f[2] as u8,
            mtu: f[3],
            window_size: f[4],
            channel_count: f[5],
            incoming_bandwidth: f[6],
            outgoing_bandwidth: f[7],
            packet_throttle_interval: f[8],
            packet_throttle_acceleration: f[9],
            packet_throttle_deceleration: f[10],
            connect_id: ConnectId(f[11].to_be_bytes()),
        };
        let fragment = Fragment {
            start_sequence_number: f[0] as u16,
            fragment_count: f[1],
            fragment_number: f[2],
            total_length: f[3],
            fragment_offset: f[4],
            data,
        };
        match self.number {
            number::ACKNOWLEDGE => Command::Acknowledge {
                received_reliable_sequence_number: f[0] as u16,
                received_sent_time: f[1] as u16,
            },
            number::CONNECT => Command::Connect {
                fields: connect,
                data: f[0],
            },
            number::VERIFY_CONNECT => Command::VerifyConnect(connect),
            number::DISCONNECT => Command::Disconnect { data: f[0] },
            number::PING => Command::Ping,
            number::SEND_RELIABLE => Command::SendReliable { data },
            number::SEND_UNRELIABLE => Command::SendUnreliable {
                unreliable_sequence_number: f[0] as u16,
                data,
            },
            number::SEND_FRAGMENT => Command::SendFragment(fragment),
            number::SEND_UNSEQUENCED => Command::SendUnsequenced {
                unsequenced_group: f[0] as u16,
                data,
            },
            number::BANDWIDTH_LIMIT => Command::BandwidthLimit {
                incoming_bandwidth: f[0],
                outgoing_bandwidth: f[1],
            },
            number::THROTTLE_CONFIGURE => Command::ThrottleConfigure {
                packet_throttle_interval: f[0],
                packet_throttle_acceleration: f[1],
                packet_throttle_deceleration: f[2],
            },
            _ => Command::SendUnreliableFragment(fragment),
        }
    }
}

/// A 32-bit field: often a small or boundary value, sometimes anything.
pub fn field(input: &mut Input<'_>) -> u32 {
    match input.u8() % 8 {
        0 => 0,
        1 => u32::from(input.u8()),
        2 => u32::from(input.u16()),
        3 => u32::MAX - u32::from(input.u8()),
        4 => 1 << (input.u8() % 32),
        5 => (1u32 << (input.u8() % 32)).wrapping_sub(1),
        _ => input.u32(),
    }
}

/// Decodes one command. `base` is the reliable sequence number the caller
/// suggests (the receiver's next expected, roughly) for the channel.
pub fn decode(input: &mut Input<'_>, channels: u8, base: &mut [u16; 256]) -> Owned {
    let number = 1 + input.u8() % 12;
    let selector = input.u8();
    let flags = match selector & 3 {
        0 => CommandFlags::NONE,
        1 => CommandFlags::ACKNOWLEDGE,
        2 => CommandFlags::UNSEQUENCED,
        _ => CommandFlags::from_bits(input.u8()),
    };
    let channel_id = match (selector >> 2) & 3 {
        0 | 1 => input.u8() % channels.max(1),
        2 => 0xFF,
        _ => input.u8(),
    };
    let reliable_sequence_number = match (selector >> 4) & 3 {
        0 | 1 => {
            let next = base[usize::from(channel_id)].wrapping_add(1);
            base[usize::from(channel_id)] = next;
            next
        }
        2 => base[usize::from(channel_id)].wrapping_add(u16::from(input.u8())),
        _ => input.u16(),
    };
    let mut fields = [0u32; 12];
    for value in fields.iter_mut() {
        *value = field(input);
    }
    let payload = if selector & 0x40 != 0 {
        let len = usize::from(input.u16() % 2048);
        counting_bytes(len, 251)
    } else {
        input.blob(512).to_vec()
    };
    Owned {
        header: CommandHeader {
            flags,
            channel_id,
            reliable_sequence_number,
        },
        number,
        fields,
        payload,
    }
}

/// Packs `commands` (as many as fit 4096 bytes and 32 commands) into a
/// datagram with `codec`'s checksum and compression.
pub fn pack(addressing: &Addressing, commands: &[Owned], codec: &mut WireCodec) -> Vec<u8> {
    let mut builder = DatagramBuilder::new(4096);
    for owned in commands {
        let _ = builder.push(&owned.header, &owned.command());
    }
    let mut checksum_fn = |parts: &[&[u8]]| enet_crc32(parts);
    let use_checksum = codec.checksum;
    let coder = codec.coder.as_mut();
    let mut compress =
        coder.map(|coder| move |input: &[u8], out: &mut [u8]| coder.compress(&[input], out));
    builder.finish(Envelope {
        peer_id: addressing.peer_id,
        session_id: addressing.session_id,
        sent_time: addressing.sent_time,
        connect_id: addressing.connect_id,
        checksum: use_checksum.then_some(&mut checksum_fn as _),
        compressor: compress.as_mut().map(|c| c as _),
    })
}
