//! A host's datagram I/O in batches: what the engine's transport reads
//! and sends through. The batches themselves are the platform's
//! (`sys::ReceiveBatch`, `sys::SendBatch`: `recvmmsg`/`sendmmsg` with UDP
//! offload on Linux, one datagram per system call elsewhere); what they
//! hand out, defined here, is the same everywhere.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::ops::Range;

use crate::abi::ENET_PROTOCOL_MAXIMUM_MTU;
use crate::proto::Grouping;

/// Datagrams per batch (per system call where the system batches).
pub const BATCH: usize = 32;
/// The datagrams a send pass hands to the system before the rest of its
/// first batch: the peer starts on them while the pass builds (and, on an
/// encrypted host, seals) the others. A window of reliable data otherwise
/// waits for a whole batch to be built, and then for the peer to handle it
/// all, before its acknowledgements come back: sender and receiver take
/// turns instead of working side by side. Measured with `bench/dtls.sh`
/// against no early flush: 1 MiB messages at 1.50x the MB/s in plaintext
/// and 1.35x encrypted; 64-byte messages at 1.13x and 1.16x the rate,
/// with the sender's CPU per message down by an eighth and the
/// receiver's the same (plaintext) or 6 % up (encrypted). The same
/// two-process runs of `bench/engine.c` with the threshold changed by hand
/// found a first flush at 4 costing the encrypted receiver more, and a
/// flush every 8 datagrams costing the plaintext receiver 11 %. Costs one
/// system call more for a pass of more than this many datagrams, and none
/// for a shorter one.
pub const FIRST_FLUSH: usize = 8;
/// Room for one datagram: the largest ENet datagram (its maximum MTU).
/// A longer one arrives truncated and is reported as such.
pub const DATAGRAM_CAPACITY: usize = ENET_PROTOCOL_MAXIMUM_MTU as usize;
/// The source given to a datagram whose address the system reported in no
/// family we know.
pub const NOBODY: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0));

/// One datagram taken from a [`ReceiveBatch`](super::sys::ReceiveBatch).
/// Its bytes are the batch's to lend mutably: an encrypted host opens a
/// record where it was received.
#[derive(Debug)]
pub enum Datagram<'a> {
    Received {
        from: SocketAddr,
        bytes: &'a mut [u8],
    },
    /// Longer than [`DATAGRAM_CAPACITY`]; its contents are lost.
    Truncated,
}

/// Whether this environment allows UDP offload, for the platform layer's
/// tests (a host gets its setting from the switches it is built with).
#[cfg(test)]
pub(crate) fn offload_allowed_by_env() -> bool {
    crate::config::Switches::from_env().udp_offload
}

/// One datagram waiting in a send batch: `length` bytes from `start` of
/// its buffer.
#[derive(Debug, Clone, Copy)]
pub struct Waiting {
    pub to: SocketAddr,
    pub start: usize,
    pub length: usize,
    /// How it may leave in one segmented run with equal ones before it
    /// (where the system segments).
    pub grouping: Grouping,
}

/// The datagrams a send batch holds until it flushes, each in a buffer of
/// its own.
///
/// The engine finishes a datagram in its builder's buffer; the batch takes
/// that buffer as it is and gives the builder one of its spare ones in
/// exchange ([`Self::take`]), so a datagram's bytes are written once, where
/// it was built, and never copied on their way to the system call. The
/// buffers go back to the spares when the batch is cleared, so after the
/// first flushes no datagram costs an allocation. At most a batch's worth
/// of buffers (plus one) exist at a time, each as long as the longest
/// datagram it held.
pub struct OutgoingDatagrams {
    /// The first `count` entries are the datagrams waiting, each with the
    /// buffer it is in; the buffers after them are spares.
    held: Vec<(Waiting, Vec<u8>)>,
    count: usize,
    /// How many waiting make the batch due: [`FIRST_FLUSH`] until
    /// datagrams of the send pass went to the system, then [`BATCH`].
    due_at: usize,
}

impl Default for OutgoingDatagrams {
    fn default() -> Self {
        OutgoingDatagrams {
            held: Vec::new(),
            count: 0,
            due_at: FIRST_FLUSH,
        }
    }
}

impl OutgoingDatagrams {
    /// Queues a copy of `datagram`.
    pub fn copy(&mut self, to: &SocketAddr, datagram: &[u8], grouping: Grouping) {
        let waiting = Waiting {
            to: *to,
            start: 0,
            length: datagram.len(),
            grouping,
        };
        let buffer = self.next_entry(waiting);
        buffer.clear();
        buffer.extend_from_slice(datagram);
    }

    /// Queues the datagram at `range` of `buffer` by taking `buffer` itself,
    /// leaving a spare one (of any length) in its place. A range outside
    /// the buffer queues nothing and returns `false`.
    #[inline]
    pub fn take(
        &mut self,
        to: &SocketAddr,
        buffer: &mut Vec<u8>,
        range: Range<usize>,
        grouping: Grouping,
    ) -> bool {
        if range.start > range.end || range.end > buffer.len() {
            return false;
        }
        let waiting = Waiting {
            to: *to,
            start: range.start,
            length: range.end - range.start,
            grouping,
        };
        std::mem::swap(buffer, self.next_entry(waiting));
        true
    }

