//! `reassembly`: fragment reassembly through the engine. A client and
//! server complete a real handshake; then the input is a sequence of
//! datagrams of SEND_FRAGMENT / SEND_UNRELIABLE_FRAGMENT commands, as the
//! client would address them, with fuzzed sequence numbers, counts,
//! numbers, offsets, total lengths and data (duplicates and overlaps
//! included), each followed by a service round of both hosts.
//!
//! Property: every packet the server delivers is exactly the bytes of a
//! consistent set of received fragments: for one (kind, channel, start
//! sequence, count, total length) there is, for every fragment number
//! below the count, a received fragment with that number whose data sits
//! at its offset in the packet, and together they cover the whole packet.
//! Plus the host invariants of [`Pair::check`] after every step.

use enet::wire::command::number;
use enet::wire::{CommandFlags, CommandHeader, ConnectId};

use crate::commands::{self, Addressing, Owned};
use crate::driver::Pair;
use crate::input::Input;

const MAX_DATAGRAMS: usize = 48;

/// The client's sequence numbers per channel, as the server expects them
/// (the handshake sent nothing on channels 0..4).
struct Sequences {
    /// Start of the reliable packet being sent.
    starts: [u16; 4],
    /// The next reliable sequence number.
    next_reliable: [u16; 4],
    /// The unreliable sequence number of the packet being sent.
    unreliable: [u16; 4],
}

/// A fragment as sent.
struct Sent {
    unreliable: bool,
    channel: u8,
    start: u16,
    count: u32,
    number: u32,
    total: u32,
    offset: u32,
    data: Vec<u8>,
}

pub fn run(data: &[u8]) {
    delivered(data);
}

/// [`run`], returning how many packets the server delivered.
pub fn delivered(data: &[u8]) -> usize {
    let mut input = Input::new(data);
    let setup = input.u8();
    let start_time = input.u32();
    // Checksum on or off; no compression (see `engine`: it would take
    // most of the time, and the coder has its own target).
    let mut pair = Pair::new(start_time, 2, 0, (0, 0), setup & 1 != 0, false);
    let (client_peer, server_peer) = pair.handshake(4, 0);
    pair.check();
    let mut sent: Vec<Sent> = Vec::new();
    let mut sequences = Sequences {
        starts: [1; 4],
        next_reliable: [1; 4],
        unreliable: [0; 4],
    };

    for _ in 0..MAX_DATAGRAMS {
        if input.is_empty() {
            break;
        }
        let view = pair.sides[1].host.peer(client_peer);
        let addressing = Addressing {
            peer_id: view.outgoingPeerID,
            session_id: view.outgoingSessionID,
            sent_time: pair.now as u16,
            connect_id: ConnectId::from_native(view.connectID),
        };
        let count = 1 + usize::from(input.u8() % 8);
        let mut batch = Vec::new();
        for _ in 0..count {
            batch.push(fragment(&mut input, &mut sequences, &mut sent));
        }
        let bytes = commands::pack(&addressing, &batch, &mut pair.sides[1].codec);
        let from = pair.address(1);
        pair.receive(0, from, &bytes);
        pair.check();
        if input.u8() & 1 != 0 {
            pair.step_all(0);
            pair.now = pair.now.wrapping_add(1 + u32::from(input.u8() % 32));
            pair.check();
        }
    }
    pair.step_all(0);
    pair.drain(0, server_peer);
    pair.check();

    for (peer, channel, packet) in &pair.sides[0].received {
        assert_eq!(*peer, server_peer);
        assert!(
            consistent(&sent, *channel, packet),
            "delivered {} bytes on channel {channel} that no consistent fragment set makes",
            packet.len()
        );
    }
    pair.sides[0].received.len()
}

