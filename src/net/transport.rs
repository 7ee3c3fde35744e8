//! A host's socket and the system clock as the engine's [`Transport`]:
//! datagrams read and sent in batches (`recvmmsg` / `sendmmsg`), and a
//! wait that other threads can cut short through an eventfd. The C
//! driver (`ffi::host`) and the safe Rust API (`enet-safe`) both run the
//! engine over it.

use core::ffi::c_int;
use std::net::SocketAddr;

use super::batch::{Datagram, ReceiveBatch, SendBatch};
use super::{clock, socket};
use crate::abi::{ENetSocket, ENetSocketWait};
use crate::proto::{ServiceFailed, Transport};

const WAIT_RECEIVE: u32 = ENetSocketWait::ENET_SOCKET_WAIT_RECEIVE as u32;
const WAIT_INTERRUPT: u32 = ENetSocketWait::ENET_SOCKET_WAIT_INTERRUPT as u32;

/// The socket and the system clock, as the engine's [`Transport`].
pub struct SocketTransport<'a> {
    pub socket: ENetSocket,
    /// The eventfd other threads wake the host with, if they may.
    pub wake: Option<c_int>,
    pub received: &'a mut ReceiveBatch,
    pub outgoing: &'a mut SendBatch,
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
        if let Some(wake) = self.wake {
            return match socket::wait_receive_or_wake(self.socket, wake, ms) {
                Err(_) => Err(ServiceFailed),
                Ok(woken) => Ok(woken == socket::Woken::Ready),
            };
        }
        match socket::wait(self.socket, WAIT_RECEIVE | WAIT_INTERRUPT, ms) {
            Err(_) => Err(ServiceFailed),
            Ok(condition) => Ok(condition & WAIT_INTERRUPT == 0),
        }
    }
}
