//! A host's socket and the system clock as the engine's [`Transport`]:
//! datagrams read and sent in the platform's batches, and a wait that
//! other threads can cut short through a [`Waker`]. The C driver
//! (`ffi::host`) and the safe Rust API (`enet-safe`) both run the engine
//! over it, with the batches of one [`SocketIo`] each. A host with a
//! network conditioner ([`Conditioner`]) has its datagrams pass it here,
//! one by one, between the engine and the batches.

use std::net::SocketAddr;
use std::ops::Range;

use super::batch::Datagram;
use super::netsim::Conditioner;
use super::sys::{ReceiveBatch, SendBatch, WaitSet, Waker, Woken, WAIT_INTERRUPT, WAIT_RECEIVE};
use super::{clock, socket};
use crate::abi::ENetSocket;
use crate::proto::{Grouping, ServiceFailed, Transmitted, Transport};

/// A host's datagram batches, kept between service calls (an event can
/// end a call halfway through a batch).
pub struct SocketIo {
    received: ReceiveBatch,
    outgoing: SendBatch,
    /// The host's network conditioner, if it has one.
    netsim: Option<Box<Conditioner>>,
    /// Datagrams skipped for being longer than the receive buffer.
    oversized: u64,
    /// What a program's own event loop waits on for the socket, once it
    /// asked (`endpoint/wait.rs`).
    wait_set: Option<WaitSet>,
}

impl SocketIo {
    /// Batches for a host's `socket` (IPv6 or not), with UDP offload where
    /// the system has it if `offload` allows it, and no network
    /// conditioner.
    pub fn new(socket: ENetSocket, ipv6_socket: bool, offload: bool) -> Self {
        SocketIo {
            received: ReceiveBatch::for_socket(socket, offload),
            outgoing: SendBatch::new(offload, ipv6_socket),
            netsim: None,
            oversized: 0,
            wait_set: None,
        }
    }

    /// Replaces the network conditioner (`None`: none). What the old one
    /// held is dropped, as a network that went away loses it.
    pub fn set_netsim(&mut self, netsim: Option<Box<Conditioner>>) {
        self.netsim = netsim;
    }

    /// The network conditioner, if there is one.
    pub fn netsim(&self) -> Option<&Conditioner> {
        self.netsim.as_deref()
    }

    /// Datagrams skipped so far for being longer than ENet's largest.
    pub fn oversized(&self) -> u64 {
        self.oversized
    }

    /// The wait handle, if a program asked for one.
    pub fn wait_set(&self) -> Option<&WaitSet> {
        self.wait_set.as_ref()
    }

    /// Keeps the wait handle (`None` closes it).
    pub fn set_wait_set(&mut self, wait_set: Option<WaitSet>) {
        self.wait_set = wait_set;
    }

    /// Whether datagrams already read from the socket wait in the batch
    /// (a read takes many at once, or one coalesced run): a wait on the
    /// socket does not show them.
    pub fn has_received(&self) -> bool {
        self.received.has_pending()
    }

    /// Milliseconds until the conditioner releases a copy it holds (0: one
    /// is due), `None` without a conditioner or a held copy. What it
    /// holds came off the socket already, so a wait on the socket does
    /// not show it.
    pub fn conditioner_due_ms(&self) -> Option<u32> {
        let netsim = self.netsim.as_deref()?;
        netsim.next_due_ms(netsim.now_us())
    }

    /// Sets don't-fragment on `socket` (path MTU discovery) or the
    /// system's default back; with it, datagrams the system refuses as too
    /// large are skipped and reported (`Transport::take_too_big`) rather
    /// than failing the send. An error if the system has no such option
    /// (the batches then keep their default).
    pub fn set_dont_fragment(&mut self, socket: ENetSocket, on: bool) -> std::io::Result<()> {
        crate::net::socket::set_dont_fragment(socket, on)?;
        self.outgoing.set_dont_fragment(on);
        Ok(())
    }

    /// The engine's transport over `socket` for one call; its waits also
    /// end when `waker` (a sender's) is woken.
    pub fn transport<'a>(
        &'a mut self,
        socket: ENetSocket,
        waker: Option<&'a Waker>,
    ) -> SocketTransport<'a> {
        SocketTransport {
            socket,
            waker,
            received: &mut self.received,
            outgoing: &mut self.outgoing,
            netsim: self.netsim.as_deref_mut(),
            oversized: &mut self.oversized,
        }
    }
}

