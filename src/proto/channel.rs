//! Incoming sequencing per channel (stock `enet_peer_queue_incoming_command`
//! and the two dispatch functions), with indexed buffers instead of sorted
//! lists: commands are placed and found by sequence number in O(1).
//!
//! Delivery rules, as stock: reliable packets in sequence order, exactly
//! once; unreliable packets only for the reliable sequence number they were
//! sent after, in order, never older than one already delivered;
//! unsequenced packets at once, duplicates suppressed by the peer's window.

use std::collections::{BTreeMap, HashMap};

use super::command::number;
use super::host::Host;
use super::peer::{Delivery, NEEDS_DISPATCH};
use crate::abi::*;
use crate::mem::PacketRef;

const WINDOW_SIZE: u16 = ENET_PEER_RELIABLE_WINDOW_SIZE as u16;
const WINDOWS: u16 = ENET_PEER_RELIABLE_WINDOWS as u16;
const FREE_WINDOWS: u16 = ENET_PEER_FREE_RELIABLE_WINDOWS as u16;

const FLAG_RELIABLE: u32 = ENetPacketFlag::ENET_PACKET_FLAG_RELIABLE as u32;
const FLAG_UNSEQUENCED: u32 = ENetPacketFlag::ENET_PACKET_FLAG_UNSEQUENCED as u32;
const FLAG_UNRELIABLE_FRAGMENT: u32 = ENetPacketFlag::ENET_PACKET_FLAG_UNRELIABLE_FRAGMENT as u32;

/// Whether reliable sequence number `sequence` lies in the windows a
/// receiver accepts while it expects `current + 1`: the current window and
/// the next `FREE_RELIABLE_WINDOWS - 2`, counted modulo the 16 windows
/// (stock's window test, shared by every receive path).
pub(crate) fn in_receive_window(sequence: u16, current: u16) -> bool {
    let mut window = sequence / WINDOW_SIZE;
    let current_window = current / WINDOW_SIZE;
    if sequence < current {
        window += WINDOWS;
    }
    window >= current_window && window < current_window + FREE_WINDOWS - 1
}

/// Reassembly of one fragmented packet.
///
/// Stock ENet counts fragments and delivers when the count is reached,
/// whatever bytes the fragments covered, so zero-length or short fragments
/// let it deliver bytes nobody sent. Here every fragment must sit where
/// ENet's sender puts it (fragment `n` at `n * L`, all of length `L` but
/// the last), so a complete set covers every byte exactly once.
#[derive(Debug)]
pub struct Reassembly {
    count: u32,
    remaining: u32,
    received: Vec<u32>,
    /// The common fragment length `L`, once a fragment has shown it.
    fragment_length: Option<u32>,
}

/// Why a fragment was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FragmentError {
    /// Fields contradict each other or the packet's layout.
    Malformed,
}

impl Reassembly {
    pub fn new(count: u32) -> Self {
        Reassembly {
            count,
            remaining: count,
            received: vec![0; count.div_ceil(32) as usize],
            fragment_length: None,
        }
    }

    pub fn is_complete(&self) -> bool {
        self.remaining == 0
    }

    /// The fragment length this fragment implies for the whole packet.
    fn implied_length(&self, number: u32, offset: u32, length: u32) -> Option<u32> {
        if self.count == 1 {
            return (offset == 0).then_some(length);
        }
        if number + 1 < self.count {
            return (u64::from(offset) == u64::from(number) * u64::from(length)).then_some(length);
        }
        let others = self.count - 1;
        (offset % others == 0).then_some(offset / others)
    }

