//! One host's assembly, for both APIs: the engine's host with its socket
//! I/O, the socket's address family, the queue other threads send
//! through, and the encryption. The C library's `ENetHost *` and the safe
//! Rust API's `Host` are both an [`Endpoint`], made by one
//! [`HostBuilder`].
//!
//! It sits above `net` and `dtls`, which it puts together, and below
//! `ffi`, which hands it to C. Its one `unsafe` block is the host's
//! construction in its heap place (`builder.rs`); everything else here is
//! safe code.
#![deny(unsafe_code)]

mod builder;
mod path_mtu;
mod seed;
mod stats;
mod wait;

use core::ops::{Deref, DerefMut};
use std::sync::Arc;

use crate::dtls::{MaybeSecure, SecureLayer};
use crate::net::host_socket::SocketFamily;
use crate::net::netsim::Conditioner;
use crate::net::request_queue::RequestQueue;
use crate::net::socket;
use crate::net::transport::{SocketIo, SocketTransport};
use crate::proto::Host;

pub use builder::{packet_pool_switches, BoundSocket, HostBuilder};
pub use seed::random_seed;
pub use stats::{DatagramDrop, HostStats, DATAGRAM_DROPS};
pub use wait::RawWaitHandle;

/// A host and everything it runs over. The engine's host comes first, so
/// the `ENetHost *` C code holds (the engine host's first field) points at
/// the whole of this.
#[repr(C)]
pub struct Endpoint {
    pub(crate) host: Host,
    /// The datagram batches of the host's socket (`host.public.socket`)
    /// and its network conditioner.
    pub(crate) io: SocketIo,
    /// Which peers the socket reaches (IPv4 for a stock host).
    pub(crate) family: SocketFamily,
    /// Requests from other threads, once a sender was asked for.
    pub(crate) requests: Option<Arc<RequestQueue>>,
    /// The host's encryption, once it was set up.
    pub(crate) secure: Option<Box<SecureLayer>>,
}

/// An endpoint, and what its owner keeps beside it in the same allocation
/// but outside it: the C library keeps its re-entrancy guard there, which
/// a call from one of the host's callbacks reads while the endpoint itself
/// is borrowed by the call the callback runs in. The endpoint comes first,
/// so the `ENetHost *` still points at the whole allocation.
#[repr(C)]
pub struct Housed<X> {
    pub endpoint: Endpoint,
    pub beside: X,
}

impl<X> Deref for Housed<X> {
    type Target = Endpoint;
    fn deref(&self) -> &Endpoint {
        &self.endpoint
    }
}

impl<X> DerefMut for Housed<X> {
    fn deref_mut(&mut self) -> &mut Endpoint {
        &mut self.endpoint
    }
}

impl Deref for Endpoint {
    type Target = Host;
    fn deref(&self) -> &Host {
        &self.host
    }
}

impl DerefMut for Endpoint {
    fn deref_mut(&mut self) -> &mut Host {
        &mut self.host
    }
}

impl Endpoint {
    /// Which peers the host's socket reaches.
    pub fn family(&self) -> SocketFamily {
        self.family
    }

    /// The host's queue for requests from other threads, made on first
    /// use; `None` if the system refuses a waker.
    pub fn request_queue(&mut self) -> Option<Arc<RequestQueue>> {
        if self.requests.is_none() {
            let queue = RequestQueue::new(self.host.generations())?;
            self.requests = Some(Arc::new(queue));
        }
        self.requests.clone()
    }

    /// The host's encryption, made on the first set-up; `None` once a
    /// peer is in use without one, since a host never turns from plain to
    /// encrypted under a connection.
    pub fn secure_layer(&mut self) -> Option<&mut SecureLayer> {
        if self.secure.is_none() {
            if self.has_peers() {
                return None;
            }
            self.secure = Some(Box::default());
            self.host
                .set_datagram_overhead(crate::dtls::RECORD_OVERHEAD);
        }
        self.secure.as_deref_mut()
    }

    /// The host's encryption, if it was set up.
    pub fn secure(&self) -> Option<&SecureLayer> {
        self.secure.as_deref()
    }

    /// Whether any peer slot is in use (not disconnected).
    fn has_peers(&self) -> bool {
        self.host.peer_indices().any(|index| {
            self.host.peer(index).state != crate::abi::ENetPeerState::ENET_PEER_STATE_DISCONNECTED
        })
    }

    /// Replaces the network conditioner (`None`: none).
    pub fn set_netsim(&mut self, netsim: Option<Box<Conditioner>>) {
        self.io.set_netsim(netsim);
    }

    /// The network conditioner, if the host has one.
    pub fn netsim(&self) -> Option<&Conditioner> {
        self.io.netsim()
    }

    /// Runs `call` on the engine with the host's transport (its socket,
    /// woken by its senders, through its DTLS sessions if it encrypts)
    /// and its request queue, if it has one.
    pub fn run<R>(
        &mut self,
        call: impl FnOnce(
            &mut Host,
            &mut MaybeSecure<'_, SocketTransport<'_>>,
            Option<&RequestQueue>,
        ) -> R,
    ) -> R {
        let Endpoint {
            host,
            io,
            requests,
            secure,
            ..
        } = self;
        let requests = requests.as_deref();
        let socket = io.transport(host.public.socket, requests.map(RequestQueue::waker));
        let mut transport = MaybeSecure::new(socket, secure.as_deref_mut());
        call(host, &mut transport, requests)
    }

    /// Ends the host before its memory goes: other threads' senders are
    /// refused from then on (what they queued is dropped), the socket is
    /// closed, and every peer is reset, releasing its queued packets. Call
    /// it once; the host may only be dropped after.
    pub fn close(&mut self) {
        // Before the waker it watches may go with the request queue.
        self.io.set_wait_set(None);
        if let Some(requests) = self.requests.take() {
            requests.close();
        }
        socket::destroy(self.host.public.socket);
        self.host.shut_down();
    }
}
