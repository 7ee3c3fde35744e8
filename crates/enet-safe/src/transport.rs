//! The host's socket and its batches; the engine runs over them through
//! enet-rs's own socket transport.

use std::ffi::c_int;

use enet::abi::ENetSocket;
use enet::net::batch::{ReceiveBatch, SendBatch};
use enet::net::socket;
use enet::net::transport::SocketTransport;

/// A host's socket with its receive and send batches; closes the socket
/// when dropped.
pub(crate) struct HostSocket {
    socket: ENetSocket,
    received: ReceiveBatch,
    outgoing: SendBatch,
}

impl HostSocket {
    pub(crate) fn new(socket: ENetSocket, ipv6_socket: bool) -> Self {
        HostSocket {
            socket,
            received: ReceiveBatch::for_socket(socket, false),
            outgoing: SendBatch::new(false, ipv6_socket),
        }
    }

    /// The engine's transport over this socket, for one call; its waits
    /// also end when `wake` (a sender's eventfd) is signalled.
    pub(crate) fn transport(&mut self, wake: Option<c_int>) -> SocketTransport<'_> {
        SocketTransport {
            socket: self.socket,
            wake,
            received: &mut self.received,
            outgoing: &mut self.outgoing,
        }
    }
}

impl Drop for HostSocket {
    fn drop(&mut self) {
        socket::destroy(self.socket);
    }
}