    /// Checks fragment `number` against the layout and records it.
    /// `Ok(true)` if it is new (copy its bytes), `Ok(false)` if a duplicate.
    pub fn accept(
        &mut self,
        number: u32,
        offset: u32,
        length: u32,
        total: u32,
    ) -> Result<bool, FragmentError> {
        let implied = self
            .implied_length(number, offset, length)
            .ok_or(FragmentError::Malformed)?;
        let full = u64::from(implied);
        let last_start = u64::from(self.count - 1) * full;
        let last_length = u64::from(total)
            .checked_sub(last_start)
            .ok_or(FragmentError::Malformed)?;
        let layout_ok = implied > 0
            && last_length > 0
            && last_length <= full
            && (number + 1 < self.count || u64::from(length) == last_length)
            && self.fragment_length.is_none_or(|known| known == implied);
        if !layout_ok {
            return Err(FragmentError::Malformed);
        }
        self.fragment_length = Some(implied);
        let (word, bit) = ((number / 32) as usize, number % 32);
        let Some(bits) = self.received.get_mut(word) else {
            return Err(FragmentError::Malformed);
        };
        if *bits & (1 << bit) != 0 {
            return Ok(false);
        }
        *bits |= 1 << bit;
        self.remaining -= 1;
        Ok(true)
    }
}

/// A received command held until it can be delivered.
#[derive(Debug)]
pub struct Incoming {
    pub command_number: u8,
    pub packet: PacketRef,
    pub fragments: Option<Reassembly>,
}

impl Incoming {
    fn is_complete(&self) -> bool {
        self.fragments.as_ref().is_none_or(Reassembly::is_complete)
    }

    /// Reliable sequence numbers this command occupies (fragments take one each).
    fn sequence_span(&self) -> u16 {
        self.fragments
            .as_ref()
            .map_or(1, |fragments| fragments.count as u16)
    }
}

/// The ordering state of one channel beside its public `ENetChannel`.
#[derive(Debug, Default)]
pub struct IncomingChannel {
    /// Reliable commands ahead of the next expected, by sequence number
    /// (a fragmented packet by its first fragment's).
    reliable: HashMap<u16, Incoming>,
    /// Unreliable commands by the reliable sequence number they follow,
    /// then by unreliable sequence number: partial fragments of the current
    /// one, and anything for reliable numbers not reached yet.
    unreliable: HashMap<u16, BTreeMap<u16, Incoming>>,
}

impl IncomingChannel {
    /// Releases everything held; returns the bytes that were waiting.
    pub fn clear(self) -> usize {
        let mut waiting = 0;
        let held = self.reliable.into_values().chain(
            self.unreliable
                .into_values()
                .flat_map(BTreeMap::into_values),
        );
        for incoming in held {
            waiting += incoming.packet.len();
            incoming.packet.release();
        }
        waiting
    }
}

/// What queueing a received command did (stock returns the command, a
/// dummy for "dropped on purpose", or NULL for an error that stops the
/// rest of the datagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    Accepted,
    Discarded,
    Error,
}

impl Queued {
    /// What the command handler reports: only an error stops the rest of
    /// the datagram (a discard is silent and still acknowledged).
    pub(crate) fn into_result(self) -> Result<(), ()> {
        match self {
            Queued::Error => Err(()),
            Queued::Accepted | Queued::Discarded => Ok(()),
        }
    }
}

/// The sequencing of a received payload command.
#[derive(Debug, Clone, Copy)]
pub enum Sequencing {
    Reliable { sequence: u16 },
    Unreliable { sequence: u16, unreliable: u16 },
    Unsequenced,
}

/// A fragment's fields, validated against the datagram already.
#[derive(Debug, Clone, Copy)]
pub struct FragmentInfo {
    pub start: u16,
    pub count: u32,
    pub number: u32,
    pub total: u32,
    pub offset: u32,
}

/// What a held (received, not yet deliverable) command costs against the
/// peer's waiting-data budget besides its bytes: about what stock's
/// `ENetIncomingCommand` takes.
const HELD_COMMAND_COST: usize = core::mem::size_of::<ENetIncomingCommand>();

impl Host {
    /// Commands the peer's channels hold out of order or half reassembled.
    fn held_commands(&self, index: usize) -> usize {
        self.engine.slots[index]
            .incoming
            .iter()
            .map(|channel| {
                channel.reliable.len()
                    + channel
                        .unreliable
                        .values()
                        .map(BTreeMap::len)
                        .sum::<usize>()
            })
            .sum()
    }

