//! Batched datagram I/O on Linux: `recvmmsg` and `sendmmsg` move up to
//! [`BATCH`] datagrams per system call, where stock ENet makes one call
//! each.

use core::mem::{size_of, zeroed};
use core::ptr;
use std::io::{self, ErrorKind};

use std::net::SocketAddr;
use std::ops::Range;

use super::offload::{self, ControlBuffer};
use super::socket_name::SocketName;
use crate::abi::ENetSocket;
use crate::net::batch::{Datagram, OutgoingDatagrams, BATCH, DATAGRAM_CAPACITY, NOBODY};
use crate::proto::Grouping;

/// Reads in a row that left every datagram within its slot's first
/// [`DATAGRAM_CAPACITY`] bytes, after which the batch settles: the pages
/// that coalesced reads touched deeper in the slots are given back, and
/// reads ask for fewer datagrams if these reads brought few. An idle host
/// (thousands of peers that only ping) then holds a page or two for each
/// slot its reads still fill, instead of the up to 64 KiB per slot that a
/// burst of connects or a bulk transfer touched, or a page for every slot.
/// Steady coalesced traffic never reaches the count.
const QUIET_READS_BEFORE_RELEASE: u32 = 256;

/// The fewest datagrams a read asks for once the batch has narrowed.
const NARROWEST_READ: usize = 8;

/// The first bytes of each slot, kept apart from it beside the other
/// slots' first bytes: a datagram that fits (one of ENet's default MTU of
/// 1400 bytes, and the 37 a DTLS record adds) is read there whole. A read
/// of many small datagrams then touches a page for every two or three of
/// them, where slots 4 or 64 KiB apart take a page each. A longer
/// datagram (or a coalesced run) continues into its slot, where its first
/// bytes join it once it has arrived.
const HEAD: usize = 1536;

/// Datagrams this short leave in runs of at most [`HEAD`] bytes, so that a
/// receiver with `UDP_GRO`, which takes a run as one buffer, reads it into
/// a head and leaves its slot's pages untouched. Such runs come from many
/// peers on one host talking to one server: a connect burst's CONNECTs,
/// then their small messages. A head holds at least 8 of them, so their
/// sends stay few.
const SMALL_DATAGRAM: usize = HEAD / 8;

/// The whole pages of `bytes` from byte `skip` on, as an address range;
/// `None` if there is none (or the page size is unknown).
fn whole_pages(bytes: &[u8], skip: usize) -> Option<(usize, usize)> {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    if !page.is_power_of_two() {
        return None;
    }
    let base = bytes.as_ptr() as usize;
    let start = (base + skip).next_multiple_of(page);
    let end = (base + bytes.len()) & !(page - 1);
    (start < end).then_some((start, end))
}

/// Datagrams read from a socket and not handled yet.
///
/// The `recvmmsg` headers are built once and point into the batch's own
/// heap buffers, which never move, so a read costs no set-up. With
/// `UDP_GRO` on, each slot has room for a coalesced run of datagrams,
/// which [`ReceiveBatch::pop`] hands out one datagram at a time.
pub struct ReceiveBatch {
    /// [`BATCH`] heads of [`HEAD`] bytes, then [`BATCH`] slots of `slot`
    /// bytes: one allocation, above the size from which the C library's
    /// allocator normally maps memory fresh, so only the pages reads write
    /// become resident.
    storage: Box<[u8]>,
    /// Bytes per slot of `storage`, its head included.
    slot: usize,
    names: Box<[SocketName]>,
    /// Read only by the kernel, through `headers`; owned here so they live.
    /// Each slot's pair: its head, then the rest of its slot.
    #[allow(dead_code)]
    vectors: Box<[[libc::iovec; 2]]>,
    #[allow(dead_code)]
    controls: Box<[ControlBuffer]>,
    headers: Box<[libc::mmsghdr]>,
    lengths: [usize; BATCH],
    /// The size of each datagram in a slot (the slot's length unless the
    /// kernel coalesced several).
    segments: [usize; BATCH],
    sources: [SocketAddr; BATCH],
    truncated: [bool; BATCH],
    filled: usize,
    next: usize,
    /// Where the next datagram starts inside slot `next`.
    offset: usize,
    /// Slots that held more than one datagram, since creation.
    coalesced: u64,
    /// Headers the kernel may have changed since they were last reset
    /// (those of the datagrams the last read received): only these need
    /// their lengths and flags set again before the next read.
    dirty: usize,
    /// Whether a read went past a slot's first [`DATAGRAM_CAPACITY`] bytes
    /// since the deeper pages were last given back.
    deep: bool,
    /// Reads since the last deep one, or since the batch last settled.
    quiet_reads: u32,
    /// How many datagrams a read asks for: [`BATCH`], or fewer while the
    /// reads bring few (the kernel fills slots in order, so the slots past
    /// it stay untouched). A read that fills it widens it back at once.
    width: usize,
    /// The most datagrams one read brought since the batch last settled.
    widest: usize,
    /// Times pages of the slots were given back, since creation.
    releases: u64,
}

impl Default for ReceiveBatch {
    /// A batch for a socket without `UDP_GRO`.
    fn default() -> Self {
        Self::with_slot(DATAGRAM_CAPACITY)
    }
}

impl ReceiveBatch {
    /// A batch for `socket`; with `offload` (the host's setting,
    /// `ENET_RS_UDP_OFFLOAD`, parsed into `config::Switches`) it asks the kernel for coalesced
    /// receives.
    pub fn for_socket(socket: ENetSocket, offload: bool) -> Self {
        if offload && offload::enable_gro(socket) {
            Self::with_slot(offload::MAX_RUN_BYTES)
        } else {
            Self::default()
        }
    }

