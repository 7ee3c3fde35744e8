//! The host's socket and the system clock as the engine's `Transport`:
//! datagrams read and sent in batches (`recvmmsg` / `sendmmsg`).

use std::net::SocketAddr;

use enet::abi::{ENetSocket, ENetSocketWait};
use enet::net::batch::{Datagram, ReceiveBatch, SendBatch};
use enet::net::{clock, socket};
use enet::proto::{ServiceFailed, Transport};

const WAIT_RECEIVE: u32 = ENetSocketWait::ENET_SOCKET_WAIT_RECEIVE as u32;
const WAIT_INTERRUPT: u32 = ENetSocketWait::ENET_SOCKET_WAIT_INTERRUPT as u32;

/// A host's socket with its batches.
pub(crate) struct SocketTransport {
    pub(crate) socket: ENetSocket,
    received: ReceiveBatch,
    outgoing: SendBatch,
}

impl SocketTransport {
    pub(crate) fn new(socket: ENetSocket, ipv6_socket: bool) -> Self {
        SocketTransport {
            socket,
            received: ReceiveBatch::for_socket(socket, false),
            outgoing: SendBatch::new(false, ipv6_socket),
        }
    }
}

impl Transport for SocketTransport {
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
            // An oversized datagram is skipped.
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
        match socket::wait(self.socket, WAIT_RECEIVE | WAIT_INTERRUPT, ms) {
            Err(_) => Err(ServiceFailed),
            Ok(condition) => Ok(condition & WAIT_INTERRUPT == 0),
        }
    }
}

impl Drop for SocketTransport {
    fn drop(&mut self) {
        socket::destroy(self.socket);
    }
}