    /// Queues the peer for event dispatch (stock's NEEDS_DISPATCH flag).
    pub(crate) fn mark_dispatch(&mut self, index: usize) {
        let peer = &mut self.engine.peers[index];
        if peer.flags & NEEDS_DISPATCH == 0 {
            peer.flags |= NEEDS_DISPATCH;
            self.engine.dispatch_queue.push_back(index);
        }
    }

    fn deliver(&mut self, index: usize, channel_id: u8, packet: PacketRef) {
        self.engine.slots[index]
            .dispatched
            .push_back(Delivery { channel_id, packet });
        self.mark_dispatch(index);
    }

    /// Releases a held packet that will never be delivered.
    fn drop_held(&mut self, index: usize, incoming: Incoming) {
        let peer = &mut self.engine.peers[index];
        peer.totalWaitingData = peer.totalWaitingData.saturating_sub(incoming.packet.len());
        incoming.packet.release();
    }

    /// Creates the packet for a received command, within the peer's
    /// waiting-data budget.
    fn new_incoming_packet(
        &mut self,
        index: usize,
        data: Option<&[u8]>,
        length: usize,
        flags: u32,
    ) -> Option<PacketRef> {
        let peer = &self.engine.peers[index];
        // Stock counts only packet bytes, so a peer could pin memory with
        // many empty commands held out of order; each held command also
        // costs a fixed overhead here (not shown in totalWaitingData).
        let held = self.held_commands(index).saturating_mul(HELD_COMMAND_COST);
        if peer.totalWaitingData.saturating_add(held) >= self.public.maximumWaitingData {
            return None;
        }
        let packet = match data {
            Some(bytes) => PacketRef::new_with_data(bytes, flags)?,
            None => PacketRef::new_zeroed(length, flags)?,
        };
        let peer = &mut self.engine.peers[index];
        peer.totalWaitingData += packet.len();
        Some(packet)
    }

    /// The held command a fragmented packet is reassembled in: a zeroed
    /// packet of the announced length, within the waiting-data budget.
    fn start_reassembly(
        &mut self,
        index: usize,
        command_number: u8,
        fragment: &FragmentInfo,
        flags: u32,
    ) -> Option<Incoming> {
        let packet = self.new_incoming_packet(index, None, fragment.total as usize, flags)?;
        Some(Incoming {
            command_number,
            packet,
            fragments: Some(Reassembly::new(fragment.count)),
        })
    }

    /// Queues a received SEND_RELIABLE, SEND_UNRELIABLE or SEND_UNSEQUENCED.
    pub(crate) fn queue_incoming(
        &mut self,
        index: usize,
        channel_id: u8,
        sequencing: Sequencing,
        data: &[u8],
    ) -> Queued {
        if self.engine.peers[index].state == ENetPeerState::ENET_PEER_STATE_DISCONNECT_LATER {
            return Queued::Discarded;
        }
        let Some(channel) = self.channel_mut(index, channel_id) else {
            return Queued::Error;
        };
        let current = channel.incomingReliableSequenceNumber;
        let current_unreliable = channel.incomingUnreliableSequenceNumber;
        let slot_channel = &self.engine.slots[index].incoming[usize::from(channel_id)];
        match sequencing {
            Sequencing::Reliable { sequence } => {
                if !in_receive_window(sequence, current)
                    || sequence == current
                    || slot_channel.reliable.contains_key(&sequence)
                {
                    return Queued::Discarded;
                }
                let Some(packet) =
                    self.new_incoming_packet(index, Some(data), data.len(), FLAG_RELIABLE)
                else {
                    return Queued::Error;
                };
                self.engine.slots[index].incoming[usize::from(channel_id)]
                    .reliable
                    .insert(
                        sequence,
                        Incoming {
                            command_number: number::SEND_RELIABLE,
                            packet,
                            fragments: None,
                        },
                    );
                self.dispatch_reliable(index, channel_id);
            }
            Sequencing::Unreliable {
                sequence,
                unreliable,
            } => {
                if !in_receive_window(sequence, current)
                    || (sequence == current && unreliable <= current_unreliable)
                    || slot_channel
                        .unreliable
                        .get(&sequence)
                        .is_some_and(|held| held.contains_key(&unreliable))
                {
                    return Queued::Discarded;
                }
                let Some(packet) = self.new_incoming_packet(index, Some(data), data.len(), 0)
                else {
                    return Queued::Error;
                };
                if sequence == current {
                    if let Some(channel) = self.channel_mut(index, channel_id) {
                        channel.incomingUnreliableSequenceNumber = unreliable;
                    }
                    self.deliver(index, channel_id, packet);
                } else {
                    self.engine.slots[index].incoming[usize::from(channel_id)]
                        .unreliable
                        .entry(sequence)
                        .or_default()
                        .insert(
                            unreliable,
                            Incoming {
                                command_number: number::SEND_UNRELIABLE,
                                packet,
                                fragments: None,
                            },
                        );
                }
            }
            Sequencing::Unsequenced => {
                let Some(packet) =
                    self.new_incoming_packet(index, Some(data), data.len(), FLAG_UNSEQUENCED)
                else {
                    return Queued::Error;
                };
                self.deliver(index, channel_id, packet);
            }
        }
        Queued::Accepted
    }