/// The socket and the system clock, as the engine's [`Transport`].
pub struct SocketTransport<'a> {
    socket: ENetSocket,
    /// What other threads wake the host with, if they may.
    waker: Option<&'a Waker>,
    received: &'a mut ReceiveBatch,
    outgoing: &'a mut SendBatch,
    netsim: Option<&'a mut Conditioner>,
    oversized: &'a mut u64,
}

/// Datagrams the conditioner takes from the socket in one receive call
/// before it lets the engine go on (when it holds them all).
const CONDITIONED_READS: usize = 256;

/// The next datagram from the socket's batches, to `handle`.
#[inline(always)]
fn receive_raw<R>(
    socket: ENetSocket,
    received: &mut ReceiveBatch,
    oversized: &mut u64,
    handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
) -> Result<Option<R>, ServiceFailed> {
    loop {
        if !received.has_pending() {
            match received.fill(socket) {
                Ok(0) => return Ok(None),
                Ok(_) => {}
                Err(_) => return Err(ServiceFailed),
            }
        }
        // Oversized datagrams are skipped (stock 1.3.17 fails the call),
        // and counted.
        match received.pop() {
            Some(Datagram::Received { from, bytes }) => return Ok(Some(handle(from, bytes))),
            Some(Datagram::Truncated) => *oversized += 1,
            None => {}
        }
    }
}

/// What the IP and UDP headers add to a datagram to or from `address`,
/// for the conditioner's path MTU.
fn ip_headers(address: &SocketAddr) -> usize {
    match address {
        SocketAddr::V4(_) => netsim::link::IPV4_UDP_HEADERS,
        SocketAddr::V6(_) => netsim::link::IPV6_UDP_HEADERS,
    }
}

/// Queues `bytes` in the send batch, sending the batch when it is full;
/// `false` if that send failed.
#[inline(always)]
fn transmit_raw(
    socket: ENetSocket,
    outgoing: &mut SendBatch,
    to: &SocketAddr,
    bytes: &[u8],
    grouping: Grouping,
) -> bool {
    outgoing.push(to, bytes, grouping);
    flush_if_due(socket, outgoing)
}

/// Sends the batch if the datagram just queued made it due; `false` if
/// that send failed.
#[inline(always)]
fn flush_if_due(socket: ENetSocket, outgoing: &mut SendBatch) -> bool {
    !(outgoing.is_due() && outgoing.flush_due(socket).is_err())
}

/// Hands the outgoing copies due by `now_us` to the send batch.
fn release_outgoing(
    socket: ENetSocket,
    outgoing: &mut SendBatch,
    netsim: &mut Conditioner,
    now_us: u64,
) -> bool {
    let mut sent = true;
    while let Some(((to, grouping), bytes)) = netsim.outgoing.pop_due(now_us) {
        sent &= transmit_raw(socket, outgoing, &to, &bytes, grouping);
    }
    sent
}