    fn with_slot(slot: usize) -> Self {
        debug_assert!(slot > HEAD);
        let mut storage = vec![0u8; BATCH * (HEAD + slot)].into_boxed_slice();
        let mut names: Box<[SocketName]> = (0..BATCH).map(|_| SocketName::zeroed()).collect();
        let (heads, slots) = storage.split_at_mut(BATCH * HEAD);
        let mut vectors: Box<[[libc::iovec; 2]]> = heads
            .chunks_exact_mut(HEAD)
            .zip(slots.chunks_exact_mut(slot))
            .map(|(head, slot)| {
                let rest = &mut slot[HEAD..];
                [
                    libc::iovec {
                        iov_base: head.as_mut_ptr().cast(),
                        iov_len: head.len(),
                    },
                    libc::iovec {
                        iov_base: rest.as_mut_ptr().cast(),
                        iov_len: rest.len(),
                    },
                ]
            })
            .collect();
        let mut controls: Box<[ControlBuffer]> = vec![[0; 4]; BATCH].into_boxed_slice();
        // SAFETY: mmsghdr is plain old data; zeroes are valid.
        let mut headers: Box<[libc::mmsghdr]> = (0..BATCH).map(|_| unsafe { zeroed() }).collect();
        for (index, header) in headers.iter_mut().enumerate() {
            header.msg_hdr.msg_name = names[index].as_mut_ptr().cast();
            header.msg_hdr.msg_iov = vectors[index].as_mut_ptr();
            header.msg_hdr.msg_iovlen = 2;
            header.msg_hdr.msg_control = controls[index].as_mut_ptr().cast();
        }
        ReceiveBatch {
            storage,
            slot,
            names,
            vectors,
            controls,
            headers,
            lengths: [0; BATCH],
            segments: [0; BATCH],
            sources: [NOBODY; BATCH],
            truncated: [false; BATCH],
            filled: 0,
            next: 0,
            offset: 0,
            coalesced: 0,
            dirty: BATCH,
            deep: false,
            quiet_reads: 0,
            width: BATCH,
            widest: 0,
            releases: 0,
        }
    }

    /// Times pages of the slots were given back, since creation.
    pub fn releases(&self) -> u64 {
        self.releases
    }

    /// Counts a read of `received` datagrams whose longest (or coalesced
    /// run) was `longest` bytes, and settles after enough quiet reads;
    /// only on an empty read, when no datagram waits in a slot.
    fn note_read(&mut self, received: usize, longest: usize) {
        if received == self.width {
            self.width = BATCH;
        }
        self.widest = self.widest.max(received);
        if longest > DATAGRAM_CAPACITY {
            self.deep = true;
            self.quiet_reads = 0;
            return;
        }
        self.quiet_reads = self.quiet_reads.saturating_add(1);
        if received == 0 && self.quiet_reads >= QUIET_READS_BEFORE_RELEASE {
            self.settle();
        }
    }

    /// [`ReceiveBatch::note_read`] of a read that brought nothing, inline:
    /// an idle host makes one on every service call, and it widens
    /// nothing and went no deeper, so only the count of quiet reads moves.
    #[inline(always)]
    fn note_empty_read(&mut self) {
        self.quiet_reads = self.quiet_reads.saturating_add(1);
        if self.quiet_reads >= QUIET_READS_BEFORE_RELEASE {
            self.settle();
        }
    }

    /// Narrows the reads to twice the most the quiet reads brought (at
    /// least [`NARROWEST_READ`]), and gives the pages back if reads went
    /// deep or the narrower reads leave slots untouched from now on.
    #[inline(never)]
    fn settle(&mut self) {
        let width = (self.widest * 2)
            .next_power_of_two()
            .clamp(NARROWEST_READ, BATCH);
        let narrower = width < self.width;
        self.width = width;
        self.widest = 0;
        self.quiet_reads = 0;
        if self.deep || narrower {
            self.release_pages();
        }
    }

    /// How many datagrams a read asks for now.
    #[cfg(test)]
    fn width(&self) -> usize {
        self.width
    }

    /// Gives back every whole page of storage past the heads that reads
    /// of the current width fill: the other heads and all of the slots.
    /// They read as zeroes when touched again. Nothing in the batch is
    /// waiting to be handed out.
    fn release_pages(&mut self) {
        self.deep = false;
        self.releases += 1;
        // Failing leaves the pages as they were, which is harmless.
        self.give_back_from(self.width * HEAD);
    }

    /// Gives back every whole page of storage from byte `skip` on; whether
    /// the system took them (none to give counts as taken). Nothing in
    /// the batch may be waiting to be handed out.
    fn give_back_from(&mut self, skip: usize) -> bool {
        let Some((start, end)) = whole_pages(&self.storage, skip) else {
            return true;
        };
        // SAFETY: [start, end) is whole pages inside `storage`, which this
        // batch owns exclusively (`&mut self`), and no datagram waits in
        // it; MADV_DONTNEED only makes those pages read as zeroes, which
        // are valid bytes, as the kernel writing a datagram there would.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) == 0 }
    }

    /// Where slot `index`'s head starts in `storage`.
    #[inline(always)]
    fn head_start(index: usize) -> usize {
        index * HEAD
    }

    /// Where slot `index` starts in `storage` (its head's bytes first,
    /// once `fill` has put them there).
    #[inline(always)]
    fn slot_start(&self, index: usize) -> usize {
        BATCH * HEAD + index * self.slot
    }

    /// Whether datagrams read earlier are still waiting.
    pub fn has_pending(&self) -> bool {
        self.next < self.filled
    }

    /// Reads that carried several datagrams coalesced, since creation.
    pub fn coalesced(&self) -> u64 {
        self.coalesced
    }