    /// Handles a reliable fragment whose fields were checked for bounds and
    /// whose first sequence number the caller found inside the window (it
    /// must decide that before validating fields, as stock does).
    pub(crate) fn queue_reliable_fragment(
        &mut self,
        index: usize,
        channel_id: u8,
        fragment: FragmentInfo,
        data: &[u8],
    ) -> Queued {
        let Some(channel) = self.channel_mut(index, channel_id) else {
            return Queued::Error;
        };
        let current = channel.incomingReliableSequenceNumber;
        let channel_index = usize::from(channel_id);
        let held = self.engine.slots[index].incoming[channel_index]
            .reliable
            .contains_key(&fragment.start);
        if !held {
            if self.engine.peers[index].state == ENetPeerState::ENET_PEER_STATE_DISCONNECT_LATER
                || fragment.start == current
            {
                return Queued::Error;
            }
            let Some(start) =
                self.start_reassembly(index, number::SEND_FRAGMENT, &fragment, FLAG_RELIABLE)
            else {
                return Queued::Error;
            };
            self.engine.slots[index].incoming[channel_index]
                .reliable
                .insert(fragment.start, start);
        }
        let Some(start) = self.engine.slots[index].incoming[channel_index]
            .reliable
            .get_mut(&fragment.start)
        else {
            return Queued::Error;
        };
        match fill_fragment(start, number::SEND_FRAGMENT, fragment, data) {
            Err(()) => Queued::Error,
            Ok(false) => Queued::Accepted,
            Ok(true) => {
                self.dispatch_reliable(index, channel_id);
                Queued::Accepted
            }
        }
    }

    /// Handles an unreliable fragment whose fields were checked for bounds
    /// and which the caller found neither outside the window nor older than
    /// what was delivered (decided before validating fields, as stock does).
    pub(crate) fn queue_unreliable_fragment(
        &mut self,
        index: usize,
        channel_id: u8,
        sequence: u16,
        fragment: FragmentInfo,
        data: &[u8],
    ) -> Queued {
        let Some(channel) = self.channel_mut(index, channel_id) else {
            return Queued::Error;
        };
        let current = channel.incomingReliableSequenceNumber;
        let channel_index = usize::from(channel_id);
        let held = self.engine.slots[index].incoming[channel_index]
            .unreliable
            .get(&sequence)
            .is_some_and(|held| held.contains_key(&fragment.start));
        if !held {
            if self.engine.peers[index].state == ENetPeerState::ENET_PEER_STATE_DISCONNECT_LATER {
                return Queued::Error;
            }
            let Some(start) = self.start_reassembly(
                index,
                number::SEND_UNRELIABLE_FRAGMENT,
                &fragment,
                FLAG_UNRELIABLE_FRAGMENT,
            ) else {
                return Queued::Error;
            };
            self.engine.slots[index].incoming[channel_index]
                .unreliable
                .entry(sequence)
                .or_default()
                .insert(fragment.start, start);
        }
        let Some(start) = self.engine.slots[index].incoming[channel_index]
            .unreliable
            .get_mut(&sequence)
            .and_then(|held| held.get_mut(&fragment.start))
        else {
            return Queued::Error;
        };
        match fill_fragment(start, number::SEND_UNRELIABLE_FRAGMENT, fragment, data) {
            Err(()) => Queued::Error,
            Ok(false) => Queued::Accepted,
            Ok(true) => {
                if sequence == current {
                    self.deliver_current_unreliable(index, channel_id);
                }
                Queued::Accepted
            }
        }
    }