/// Decodes one fragment command (mostly plausible, sometimes wild).
fn fragment(input: &mut Input<'_>, sequences: &mut Sequences, sent: &mut Vec<Sent>) -> Owned {
    let Sequences {
        starts,
        next_reliable,
        unreliable,
    } = sequences;
    let shape = input.u8();
    let unreliable_kind = shape & 1 != 0;
    let channel = (shape >> 1) & 3;
    let c = usize::from(channel);
    // A new packet or a fragment of the current one.
    let new_packet = shape & 8 != 0;
    let plausible = shape & 0x30 != 0x30;
    let length = 1 + u32::from(input.u8() % 32);
    let count = if plausible {
        1 + u32::from(input.u8() % 6)
    } else {
        commands::field(input)
    };
    let number = if plausible {
        u32::from(input.u8()) % count.max(1)
    } else {
        commands::field(input)
    };
    let total = if plausible {
        // The last fragment may be short.
        let short = u32::from(input.u8()) % length;
        (count * length).saturating_sub(short).max(1)
    } else {
        commands::field(input)
    };
    let offset = if shape & 0x40 == 0 {
        number.wrapping_mul(length)
    } else {
        commands::field(input)
    };
    let data_len = if shape & 0x80 == 0 {
        length.min(total.saturating_sub(offset)) as usize
    } else {
        usize::from(input.u8() % 64)
    };
    let fill = input.u8();
    let data: Vec<u8> = (0..data_len)
        .map(|i| fill.wrapping_add((offset as usize + i) as u8))
        .collect();
    if new_packet {
        if unreliable_kind {
            unreliable[c] = unreliable[c].wrapping_add(1);
        } else {
            // The packet takes the next `count` reliable numbers.
            starts[c] = next_reliable[c];
            next_reliable[c] = next_reliable[c].wrapping_add(count as u16);
        }
    }
    let start = if unreliable_kind {
        unreliable[c]
    } else {
        starts[c]
    };
    let start = match input.u8() % 8 {
        0 => input.u16(),
        1 => start.wrapping_sub(u16::from(input.u8() % 4)),
        _ => start,
    };
    let header_sequence = if unreliable_kind {
        // Sent after the last reliable command of the channel.
        next_reliable[c].wrapping_sub(1)
    } else {
        start.wrapping_add(number as u16)
    };
    let header = CommandHeader {
        flags: if unreliable_kind {
            CommandFlags::NONE
        } else {
            CommandFlags::ACKNOWLEDGE
        },
        channel_id: channel,
        reliable_sequence_number: header_sequence,
    };
    sent.push(Sent {
        unreliable: unreliable_kind,
        channel,
        start,
        count,
        number,
        total,
        offset,
        data: data.clone(),
    });
    let mut fields = [0u32; 12];
    fields[0] = u32::from(start);
    fields[1] = count;
    fields[2] = number;
    fields[3] = total;
    fields[4] = offset;
    Owned {
        header,
        number: if unreliable_kind {
            number::SEND_UNRELIABLE_FRAGMENT
        } else {
            number::SEND_FRAGMENT
        },
        fields,
        payload: data,
    }
}

/// Whether `packet` is exactly made of one consistent set of fragments.
fn consistent(sent: &[Sent], channel: u8, packet: &[u8]) -> bool {
    let total = packet.len();
    let mut groups: Vec<(bool, u16, u32)> = sent
        .iter()
        .filter(|s| s.channel == channel && s.total as usize == total)
        .map(|s| (s.unreliable, s.start, s.count))
        .collect();
    groups.sort_unstable();
    groups.dedup();
    groups.iter().any(|&(unreliable, start, count)| {
        let mut covered = vec![false; total];
        for number in 0..count {
            // Every received fragment with this number whose bytes sit at
            // its offset in the packet; at least one must, and together
            // with the others they must cover the packet.
            let mut any = false;
            for s in sent.iter().filter(|s| {
                s.unreliable == unreliable
                    && s.channel == channel
                    && s.start == start
                    && s.count == count
                    && s.total as usize == total
                    && s.number == number
                    && (s.offset as usize)
                        .checked_add(s.data.len())
                        .is_some_and(|end| end <= total)
                    && packet[s.offset as usize..s.offset as usize + s.data.len()] == s.data[..]
            }) {
                any = true;
                for flag in &mut covered[s.offset as usize..s.offset as usize + s.data.len()] {
                    *flag = true;
                }
            }
            if !any {
                return false;
            }
        }
        covered.iter().all(|&c| c)
    })
}