    /// Records `waiting` as the next datagram and returns its entry's
    /// buffer (a spare, or a new empty one).
    #[inline]
    fn next_entry(&mut self, waiting: Waiting) -> &mut Vec<u8> {
        if self.count == self.held.len() {
            self.held.push((waiting, Vec::new()));
        } else {
            self.held[self.count].0 = waiting;
        }
        self.count += 1;
        &mut self.held[self.count - 1].1
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The `index`th datagram waiting.
    pub fn get(&self, index: usize) -> Waiting {
        self.held[..self.count][index].0
    }

    /// The datagrams waiting from the `from`th on, with their bytes.
    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = (&Waiting, &[u8])> {
        let waiting = self.held.get(from..self.count).unwrap_or(&[]);
        waiting.iter().map(|(waiting, buffer)| {
            (
                waiting,
                &buffer[waiting.start..waiting.start + waiting.length],
            )
        })
    }

    /// Forgets every datagram (they were sent), keeping their buffers
    /// for later ones.
    pub fn clear(&mut self) {
        self.count = 0;
    }

    /// The datagrams waiting go to the system before the send pass ends:
    /// the pass's later ones wait for a whole batch.
    pub fn sending_in_pass(&mut self) {
        self.due_at = BATCH;
    }

    /// Whether the datagrams waiting should go now: a whole batch, or the
    /// send pass's first [`FIRST_FLUSH`].
    #[inline]
    pub fn is_due(&self) -> bool {
        self.count >= self.due_at
    }

    /// The send pass ends: the next one's first datagrams go early again.
    pub fn end_pass(&mut self) {
        self.due_at = FIRST_FLUSH;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to() -> SocketAddr {
        "127.0.0.1:9".parse().unwrap()
    }

    fn waiting_bytes(datagrams: &OutgoingDatagrams) -> Vec<Vec<u8>> {
        datagrams
            .iter_from(0)
            .map(|(_, bytes)| bytes.to_vec())
            .collect()
    }

    #[test]
    fn a_send_pass_sends_its_first_datagrams_early_then_whole_batches() {
        let mut datagrams = OutgoingDatagrams::default();
        let mut due_at = Vec::new();
        let mut queue = |datagrams: &mut OutgoingDatagrams, count: usize| {
            for number in 1..=count {
                datagrams.copy(&to(), b"x", Grouping::Windowed);
                if datagrams.is_due() {
                    due_at.push(number);
                    datagrams.sending_in_pass();
                    datagrams.clear();
                }
            }
            datagrams.end_pass();
            datagrams.clear();
        };
        queue(&mut datagrams, 2 * BATCH);
        queue(&mut datagrams, FIRST_FLUSH);
        queue(&mut datagrams, FIRST_FLUSH - 1);
        let first = FIRST_FLUSH;
        assert_eq!(
            due_at,
            [first, first + BATCH, FIRST_FLUSH],
            "each pass's first datagrams early, then whole batches"
        );
    }

    #[test]
    fn taking_swaps_buffers_and_cleared_ones_are_handed_out_again() {
        let mut datagrams = OutgoingDatagrams::default();
        let mut buffer = b"..first~~".to_vec();
        assert!(datagrams.take(&to(), &mut buffer, 2..7, Grouping::Windowed));
        assert!(buffer.is_empty(), "no spare yet: a new buffer");
        buffer.extend_from_slice(b"second");
        assert!(datagrams.take(&to(), &mut buffer, 0..6, Grouping::Alone));
        datagrams.copy(&to(), b"third", Grouping::Unpaced);
        assert_eq!(
            waiting_bytes(&datagrams),
            [&b"first"[..], b"second", b"third"]
        );
        assert_eq!(datagrams.get(1).grouping, Grouping::Alone);
        datagrams.clear();
        assert!(datagrams.is_empty());
        // The cleared buffers come back, stale bytes and all.
        let mut next = b"..fourth".to_vec();
        assert!(datagrams.take(&to(), &mut next, 2..8, Grouping::Windowed));
        assert_eq!(next, b"..first~~");
        assert_eq!(waiting_bytes(&datagrams), [&b"fourth"[..]]);
        assert_eq!(datagrams.len(), 1);
    }

    #[test]
    fn a_range_outside_the_buffer_is_refused() {
        let mut datagrams = OutgoingDatagrams::default();
        let mut buffer = vec![1, 2, 3];
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 2..1;
        for range in [0..4, 3..5, backwards] {
            assert!(!datagrams.take(&to(), &mut buffer, range, Grouping::Windowed));
        }
        assert_eq!(buffer, [1, 2, 3]);
        assert!(datagrams.is_empty());
    }
}