    /// Delivers every reliable packet that is next in sequence and complete.
    fn dispatch_reliable(&mut self, index: usize, channel_id: u8) {
        let channel_index = usize::from(channel_id);
        let mut advanced = false;
        let mut skipped_sequences = false;
        loop {
            let Some(channel) = self.channel_mut(index, channel_id) else {
                return;
            };
            let next = channel.incomingReliableSequenceNumber.wrapping_add(1);
            let reliable = &mut self.engine.slots[index].incoming[channel_index].reliable;
            if !reliable.get(&next).is_some_and(Incoming::is_complete) {
                break;
            }
            let Some(incoming) = reliable.remove(&next) else {
                break;
            };
            let span = incoming.sequence_span();
            skipped_sequences |= span > 1;
            if let Some(channel) = self.channel_mut(index, channel_id) {
                channel.incomingReliableSequenceNumber = next.wrapping_add(span.wrapping_sub(1));
            }
            self.deliver(index, channel_id, incoming.packet);
            advanced = true;
        }
        if !advanced {
            return;
        }
        let Some(channel) = self.channel_mut(index, channel_id) else {
            return;
        };
        channel.incomingUnreliableSequenceNumber = 0;
        let current = channel.incomingReliableSequenceNumber;
        if skipped_sequences {
            // A fragmented packet's numbers were passed over at once: anything
            // held under them (only a broken sender puts it there) is now
            // behind us and would never be delivered.
            let stale: Vec<u16> = self.engine.slots[index].incoming[channel_index]
                .reliable
                .keys()
                .copied()
                .filter(|&sequence| sequence == current || !in_receive_window(sequence, current))
                .collect();
            for sequence in stale {
                if let Some(incoming) = self.engine.slots[index].incoming[channel_index]
                    .reliable
                    .remove(&sequence)
                {
                    self.drop_held(index, incoming);
                }
            }
        }
        self.release_unreliable_after_advance(index, channel_id, current);
    }

    /// After the reliable sequence reached `current`: deliver what was held
    /// for it, drop what was held for numbers now passed.
    fn release_unreliable_after_advance(&mut self, index: usize, channel_id: u8, current: u16) {
        let channel_index = usize::from(channel_id);
        let unreliable = &mut self.engine.slots[index].incoming[channel_index].unreliable;
        if unreliable.is_empty() {
            return;
        }
        let passed: Vec<u16> = unreliable
            .keys()
            .copied()
            .filter(|&sequence| sequence != current && !in_receive_window(sequence, current))
            .collect();
        for sequence in passed {
            if let Some(held) = self.engine.slots[index].incoming[channel_index]
                .unreliable
                .remove(&sequence)
            {
                for incoming in held.into_values() {
                    self.drop_held(index, incoming);
                }
            }
        }
        self.deliver_current_unreliable(index, channel_id);
    }

