//! Datagram I/O one system call per datagram, through socket2: the
//! batches of systems without `recvmmsg`/`sendmmsg` (Windows, macOS, the
//! BSDs). They hand the engine's transport the same datagrams, in the same
//! order, as Linux's batched ones; only the number of system calls
//! differs. (Built on Linux too, for its tests.)

use core::mem::MaybeUninit;
use std::io::{self, ErrorKind};
use std::net::{SocketAddr, SocketAddrV6};
use std::ops::Range;

use socket2::{MaybeUninitSlice, SockAddr};

use super::sock_ref;
use crate::abi::ENetSocket;
use crate::net::batch::{Datagram, OutgoingDatagrams, BATCH, DATAGRAM_CAPACITY, NOBODY};
use crate::proto::host::endpoint::normalized;
use crate::proto::Grouping;

/// Datagrams read from a socket and not handled yet.
pub struct ReceiveBatch {
    /// [`BATCH`] slots of [`DATAGRAM_CAPACITY`] bytes.
    storage: Box<[u8]>,
    lengths: [usize; BATCH],
    sources: [SocketAddr; BATCH],
    truncated: [bool; BATCH],
    filled: usize,
    next: usize,
}

impl Default for ReceiveBatch {
    fn default() -> Self {
        ReceiveBatch {
            storage: vec![0; BATCH * DATAGRAM_CAPACITY].into_boxed_slice(),
            lengths: [0; BATCH],
            sources: [NOBODY; BATCH],
            truncated: [false; BATCH],
            filled: 0,
            next: 0,
        }
    }
}

impl ReceiveBatch {
    /// A batch for `socket`; there is no receive offload to ask for here.
    pub fn for_socket(_socket: ENetSocket, _offload: bool) -> Self {
        Self::default()
    }

    /// Whether datagrams read earlier are still waiting.
    pub fn has_pending(&self) -> bool {
        self.next < self.filled
    }

    /// Reads that carried several datagrams coalesced: never here.
    pub fn coalesced(&self) -> u64 {
        0
    }

    /// The next datagram read earlier, if any.
    pub fn pop(&mut self) -> Option<Datagram<'_>> {
        if self.next >= self.filled {
            return None;
        }
        let index = self.next;
        self.next += 1;
        if self.truncated[index] {
            return Some(Datagram::Truncated);
        }
        let start = index * DATAGRAM_CAPACITY;
        Some(Datagram::Received {
            from: self.sources[index],
            bytes: &mut self.storage[start..start + self.lengths[index]],
        })
    }

    /// Reads the datagrams waiting on `socket` (up to [`BATCH`]) without
    /// blocking; how many. "Nothing waiting" is `Ok(0)`. A reset (Windows
    /// reports an ICMP port-unreachable from a vanished peer as a failed
    /// receive) is skipped, as stock reads it as "nothing received".
    pub fn fill(&mut self, socket: ENetSocket) -> io::Result<usize> {
        self.filled = 0;
        self.next = 0;
        // SAFETY: a host's socket, open for the whole call.
        let socket = unsafe { sock_ref(socket) };
        for _ in 0..BATCH {
            let index = self.filled;
            let slot = &mut self.storage[index * DATAGRAM_CAPACITY..][..DATAGRAM_CAPACITY];
            // SAFETY: the system only writes initialized bytes into the
            // slot, so it stays a valid `[u8]`.
            let slot = unsafe { &mut *(slot as *mut [u8] as *mut [MaybeUninit<u8>]) };
            match socket.recv_from_vectored(&mut [MaybeUninitSlice::new(slot)]) {
                Ok((length, flags, source)) => {
                    self.lengths[index] = length;
                    self.truncated[index] = flags.is_truncated();
                    self.sources[index] = source.as_socket().map_or(NOBODY, normalized);
                    self.filled += 1;
                }
                Err(error) => match error.kind() {
                    ErrorKind::WouldBlock | ErrorKind::Interrupted => break,
                    ErrorKind::ConnectionReset => continue,
                    _ if self.filled > 0 => break,
                    _ => return Err(error),
                },
            }
        }
        Ok(self.filled)
    }
}

/// Datagrams waiting to be sent.
pub struct SendBatch {
    datagrams: OutgoingDatagrams,
    /// Datagrams handed to the system, since creation.
    messages: u64,
    /// Whether the socket is IPv6, so IPv4 addresses go as mapped ones.
    ipv6_socket: bool,
    /// The socket has don't-fragment set (path MTU discovery): a datagram
    /// the system refuses as too large is noted in `too_big` and skipped,
    /// rather than failing the send.
    dont_fragment: bool,
    too_big: Vec<(SocketAddr, usize)>,
}

impl SendBatch {
    /// An empty batch for an IPv4 socket or an IPv6 one; there is no
    /// segmentation offload to use here.
    pub fn new(_segmenting: bool, ipv6_socket: bool) -> Self {
        SendBatch {
            datagrams: OutgoingDatagrams::default(),
            messages: 0,
            ipv6_socket,
            dont_fragment: false,
            too_big: Vec::new(),
        }
    }

    /// Queues a datagram to `to` (`grouping` matters only where runs are
    /// sent segmented).
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