    /// The next datagram read earlier, if any.
    pub fn pop(&mut self) -> Option<Datagram<'_>> {
        if self.next >= self.filled {
            return None;
        }
        let index = self.next;
        if self.truncated[index] {
            self.next += 1;
            return Some(Datagram::Truncated);
        }
        let length = self.lengths[index];
        let start = self.offset;
        let end = (start + self.segments[index]).min(length);
        if end >= length {
            self.next += 1;
            self.offset = 0;
        } else {
            self.offset = end;
        }
        if end - start > DATAGRAM_CAPACITY {
            return Some(Datagram::Truncated);
        }
        // A datagram that ends inside its head is there; any other was
        // made whole in the slot by `fill`.
        let base = if end <= HEAD {
            Self::head_start(index)
        } else {
            self.slot_start(index)
        };
        Some(Datagram::Received {
            from: self.sources[index],
            bytes: &mut self.storage[base + start..base + end],
        })
    }

    /// Reads the datagrams waiting on `socket` (up to the batch's current
    /// width, at most [`BATCH`]) without blocking; how many reads.
    /// "Nothing waiting" is `Ok(0)`.
    pub fn fill(&mut self, socket: ENetSocket) -> io::Result<usize> {
        self.filled = 0;
        self.next = 0;
        self.offset = 0;
        for header in self.headers[..self.dirty].iter_mut() {
            header.msg_hdr.msg_namelen = SocketName::CAPACITY;
            header.msg_hdr.msg_controllen = size_of::<ControlBuffer>();
            header.msg_hdr.msg_flags = 0;
        }
        // All clean now: a read that brings nothing leaves them so, and
        // the next one need not set them again (an idle host's every
        // service call read into the whole batch's headers).
        self.dirty = 0;
        // SAFETY: every header points at its own name, iovec and control
        // buffer in this batch's heap buffers (set up in `with_slot`, never
        // moved), and the iovecs at `storage`; all are exclusively borrowed
        // through `self`.
        let received = unsafe {
            libc::recvmmsg(
                socket,
                self.headers.as_mut_ptr(),
                self.width as libc::c_uint,
                libc::MSG_DONTWAIT,
                ptr::null_mut(),
            )
        };
        if received < 0 {
            let error = io::Error::last_os_error();
            // The error number itself, not `kind()`'s table: an idle host
            // gets EAGAIN on every service call. (EWOULDBLOCK is EAGAIN
            // wherever recvmmsg exists.)
            return match error.raw_os_error() {
                // Nothing was read, so no header was written.
                Some(libc::EAGAIN | libc::EINTR) => {
                    self.note_empty_read();
                    Ok(0)
                }
                _ => {
                    // Not worth reasoning about: set them all next time.
                    self.dirty = BATCH;
                    Err(error)
                }
            };
        }
        let received = received as usize;
        // recvmmsg writes back the headers of the datagrams it returns.
        self.dirty = received;
        let mut longest = 0;
        for index in 0..received {
            let header = &self.headers[index];
            let length = header.msg_len as usize;
            self.lengths[index] = length;
            self.truncated[index] = header.msg_hdr.msg_flags & libc::MSG_TRUNC != 0;
            self.sources[index] = self.names[index].endpoint().unwrap_or(NOBODY);
            let segment = offload::read_gro(&header.msg_hdr).unwrap_or(length);
            if length > HEAD {
                // The kernel wrote the head apart from the rest. The
                // datagrams that end inside it are handed out from there;
                // the one it cuts (a long datagram: all of the head) joins
                // the rest of itself, in the slot.
                let cut = HEAD / segment.max(1) * segment;
                let head = Self::head_start(index);
                let slot = self.slot_start(index);
                self.storage
                    .copy_within(head + cut..head + HEAD, slot + cut);
            }
            if segment < length {
                self.coalesced += 1;
            }
            // A zero-length datagram is still one datagram.
            self.segments[index] = segment.max(1);
            longest = longest.max(length);
        }
        self.filled = received;
        self.note_read(received, longest);
        Ok(received)
    }
}

/// Datagrams waiting to be sent together.
pub struct SendBatch {
    datagrams: OutgoingDatagrams,
    /// The `sendmmsg` arguments, kept between flushes so sending costs no
    /// allocation once they have grown: one message per run of datagrams.
    names: Vec<(SocketName, libc::socklen_t)>,
    vectors: Vec<libc::iovec>,
    controls: Vec<(ControlBuffer, usize)>,
    headers: Vec<libc::mmsghdr>,
    /// The first datagram of each message.
    firsts: Vec<usize>,
    /// The socket has don't-fragment set (path MTU discovery): a datagram
    /// the system refuses as too large is noted in `too_big` and skipped,
    /// rather than failing the send.
    dont_fragment: bool,
    too_big: Vec<(SocketAddr, usize)>,
    /// Whether runs of equal-size datagrams to one address leave as one
    /// `UDP_SEGMENT` message (off once the kernel refused one).
    segmenting: bool,
    /// Messages handed to the kernel, since creation.
    messages: u64,
    /// Whether the socket is IPv6, so IPv4 addresses go as mapped ones.
    ipv6_socket: bool,
}

impl SendBatch {
    /// An empty batch for an IPv4 socket or an IPv6 one; `segmenting`
    /// allows segmented sends (the host's offload setting,
    /// `ENET_RS_UDP_OFFLOAD`, parsed into `config::Switches`).
    pub fn new(segmenting: bool, ipv6_socket: bool) -> Self {
        SendBatch {
            datagrams: OutgoingDatagrams::default(),
            names: Vec::new(),
            vectors: Vec::new(),
            controls: Vec::new(),
            headers: Vec::new(),
            firsts: Vec::new(),
            dont_fragment: false,
            too_big: Vec::new(),
            segmenting,
            messages: 0,
            ipv6_socket,
        }
    }

    /// Queues a datagram to `to`. `grouping` says how many of the
    /// equal-size datagrams to `to` queued just before it it may leave
    /// with in one segmented send: as many as the kernel takes for traffic
    /// the reliable window paces, a few for unreliable payloads (long runs
    /// would let a fast sender pour them onto a receiver faster than it
    /// reads them), none once the peer shows loss.
    pub fn push(&mut self, to: &SocketAddr, datagram: &[u8], grouping: Grouping) {
        self.datagrams.copy(to, datagram, grouping);
    }

    /// Whether the socket has don't-fragment set: then a datagram the
    /// system refuses as too large is skipped and noted (see
    /// [`Self::take_too_big`]) instead of failing the send.
    pub fn set_dont_fragment(&mut self, on: bool) {
        self.dont_fragment = on;
    }