    /// Delivers, in order, the complete unreliable packets held for the
    /// current reliable sequence number; drops any older than one already
    /// delivered.
    fn deliver_current_unreliable(&mut self, index: usize, channel_id: u8) {
        let channel_index = usize::from(channel_id);
        let Some(channel) = self.channel_mut(index, channel_id) else {
            return;
        };
        let current = channel.incomingReliableSequenceNumber;
        let mut last_delivered = channel.incomingUnreliableSequenceNumber;
        let Some(mut held) = self.engine.slots[index].incoming[channel_index]
            .unreliable
            .remove(&current)
        else {
            return;
        };
        let mut kept = BTreeMap::new();
        for (unreliable, incoming) in std::mem::take(&mut held) {
            if !incoming.is_complete() {
                kept.insert(unreliable, incoming);
            } else if unreliable > last_delivered {
                last_delivered = unreliable;
                self.deliver(index, channel_id, incoming.packet);
            } else {
                self.drop_held(index, incoming);
            }
        }
        // Partial packets older than what was just delivered can only ever
        // arrive stale: drop them now rather than hold their memory.
        let (stale, kept): (BTreeMap<_, _>, BTreeMap<_, _>) = kept
            .into_iter()
            .partition(|(unreliable, _)| *unreliable <= last_delivered);
        for incoming in stale.into_values() {
            self.drop_held(index, incoming);
        }
        if let Some(channel) = self.channel_mut(index, channel_id) {
            channel.incomingUnreliableSequenceNumber = last_delivered;
        }
        if !kept.is_empty() {
            self.engine.slots[index].incoming[channel_index]
                .unreliable
                .insert(current, kept);
        }
    }
}

/// Records one fragment in its packet. `Ok(true)` when the packet just
/// became complete; `Err` when the fragment contradicts the packet.
fn fill_fragment(
    start: &mut Incoming,
    command_number: u8,
    fragment: FragmentInfo,
    data: &[u8],
) -> Result<bool, ()> {
    if start.command_number != command_number || start.packet.len() != fragment.total as usize {
        return Err(());
    }
    let Some(reassembly) = start.fragments.as_mut() else {
        return Err(());
    };
    if reassembly.count != fragment.count {
        return Err(());
    }
    match reassembly.accept(
        fragment.number,
        fragment.offset,
        data.len() as u32,
        fragment.total,
    ) {
        Err(_) => Err(()),
        Ok(false) => Ok(false),
        Ok(true) => {
            let offset = fragment.offset as usize;
            let Some(target) = start.packet.data_mut().get_mut(offset..offset + data.len()) else {
                return Err(());
            };
            target.copy_from_slice(data);
            Ok(reassembly.is_complete())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receive_window_matches_stock_arithmetic() {
        assert!(in_receive_window(1, 0));
        assert!(in_receive_window(6 * 4096 + 4095, 0));
        assert!(!in_receive_window(7 * 4096, 0));
        assert!(!in_receive_window(65535, 3)); // behind
        assert!(in_receive_window(3, 65530)); // ahead across the wrap
        assert!(in_receive_window(10, 10)); // equal is in window (duplicates are checked apart)
    }

    #[test]
    fn reassembly_accepts_stock_layout_only() {
        // 3000 bytes in fragments of 1372: 1372, 1372, 256.
        let mut r = Reassembly::new(3);
        assert_eq!(r.accept(2, 2744, 256, 3000), Ok(true));
        assert_eq!(r.accept(2, 2744, 256, 3000), Ok(false));
        assert_eq!(r.accept(0, 0, 1372, 3000), Ok(true));
        assert!(r.accept(1, 1372, 1000, 3000).is_err()); // short middle fragment
        assert_eq!(r.accept(1, 1372, 1372, 3000), Ok(true));
        assert!(r.is_complete());
    }

    #[test]
    fn reassembly_rejects_zero_length_and_overlap() {
        let mut zero = Reassembly::new(2);
        assert!(zero.accept(0, 0, 0, 100).is_err());
        let mut overlap = Reassembly::new(2);
        assert_eq!(overlap.accept(0, 0, 60, 100), Ok(true));
        assert!(overlap.accept(1, 50, 50, 100).is_err());
        let mut too_short = Reassembly::new(4);
        assert!(too_short.accept(0, 0, 10, 20).is_err()); // 4 fragments of 10 cannot make 20
    }
}