    /// Datagrams handed to the system since creation.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// Sends everything pushed, one call each. A full send buffer drops
    /// the rest, as a would-block send drops a datagram in stock ENet; any
    /// other error is returned (the batch is emptied either way).
    pub fn flush(&mut self, socket: ENetSocket) -> io::Result<()> {
        // SAFETY: a host's socket, open for the whole call.
        let socket = unsafe { sock_ref(socket) };
        let mut result = Ok(());
        for (waiting, bytes) in self.datagrams.iter_from(0) {
            let to = SockAddr::from(self.socket_form(waiting.to));
            match socket.send_to(bytes, &to) {
                Ok(_) => self.messages += 1,
                Err(error) if error.kind() == ErrorKind::WouldBlock => break,
                Err(error) if self.dont_fragment && is_too_big(&error) => {
                    self.too_big.push((waiting.to, waiting.length));
                }
                Err(error) => {
                    result = Err(error);
                    break;
                }
            }
        }
        self.datagrams.clear();
        result
    }

    /// `to` as the socket takes it: an IPv6 socket reaches IPv4 peers at
    /// their mapped addresses.
    fn socket_form(&self, to: SocketAddr) -> SocketAddr {
        match to {
            SocketAddr::V4(v4) if self.ipv6_socket => {
                SocketAddr::V6(SocketAddrV6::new(v4.ip().to_ipv6_mapped(), v4.port(), 0, 0))
            }
            other => other,
        }
    }
}

/// Whether a send failed for a datagram larger than the path the system
/// knows (with don't-fragment set).
fn is_too_big(error: &io::Error) -> bool {
    #[cfg(unix)]
    let code = libc::EMSGSIZE;
    #[cfg(windows)]
    let code = 10040; // WSAEMSGSIZE
    error.raw_os_error() == Some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::host_socket::{self, HostSocketOptions};
    use crate::net::socket;

    fn bound(at: &str) -> (ENetSocket, SocketAddr) {
        let (socket, _, address) = host_socket::open(&HostSocketOptions {
            bind: Some(at.parse().unwrap()),
            ipv6_only: false,
            reuse_port: false,
        })
        .unwrap();
        (socket, address)
    }

    /// Everything that arrives within about a second, until `expected`.
    fn receive_all(socket: ENetSocket, expected: usize) -> Vec<(SocketAddr, Option<Vec<u8>>)> {
        let mut batch = ReceiveBatch::default();
        let mut seen = Vec::new();
        for _ in 0..1000 {
            while batch.fill(socket).unwrap() > 0 {
                while let Some(datagram) = batch.pop() {
                    seen.push(match datagram {
                        Datagram::Received { from, bytes } => (from, Some(bytes.to_vec())),
                        Datagram::Truncated => (NOBODY, None),
                    });
                }
            }
            if seen.len() >= expected {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        seen
    }

    #[test]
    fn datagrams_cross_in_order_more_than_a_batch_at_a_time() {
        let (receiver, receiver_address) = bound("127.0.0.1:0");
        let (sender, sender_address) = bound("127.0.0.1:0");
        let mut outgoing = SendBatch::new(true, false);
        for index in 0..(BATCH + 5) {
            outgoing.push(
                &receiver_address,
                &[index as u8; 100][..index + 1],
                Grouping::Windowed,
            );
        }
        outgoing.flush(sender).unwrap();
        assert!(outgoing.is_empty());
        assert_eq!(outgoing.messages(), (BATCH + 5) as u64);
        let seen = receive_all(receiver, BATCH + 5);
        assert_eq!(seen.len(), BATCH + 5);
        for (index, (from, bytes)) in seen.iter().enumerate() {
            assert_eq!(*from, sender_address);
            assert_eq!(bytes.as_deref(), Some(&vec![index as u8; index + 1][..]));
        }
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn a_dual_stack_socket_reaches_and_names_ipv4_peers_as_ipv4() {
        let (dual, dual_address) = bound("[::]:0");
        let (plain, plain_address) = bound("127.0.0.1:0");
        let mut outgoing = SendBatch::new(false, true);
        outgoing.push(&plain_address, b"to a v4 peer", Grouping::Alone);
        outgoing.flush(dual).unwrap();
        let seen = receive_all(plain, 1);
        assert_eq!(seen[0].1.as_deref(), Some(&b"to a v4 peer"[..]));
        let mut back = SendBatch::new(false, false);
        let dual_v4 = SocketAddr::from(([127, 0, 0, 1], dual_address.port()));
        back.push(&dual_v4, b"back", Grouping::Alone);
        back.flush(plain).unwrap();
        assert_eq!(
            receive_all(dual, 1),
            vec![(plain_address, Some(b"back".to_vec()))]
        );
        socket::destroy(dual);
        socket::destroy(plain);
    }

    #[test]
    fn an_oversized_datagram_is_reported_truncated_and_the_next_one_arrives() {
        let (receiver, receiver_address) = bound("127.0.0.1:0");
        let (sender, _) = bound("127.0.0.1:0");
        let mut outgoing = SendBatch::new(false, false);
        outgoing.push(
            &receiver_address,
            &[1; DATAGRAM_CAPACITY + 100],
            Grouping::Alone,
        );
        outgoing.push(&receiver_address, b"after", Grouping::Alone);
        outgoing.flush(sender).unwrap();
        let seen = receive_all(receiver, 2);
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].1, None);
        assert_eq!(seen[1].1.as_deref(), Some(&b"after"[..]));
        socket::destroy(receiver);
        socket::destroy(sender);
    }
}