    /// Moves into `into` the destinations and lengths of the datagrams
    /// refused as too large since the last call.
    pub fn take_too_big(&mut self, into: &mut Vec<(SocketAddr, usize)>) {
        into.append(&mut self.too_big);
    }

    /// Queues the datagram at `range` of `buffer` as [`Self::push`] does,
    /// by taking the buffer instead of copying it (see
    /// [`OutgoingDatagrams::take`]); `false` for a range outside it.
    #[inline]
    pub fn push_buffer(
        &mut self,
        to: &SocketAddr,
        buffer: &mut Vec<u8>,
        range: Range<usize>,
        grouping: Grouping,
    ) -> bool {
        self.datagrams.take(to, buffer, range, grouping)
    }

    pub fn is_empty(&self) -> bool {
        self.datagrams.is_empty()
    }

    /// Whether the datagrams waiting should go now: a whole batch's worth
    /// (flushing then keeps the batch, and its memory, bounded however
    /// many peers a send pass visits), or a send pass's first few
    /// ([`FIRST_FLUSH`](crate::net::batch::FIRST_FLUSH)).
    pub fn is_due(&self) -> bool {
        self.datagrams.is_due()
    }

    /// [`Self::flush`] for a batch [`Self::is_due`] before its send pass
    /// ends.
    pub fn flush_due(&mut self, socket: ENetSocket) -> io::Result<()> {
        self.datagrams.sending_in_pass();
        self.flush(socket)
    }

    /// The send pass ends (its last datagrams are flushed with it).
    pub fn end_pass(&mut self) {
        self.datagrams.end_pass();
    }

    /// Messages handed to the kernel since creation (a segmented run is
    /// one message).
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// Sends everything pushed, [`BATCH`] messages per call. A full send
    /// buffer drops the rest, as a would-block send drops a datagram in
    /// stock ENet; any other error is returned (the batch is emptied
    /// either way).
    /// (Inline: most passes of a host called in a loop send nothing, and
    /// the sending path's set-up costs more than the check.)
    #[inline]
    pub fn flush(&mut self, socket: ENetSocket) -> io::Result<()> {
        if self.datagrams.is_empty() {
            return Ok(());
        }
        let result = self.send_all(socket);
        self.datagrams.clear();
        result
    }

    #[inline(never)]
    fn send_all(&mut self, socket: ENetSocket) -> io::Result<()> {
        let mut from = 0;
        loop {
            self.build(from);
            match self.send_messages(socket) {
                Ok(()) => return Ok(()),
                // The kernel refused a segmented message (an old kernel, a
                // device or path that cannot take it): send that run and
                // the rest one datagram each, and stop segmenting.
                Err((failed, _)) if self.controls[failed].1 != 0 => {
                    self.segmenting = false;
                    from = self.firsts[failed];
                }
                Err((_, error)) => return Err(error),
            }
        }
    }

    /// The end of the run of datagrams that can leave with datagram
    /// `first` in one message: same address and grouping, each as long as
    /// the first but a shorter last one, no more than the grouping allows,
    /// and small ones no more than a receive head holds ([`SMALL_DATAGRAM`]).
    fn run_end(&self, first: usize) -> usize {
        let head = self.datagrams.get(first);
        let longest = head.grouping.longest_run(offload::MAX_SEGMENTS);
        let mut end = first + 1;
        if !self.segmenting
            || longest == 1
            || head.length == 0
            || head.length > usize::from(u16::MAX)
        {
            return end;
        }
        let mut total = head.length;
        // Longer datagrams fill pages of a slot however they are grouped.
        let most_bytes = if head.length <= SMALL_DATAGRAM {
            HEAD
        } else {
            offload::MAX_RUN_BYTES
        };
        while end < self.datagrams.len() && end - first < longest {
            let next = self.datagrams.get(end);
            if next.to != head.to
                || next.grouping != head.grouping
                || next.length == 0
                || next.length > head.length
                || total + next.length > most_bytes
            {
                break;
            }
            total += next.length;
            end += 1;
            if next.length < head.length {
                break;
            }
        }
        end
    }

    /// Builds the `sendmmsg` messages for the datagrams from `from` on:
    /// one message per run, with one iovec per datagram (a segmented run's
    /// datagrams sit in buffers of their own; the kernel cuts the segments
    /// from their concatenation).
    fn build(&mut self, from: usize) {
        // The argument arrays are rebuilt in full before any pointer into
        // them is taken, so no reallocation can move what a header points at.
        self.names.clear();
        self.vectors.clear();
        self.controls.clear();
        self.firsts.clear();
        self.vectors.extend(
            self.datagrams
                .iter_from(from)
                .map(|(_, bytes)| libc::iovec {
                    iov_base: bytes.as_ptr().cast_mut().cast(),
                    iov_len: bytes.len(),
                }),
        );
        let mut first = from;
        while first < self.datagrams.len() {
            let end = self.run_end(first);
            let head = self.datagrams.get(first);
            self.names.push(SocketName::of(&head.to, self.ipv6_socket));
            let mut control = ([0; 4], 0);
            if end - first > 1 {
                control.1 = offload::write_segment(&mut control.0, head.length as u16);
            }
            self.controls.push(control);
            self.firsts.push(first);
            first = end;
        }
        self.headers.clear();
        for index in 0..self.names.len() {
            let first = self.firsts[index];
            let end = self
                .firsts
                .get(index + 1)
                .copied()
                .unwrap_or(self.datagrams.len());
            // SAFETY: mmsghdr is plain old data; zeroes are valid.
            let mut header: libc::mmsghdr = unsafe { zeroed() };
            let (name, length) = &mut self.names[index];
            header.msg_hdr.msg_name = name.as_mut_ptr().cast();
            header.msg_hdr.msg_namelen = *length;
            header.msg_hdr.msg_iov = &mut self.vectors[first - from];
            header.msg_hdr.msg_iovlen = (end - first) as _;
            let (control, length) = &mut self.controls[index];
            if *length != 0 {
                header.msg_hdr.msg_control = control.as_mut_ptr().cast();
                header.msg_hdr.msg_controllen = *length;
            }
            self.headers.push(header);
        }
    }