impl SocketTransport<'_> {
    /// [`Transport::receive`] through the conditioner: a copy that is due
    /// first, else what the socket has, each taken in and held as the
    /// incoming direction decides. (Out of line, as the other conditioned
    /// paths: a host without a conditioner keeps its hot path as it was.)
    #[cold]
    #[inline(never)]
    fn receive_conditioned<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed> {
        let SocketTransport {
            socket,
            received,
            netsim,
            oversized,
            ..
        } = self;
        let Some(netsim) = netsim.as_deref_mut() else {
            return Ok(None);
        };
        let now = netsim.now_us();
        let mut due = None;
        for _ in 0..CONDITIONED_READS {
            due = netsim.incoming.pop_due(now);
            if due.is_some() {
                break;
            }
            let taken = receive_raw(*socket, received, oversized, |from, bytes| {
                netsim
                    .incoming
                    .admit_ip(now, &*bytes, from, ip_headers(&from))
            })?;
            if taken.is_none() {
                due = netsim.incoming.pop_due(now);
                break;
            }
        }
        Ok(due.map(|(from, mut bytes)| handle(from, &mut bytes)))
    }

    /// [`Transport::transmit`] through the conditioner: the datagram goes
    /// in; what is due (it too, if nothing holds it) goes out.
    #[cold]
    #[inline(never)]
    fn transmit_conditioned(
        &mut self,
        to: &SocketAddr,
        bytes: &[u8],
        grouping: Grouping,
    ) -> Transmitted {
        let Some(netsim) = self.netsim.as_deref_mut() else {
            return Transmitted::Failed;
        };
        let now = netsim.now_us();
        netsim
            .outgoing
            .admit_ip(now, bytes, (*to, grouping), ip_headers(to));
        if !release_outgoing(self.socket, self.outgoing, netsim, now) {
            return Transmitted::Failed;
        }
        Transmitted::Sent(bytes.len())
    }

    /// Sends the outgoing copies that are due.
    #[cold]
    #[inline(never)]
    fn release_conditioned(&mut self) -> Result<(), ServiceFailed> {
        if let Some(netsim) = self.netsim.as_deref_mut() {
            let now = netsim.now_us();
            if !release_outgoing(self.socket, self.outgoing, netsim, now) {
                return Err(ServiceFailed);
            }
        }
        Ok(())
    }

    /// How long [`Transport::wait`] may wait for the socket before a held
    /// copy is due: `Ok(None)` for the whole `ms`, else whether the
    /// shortened wait was woken (it always counts as woken, so the caller
    /// goes round again to send or receive the copy).
    #[cold]
    #[inline(never)]
    fn wait_conditioned(&mut self, ms: u32) -> Result<Option<bool>, ServiceFailed> {
        let Some(netsim) = self.netsim.as_deref() else {
            return Ok(None);
        };
        match netsim.next_due_ms(netsim.now_us()) {
            Some(0) => Ok(Some(true)),
            Some(left) if left < ms => {
                self.wait_socket(left)?;
                Ok(Some(true))
            }
            _ => Ok(None),
        }
    }
}

impl Transport for SocketTransport<'_> {
    fn now(&mut self) -> u32 {
        clock::now()
    }

    fn receive<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed> {
        if self.netsim.is_some() {
            return self.receive_conditioned(handle);
        }
        receive_raw(self.socket, self.received, self.oversized, handle)
    }

    fn transmit(&mut self, to: &SocketAddr, bytes: &[u8], grouping: Grouping) -> Transmitted {
        if self.netsim.is_some() {
            return self.transmit_conditioned(to, bytes, grouping);
        }
        if !transmit_raw(self.socket, self.outgoing, to, bytes, grouping) {
            return Transmitted::Failed;
        }
        Transmitted::Sent(bytes.len())
    }

    fn transmit_buffer(
        &mut self,
        to: &SocketAddr,
        buffer: &mut Vec<u8>,
        range: Range<usize>,
        grouping: Grouping,
    ) -> Transmitted {
        if self.netsim.is_some() {
            // The conditioner keeps copies of what it holds.
            return self.transmit_range(to, buffer, range, grouping);
        }
        let length = range.len();
        if !(self.outgoing.push_buffer(to, buffer, range, grouping)
            && flush_if_due(self.socket, self.outgoing))
        {
            return Transmitted::Failed;
        }
        Transmitted::Sent(length)
    }

    fn take_too_big(&mut self, into: &mut Vec<(SocketAddr, usize)>) {
        self.outgoing.take_too_big(into);
    }

    // Inline: an idle host's every send phase ends with it.
    #[inline]
    fn flush(&mut self) -> Result<(), ServiceFailed> {
        if self.netsim.is_some() {
            self.release_conditioned()?;
        }
        self.outgoing.end_pass();
        self.outgoing.flush(self.socket).map_err(|_| ServiceFailed)
    }

    fn wait(&mut self, ms: u32) -> Result<bool, ServiceFailed> {
        // A held copy shortens the wait to when it is due.
        if self.netsim.is_some() {
            if let Some(woken) = self.wait_conditioned(ms)? {
                return Ok(woken);
            }
        }
        self.wait_socket(ms)
    }
}

impl SocketTransport<'_> {
    /// Waits up to `ms` for the socket (or the waker); `false` when a
    /// signal cut the wait short.
    fn wait_socket(&mut self, ms: u32) -> Result<bool, ServiceFailed> {
        if let Some(waker) = self.waker {
            return match waker.wait(self.socket, ms) {
                Err(_) => Err(ServiceFailed),
                Ok(woken) => Ok(woken == Woken::Ready),
            };
        }
        match socket::wait(self.socket, WAIT_RECEIVE | WAIT_INTERRUPT, ms) {
            Err(_) => Err(ServiceFailed),
            Ok(condition) => Ok(condition & WAIT_INTERRUPT == 0),
        }
    }
}
