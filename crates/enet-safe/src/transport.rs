//! The host's socket and its batches; the engine runs over them through
//! enet-rs's own socket transport, as the C library's hosts do.

use enet::abi::ENetSocket;
use enet::net::socket;
use enet::net::sys::Waker;
use enet::net::transport::{SocketIo, SocketTransport};

/// A host's socket with its datagram batches; closes the socket when
/// dropped.
pub(crate) struct HostSocket {
    socket: ENetSocket,
    io: SocketIo,
}

impl HostSocket {
    pub(crate) fn new(socket: ENetSocket, ipv6_socket: bool) -> Self {
        HostSocket {
            socket,
            io: SocketIo::new(socket, ipv6_socket),
        }
    }

    /// The engine's transport over this socket, for one call; its waits
    /// also end when `waker` (a sender's) is woken.
    /// The socket's batches and network conditioner.
    pub(crate) fn io(&mut self) -> &mut SocketIo {
        &mut self.io
    }

    pub(crate) fn transport<'a>(&'a mut self, waker: Option<&'a Waker>) -> SocketTransport<'a> {
        self.io.transport(self.socket, waker)
    }
}

impl Drop for HostSocket {
    fn drop(&mut self) {
        socket::destroy(self.socket);
    }
}