    /// Sends the built messages; on failure, which message failed.
    fn send_messages(&mut self, socket: ENetSocket) -> Result<(), (usize, io::Error)> {
        let mut sent = 0;
        while sent < self.headers.len() {
            let count = (self.headers.len() - sent).min(BATCH);
            // SAFETY: the headers point at names, iovecs and control
            // buffers in this batch's vectors, unchanged until the next
            // build; the iovecs point into the datagrams' buffers, only read
            // and not moved or dropped before the batch is cleared.
            let result = unsafe {
                libc::sendmmsg(
                    socket,
                    self.headers[sent..].as_mut_ptr(),
                    count as libc::c_uint,
                    libc::MSG_NOSIGNAL,
                )
            };
            if result < 0 {
                let error = io::Error::last_os_error();
                match error.kind() {
                    ErrorKind::Interrupted => continue,
                    ErrorKind::WouldBlock => return Ok(()),
                    _ if self.dont_fragment
                        && error.raw_os_error() == Some(libc::EMSGSIZE)
                        && self.controls[sent].1 == 0 =>
                    {
                        // Larger than the path the system knows: gone, as
                        // the network would lose it, and noted; the rest
                        // still leave.
                        let refused = self.datagrams.get(self.firsts[sent]);
                        self.too_big.push((refused.to, refused.length));
                        sent += 1;
                        continue;
                    }
                    _ => return Err((sent, error)),
                }
            }
            sent += result as usize;
            self.messages += result as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::batch::offload_allowed_by_env;
    use crate::net::socket;

    fn bound_udp() -> (ENetSocket, SocketAddr) {
        let sock =
            socket::create(crate::abi::ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as libc::c_int)
                .unwrap();
        let mut address = crate::abi::ENetAddress {
            host: u32::from_ne_bytes([127, 0, 0, 1]),
            port: 0,
        };
        socket::bind(sock, Some(&address)).unwrap();
        address = socket::local_address(sock).unwrap();
        socket::set_option(
            sock,
            crate::abi::ENetSocketOption::ENET_SOCKOPT_NONBLOCK as libc::c_int,
            1,
        )
        .unwrap();
        (sock, address.into())
    }

    #[test]
    fn with_dont_fragment_a_refused_datagram_is_noted_and_the_rest_leave() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        // More than a UDP datagram can carry: the system refuses it with
        // EMSGSIZE, as it refuses one over the path MTU with
        // don't-fragment set.
        let oversized = vec![7u8; 70_000];
        outgoing.push(&receiver_address, b"before", Grouping::Alone);
        outgoing.push(&receiver_address, &oversized, Grouping::Alone);
        outgoing.push(&receiver_address, b"after", Grouping::Alone);
        assert!(outgoing.flush(sender).is_err(), "without it, a failed send");
        crate::net::socket::set_dont_fragment(sender, true).unwrap();
        outgoing.set_dont_fragment(true);
        outgoing.push(&receiver_address, b"before", Grouping::Alone);
        outgoing.push(&receiver_address, &oversized, Grouping::Alone);
        outgoing.push(&receiver_address, b"after", Grouping::Alone);
        outgoing.flush(sender).unwrap();
        let mut refused = Vec::new();
        outgoing.take_too_big(&mut refused);
        assert_eq!(refused, [(receiver_address, 70_000)]);
        let mut incoming = ReceiveBatch::default();
        let mut seen = Vec::new();
        while incoming.fill(receiver).unwrap() > 0 {
            while let Some(Datagram::Received { bytes, .. }) = incoming.pop() {
                seen.push(bytes.to_vec());
            }
        }
        assert_eq!(seen.last().map(Vec::as_slice), Some(&b"after"[..]));
        assert!(seen.iter().any(|bytes| bytes == b"before"));
    }

    #[test]
    fn batches_carry_many_datagrams_each_way() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, sender_address) = bound_udp();
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        for index in 0..(BATCH + 5) {
            outgoing.push(
                &receiver_address,
                &[index as u8; 100][..index + 1],
                Grouping::Windowed,
            );
        }
        outgoing.flush(sender).unwrap();
        assert!(outgoing.is_empty());
        let mut incoming = ReceiveBatch::default();
        let mut seen = Vec::new();
        while incoming.fill(receiver).unwrap() > 0 {
            while let Some(datagram) = incoming.pop() {
                match datagram {
                    Datagram::Received { from, bytes } => {
                        assert_eq!(from, sender_address);
                        seen.push(bytes.to_vec());
                    }
                    Datagram::Truncated => panic!("truncated"),
                }
            }
        }
        assert_eq!(seen.len(), BATCH + 5);
        for (index, bytes) in seen.iter().enumerate() {
            assert_eq!(bytes, &vec![index as u8; index + 1]);
        }
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn only_the_headers_a_read_wrote_are_set_again_before_the_next() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut incoming = ReceiveBatch::default();
        assert_eq!(incoming.dirty, BATCH, "a new batch sets them all once");
        assert_eq!(incoming.fill(receiver).unwrap(), 0);
        assert_eq!(incoming.dirty, 0, "a read that brought nothing wrote none");
        let mut outgoing = SendBatch::new(false, false);
        for datagram in [&b"one"[..], b"two", b"three"] {
            outgoing.push(&receiver_address, datagram, Grouping::Alone);
        }
        outgoing.flush(sender).unwrap();
        let seen = receive_all(&mut incoming, receiver, 3);
        assert_eq!(seen, [&b"one"[..], b"two", b"three"]);
        // The last read brought nothing: its headers were set just before.
        assert_eq!(incoming.dirty, 0);
        // Headers written by a read are set again, and datagrams of other
        // lengths and sources still arrive whole through them.
        outgoing.push(&receiver_address, b"a longer fourth", Grouping::Alone);
        outgoing.flush(sender).unwrap();
        for _ in 0..1000 {
            if incoming.fill(receiver).unwrap() > 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(incoming.dirty, 1);
        match incoming.pop() {
            Some(Datagram::Received { bytes, .. }) => assert_eq!(bytes, b"a longer fourth"),
            _ => panic!("the fourth datagram did not arrive whole"),
        }
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    /// Reads everything that arrives on `socket` within about a second,
    /// until `expected` datagrams came.
    fn receive_all(batch: &mut ReceiveBatch, socket: ENetSocket, expected: usize) -> Vec<Vec<u8>> {
        let mut seen = Vec::new();
        for _ in 0..1000 {
            while batch.fill(socket).unwrap() > 0 {
                while let Some(datagram) = batch.pop() {
                    match datagram {
                        Datagram::Received { bytes, .. } => seen.push(bytes.to_vec()),
                        Datagram::Truncated => panic!("truncated"),
                    }
                }
            }
            if seen.len() >= expected {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        seen
    }

    /// Datagrams of a run: 1400 bytes each but a shorter last, each
    /// numbered in its first byte.
    fn run_of(count: usize) -> Vec<Vec<u8>> {
        (0..count)
            .map(|index| {
                let length = if index + 1 == count { 300 } else { 1400 };
                let mut datagram = vec![0xA5; length];
                datagram[0] = index as u8;
                datagram
            })
            .collect()
    }

    #[test]
    fn a_run_leaves_segmented_and_a_plain_receiver_gets_each_datagram() {
        let (receiver, receiver_address) = bound_udp();
        let (other, other_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        if !outgoing.segmenting {
            return; // ENET_RS_UDP_OFFLOAD=off in this environment.
        }
        let run = run_of(20);
        for datagram in &run {
            outgoing.push(&receiver_address, datagram, Grouping::Windowed);
        }
        // Another address ends the run; equal sizes to it form their own,
        // unless they may not burst.
        outgoing.push(&other_address, &[1; 1400], Grouping::Windowed);
        outgoing.push(&other_address, &[2; 1400], Grouping::Windowed);
        outgoing.push(&other_address, &[3; 1400], Grouping::Alone);
        outgoing.push(&other_address, &[4; 1400], Grouping::Alone);
        outgoing.push(&receiver_address, b"after", Grouping::Windowed);
        // Unreliable payloads leave in short runs.
        let (unpaced, unpaced_address) = bound_udp();
        let unpaced_run = run_of(20);
        for datagram in &unpaced_run {
            outgoing.push(&unpaced_address, datagram, Grouping::Unpaced);
        }
        outgoing.flush(sender).unwrap();
        assert_eq!(Grouping::UNPACED_RUN, 8, "the runs counted below");
        assert_eq!(
            outgoing.messages(),
            8,
            "runs of 20, 2, 1, 1 and 1, then unpaced ones of 8, 8 and 4"
        );
        // The receiving socket has no UDP_GRO, as a stock host's: the
        // kernel hands it ordinary datagrams, in order.
        let mut plain = ReceiveBatch::default();
        let mut expected = run.clone();
        expected.push(b"after".to_vec());
        assert_eq!(receive_all(&mut plain, receiver, expected.len()), expected);
        assert_eq!(plain.coalesced(), 0);
        let at_other = receive_all(&mut ReceiveBatch::default(), other, 4);
        let expected: Vec<Vec<u8>> = (1..=4).map(|fill| vec![fill; 1400]).collect();
        assert_eq!(at_other, expected);
        let at_unpaced = receive_all(&mut ReceiveBatch::default(), unpaced, unpaced_run.len());
        assert_eq!(at_unpaced, unpaced_run);
        for socket in [receiver, other, unpaced, sender] {
            socket::destroy(socket);
        }
    }

    #[test]
    fn taken_buffers_leave_as_one_segmented_run_and_arrive_intact() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        let run = run_of(12);
        for (index, datagram) in run.iter().enumerate() {
            // Each datagram after a few bytes of header room and before
            // stale bytes, as the engine's builder leaves it.
            let mut buffer = vec![0xEE; 6 + index % 3];
            let start = buffer.len();
            buffer.extend_from_slice(datagram);
            buffer.extend_from_slice(&[0xDD; 5]);
            let taken = buffer.as_ptr();
            let range = start..start + datagram.len();
            assert!(outgoing.push_buffer(
                &receiver_address,
                &mut buffer,
                range,
                Grouping::Windowed
            ));
            assert_ne!(buffer.as_ptr(), taken, "the batch keeps the buffer itself");
        }
        let mut short = vec![0; 4];
        assert!(!outgoing.push_buffer(&receiver_address, &mut short, 2..9, Grouping::Windowed));
        assert_eq!(short.len(), 4, "a refused buffer stays with the caller");
        outgoing.flush(sender).unwrap();
        if outgoing.segmenting {
            assert_eq!(outgoing.messages(), 1, "twelve buffers, one message");
        }
        let arrived = receive_all(&mut ReceiveBatch::default(), receiver, run.len());
        assert_eq!(arrived, run);
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn a_coalesced_receive_is_handed_out_datagram_by_datagram() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut incoming = ReceiveBatch::for_socket(receiver, offload_allowed_by_env());
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        let run = run_of(BATCH);
        for datagram in &run {
            outgoing.push(&receiver_address, datagram, Grouping::Windowed);
        }
        outgoing.flush(sender).unwrap();
        assert_eq!(receive_all(&mut incoming, receiver, run.len()), run);
        if outgoing.segmenting && incoming.slot > DATAGRAM_CAPACITY {
            // Over loopback a segmented send reaches a UDP_GRO socket whole.
            assert!(incoming.coalesced() >= 1);
        }
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    fn page_size() -> usize {
        // SAFETY: sysconf has no preconditions.
        unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
    }

    /// The most pages the heads of `width` slots can keep resident: the
    /// pages they span, and one more where they straddle a boundary.
    fn pages_of_heads(width: usize) -> usize {
        (width * HEAD).div_ceil(page_size()) + 1
    }

    /// Pages of `bytes` resident in memory, by `mincore`.
    fn resident_pages(bytes: &[u8]) -> usize {
        let (start, end) = whole_pages(bytes, 0).expect("whole pages");
        let mut residency = vec![0u8; (end - start) / page_size()];
        // SAFETY: [start, end) is whole pages of `bytes`'s allocation, and
        // `residency` has one byte per page.
        let result = unsafe {
            libc::mincore(
                start as *mut libc::c_void,
                end - start,
                residency.as_mut_ptr(),
            )
        };
        assert_eq!(result, 0, "mincore failed");
        residency.iter().filter(|&&flags| flags & 1 != 0).count()
    }

    #[test]
    fn quiet_reads_give_back_the_pages_a_coalesced_read_touched() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut incoming = ReceiveBatch::for_socket(receiver, offload_allowed_by_env());
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        if !outgoing.segmenting || incoming.slot <= DATAGRAM_CAPACITY {
            return; // ENET_RS_UDP_OFFLOAD=off in this environment.
        }
        let run = run_of(40);
        for datagram in &run {
            outgoing.push(&receiver_address, datagram, Grouping::Windowed);
        }
        outgoing.flush(sender).unwrap();
        assert_eq!(receive_all(&mut incoming, receiver, run.len()), run);
        if incoming.coalesced() == 0 {
            return; // The kernel handed the run over datagram by datagram.
        }
        let touched = resident_pages(&incoming.storage);
        assert!(
            touched > 4,
            "a 40-datagram run touched only {touched} pages"
        );
        // The reads that emptied the socket count as quiet ones too.
        assert_eq!(incoming.releases(), 0, "released at once");
        let mut reads = 0;
        while incoming.releases() == 0 && reads < QUIET_READS_BEFORE_RELEASE {
            assert_eq!(incoming.fill(receiver).unwrap(), 0);
            reads += 1;
        }
        assert_eq!(incoming.releases(), 1);
        assert!(
            reads > QUIET_READS_BEFORE_RELEASE / 2,
            "released after {reads} quiet reads"
        );
        // At most the pages of the heads the narrowed reads fill stay.
        let kept = resident_pages(&incoming.storage);
        assert!(
            kept <= pages_of_heads(NARROWEST_READ),
            "{kept} of {touched} touched pages still resident"
        );
        // The batch reads whole datagrams into given-back pages as before.
        outgoing.push(&receiver_address, &run[0], Grouping::Windowed);
        outgoing.flush(sender).unwrap();
        assert_eq!(
            receive_all(&mut incoming, receiver, 1),
            vec![run[0].clone()]
        );
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn runs_of_small_datagrams_fit_a_head_and_leave_the_slots_untouched() {
        let (receiver, receiver_address) = bound_udp();
        let (other, other_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut incoming = ReceiveBatch::for_socket(receiver, offload_allowed_by_env());
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        // As many CONNECT-sized datagrams (52 bytes) as a segmented send
        // may carry, each numbered.
        let connects: Vec<Vec<u8>> = (0..offload::MAX_SEGMENTS)
            .map(|index| {
                let mut datagram = vec![0x3C; 52];
                datagram[0] = index as u8;
                datagram
            })
            .collect();
        for datagram in &connects {
            outgoing.push(&receiver_address, datagram, Grouping::Windowed);
        }
        // A datagram longer than SMALL_DATAGRAM is not held to a head.
        let medium = vec![0x4D; SMALL_DATAGRAM + 1];
        let mediums = HEAD / medium.len() + 2;
        for _ in 0..mediums {
            outgoing.push(&other_address, &medium, Grouping::Windowed);
        }
        outgoing.flush(sender).unwrap();
        if outgoing.segmenting {
            // 29 of 52 bytes fit a head of 1536: runs of 29, 29 and 6; then
            // the longer datagrams in one run of their own.
            assert_eq!(HEAD, 1536, "the runs counted here");
            assert_eq!(outgoing.messages(), 4);
        }
        assert_eq!(
            receive_all(&mut incoming, receiver, connects.len()),
            connects
        );
        // Every run was read into a head: the slots, zeroes when the batch
        // was made, were not written.
        assert!(
            incoming.storage[BATCH * HEAD..]
                .iter()
                .all(|&byte| byte == 0),
            "a run of small datagrams was read into a slot"
        );
        let at_other = receive_all(&mut ReceiveBatch::default(), other, mediums);
        assert_eq!(at_other, vec![medium; mediums]);
        for socket in [receiver, other, sender] {
            socket::destroy(socket);
        }
    }

    #[test]
    fn reads_narrow_while_few_datagrams_come_and_widen_for_a_burst() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut incoming = ReceiveBatch::default();
        let mut outgoing = SendBatch::new(false, false);
        let mut send = |count: usize, tag: u8| {
            for index in 0..count {
                outgoing.push(
                    &receiver_address,
                    &[tag, index as u8, 0x5A],
                    Grouping::Alone,
                );
            }
            outgoing.flush(sender).unwrap();
        };
        // One burst fills every slot. Small datagrams are read into the
        // heads, which lie side by side: the read touches their pages,
        // not a page for each slot.
        // Every page given back first, as a fresh mapping has none
        // resident (the test process's allocator may hand the storage
        // over zero-filled by hand, all pages touched).
        assert!(incoming.give_back_from(0), "madvise failed");
        assert_eq!(resident_pages(&incoming.storage), 0);
        send(BATCH, 1);
        assert_eq!(receive_all(&mut incoming, receiver, BATCH).len(), BATCH);
        // (However many reads the burst took, the heads of at most BATCH
        // slots were written.)
        let touched = resident_pages(&incoming.storage);
        assert!(
            (1..=pages_of_heads(BATCH)).contains(&touched),
            "a read of small datagrams touched {touched} pages"
        );
        assert_eq!(incoming.width(), BATCH);
        // Then a datagram at a time: within two rounds of quiet reads the
        // batch settles on its narrowest reads and gives the pages back.
        let mut reads = 0;
        while incoming.releases() == 0 && reads < 3 * QUIET_READS_BEFORE_RELEASE {
            send(1, 2);
            assert_eq!(receive_all(&mut incoming, receiver, 1).len(), 1);
            assert_eq!(incoming.fill(receiver).unwrap(), 0);
            reads += 2;
        }
        assert_eq!(incoming.releases(), 1, "never settled in {reads} reads");
        assert_eq!(incoming.width(), NARROWEST_READ);
        let kept = resident_pages(&incoming.storage);
        assert!(
            kept <= pages_of_heads(NARROWEST_READ),
            "{kept} of {touched} pages still resident"
        );
        // A burst wider than the reads arrives whole and in order, and
        // the read it filled widens the next ones at once.
        send(20, 3);
        let burst = receive_all(&mut incoming, receiver, 20);
        let expected: Vec<Vec<u8>> = (0..20u8).map(|index| vec![3, index, 0x5A]).collect();
        assert_eq!(burst, expected);
        assert_eq!(incoming.width(), BATCH);
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn every_datagram_of_many_runs_arrives_whole_or_not_at_all() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut incoming = ReceiveBatch::for_socket(receiver, offload_allowed_by_env());
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        // Each datagram's bytes all derive from its number, so bytes of
        // two datagrams mixed up would show.
        let datagram = |number: u32| -> Vec<u8> {
            let length = 40 + (number / BATCH as u32 % 3) as usize * 6;
            let mut bytes = number.to_be_bytes().to_vec();
            bytes.extend((4..length).map(|at| (number as usize * 7 + at) as u8));
            bytes
        };
        let total = 200 * BATCH as u32;
        let mut seen = std::collections::BTreeSet::new();
        let read = |incoming: &mut ReceiveBatch, seen: &mut std::collections::BTreeSet<u32>| {
            while incoming.fill(receiver).unwrap() > 0 {
                while let Some(Datagram::Received { bytes, .. }) = incoming.pop() {
                    let number = u32::from_be_bytes(bytes[..4].try_into().unwrap());
                    assert_eq!(bytes, &datagram(number)[..], "datagram {number} mangled");
                    assert!(seen.insert(number), "datagram {number} twice");
                }
            }
        };
        for number in 0..total {
            outgoing.push(&receiver_address, &datagram(number), Grouping::Windowed);
            if outgoing.is_due() {
                outgoing.flush_due(sender).unwrap();
                read(&mut incoming, &mut seen);
            }
        }
        outgoing.flush(sender).unwrap();
        for _ in 0..100 {
            read(&mut incoming, &mut seen);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(seen.len() as u32 > total / 2, "only {} arrived", seen.len());
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn without_segmenting_each_datagram_is_its_own_message() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut outgoing = SendBatch::new(false, false);
        let run = run_of(5);
        for datagram in &run {
            outgoing.push(&receiver_address, datagram, Grouping::Windowed);
        }
        outgoing.flush(sender).unwrap();
        assert_eq!(outgoing.messages(), 5);
        assert_eq!(receive_all(&mut ReceiveBatch::default(), receiver, 5), run);
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn a_refused_segmented_send_goes_again_datagram_by_datagram() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        // The kernel refuses UDP_SEGMENT on a socket sending without UDP
        // checksums (EINVAL), as an old kernel or a device without
        // offload would.
        let on: libc::c_int = 1;
        // SAFETY: a valid socket and a readable c_int of the size passed.
        let set = unsafe {
            libc::setsockopt(
                sender,
                libc::SOL_SOCKET,
                libc::SO_NO_CHECK,
                ptr::addr_of!(on).cast(),
                size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        assert_eq!(set, 0);
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        if !outgoing.segmenting {
            return; // ENET_RS_UDP_OFFLOAD=off in this environment.
        }
        let run = run_of(6);
        for datagram in &run {
            outgoing.push(&receiver_address, datagram, Grouping::Windowed);
        }
        outgoing.flush(sender).unwrap();
        assert!(!outgoing.segmenting, "the refusal turns segmenting off");
        assert_eq!(outgoing.messages(), 6);
        assert_eq!(receive_all(&mut ReceiveBatch::default(), receiver, 6), run);
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn datagrams_longer_than_a_head_arrive_whole_between_shorter_ones() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        // Each length is sent alone, so no run coalesces, between short
        // datagrams that stay in their heads; each byte tells its
        // datagram and place.
        let lengths = [
            HEAD - 1,
            HEAD,
            HEAD + 1,
            40,
            2 * HEAD + 7,
            DATAGRAM_CAPACITY,
            3,
        ];
        let datagrams: Vec<Vec<u8>> = lengths
            .iter()
            .enumerate()
            .map(|(number, &length)| (0..length).map(|at| (number * 31 + at) as u8).collect())
            .collect();
        for mut batch in [
            ReceiveBatch::default(),
            ReceiveBatch::for_socket(receiver, offload_allowed_by_env()),
        ] {
            let mut outgoing = SendBatch::new(false, false);
            for datagram in &datagrams {
                outgoing.push(&receiver_address, datagram, Grouping::Alone);
            }
            outgoing.flush(sender).unwrap();
            assert_eq!(
                receive_all(&mut batch, receiver, datagrams.len()),
                datagrams,
                "slots of {} bytes",
                batch.slot
            );
        }
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn an_oversized_datagram_is_reported_truncated() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut outgoing = SendBatch::new(offload_allowed_by_env(), false);
        outgoing.push(
            &receiver_address,
            &[1; DATAGRAM_CAPACITY + 100],
            Grouping::Windowed,
        );
        outgoing.push(&receiver_address, b"after", Grouping::Windowed);
        outgoing.flush(sender).unwrap();
        let mut incoming = ReceiveBatch::default();
        let mut kinds = Vec::new();
        for _ in 0..100 {
            if incoming.fill(receiver).unwrap() > 0 {
                while let Some(datagram) = incoming.pop() {
                    kinds.push(matches!(datagram, Datagram::Truncated));
                }
            }
            if kinds.len() == 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(kinds, vec![true, false]);
        socket::destroy(receiver);
        socket::destroy(sender);
    }
}
