//! The host's socket and its batches; the engine runs over them through
//! enet-rs's own socket transport.

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

    /// The engine's transport over this socket, for one call.
    pub(crate) fn transport(&mut self) -> SocketTransport<'_> {
        SocketTransport {
            socket: self.socket,
            wake: None,
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
