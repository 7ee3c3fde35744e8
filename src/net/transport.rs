//! A host's socket and the system clock as the engine's [`Transport`]:
//! datagrams read and sent in the platform's batches, and a wait that
//! other threads can cut short through a [`Waker`]. The C driver
//! (`ffi::host`) and the safe Rust API (`enet-safe`) both run the engine
//! over it, with the batches of one [`SocketIo`] each.

use std::net::SocketAddr;

use super::batch::{offload_allowed_by_env, Datagram, ReceiveBatch, SendBatch};
use super::sys::{Waker, Woken};
use super::{clock, socket};
use crate::abi::{ENetSocket, ENetSocketWait};
use crate::proto::{ServiceFailed, Transport};

const WAIT_RECEIVE: u32 = ENetSocketWait::ENET_SOCKET_WAIT_RECEIVE as u32;
const WAIT_INTERRUPT: u32 = ENetSocketWait::ENET_SOCKET_WAIT_INTERRUPT as u32;

/// A host's datagram batches, kept between service calls (an event can
/// end a call halfway through a batch).
pub struct SocketIo {
    received: ReceiveBatch,
    outgoing: SendBatch,
}

impl SocketIo {
    /// Batches for a host's `socket` (IPv6 or not), with UDP offload where
    /// the system has it unless `ENET_RS_UDP_OFFLOAD=off`.
    pub fn new(socket: ENetSocket, ipv6_socket: bool) -> Self {
        let offload = offload_allowed_by_env();
        SocketIo {
            received: ReceiveBatch::for_socket(socket, offload),
            outgoing: SendBatch::new(offload, ipv6_socket),
        }
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
}

impl Transport for SocketTransport<'_> {
    fn now(&mut self) -> u32 {
        clock::now()
    }

    fn receive<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &[u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed> {
        loop {
            if !self.received.has_pending() {
                match self.received.fill(self.socket) {
                    Ok(0) => return Ok(None),
                    Ok(_) => {}
                    Err(_) => return Err(ServiceFailed),
                }
            }
            // Oversized datagrams are skipped (stock 1.3.17 fails the call).
            if let Some(Datagram::Received { from, bytes }) = self.received.pop() {
                return Ok(Some(handle(from, bytes)));
            }
        }
    }

    fn transmit(&mut self, to: &SocketAddr, bytes: &[u8], windowed: bool) -> isize {
        self.outgoing.push(to, bytes, windowed);
        if self.outgoing.is_full() && self.outgoing.flush(self.socket).is_err() {
            return -1;
        }
        bytes.len() as isize
    }

    fn flush(&mut self) -> Result<(), ServiceFailed> {
        self.outgoing.flush(self.socket).map_err(|_| ServiceFailed)
    }

    fn wait(&mut self, ms: u32) -> Result<bool, ServiceFailed> {
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
